"""The views of one ``TransformerTrace``'s attention: every head of the chosen layer
(``HeadsView``), the same heads as lines (``HeadLinesView``), the chosen head step by step
(``HeadStepsView``) and every layer and head as thumbnails (``OverviewView``). Strings
translate in the tab's context ("TransformerTab"), as they did when the tab drew them."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, Signal

from app.tabs.view import TabView, ViewData
from models.traces import TransformerTrace
from models.transformer.analysis import attention_rollout, head_average
from models.transformer.options import TransformerRequest
from viz.attention import HeadGrid, PanelRow
from viz.head_view import HeadView
from viz.mosaic import TileMosaic

translate = QCoreApplication.translate


def trace_meta(t: TransformerTrace, ask: TransformerRequest | None) -> dict:
    """What the trace is of: model, attention, masks, input and output."""
    model = {} if ask is None else {"architecture": ask.architecture,
                                    "tokenizer": ask.tokenizer, "task": ask.task}
    return model | {
        "kind": t.kind, "layer": t.layer, "head": t.head,
        "padding_mask": t.use_padding_mask, "look_ahead_mask": t.use_look_ahead_mask,
        "input": " ".join(t.src_tokens), "output": " ".join(t.predicted)}


def kind_name(kind: str) -> str:
    """The attention kind as the Kind box names it."""
    if kind == "encoder":
        return translate("TransformerTab", "encoder self-attention")
    if kind == "decoder":
        return translate("TransformerTab", "decoder masked self-attention")
    return translate("TransformerTab", "cross-attention (decoder → encoder)")


def head_titles(t: TransformerTrace) -> list[str]:
    return [translate("TransformerTab", "head {0}").format(h)
            for h in range(t.weights.shape[1])]


def rows_text(rows) -> str:
    """Row indices as runs: [4, 5, 6, 9] → "4–6, 9"."""
    runs: list[list[int]] = []
    for r in (int(x) for x in rows):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def course_readout(t: TransformerTrace | None) -> str:
    """"As the course writes it": how far the chapter's code is from ours on this layer
    (the heads' read-out when no cell is hovered); empty when the switch is off."""
    c = None if t is None else t.course
    if c is None:
        return ""
    if not c.rows.size:
        text = translate(
            "TransformerTab", "Course's code: the same weights as ours (max |Δweight| "
            "{0:.1e}).").format(c.max_delta)
    else:
        text = translate(
            "TransformerTab", "Course's code: max |Δweight| {0:.3f} vs ours, rows {1}.").format(
                c.max_delta, rows_text(c.rows))
    if c.blocked_rows.size:
        text += " " + translate(
            "TransformerTab", "Rows {0} fully blocked: 1/{1} = {2:.3f} each (ours 0).").format(
                rows_text(c.blocked_rows), c.keys, 1 / c.keys)
    return text


def course_sdpa_readout(t: TransformerTrace | None) -> str:
    """The chapter's F.scaled_dot_product_attention example on the shown head (decoder
    self-attention with the switch on; else empty)."""
    c = None if t is None else t.course
    if c is None or not c.sdpa.size:
        return ""
    return translate(
        "TransformerTab", "Course's SDPA example, head {0}: each query sees only later keys, "
        "max |Δweight| {1:.3f}; as written (no key): TypeError.").format(c.head, c.sdpa_max_delta)


def overview_columns(t: TransformerTrace) -> tuple[np.ndarray, list[str], int]:
    """Thumbnails: each layer's heads, its head average and, for self-attention, the
    rollout up to that layer. Returns (float[layers·cols, q, k], titles, cols)."""
    w = t.weights
    layers, heads = w.shape[:2]
    extra = [head_average(w)]
    names = [translate("TransformerTab", "avg")]
    if t.kind != "cross":
        extra.append(attention_rollout(w))
        names.append(translate("TransformerTab", "rollout"))
    cols = heads + len(extra)
    tiles, titles = [], []
    for layer in range(layers):
        for h in range(heads):
            tiles.append(w[layer, h])
            titles.append(f"L{layer} H{h}")
        for arr, name in zip(extra, names, strict=True):
            tiles.append(arr[layer])
            titles.append(f"L{layer} {name}")
    return np.stack(tiles), titles, cols


def _shown_layer(t: TransformerTrace | None, ask: TransformerRequest | None) -> int:
    return t.layer if t is not None else (ask.layer if ask is not None else 0)


class HeadsView(TabView):
    """Every head of the trace's layer; a click on a head asks for it (``head_chosen``)."""

    key = "heads"
    head_chosen = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._course_shown = False

    def build(self) -> HeadGrid:
        plot = HeadGrid()
        plot.hovered.connect(self.hover)
        plot.headClicked.connect(self.head_chosen)
        return plot

    def title(self) -> str:
        ask = self.request
        kind = kind_name(ask.kind) if ask is not None else ""
        return translate(
            "TransformerTab", "{0}, layer {1}: every head (rows = queries, columns = keys)"
        ).format(kind, _shown_layer(self.trace, ask))

    def draw(self, t: TransformerTrace, ask) -> None:
        self.plot.set_heads(t.weights[t.layer], t.q_tokens, t.k_tokens, head_titles(t),
                            selected=t.head, swatches=True)
        if t.course is not None or self._course_shown:
            # the comparison, or (switched off) no stale one; a hover read-out stays otherwise
            self.set_readout(course_readout(t))
        self._course_shown = t.course is not None

    def hover(self, head: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if head < 0 or t is None:
            self.set_readout(course_readout(t))
            return
        self.set_readout(translate(
            "TransformerTab", "head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}").format(
                head, row, t.q_tokens[row], col, t.k_tokens[col], value))

    def data(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        w = t.weights[t.layer]
        rows = [f"h{h}:{q}" for h in range(w.shape[0]) for q in t.q_tokens]
        return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]), "all_layers":
                                    t.weights}, trace_meta(t, self.request), row_labels=rows,
                        col_labels=list(t.k_tokens))


class HeadLinesView(TabView):
    """The head view (BertViz style): a line per query and key, as opaque as its weight,
    in each head's colour; hovering a token keeps its lines, a click hides a head."""

    key = "head_view"

    def build(self) -> HeadView:
        plot = HeadView()
        plot.hovered.connect(self.hover)
        plot.headsToggled.connect(lambda: self.hover(-1, -1))
        return plot

    def title(self) -> str:
        return translate("TransformerTab", "Head view, layer {0}: line opacity = weight").format(
            _shown_layer(self.trace, self.request))

    def draw(self, t: TransformerTrace, ask) -> None:
        self.plot.set_heads(t.weights[t.layer], t.q_tokens, t.k_tokens, head_titles(t),
                            selected=t.head, titles=(translate("TransformerTab", "queries"),
                                                     translate("TransformerTab", "keys")))
        if not self.panel.readout.text().strip():
            self.hover(-1, -1)

    def hover(self, side: int, index: int) -> None:
        """The hovered token in full, and where each shown head puts most weight."""
        t = self.trace
        if t is None:
            return
        if side < 0:
            self.set_readout(translate("TransformerTab", "Hover a token to keep only its "
                                       "lines; click a head above to hide it."))
            return
        w = t.weights[t.layer]
        shown = self.plot.shown_heads()
        tokens, others = (t.q_tokens, t.k_tokens) if side == 0 else (t.k_tokens, t.q_tokens)
        parts = []
        for h in np.flatnonzero(shown):
            row = w[h, index] if side == 0 else w[h, :, index]
            j = int(np.argmax(row))
            parts.append(f"h{h} → “{others[j]}” {row[j]:.2f}")
        what = translate("TransformerTab", "query {0} “{1}”") if side == 0 else \
            translate("TransformerTab", "key {0} “{1}”")
        self.set_readout(what.format(index, tokens[index]) + ": " + " · ".join(parts))

    def data(self) -> ViewData | None:
        """weights[head, query, key] of the shown layer (a line's opacity is its weight)
        and the opacities as drawn (hidden heads, a hovered token)."""
        t = self.trace
        if t is None:
            return None
        w = t.weights[t.layer]
        rows = [f"h{h}:{q}" for h in range(w.shape[0]) for q in t.q_tokens]
        shown = self.plot.shown_heads()
        return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                    "line_alpha": self.plot.line_alpha(),
                                    "heads_shown": shown.astype(np.int8)},
                        trace_meta(t, self.request) | {
                            "heads_shown": [int(h) for h in np.flatnonzero(shown)],
                            "queries": list(t.q_tokens), "keys": list(t.k_tokens)},
                        row_labels=rows, col_labels=list(t.k_tokens))


class HeadStepsView(TabView):
    """The chosen head's mask, raw scores, masked scores and softmax."""

    key = "head_steps"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._course_shown = False

    def build(self) -> PanelRow:
        plot = PanelRow()
        plot.hovered.connect(self.hover)
        return plot

    def title(self) -> str:
        t, ask = self.trace, self.request
        head = t.head if t is not None else (ask.head if ask is not None else 0)
        return translate("TransformerTab", "Head {0} step by step").format(head)

    def draw(self, t: TransformerTrace, ask) -> None:
        p = t.panels
        self.plot.set_panels(
            p.mask, p.raw, p.masked, p.softmax, t.q_tokens, t.k_tokens,
            [translate("TransformerTab", "mask (grey = blocked)"),
             translate("TransformerTab", "raw scores QKᵀ/√d_k"),
             translate("TransformerTab", "masked scores"),
             translate("TransformerTab", "softmax")])
        if t.course is not None or self._course_shown:
            self.set_readout(course_sdpa_readout(t))
        self._course_shown = t.course is not None

    def hover(self, panel: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if panel < 0 or t is None:
            self.set_readout(course_sdpa_readout(t))
            return
        what = ((translate("TransformerTab", "keep") if value >= 0.5
                 else translate("TransformerTab", "blocked")) if panel == 0
                else f"{value:.3f}")
        self.set_readout(f"“{t.q_tokens[row]}” → “{t.k_tokens[col]}”: {what}")

    def data(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        p = t.panels
        return ViewData("softmax", {"softmax": p.softmax, "raw": p.raw, "masked": p.masked,
                                    "mask": p.mask.astype(np.int8)}, trace_meta(t, self.request),
                        row_labels=list(t.q_tokens), col_labels=list(t.k_tokens))


class OverviewView(TabView):
    """Every layer × head as thumbnails with each layer's head average (and, for
    self-attention, the rollout); a click on a head's tile asks for it (``head_chosen``:
    layer, head)."""

    key = "overview"
    head_chosen = Signal(int, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._cols, self._heads, self._titles = 1, 0, []

    def build(self) -> TileMosaic:
        plot = TileMosaic()
        plot.headClicked.connect(self._clicked)
        plot.hovered.connect(self.hover)
        return plot

    def title(self) -> str:
        return translate("TransformerTab", "All layers × heads, head average, rollout")

    def draw(self, t: TransformerTrace, ask) -> None:
        """The mosaic of ``overview_columns``, the shown head selected."""
        tiles, titles, cols = overview_columns(t)
        heads = t.weights.shape[1]
        selected = t.layer * cols + t.head
        headers = [title.split(" ", 1)[1] for title in titles[:cols]]
        self.plot.set_tiles(tiles, cols, headers,
                            [f"L{i}" for i in range(len(tiles) // cols)], selected)
        self._cols, self._heads, self._titles = cols, heads, titles

    def _clicked(self, index: int) -> None:
        layer, col = divmod(index, self._cols)
        if col < self._heads:     # a head, not an average / rollout tile
            self.head_chosen.emit(layer, col)

    def hover(self, index: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if index < 0 or t is None:
            self.set_readout("")
            return
        self.set_readout(f"{self._titles[index]}: “{t.q_tokens[row]}” → “{t.k_tokens[col]}”: "
                         f"{value:.3f}")

    def data(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        tiles, titles, _ = overview_columns(t)
        rows = [f"{name}:{q}" for name in titles for q in t.q_tokens]
        return ViewData("tiles", {"tiles": tiles.reshape(-1, tiles.shape[2])},
                        trace_meta(t, self.request), row_labels=rows,
                        col_labels=list(t.k_tokens))
