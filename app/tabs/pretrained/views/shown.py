"""What the pretrained tab's views see: ``Picked``, the computed ``Shown`` with the layer,
head and query shown, and ``Generated``, the tokens a decoder generated so far; and the
helpers more than one view shares (the tokens as text, the export's metadata)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.tabs.pretrained.compute import Shown

__all__ = ["Picked", "Generated", "readable", "sentence_labels"]


def readable(text: str) -> str:
    """Tokens joined as text: SentencePiece's space (▁) and the new line a byte-level
    token is shown with (↵, ``models.pretrained.text.readable_token``) as the characters
    they stand for."""
    return text.replace("▁", " ").replace("↵", "\n")


def sentence_labels(n: int) -> list[str]:
    return [f"S{i + 1}" for i in range(n)]


@dataclass(frozen=True)
class Picked:
    """The traces computed for one request (``shown``, None before the first) and the
    layer, head and query token the controls pick, within the trace's sizes: what the
    views drew, so their titles and exports name what is drawn, not what the controls
    say meanwhile. A new query redraws the neuron view alone; the other views are handed
    the new record (``PretrainedView.keep``) for their exports."""

    shown: Shown | None
    layer: int = 0
    head: int = 0
    query: int = 0

    @classmethod
    def of(cls, shown: Shown | None, layer: int, head: int, query: int) -> Picked:
        """The controls' layer, head and query (-1: none chosen) within ``shown``."""
        if shown is None:
            return cls(None, layer, head, max(query, 0))
        layers, heads, n = shown.attention.weights.shape[:3]
        return cls(shown, min(max(layer, 0), layers - 1), min(max(head, 0), heads - 1),
                   min(max(query, 0), n - 1))

    def meta(self) -> dict:
        """The model, the text, the masks and the layer, head and query shown."""
        s = self.shown
        if s is None:
            return {}
        a = s.attention
        off = [[int(layer), int(h)] for layer, h in zip(*np.nonzero(a.head_mask < 0.5),
                                                        strict=True)]
        return {"model": s.model, "kind": s.kind, "text": s.request.sentence,
                "pair": s.request.pair or "", "layer": self.layer, "head": self.head,
                "query": a.tokens[self.query], "heads_off": off,
                "tokens_masked": [t for t, k in zip(a.tokens, a.keep, strict=True) if not k]}


@dataclass(frozen=True)
class Generated:
    """A decoder's generation so far: one ``GenerationStep`` per token (none before
    Generate), whether the model is a decoder at all, and what the other views show (its
    layer and head pick each token's attention row; its metadata goes with the export)."""

    steps: tuple = ()
    decoder: bool = False
    picked: Picked = Picked(None)
