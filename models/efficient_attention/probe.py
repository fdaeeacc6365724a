"""What the efficient-attention tab computes in the background, as one frozen trace.

The tab's settings (an ``EfficientRequest``) fall into parts (``EFFICIENT_PARTS``): the
sparse pattern with the same mask through three APIs, one approximation against exact
attention, the cost in theory, chunked attention with an online softmax against exact
attention, and the peak memory of both measured against N. ``efficient_trace`` recomputes only the parts whose settings changed
since the trace it is given, on any thread, and returns an ``EfficientTrace``.
"""

from __future__ import annotations

import numpy as np
import torch

from models.efficient_attention.chunked import chunk_memory_trace, chunked_trace
from models.efficient_attention.cost import METHODS as COST_METHODS
from models.efficient_attention.cost import cost_theory
from models.efficient_attention.options import MASK_ARGS, EfficientRequest
from models.efficient_attention.sweeps import random_qkv
from models.efficient_attention.tracing import (
    approximation_trace,
    convention_trace,
    mask_trace,
)
from models.errors import InvalidParameterError
from models.traces.efficient import (
    ApproxTrace,
    ConventionTrace,
    CostTheory,
    EfficientTrace,
    MaskTrace,
)

__all__ = ["EFFICIENT_PARTS", "efficient_trace"]

EFFICIENT_PARTS = ("mask", "approx", "theory", "chunked", "chunk_memory")


def _mask_part(ask: EfficientRequest) -> tuple[MaskTrace, ConventionTrace]:
    """The pattern of the request ``ask`` and its mask through three APIs."""
    try:          # (only read by the patterns that have global tokens)
        indices = ([int(t) for t in ask.global_tokens.replace(",", " ").split()]
                   if "indices" in MASK_ARGS[ask.pattern] else [])
    except ValueError as exc:
        raise InvalidParameterError(
            "Global tokens are positions separated by spaces or commas, e.g. 0 31."
        ) from exc
    every = {"w": ask.window, "dilation": ask.dilation, "stride": ask.stride,
             "indices": indices, "r": ask.random_keys, "block": ask.block,
             "window_blocks": ask.window_blocks, "global_blocks": ask.global_blocks,
             "random_blocks": ask.random_blocks, "seed": ask.seed}
    params = {k: every[k] for k in MASK_ARGS[ask.pattern]}
    trace = mask_trace(ask.pattern, ask.n, layers=ask.layers,
                       max_layers=max(8, ask.layers), causal=ask.causal,
                       length=ask.length or None, **params)
    mask = torch.as_tensor(np.array(trace.mask))
    if ask.blocked_row:
        mask[-1] = False
    q, k, v = random_qkv(ask.n, 16, seed=ask.seed)
    return trace, convention_trace(mask, q, k, v, as_written=ask.course)


def _approx_part(ask: EfficientRequest, source) -> ApproxTrace:
    """The approximation of the request ``ask`` on ``source`` (or random q/k/v)."""
    if source is not None:
        q, k, v = (torch.as_tensor(np.array(a))[None, None] for a in source)
    else:
        q, k, v = random_qkv(ask.seq_len, ask.d, scale=ask.scale, seed=ask.seed)
    return approximation_trace(
        ask.method, q, k, v, num_features=ask.features, orthogonal=ask.orthogonal,
        kind=ask.feature_kind,
        # the causal box is hidden (and meaningless) for Linformer / banded
        causal=ask.approx_causal and ask.method in ("performer", "linear"),
        k_len=ask.k_len, projection=ask.projection, seed=ask.seed,
        window=ask.approx_window)


def _theory_part(ask: EfficientRequest) -> CostTheory:
    """FLOPs and memory (bytes) of every method but xformers, N = 64 … 65536."""
    n_theory = np.unique(np.geomspace(64, 65536, 64).astype(int)).astype(np.float32)
    flops, memory = cost_theory(n_theory, ask.cost_d, ask.cost_w, ask.cost_m, ask.cost_k)
    keep = [i for i, m in enumerate(COST_METHODS) if m != "xformers"]
    return CostTheory(methods=tuple(COST_METHODS[i] for i in keep), n=n_theory,
                      flops=flops[keep], memory=memory[keep] * 4)


def efficient_trace(ask: EfficientRequest, source, wanted: dict[str, dict],
                    previous: EfficientTrace | None = None) -> EfficientTrace:
    """Recompute the parts whose settings changed (any thread).

    ``ask`` holds every setting of the tab; ``wanted[part]`` the settings that part
    depends on (``ask.part(part)``, and for "approx" the q/k/v it is given; compared with
    ``previous.keys[part]``: equal means the part is handed on as it is); ``source`` the
    q, k, v of a Transformer head as numpy arrays (n, d_k), or None for random ones.
    """
    keys = dict(previous.keys) if previous is not None else {}
    parts = ({"mask": (previous.mask, previous.conventions), "approx": previous.approx,
              "theory": previous.theory, "chunked": previous.chunked,
              "chunk_memory": previous.chunk_memory} if previous is not None else {})
    errors = {}
    makers = {"mask": _mask_part, "approx": lambda ask: _approx_part(ask, source),
              "theory": _theory_part,
              "chunked": lambda ask: chunked_trace(ask.chunk_n, ask.chunk, ask.chunk_row,
                                                   ask.chunk_mask, seed=ask.seed),
              "chunk_memory": lambda ask: chunk_memory_trace(ask.chunk)}
    # each part on its own: a setting one part refuses leaves the others drawn, and the
    # refused part keeps showing its last good result next to the message
    for part in EFFICIENT_PARTS:
        if part in wanted and keys.get(part) != wanted[part]:
            try:
                parts[part] = makers[part](ask)
                keys[part] = wanted[part]
            except InvalidParameterError as exc:
                errors[part] = str(exc)
    mask, conventions = parts.get("mask") or (None, None)
    return EfficientTrace(mask=mask, conventions=conventions, approx=parts.get("approx"),
                          theory=parts.get("theory"), chunked=parts.get("chunked"),
                          chunk_memory=parts.get("chunk_memory"), keys=keys, errors=errors)
