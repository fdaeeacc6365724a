"""The views of one layer's attention: every head as a heatmap (``HeadsView``) and as
BertViz's lines (``HeadLinesView``), every layer and head as thumbnails
(``OverviewView``), and one head's query and keys neuron by neuron (``NeuronView``).
Each sees a ``Picked``; strings translate in the tab's context ("PretrainedTab")."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, Signal

from app.tabs.pretrained.views.shown import Picked
from app.tabs.view import TabView, ViewData
from viz.head_view import HeadView
from viz.mosaic import TileMosaic
from viz.neuron_view import NeuronPlot
from viz.pooled_grid import PooledHeadGrid

translate = QCoreApplication.translate

__all__ = ["PretrainedView", "HeadsView", "HeadLinesView", "OverviewView", "NeuronView"]


class PretrainedView(TabView):
    """A view of the pretrained tab: it sees a ``Picked`` (or, the generation view, a
    ``Generated``); ``keep`` hands it a new one whose picture it has drawn already."""

    def keep(self, picked) -> None:
        """The picture stays (only the query changed, which this view does not draw):
        its title and export describe ``picked`` from now on."""
        self.trace = picked
        self.panel.set_title(self.title())

    def clear_readout(self) -> None:
        """A hovered cell's read-out describes the picture drawn before: a new one (other
        tokens, masks, layer, or language) clears it until the mouse moves."""
        self.set_readout("")

    def shown(self):
        """The computed traces drawn (None before any)."""
        return self.trace.shown if self.trace is not None else None

    def layer_title(self) -> int:
        return self.trace.layer if self.trace is not None else 0


def _rows(heads: int, tokens) -> list[str]:
    return [f"h{h}:{q}" for h in range(heads) for q in tokens]


def head_names(shown, layer: int) -> list[str]:
    mask = shown.attention.head_mask[layer]
    return [translate("PretrainedTab", "head {0}").format(h)
            + ("" if mask[h] > 0.5 else " " + translate("PretrainedTab", "(off)"))
            for h in range(len(mask))]


class HeadsView(PretrainedView):
    """The chosen layer's heads as heatmaps; a click picks a head (``headChosen``)."""

    key = "heads"
    headChosen = Signal(int)  # noqa: N815 - Qt's naming

    def build(self) -> PooledHeadGrid:
        plot = PooledHeadGrid()
        plot.hovered.connect(self._hover)
        plot.headClicked.connect(self.headChosen)
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Layer {0}: every head (rows = queries, columns = "
                         "keys)").format(self.layer_title())

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        a = s.attention
        layer, head = picked.layer, picked.head
        names = head_names(s, layer)
        # a dozen heads: thumbnails without axes and short titles (the head view and the
        # neuron view name the tokens; hovering a cell here names its query and key)
        few = len(names) <= 4
        mask = a.head_mask[layer]
        short = names if few else [f"h{h}" + ("" if mask[h] > 0.5 else " ✕")
                                   for h in range(len(names))]
        self.plot.set_heads(a.weights[layer], a.tokens, a.tokens, short, selected=head,
                            swatches=True, ticks=few)
        self.clear_readout()

    def _hover(self, head, row, col, value) -> None:
        s = self.shown()
        if head < 0 or s is None:
            self.set_readout("")
            return
        t = s.attention.tokens
        self.set_readout(translate("PretrainedTab", "head {0}: query {1} “{2}” → key {3} "
                                   "“{4}”: {5:.3f}").format(head, row, t[row], col, t[col],
                                                            value))

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None:
            return None
        w = s.attention.weights[self.trace.layer]
        return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                    "all_layers": s.attention.weights}, self.trace.meta(),
                        row_labels=_rows(w.shape[0], s.attention.tokens),
                        col_labels=list(s.attention.tokens))


class HeadLinesView(PretrainedView):
    """BertViz's head view of the chosen layer: a line from each query to each key, its
    opacity the weight; hovering a token keeps its lines only. The lines are drawn into
    a cached image by ``viz.head_view``."""

    key = "head_view"

    def build(self) -> HeadView:
        plot = HeadView()
        plot.hovered.connect(self._hover)
        self._followed: tuple | None = None
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Head view, layer {0}: line opacity = weight"
                         ).format(self.layer_title())

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        a = s.attention
        layer, head = picked.layer, picked.head
        self.plot.set_heads(a.weights[layer], a.tokens, a.tokens, head_names(s, layer),
                            selected=head, titles=(translate("PretrainedTab", "queries"),
                                                   translate("PretrainedTab", "keys")))
        self._follow_head(s.model_id)
        # the token the head view keeps hovered, named from these tokens (a new sentence
        # left 'query 9 “because”' under a sentence without it)
        self._hover(*self.plot.lines.hover)

    def _follow_head(self, model_id: int) -> None:
        """The head view shows every head of the layer, as BertViz's does (it once showed
        the chosen head alone above 800 lines; above 1,500 the view draws them aliased, a
        dozen heads over 15 tokens in about 30 ms): a new model shows all its heads again;
        heads hidden from the legend stay hidden until then."""
        heads = len(self.plot.shown_heads())
        key = (heads, model_id)
        if self._followed != key:
            self.plot.set_shown_heads(np.ones(heads, bool))
        self._followed = key

    def _hover(self, side, index) -> None:
        s = self.shown()
        if s is None:
            return
        if side < 0:
            self.set_readout(translate("PretrainedTab", "Hover a token to keep only its "
                                       "lines; click a head above to hide it."))
            return
        a = s.attention
        w = a.weights[self.trace.layer]
        parts = []
        for h in np.flatnonzero(self.plot.shown_heads()):
            line = w[h, index] if side == 0 else w[h, :, index]
            j = int(np.argmax(line))
            parts.append(f"h{h} → “{a.tokens[j]}” {line[j]:.2f}")
        what = translate("PretrainedTab", "query {0} “{1}”") if side == 0 else \
            translate("PretrainedTab", "key {0} “{1}”")
        self.set_readout(what.format(index, a.tokens[index]) + ": " + " · ".join(parts))

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None:
            return None
        w = s.attention.weights[self.trace.layer]
        shown = self.plot.shown_heads()
        return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                    "line_alpha": self.plot.line_alpha(),
                                    "heads_shown": shown.astype(np.int8)},
                        self.trace.meta() | {"heads_shown": [int(h) for h in
                                                             np.flatnonzero(shown)]},
                        row_labels=_rows(w.shape[0], s.attention.tokens),
                        col_labels=list(s.attention.tokens))


def overview_columns(shown) -> tuple[np.ndarray, list[str], int]:
    """Thumbnails: each layer's heads, the average of its heads that are on and the
    rollout through it. Returns (float[layers·cols, n, n], titles, cols)."""
    a = shown.attention
    w = a.weights
    layers, heads = w.shape[:2]
    on = a.head_mask.sum(axis=1)
    average = w.sum(axis=1) / np.maximum(on, 1)[:, None, None]
    cols = heads + 2
    tiles, titles = [], []
    for layer in range(layers):
        for h in range(heads):
            tiles.append(w[layer, h])
            titles.append(f"L{layer} H{h}")
        tiles.append(average[layer])
        titles.append(f"L{layer} " + translate("PretrainedTab", "avg"))
        tiles.append(a.rollout[layer])
        titles.append(f"L{layer} " + translate("PretrainedTab", "rollout"))
    return np.stack(tiles).astype(np.float32), titles, cols


class OverviewView(PretrainedView):
    """Every layer's heads, their average and the rollout as thumbnails; a click on a
    head's picks its layer and head (``headChosen(layer, head)``)."""

    key = "overview"
    headChosen = Signal(int, int)  # noqa: N815 - Qt's naming

    def build(self) -> TileMosaic:
        # layers across, H0 … H11, avg and rollout down the left axis, whatever the
        # panel's size: 14 headers across overlapped in a wide panel ("H10H11平均",
        # rollout left out), and a resize flipped the grid between the two orientations
        plot = TileMosaic(transpose=True)
        plot.hovered.connect(self._hover)
        plot.headClicked.connect(self._clicked)
        self.cols, self.titles = 0, []
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "All layers × heads, head average, rollout")

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        tiles, titles, cols = overview_columns(s)
        headers = [title.split(" ", 1)[1] for title in titles[:cols]]
        self.plot.set_tiles(tiles, cols, headers,
                            [f"L{i}" for i in range(len(tiles) // cols)],
                            picked.layer * cols + picked.head)
        self.cols, self.titles = cols, titles
        self.clear_readout()

    def _clicked(self, index: int) -> None:
        if self.cols and self.shown() is not None:
            layer, col = divmod(index, self.cols)
            if col < self.cols - 2:         # a head, not the average or the rollout
                self.headChosen.emit(layer, col)

    def _hover(self, index, row, col, value) -> None:
        s = self.shown()
        if index < 0 or s is None:
            self.set_readout("")
            return
        t = s.attention.tokens
        self.set_readout(f"{self.titles[index]}: “{t[row]}” → “{t[col]}”: {value:.3f}")

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None:
            return None
        tiles, titles, _ = overview_columns(s)
        rows = [f"{name}:{q}" for name in titles for q in s.attention.tokens]
        return ViewData("tiles", {"tiles": tiles.reshape(-1, tiles.shape[2]),
                                  "rollout": s.attention.rollout}, self.trace.meta(),
                        row_labels=rows, col_labels=list(s.attention.tokens))


class NeuronView(PretrainedView):
    """The chosen query's row of the neuron trace (its layer and head as computed): q,
    the keys, q ⊙ k, the scores and the softmax."""

    key = "neuron"

    def build(self) -> NeuronPlot:
        plot = NeuronPlot()
        plot.hovered.connect(self._hover)
        return plot

    def query(self) -> int:
        """The query drawn, within the neuron trace's tokens."""
        return min(self.trace.query, len(self.trace.shown.neuron.tokens) - 1)

    def title(self) -> str:
        s = self.shown()
        if s is None:
            return translate("PretrainedTab", "Neuron view: one head for one query")
        nv = s.neuron
        return translate("PretrainedTab", "Neuron view: layer {0}, head {1}, query “{2}”"
                         ).format(nv.layer, nv.head, nv.tokens[self.query()])

    def draw(self, picked: Picked, request) -> None:
        if picked.shown is None:
            return
        nv = picked.shown.neuron
        query = self.query()
        self.plot.set_neurons(
            nv.q[query], nv.k, nv.scores[query], nv.weights[query], nv.tokens,
            nv.tokens[query],
            [translate("PretrainedTab", "q (query)"), translate("PretrainedTab", "k"),
             translate("PretrainedTab", "q ⊙ k"), translate("PretrainedTab", "q·k/√d"),
             translate("PretrainedTab", "softmax")])
        self.clear_readout()

    def _hover(self, panel_index, row, col, value) -> None:
        s = self.shown()
        if panel_index < 0 or s is None:
            self.set_readout("")
            return
        names = ("q", "k", "q ⊙ k", "q·k/√d", "softmax")
        # the query as the tab's query list names it ("3 · cat")
        q = self.trace.query
        token = s.neuron.tokens[row] if panel_index else f"{q} · {s.attention.tokens[q]}"
        where = f"[{col}]" if panel_index <= 2 else ""
        shown = "−∞" if not np.isfinite(value) else f"{value:.3f}"
        self.set_readout(f"{names[panel_index]}{where} “{token}”: {shown}")

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None:
            return None
        q, k, qk, scores, weights = self.plot.values()
        nv = s.neuron
        return ViewData("q_times_k", {"q_times_k": qk, "q": q, "k": k, "scores": scores,
                                      "softmax": weights},
                        self.trace.meta() | {"neuron_layer": nv.layer,
                                             "neuron_head": nv.head},
                        row_labels=list(nv.tokens),
                        col_labels=[f"d{i}" for i in range(qk.shape[1])])
