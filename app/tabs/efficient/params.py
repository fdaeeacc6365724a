"""The efficient-attention tab's declared parameters: the controls' defaults (those of the
models' ``EfficientRequest``, whose ``EFFICIENT_RANGES`` the forms are built from), the
four forms' rows, which rows each pattern and method uses, and the quick first
measurement."""

from __future__ import annotations

from dataclasses import asdict

from models.efficient_attention.options import (
    APPROX_METHODS,
    CHUNK_MASKS,
    EFFICIENT_PART_FIELDS,
    EFFICIENT_RANGES,
    FEATURE_KINDS,
    MASK_KINDS,
    MAX_NS,
    PROJECTIONS,
    SOURCES,
    EfficientRequest,
)
from viz.controls import Param

__all__ = ["DEFAULTS", "RANGES", "PATTERN_PARAMS", "APPROX_PARAMS", "COST_PARAMS",
           "CHUNK_PARAMS", "PARTS",
           "PATTERN_USES", "METHOD_USES", "API_SHORT", "CONVERSIONS", "QUICK_NS",
           "QUICK_BUDGET_S"]

DEFAULTS = asdict(EfficientRequest())
RANGES = EFFICIENT_RANGES


def _number(key: str, kind: str, **style) -> Param:
    r = RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **style)


def _choice(key: str, choices: tuple[str, ...]) -> Param:
    return Param(key, "choice", DEFAULTS[key], choices=choices)


def _flag(key: str) -> Param:
    return Param(key, "bool", DEFAULTS[key])


PATTERN_PARAMS = (
    _choice("pattern", MASK_KINDS),
    _number("n", "int"),
    _number("window", "int"),
    _number("dilation", "int"),
    _number("stride", "int"),
    Param("global_tokens", "text", DEFAULTS["global_tokens"]),
    _number("random_keys", "int"),
    _number("block", "int"),
    _number("window_blocks", "int", step=2),
    _number("global_blocks", "int"),
    _number("random_blocks", "int"),
    _flag("causal"),
    _number("length", "int"),
    _number("layers", "int"),
    _flag("blocked_row"),
    _flag("course"),    # the course tile as the chapter writes it (-1e9)
)
APPROX_PARAMS = (
    _choice("method", APPROX_METHODS),
    _choice("source", SOURCES),
    _number("seq_len", "int"),
    _number("d", "int"),
    _number("scale", "float", step=0.25),
    _number("features", "int"),
    _flag("orthogonal"),
    _choice("feature_kind", FEATURE_KINDS),
    _flag("approx_causal"),
    _number("k_len", "int"),
    _choice("projection", PROJECTIONS),
    _number("approx_window", "int"),
    _number("seed", "int"),
)
COST_PARAMS = (
    _choice("max_n", MAX_NS),
    _number("cost_d", "int"),
    _number("cost_w", "int"),
    _number("cost_m", "int"),
    _number("cost_k", "int"),
    _number("time_budget", "float", step=0.5),
    _number("memory_budget_mb", "int", step=256),
)
CHUNK_PARAMS = (
    _number("chunk_n", "int"),
    _number("chunk", "int"),
    _number("chunk_row", "int"),
    _choice("chunk_mask", CHUNK_MASKS),
)
#: the settings of each part of the computation (only changed parts are redone)
PARTS = EFFICIENT_PART_FIELDS
#: which pattern parameters matter for each pattern (the others are hidden)
PATTERN_USES = {
    "local": {"window"}, "dilated": {"window", "dilation"}, "strided": {"stride"},
    "global": {"global_tokens"}, "random": {"random_keys"},
    "bigbird": {"block", "window_blocks", "global_blocks", "random_blocks"},
    "longformer": {"window", "global_tokens"}}
METHOD_USES = {"performer": {"features", "orthogonal", "feature_kind", "approx_causal"},
               "linformer": {"k_len", "projection"}, "linear": {"approx_causal"},
               "banded": {"approx_window"}}
#: the three APIs of the conventions panel, short enough for a tile's title ("course"
#: is translated: see ``views.names.api_short``)
API_SHORT = ("course", "F.sdpa", "nn.MHA")
CONVERSIONS = ("mask (1 = attend)", "attn_mask=mask (True = take part)",
               "attn_mask=~mask (True = blocked)")
#: the quick measurement made the first time the tab is shown: small N, short budget
QUICK_NS = (256, 512, 1024)
QUICK_BUDGET_S = 0.1
