"""``load_graph_folder``: the student's own set of small graphs, one file per graph.

Each file is read by ``models.graphs.load_graph`` (so it stays data: XML through
defusedxml, no pickle, no eval) and becomes a plain undirected ``nx.Graph`` on
``0 … n-1`` (a directed graph's edges lose their direction, self-loops are dropped), named
after its file in ``g.graph["name"]``. Files of other kinds (a README, a picture) and
hidden files are passed over; a graph file that cannot be read stops the loading with a
``GraphLoadError`` that names it, as do too many files, too large a file or graph, and a
folder with no graph in it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import networkx as nx

from models.errors import GraphLoadError, LoadCancelled
from models.generation.options import (
    MAX_FOLDER_EDGES,
    MAX_FOLDER_FILE_BYTES,
    MAX_FOLDER_GRAPHS,
    MAX_GRAPH_NODES,
)

__all__ = ["load_graph_folder", "GRAPH_EXTENSIONS"]

#: the file endings read as graphs (those of ``models.graphs.load_graph``)
GRAPH_EXTENSIONS = (".graphml", ".gexf", ".gml", ".net", ".paj", ".json", ".csv", ".tsv",
                    ".txt", ".edges", ".edgelist", ".el", ".pt", ".pth")


def load_graph_folder(path: str | os.PathLike, max_graphs: int = MAX_FOLDER_GRAPHS,
                      max_nodes: int = MAX_GRAPH_NODES, max_edges: int = MAX_FOLDER_EDGES,
                      cancelled: Callable[[], bool] | None = None,
                      progress: Callable[[float], None] | None = None) -> list[nx.Graph]:
    """Every graph file of the folder ``path`` (not its subfolders), in file-name order.
    ``progress(fraction)`` is called after each file; ``cancelled()`` turning True stops
    the reading with ``LoadCancelled``."""
    from models.graphs.readers.load import load_graph

    folder = Path(path)
    if not folder.is_dir():
        raise GraphLoadError(f"{folder.name or folder}: is not a folder.")
    try:
        entries = sorted(p for p in folder.iterdir()
                         if not p.name.startswith(".") and p.suffix.lower() in GRAPH_EXTENSIONS
                         and p.is_file())
    except OSError as e:
        raise GraphLoadError(f"{folder.name}: cannot list the folder "
                             f"({e.strerror or e}).") from e
    if not entries:
        raise GraphLoadError(
            f"{folder.name}: no graph files in the folder (one graph per file: "
            f"{', '.join(GRAPH_EXTENSIONS)}).")
    if len(entries) > max_graphs:
        raise GraphLoadError(
            f"{folder.name}: {len(entries)} graph files; a generator learns from at most "
            f"{max_graphs}. Move some of them to another folder.")
    graphs = []
    edges = 0
    for done, file in enumerate(entries):
        if cancelled is not None and cancelled():
            raise LoadCancelled(f"{folder.name}: loading cancelled.")
        size = file.stat().st_size
        if size > MAX_FOLDER_FILE_BYTES:
            raise GraphLoadError(
                f"{file.name}: the file is {size / 2**20:.1f} MB; a graph to learn from is "
                f"small (files up to {MAX_FOLDER_FILE_BYTES // 2**20} MB, up to "
                f"{max_nodes} nodes).")
        try:
            doc = load_graph(file)
        except GraphLoadError as e:
            raise GraphLoadError(f"In the folder {folder.name}, {e}") from e
        n = doc.num_nodes
        if n > max_nodes:
            raise GraphLoadError(
                f"{file.name}: {n} nodes; a generator learns from graphs of up to "
                f"{max_nodes} nodes.")
        if n < 2:
            raise GraphLoadError(
                f"{file.name}: {n} node{'s' if n != 1 else ''}; a generator learns from "
                "graphs of 2 nodes or more.")
        edges += len(doc.edges)
        if edges > max_edges:
            raise GraphLoadError(
                f"{file.name}: the folder's graphs have more than {max_edges:,} edges up to "
                f"this file; a generator learns from small graphs. Move some files to "
                "another folder.")
        g = nx.Graph(name=file.name)
        g.add_nodes_from(range(n))
        g.add_edges_from((int(u), int(v)) for u, v in doc.edges if u != v)
        graphs.append(g)
        if progress is not None:
            progress((done + 1) / len(entries))
    return graphs
