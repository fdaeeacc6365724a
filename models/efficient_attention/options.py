"""Names shared by the efficient-attention models and the tab that shows them.

Torch-free (plain tuples and dicts), so ``app/`` may import it at its top before torch
has loaded: the tab's choice boxes list these names and the models check against them.
``EFFICIENT_RANGES`` are the one place of each number's default and limits (the tab's
controls are built from them); an ``EfficientRequest`` is one setting of the tab, checked
once when it is made, and ``models.efficient_attention.probe`` takes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.errors import InvalidParameterError
from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = [
    "MASK_KINDS", "APPROX_METHODS", "SWEEP_CURVES", "SCALES", "FEATURE_KINDS",
    "PROJECTIONS", "MASK_ARGS", "COST_METHODS", "QUADRATIC", "SOURCES", "MAX_NS",
    "EFFICIENT_RANGES", "EFFICIENT_PART_FIELDS", "EfficientRequest", "CHUNK_MASKS",
]

MASK_KINDS = ("local", "dilated", "strided", "global", "random", "bigbird", "longformer")
APPROX_METHODS = ("performer", "linformer", "linear", "banded")
# the curves of the sweeps of each method (ApproxTrace.sweep_names)
SWEEP_CURVES = {"performer": ("orthogonal", "i.i.d."), "linformer": ("random", "mean"),
                "linear": ("elu+1",), "banded": ("banded",)}
SCALES = (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
#: the Performer's features: positive (FAVOR+) or trigonometric
FEATURE_KINDS = ("positive", "trig")
#: Linformer's projections of the sequence (``approximation_trace``'s ``projection``)
PROJECTIONS = ("random", "mean", "learned", "identity")
#: the arguments of ``build_mask`` for each pattern
MASK_ARGS = {
    "local": ("w",), "dilated": ("w", "dilation"), "strided": ("stride",),
    "global": ("indices",), "random": ("r", "seed"),
    "bigbird": ("block", "window_blocks", "global_blocks", "random_blocks", "seed"),
    "longformer": ("w", "indices")}
#: the methods of the cost model (``models.efficient_attention.cost``), in its order
COST_METHODS = ("naive", "sdpa", "banded", "performer", "linformer", "xformers")
#: the O(N²) ones among them
QUADRATIC = ("naive", "sdpa", "xformers")

#: the masks of chunked attention (``models.efficient_attention.chunked.mask_for``)
CHUNK_MASKS = ("none", "causal", "padding")

#: where the approximation's q/k/v come from: random, or a head of the Transformer tab
SOURCES = ("random", "transformer")
#: the largest N the cost measurement goes to (text: a choice of the tab, as saved)
MAX_NS = ("1024", "2048", "4096", "8192", "16384")

#: the efficient-attention tab's numbers: defaults and limits (its controls are built
#: from these)
EFFICIENT_RANGES: dict[str, Range] = {
    # the sparse pattern
    "n": Range(64, 8, 1024),
    "window": Range(8, 1, 512),
    "dilation": Range(2, 1, 16),
    "stride": Range(8, 1, 256),
    "random_keys": Range(3, 0, 64),
    "block": Range(8, 1, 64),
    "window_blocks": Range(3, 1, 15),
    "global_blocks": Range(1, 0, 8),
    "random_blocks": Range(1, 0, 8),
    "length": Range(0, 0, 1024),            # padding from this key on; 0 = none
    "layers": Range(2, 1, 16),
    # the approximation
    "seq_len": Range(64, 8, 512),
    "d": Range(16, 2, 128),
    "scale": Range(0.5, 0.05, 4.0),
    "features": Range(64, 1, 1024),
    "k_len": Range(32, 1, 512),
    "approx_window": Range(16, 1, 512),
    "seed": Range(0, 0, 99999),
    # the cost
    "cost_d": Range(64, 8, 256),
    "cost_w": Range(256, 1, 4096),
    "cost_m": Range(256, 1, 4096),
    "cost_k": Range(256, 1, 4096),
    "time_budget": Range(1.0, 0.05, 60.0),
    "memory_budget_mb": Range(2048, 16, 65536),
    # chunked attention with an online softmax
    "chunk_n": Range(64, 8, 1024),
    "chunk": Range(8, 1, 1024),
    "chunk_row": Range(40, 0, 1023),
}
_WHOLE = tuple(k for k in EFFICIENT_RANGES if k not in ("scale", "time_budget"))
_FLAGS = ("causal", "blocked_row", "course", "orthogonal", "approx_causal")

#: the settings each part of ``efficient_trace`` depends on (the pattern's random
#: patterns use the seed too)
EFFICIENT_PART_FIELDS = {
    "mask": ("pattern", "n", "window", "dilation", "stride", "global_tokens",
             "random_keys", "block", "window_blocks", "global_blocks", "random_blocks",
             "causal", "length", "layers", "blocked_row", "course", "seed"),
    "approx": ("method", "source", "seq_len", "d", "scale", "features", "orthogonal",
               "feature_kind", "approx_causal", "k_len", "projection", "approx_window",
               "seed"),
    "theory": ("max_n", "cost_d", "cost_w", "cost_m", "cost_k", "time_budget",
               "memory_budget_mb"),
    "chunked": ("chunk_n", "chunk", "chunk_row", "chunk_mask", "seed"),
    "chunk_memory": ("chunk",),
}


def _default(key: str):
    return EFFICIENT_RANGES[key].default


@dataclass(frozen=True)
class EfficientRequest(Request):
    """One setting of the efficient-attention tab: the sparse pattern (``pattern`` …
    ``course``), the approximation against exact attention (``method`` … ``seed``) and
    the cost (``max_n`` … ``memory_budget_mb``) and chunked attention (``chunk_n`` …
    ``chunk_mask``; the query row is clamped to N − 1). Checked when made: a value outside
    ``EFFICIENT_RANGES`` or the choices raises ``InvalidParameterError`` naming it.
    What only the computation can tell (global tokens that are not positions, a length
    BigBird's blocks do not divide) is refused by the part that computes it."""

    pattern: str = "longformer"
    n: int = _default("n")
    window: int = _default("window")
    dilation: int = _default("dilation")
    stride: int = _default("stride")
    global_tokens: str = "0"
    random_keys: int = _default("random_keys")
    block: int = _default("block")
    window_blocks: int = _default("window_blocks")
    global_blocks: int = _default("global_blocks")
    random_blocks: int = _default("random_blocks")
    causal: bool = False
    length: int = _default("length")
    layers: int = _default("layers")
    blocked_row: bool = True        # the last query blocked, to test the APIs' NaN rows
    course: bool = False            # the course tile as the chapter writes it (-1e9)
    method: str = "performer"
    source: str = "random"
    seq_len: int = _default("seq_len")
    d: int = _default("d")
    scale: float = _default("scale")
    features: int = _default("features")
    orthogonal: bool = True
    feature_kind: str = "positive"
    approx_causal: bool = False
    k_len: int = _default("k_len")
    projection: str = "random"
    approx_window: int = _default("approx_window")
    seed: int = _default("seed")
    max_n: str = "4096"
    cost_d: int = _default("cost_d")
    cost_w: int = _default("cost_w")
    cost_m: int = _default("cost_m")
    cost_k: int = _default("cost_k")
    time_budget: float = _default("time_budget")
    memory_budget_mb: int = _default("memory_budget_mb")
    chunk_n: int = _default("chunk_n")
    chunk: int = _default("chunk")
    chunk_row: int = _default("chunk_row")
    chunk_mask: str = "none"

    def __post_init__(self) -> None:
        check_choice(self, "pattern", MASK_KINDS)
        check_choice(self, "method", APPROX_METHODS)
        check_choice(self, "source", SOURCES)
        check_choice(self, "feature_kind", FEATURE_KINDS)
        check_choice(self, "projection", PROJECTIONS)
        check_choice(self, "chunk_mask", CHUNK_MASKS)
        if not isinstance(self.max_n, str):        # 4096 as typed on a command line
            object.__setattr__(self, "max_n", str(self.max_n))
        check_choice(self, "max_n", MAX_NS)
        check_whole(self, *_WHOLE)
        check_range(self, EFFICIENT_RANGES, *EFFICIENT_RANGES)
        check_flags(self, *_FLAGS)
        if not isinstance(self.global_tokens, str):
            raise InvalidParameterError(
                f"global_tokens must be text, not {self.global_tokens!r}.")


    def part(self, name: str) -> dict:
        """The settings the part ``name`` of ``EFFICIENT_PART_FIELDS`` depends on."""
        return {k: getattr(self, k) for k in sorted(EFFICIENT_PART_FIELDS[name])}

    @property
    def measured_ns(self) -> tuple[int, ...]:
        """The N the cost measurement times: 256, 512, … up to ``max_n``."""
        return tuple(2 ** i for i in range(8, int(self.max_n).bit_length()))

    @property
    def memory_budget_bytes(self) -> int:
        return self.memory_budget_mb * 2 ** 20
