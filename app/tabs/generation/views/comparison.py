"""The views of the comparison shown (a ``Shown``: the baselines' comparison with
GraphRNN's row merged in, and the family it is of): the gallery of training and
generated graphs, and the MMD table as bars."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.generation.options import FOLDER, METHODS, SAMPLES, GenerationRequest
from models.traces.generation import GenerationData, GenerationTrace, GraphSet
from viz.graph_gallery import GraphGallery, MMDBars

#: QCoreApplication.translate, with the strings literal for the extraction tool
translate = QCoreApplication.translate
#: a gallery row with no graphs (yet)
NO_GRAPHS = GraphSet(num_nodes=np.zeros(0, np.int64), edges=np.zeros((0, 2), np.int64),
                     edge_offsets=np.zeros(1, np.int64))


@dataclass(frozen=True)
class Shown:
    """The comparison shown (None while the family's baselines are being made) and the
    family it is of."""

    comparison: GenerationTrace | None
    data: GenerationData | None = None


def seconds_text(s: float) -> str:
    if s < 10:
        return translate("GenerationTab", "{0:.2f} s").format(s)
    return translate("GenerationTab", "{0:.0f} s").format(s)


def method_colour(method: str) -> int:
    """A method keeps its series colour in every view."""
    return METHODS.index(method)


def family_label(data: GenerationData | None) -> str:
    """The family shown, in a few words (a folder by its name)."""
    if data is None:
        return ""
    if data.dataset == FOLDER:
        return translate("GenerationTab", "folder “{0}”").format(data.name)
    return {"community": translate("GenerationTab", "two communities"),
            "grid": translate("GenerationTab", "grids"),
            "ego": translate("GenerationTab", "ego networks")}.get(data.dataset, data.dataset)


def row_labels(shown: GenerationTrace) -> dict[str, str]:
    labels = {"graphrnn": translate("GenerationTab", "GraphRNN"),
              "er": translate("GenerationTab", "Erdős–Rényi"),
              "ba": translate("GenerationTab", "Barabási–Albert"),
              "sbm": translate("GenerationTab", "stochastic block model")}
    if "graphrnn" in shown.methods:
        labels["graphrnn"] = translate("GenerationTab", "GraphRNN (step {0})").format(
            shown.best_step) if len(shown.losses) else translate("GenerationTab",
                                                                 "GraphRNN (untrained)")
    return labels


def _ask(request: GenerationRequest | None) -> GenerationRequest:
    return request if request is not None else GenerationRequest()


class GalleryView(TabView):
    """Training graphs on top, then one row per method compared (as in the MMD view)."""

    key = "gallery"

    def build(self) -> GraphGallery:
        return GraphGallery()

    def title(self) -> str:
        return translate("GenerationTab", "Training graphs and generated graphs")

    def draw(self, shown: Shown, request: GenerationRequest | None) -> None:
        c, ask = shown.comparison, _ask(request)
        if c is None:
            self.plot.set_rows([], [], [], 0)
            self.plot.set_hint(translate("GenerationTab", "Making the graphs…"))
            self.set_readout("")
            return
        labels = row_labels(c)
        names = [translate("GenerationTab", "training"), *[labels[m] for m in c.methods]]
        sets = [c.training, *c.samples]
        colours = [None, *[method_colour(m) for m in c.methods]]
        waiting = "graphrnn" in ask.methods and "graphrnn" not in c.methods
        if waiting:
            # GraphRNN's row, empty until Compare samples it: the thumbnails keep their
            # size (a row added by Compare shrank them all and left a strip beside them)
            names.insert(1, labels["graphrnn"])         # the read-out: "press Compare"
            sets.insert(1, NO_GRAPHS)
            colours.insert(1, method_colour("graphrnn"))
        columns = ask.shown
        self.plot.set_hint("")
        self.plot.set_rows(names, sets, colours, columns)
        readout = translate(
            "GenerationTab", "{0}: {1} training graphs, {2} held out · first {3} of each row; "
            "seed {4}").format(family_label(shown.data), c.train_count, c.held_out, columns,
                               c.seed)
        if waiting:
            readout += translate("GenerationTab", " · GraphRNN: press Compare")
        self.set_readout(readout)

    def data(self) -> ViewData | None:
        """Every node drawn (row, graph, node, x, y) and every edge (row, graph, u, v); row
        0 is the training graphs, then the methods in the order of ``meta["rows"]``."""
        shown = self.trace.comparison if self.trace is not None else None
        if shown is None:
            return None
        columns = _ask(self.request).shown
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


class MMDView(TabView):
    """MMD² of degree and clustering histograms and of orbit counts per method, and the
    training graphs' own distance to the held-out graphs (the level a perfect generator
    reaches)."""

    key = "mmd"

    def build(self) -> MMDBars:
        return MMDBars()

    def title(self) -> str:
        return translate("GenerationTab", "MMD² to held-out graphs, lower is "
                                          "closer (GraphRNN's three distances)")

    def draw(self, shown: Shown, request) -> None:
        c = shown.comparison
        titles = [translate("GenerationTab", "degree"),
                  translate("GenerationTab", "clustering"),
                  translate("GenerationTab", "orbits")]
        if c is None:
            self.plot.set_table([], np.zeros((0, len(titles))), titles, [])
            self.plot.set_hint(translate("GenerationTab", "Making the graphs…"))
            self.set_readout("")
            return
        labels = row_labels(c)
        # the names only (no wall times): with three statistics side by side, longer names
        # pushed the orbit column past the view's edge at 1280 × 800
        names = [labels[m] for m in c.methods]
        names.append(translate("GenerationTab", "training graphs"))
        values = np.concatenate([c.mmd, c.reference_mmd[None]])
        colours = [method_colour(m) for m in c.methods] + [None]
        self.plot.set_hint("")
        self.plot.set_table(names, values, titles, colours)
        times = ", ".join(f"{labels[m]} {seconds_text(float(s))}"
                          for m, s in zip(c.methods, c.seconds, strict=True))
        text = translate(
            "GenerationTab", "{0} held-out graphs, {1} samples per method; the last row is the "
            "training graphs themselves (the floor) · time to fit and sample: {2}").format(
            c.held_out, SAMPLES, times)
        if not np.isfinite(values[:, 2]).all():
            text += translate("GenerationTab", " · orbits not counted where “—” (graphs too "
                              "dense, or a file saved before they were)")
        self.set_readout(text)

    def data(self) -> ViewData | None:
        """MMD² (degree, clustering) and wall time per method, the reference row last."""
        shown = self.trace.comparison if self.trace is not None else None
        if shown is None:
            return None
        values = np.concatenate([shown.mmd, shown.reference_mmd[None]])
        seconds = np.concatenate([shown.seconds, [np.nan]]).astype(np.float32)
        table = np.column_stack([values, seconds]).astype(np.float32)
        return ViewData("mmd", {"mmd": table},
                        {"kernel": shown.kernel, "held_out": shown.held_out,
                         "train_count": shown.train_count, "samples": SAMPLES,
                         "dataset": shown.dataset, "seed": shown.seed,
                         "best_step": shown.best_step if "graphrnn" in shown.methods
                         else None},
                        row_labels=[*shown.methods, "training (reference)"],
                        col_labels=[f"{s}_mmd2" for s in shown.statistics] + ["seconds"])
