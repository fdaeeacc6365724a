"""The names the efficient-attention tab shows for the models' words: patterns, methods,
the three APIs and how each is handed the mask (in the tab's context of the catalogue)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.tabs.efficient.params import API_SHORT, CONVERSIONS
from models.efficient_attention.options import MASK_KINDS
from models.traces import ConventionTrace

translate = QCoreApplication.translate


def pattern_texts() -> list[str]:
    """The patterns' shown names, in ``MASK_KINDS`` order."""
    return [translate("EfficientTab", "local window"),
            translate("EfficientTab", "dilated window"),
            translate("EfficientTab", "strided"),
            translate("EfficientTab", "global tokens"),
            translate("EfficientTab", "random"),
            translate("EfficientTab", "BigBird blocks"),
            translate("EfficientTab", "Longformer (window + global)")]


def pattern_name(kind: str) -> str:
    return dict(zip(MASK_KINDS, pattern_texts(), strict=True)).get(kind, kind)


def method_name(method: str) -> str:
    return {"performer": translate("EfficientTab", "Performer (FAVOR+)"),
            "linformer": translate("EfficientTab", "Linformer"),
            "linear": translate("EfficientTab", "linear attention (elu + 1)"),
            "banded": translate("EfficientTab", "banded (local)"),
            "naive": translate("EfficientTab", "exact, naive"),
            "sdpa": translate("EfficientTab", "exact, SDPA"),
            "xformers": translate("EfficientTab", "xformers")}.get(method, method)


def api_short() -> list[str]:
    """The three APIs' tile titles: the course's function, F.sdpa, nn.MHA."""
    return [translate("EfficientTab", "course"), *API_SHORT[1:]]


def conversions(c: ConventionTrace) -> list[str]:
    """How each API is handed the mask (worded in English by the trace)."""
    words = [translate("EfficientTab", "mask (1 = attend)"),
             translate("EfficientTab", "attn_mask=mask (True = take part)"),
             translate("EfficientTab", "attn_mask=~mask (True = blocked)")]
    return [dict(zip(CONVERSIONS, words, strict=True)).get(x, x) for x in c.conversions]
