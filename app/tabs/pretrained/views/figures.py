"""The views beside the attention: Clark et al.'s statistics per head (``StatsView``),
an encoder's sentence similarities (``SimilarityView``), a decoder's next-token choice
(``NextTokenView``) and its generation token by token (``GenerationView``). Strings
translate in the tab's context ("PretrainedTab")."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.pretrained.views.heads import PretrainedView
from app.tabs.pretrained.views.shown import Generated, Picked, readable, sentence_labels
from app.tabs.view import ViewData
from viz.pooled_grid import PooledHeadGrid
from viz.token_bars import TokenBars

translate = QCoreApplication.translate

__all__ = ["StatsView", "SimilarityView", "NextTokenView", "GenerationView"]

STATS = ("to_cls", "to_sep", "to_punct", "to_self", "entropy")


def stats_tiles(shown) -> tuple[np.ndarray, list[str]]:
    """The per-head statistics of Clark et al. as five layers × heads maps in [0, 1]:
    attention to [CLS], [SEP], punctuation and the token itself, and entropy divided by
    its largest value, ln(number of keys a query may see)."""
    a = shown.attention
    keys = max(int(a.keep.sum()), 1)
    top = np.log(keys) if keys > 1 else 1.0
    maps = np.stack([a.to_cls, a.to_sep, a.to_punct, a.to_self,
                     np.clip(a.entropy / top, 0.0, 1.0)]).astype(np.float32)
    titles = [translate("PretrainedTab", "to [CLS]"), translate("PretrainedTab", "to [SEP]"),
              translate("PretrainedTab", "to punctuation"),
              translate("PretrainedTab", "to itself"),
              translate("PretrainedTab", "entropy ÷ ln {0}").format(keys)]
    return maps, titles


class StatsView(PretrainedView):
    key = "stats"

    def build(self) -> PooledHeadGrid:
        plot = PooledHeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Per head (Clark et al. 2019): rows = layers, "
                         "columns = heads")

    def draw(self, picked: Picked, request) -> None:
        if picked.shown is None:
            return
        maps, titles = stats_tiles(picked.shown)
        layers, heads = maps.shape[1:]
        self.plot.set_heads(maps, [f"L{i}" for i in range(layers)],
                            [str(h) for h in range(heads)], titles, ticks=True)
        self.clear_readout()

    def _hover(self, panel_index, row, col, value) -> None:
        s = self.shown()
        if panel_index < 0 or s is None:
            self.set_readout("")
            return
        a = s.attention
        raw = float(getattr(a, STATS[panel_index])[row, col])
        unit = translate("PretrainedTab", " nats") if panel_index == 4 else ""
        off = "" if a.head_mask[row, col] > 0.5 else " " + translate("PretrainedTab",
                                                                     "(off)")
        self.set_readout(translate("PretrainedTab", "layer {0}, head {1}{2}: {3}").format(
            row, col, off, f"{raw:.3f}{unit}"))

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None:
            return None
        a = s.attention
        arrays = {name: getattr(a, name) for name in STATS}
        table = np.concatenate([arrays[n] for n in STATS])
        layers, heads = a.to_cls.shape
        return ViewData("stats", {"stats": table, **arrays}, self.trace.meta() | {
            "entropy_unit": "nats"},
            row_labels=[f"{n}:L{layer}" for n in STATS for layer in range(layers)],
            col_labels=[f"h{h}" for h in range(heads)])


class SimilarityView(PretrainedView):
    key = "similarity"

    def build(self) -> PooledHeadGrid:
        plot = PooledHeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Sentence similarity: with the heads masked, and "
                         "all heads on")

    def draw(self, picked: Picked, request) -> None:
        s = picked.shown
        if s is None:
            return
        sim = s.similarity
        if sim is None:
            self.plot.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
            self.set_readout(
                translate("PretrainedTab", "Sentence similarity needs an encoder "
                          "(BERT-style) model.") if s.kind != "encoder" else
                " ".join(s.notes) or
                translate("PretrainedTab", "Type 2 to 6 sentences, one per line, in the box "
                          "on the left."))
            return
        n = len(sim.sentences)
        both = np.stack([sim.similarity, sim.reference]).astype(np.float32)
        low = float(min(0.0, np.nanmin(both)))
        off = int((sim.head_mask < 0.5).sum())
        labels = sentence_labels(n)
        self.plot.set_heads(
            both, labels, labels,
            [translate("PretrainedTab", "{0} heads off").format(off),
             translate("PretrainedTab", "all heads on")], levels=(low, 1.0))
        # a cell's read-out named the matrix drawn before (other sentences or heads, or
        # the language of then); hovering a cell of this one names it again
        self.set_readout(translate("PretrainedTab", "Cosine similarity of the mean-pooled "
                                   "embeddings; hover a cell."))

    def _hover(self, panel_index, row, col, value) -> None:
        s = self.shown()
        if panel_index < 0 or s is None or s.similarity is None:
            return
        sim = s.similarity
        labels = sentence_labels(len(sim.sentences))
        self.set_readout(f"{labels[row]} “{sim.sentences[row]}” · {labels[col]} "
                         f"“{sim.sentences[col]}”: {sim.similarity[row, col]:.3f} "
                         + translate("PretrainedTab", "(all heads on: {0:.3f})").format(
                             sim.reference[row, col]))

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None or s.similarity is None:
            return None
        sim = s.similarity
        labels = list(sim.sentences)
        return ViewData("similarity", {"similarity": sim.similarity,
                                       "reference": sim.reference,
                                       "head_mask": sim.head_mask},
                        self.trace.meta() | {"sentences": labels}, row_labels=labels,
                        col_labels=labels)


class NextTokenView(PretrainedView):
    key = "next"

    def build(self) -> TokenBars:
        plot = TokenBars()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Next token: probabilities, and what top-k / "
                         "top-p keep")

    def draw(self, picked: Picked, request) -> None:
        if picked.shown is None:
            return
        nt = picked.shown.next
        self.clear_readout()
        if nt is None:
            self.plot.set_bars([], np.zeros(0), np.zeros(0, bool), np.zeros(0),
                               (translate("PretrainedTab", "probability"),
                                translate("PretrainedTab", "sampled from")))
            self.plot.set_hint(translate("PretrainedTab", "Next-token probabilities come "
                                         "from a decoder: open a GPT-2 folder with File → "
                                         "Open…"))
            return
        self.plot.set_hint("")
        self.plot.set_bars(nt.candidates, nt.probs, nt.kept, nt.filtered,
                           (translate("PretrainedTab", "probability at T = {0:g}").format(
                               nt.temperature),
                            translate("PretrainedTab", "after top-k / top-p")))

    def _hover(self, row, series, value) -> None:
        s = self.shown()
        if row < 0 or s is None or s.next is None:
            self.set_readout("")
            return
        nt = s.next
        kept = translate("PretrainedTab", "kept") if nt.kept[row] else \
            translate("PretrainedTab", "dropped by top-k / top-p")
        self.set_readout(translate("PretrainedTab", "“{0}”: probability {1:.3f}, {2}, "
                                   "sampled with {3:.3f}").format(
            readable(nt.candidates[row]), nt.probs[row], kept, nt.filtered[row]))

    def data(self) -> ViewData | None:
        s = self.shown()
        if s is None or s.next is None:
            return None
        nt = s.next
        table = np.stack([nt.probs, nt.kept.astype(np.float32), nt.filtered], axis=1)
        return ViewData("choice", {"choice": table, "ids": nt.ids}, self.trace.meta() | {
            "temperature": nt.temperature, "top_k": nt.top_k, "top_p": nt.top_p,
            "kept_count": nt.kept_count},
            row_labels=list(nt.candidates), col_labels=["probability", "kept", "filtered"])


class GenerationView(PretrainedView):
    """Each generated token's attention row (the chosen layer and head) over the text it
    was chosen from; ``caption`` is the text so far, for under the Generate button."""

    key = "generation"

    def build(self) -> PooledHeadGrid:
        plot = PooledHeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PretrainedTab", "Generation: each new token's attention over the "
                         "text so far")

    def keep(self, picked: Picked) -> None:
        """The other views' new record: this view's export names its query."""
        if self.trace is not None:
            super().keep(Generated(self.trace.steps, self.trace.decoder, picked))

    def draw(self, generated: Generated, request) -> None:
        steps = generated.steps
        if not steps:
            self.plot.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
            self.set_readout(
                translate("PretrainedTab", "Press Generate: each new token's attention row "
                          "appears here.") if generated.decoder else
                translate("PretrainedTab", "Generation needs a decoder (GPT-2) model: File "
                          "→ Open…"))
            return
        last = steps[-1]
        context = list(last.context)       # the last token chosen is attended by none
        layers, heads = last.attention.shape[:2]
        layer = min(max(generated.picked.layer, 0), layers - 1)
        head = min(max(generated.picked.head, 0), heads - 1)
        rows = np.full((len(steps), len(context)), np.nan, np.float32)
        for i, step in enumerate(steps):
            row = step.attention[layer, head]
            rows[i, :len(row)] = row
        self.plot.set_heads(rows[None], [s.token for s in steps], context,
                            [translate("PretrainedTab", "layer {0}, head {1}").format(layer,
                                                                                     head)])
        self.set_readout(translate("PretrainedTab", "{0} tokens generated; row = new token, "
                                   "columns = the text it attended to.").format(len(steps)))

    def caption(self) -> str:
        """The text generated so far ("" before any)."""
        steps = self.trace.steps if self.trace is not None else ()
        if not steps:
            return ""
        return translate("PretrainedTab", "Generated: {0}").format(
            readable("".join(s.token for s in steps)))

    def _hover(self, panel_index, row, col, value) -> None:
        steps = self.trace.steps if self.trace is not None else ()
        if row < 0 or not steps or not np.isfinite(value):
            return
        context = list(steps[-1].context)
        self.set_readout(translate("PretrainedTab", "new token {0} “{1}” → “{2}”: {3:.3f}"
                                   ).format(row + 1, steps[row].token, context[col], value))

    def data(self) -> ViewData | None:
        steps = self.trace.steps if self.trace is not None else ()
        if not steps:
            return None
        rows = self.plot.weights()[0]
        last = steps[-1]
        return ViewData("attention", {"attention": rows,
                                      "token_ids": np.array([s.token_id for s in steps],
                                                            np.int64)},
                        self.trace.picked.meta() | {"prompt": list(steps[0].context)},
                        row_labels=[s.token for s in steps],
                        col_labels=list(last.context))
