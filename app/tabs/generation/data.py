"""Export data of the graph-generation tab's views: the arrays behind each view, from what
the tab holds (the comparison shown and the GraphRNN session's losses)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData

if TYPE_CHECKING:
    from app.tabs.generation.tab import GenerationTab


def gallery_data(tab: GenerationTab) -> ViewData | None:
    """Every node drawn (row, graph, node, x, y) and every edge (row, graph, u, v); row 0
    is the training graphs, then the methods in the order of ``meta["rows"]``."""
    shown = tab.shown_comparison()
    if shown is None:
        return None
    columns = tab.show_form.values()["shown"]
    nodes, edges = [], []
    for r, graphs in enumerate((shown.training, *shown.samples)):
        offsets = graphs.node_offsets()
        for i in range(min(columns, len(graphs))):
            n, e = graphs.graph(i)
            pos = graphs.positions[offsets[i]:offsets[i] + n]
            nodes.append(np.column_stack([np.full(n, r), np.full(n, i), np.arange(n),
                                          pos]).astype(np.float32))
            edges.append(np.column_stack([np.full(len(e), r), np.full(len(e), i),
                                          e]).astype(np.int64).reshape(-1, 4))
    node_table = np.concatenate(nodes) if nodes else np.zeros((0, 5), np.float32)
    edge_table = np.concatenate(edges) if edges else np.zeros((0, 4), np.int64)
    return ViewData("nodes", {"nodes": node_table, "edges": edge_table},
                    {"rows": ["training", *shown.methods], "dataset": shown.dataset,
                     "seed": shown.seed, "graphs_per_row": columns},
                    col_labels=["row", "graph", "node", "x", "y"])


def mmd_data(tab: GenerationTab) -> ViewData | None:
    """MMD² (degree, clustering) and wall time per method, the reference row last."""
    shown = tab.shown_comparison()
    if shown is None:
        return None
    values = np.concatenate([shown.mmd, shown.reference_mmd[None]])
    seconds = np.concatenate([shown.seconds, [np.nan]]).astype(np.float32)
    table = np.column_stack([values, seconds]).astype(np.float32)
    return ViewData("mmd", {"mmd": table},
                    {"kernel": shown.kernel, "held_out": shown.held_out,
                     "train_count": shown.train_count, "samples": tab.samples,
                     "dataset": shown.dataset, "seed": shown.seed,
                     "best_step": shown.best_step if "graphrnn" in shown.methods else None},
                    row_labels=[*shown.methods, "training (reference)"],
                    col_labels=[f"{s}_mmd2" for s in shown.statistics] + ["seconds"])


def loss_data(tab: GenerationTab) -> ViewData | None:
    session = tab.current_session()
    if session is None or not session.losses:
        return None
    losses = np.asarray(session.losses, np.float32)
    data = tab.result.data if tab.result is not None else None
    return ViewData("loss", {"loss": losses[:, None]},
                    {"best_step": session.best_shown_step(),
                     "density_entropy": data.entropy if data is not None else None,
                     "select_every": session.select_every},
                    row_labels=list(range(1, len(losses) + 1)), col_labels=["bce"])
