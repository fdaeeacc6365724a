"""The approximation views of an encoder: its softmax attention replaced, in every layer
and head, by the Performer, Linformer or a sparse window (the request's ``attention``),
against the exact model. ``ApproxView``: one head's map, exact, approximate and their
absolute difference; ``ApproxSimilarityView``: the sentences' cosine similarities, exact,
approximate and |Δ cos|, with max |Δ cos| in the read-out. Both draw the ``approx``
record (an ``ApproxComparison``) of the ``Shown`` they see; strings translate in the
tab's context ("PretrainedTab")."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.pretrained.views.heads import PretrainedView
from app.tabs.pretrained.views.shown import Picked, sentence_labels
from app.tabs.view import ViewData
from viz.pooled_grid import PooledHeadGrid

translate = QCoreApplication.translate

__all__ = ["ApproxView", "ApproxSimilarityView", "method_name"]


def method_name(kind: str, number: int) -> str:
    """"Performer (m = 64)", "Linformer (k = 8)", "sparse window (w = 4)", "exact"."""
    if kind == "performer":
        return translate("PretrainedTab", "Performer (m = {0})").format(number)
    if kind == "linformer":
        return translate("PretrainedTab", "Linformer (k = {0})").format(number)
    if kind == "sparse":
        return translate("PretrainedTab", "sparse window (w = {0})").format(number)
    return translate("PretrainedTab", "exact")


def _empty_note(shown) -> str:
    if shown.kind != "encoder":
        return translate("PretrainedTab", "Approximate attention is offered for encoder "
                         "(BERT-style) models.")
    return " ".join(shown.notes)


class _ApproxBase(PretrainedView):
    def build(self) -> PooledHeadGrid:
        plot = PooledHeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def approx(self):
        s = self.shown()
        return None if s is None else s.approx

    def method(self) -> str:
        c = self.approx()
        return "" if c is None else method_name(c.attention, c.number)

    def _meta(self, c) -> dict:
        return self.trace.meta() | {"attention": c.attention, "number": c.number,
                                    "seed": c.seed, "max_delta_cos": c.max_delta}


class ApproxView(_ApproxBase):
    """Head ``layer``/``head`` of the text: exact, approximate, |difference|."""

    key = "approx"

    def title(self) -> str:
        c = self.approx()
        if c is None:
            return translate("PretrainedTab", "Approximate attention inside the model")
        return translate("PretrainedTab", "Layer {0}, head {1}: exact vs {2}").format(
            c.layer, c.head, self.method())

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        c = s.approx
        if c is None:
            self.plot.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
            self.set_readout(_empty_note(s))
            return
        diff = np.abs(c.approx - c.exact)
        self.plot.set_heads(np.stack([c.exact, c.approx, diff]), c.tokens, c.tokens,
                            [translate("PretrainedTab", "exact"),
                             translate("PretrainedTab", "approx."), "|Δ|"],
                            ticks=False, levels=(0.0, 1.0))
        self.set_readout(translate(
            "PretrainedTab", "Mean row TV distance ½·Σ|a − e|: this head {0:.3f}, all "
            "heads {1:.3f}; hover a cell.").format(float(c.head_tv[c.layer, c.head]),
                                                   float(c.head_tv.mean())))

    def _hover(self, panel, row, col, value) -> None:
        c = self.approx()
        if panel < 0 or c is None:
            return
        t = c.tokens
        self.set_readout(translate("PretrainedTab", "query “{0}” → key “{1}”: exact {2:.3f}, "
                                   "approximate {3:.3f}").format(
            t[row], t[col], float(c.exact[row, col]), float(c.approx[row, col])))

    def data(self) -> ViewData | None:
        c = self.approx()
        if c is None:
            return None
        return ViewData("approx", {"approx": c.approx, "exact": c.exact,
                                   "head_tv": c.head_tv},
                        self._meta(c) | {"layer": c.layer, "head": c.head},
                        row_labels=list(c.tokens), col_labels=list(c.tokens))


class ApproxSimilarityView(_ApproxBase):
    """The sentences' cosine similarities: exact, approximate, |Δ cos|."""

    key = "approx_similarity"

    def title(self) -> str:
        c = self.approx()
        if c is None:
            return translate("PretrainedTab", "Sentence similarity under approximate "
                             "attention")
        if c.similarity_exact.size == 0:
            return translate("PretrainedTab", "Sentence similarity: exact vs {0}").format(
                self.method())
        return translate("PretrainedTab", "Sentence similarity: exact vs {0}, max |Δ cos| = "
                         "{1:.3f}").format(self.method(), c.max_delta)

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        c = s.approx
        if c is None or not c.sentences or c.similarity_exact.size == 0:
            self.plot.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
            self.set_readout(_empty_note(s) if c is None else translate(
                "PretrainedTab", "Type 2 to 6 sentences, one per line, in the box on the "
                "left."))
            return
        diff = np.abs(c.similarity_approx - c.similarity_exact)
        both = np.stack([c.similarity_exact, c.similarity_approx, diff])
        low = float(min(0.0, np.nanmin(both)))
        labels = sentence_labels(len(c.sentences))
        self.plot.set_heads(both, labels, labels,
                            [translate("PretrainedTab", "exact"),
                             translate("PretrainedTab", "approx."), "|Δ cos|"],
                            levels=(low, 1.0))
        self.set_readout(translate("PretrainedTab", "max |Δ cos| = {0:.3f} (cosine of the "
                                   "mean-pooled embeddings); hover a cell.").format(
            c.max_delta))

    def _hover(self, panel, row, col, value) -> None:
        c = self.approx()
        if panel < 0 or c is None or c.similarity_exact.size == 0:
            return
        labels = sentence_labels(len(c.sentences))
        e, a = float(c.similarity_exact[row, col]), float(c.similarity_approx[row, col])
        self.set_readout(f"{labels[row]} · {labels[col]}: " + translate(
            "PretrainedTab", "exact {0:.3f}, approximate {1:.3f}, Δ {2:+.3f}").format(
            e, a, a - e))

    def data(self) -> ViewData | None:
        c = self.approx()
        if c is None or c.similarity_exact.size == 0:
            return None
        labels = list(c.sentences)
        return ViewData("similarity_approx", {"similarity_approx": c.similarity_approx,
                                              "similarity_exact": c.similarity_exact},
                        self._meta(c) | {"sentences": labels}, row_labels=labels,
                        col_labels=labels)
