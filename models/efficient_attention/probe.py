"""What the efficient-attention tab computes in the background, as one frozen trace.

The tab's settings fall into three parts (``EFFICIENT_PARTS``): the sparse pattern with
the same mask through three APIs, one approximation against exact attention, and the
cost in theory. ``efficient_trace`` recomputes only the parts whose settings changed
since the trace it is given, on any thread, and returns an ``EfficientTrace``.
"""

from __future__ import annotations

import numpy as np
import torch

from models.efficient_attention.cost import METHODS as COST_METHODS
from models.efficient_attention.cost import cost_theory
from models.efficient_attention.options import MASK_ARGS
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

EFFICIENT_PARTS = ("mask", "approx", "theory")


def _mask_part(p: dict) -> tuple[MaskTrace, ConventionTrace]:
    """The pattern of the settings ``p`` and its mask through three APIs."""
    try:          # (only read by the patterns that have global tokens)
        indices = ([int(t) for t in p["global_tokens"].replace(",", " ").split()]
                   if "indices" in MASK_ARGS[p["pattern"]] else [])
    except ValueError as exc:
        raise InvalidParameterError(
            "Global tokens are positions separated by spaces or commas, e.g. 0 31."
        ) from exc
    every = {"w": p["window"], "dilation": p["dilation"], "stride": p["stride"],
             "indices": indices, "r": p["random_keys"], "block": p["block"],
             "window_blocks": p["window_blocks"], "global_blocks": p["global_blocks"],
             "random_blocks": p["random_blocks"], "seed": p["seed"]}
    params = {k: every[k] for k in MASK_ARGS[p["pattern"]]}
    trace = mask_trace(p["pattern"], p["n"], layers=p["layers"],
                       max_layers=max(8, p["layers"]), causal=p["causal"],
                       length=p["length"] or None, **params)
    mask = torch.as_tensor(np.array(trace.mask))
    if p["blocked_row"]:
        mask[-1] = False
    q, k, v = random_qkv(p["n"], 16, seed=p["seed"])
    return trace, convention_trace(mask, q, k, v, as_written=bool(p.get("course")))


def _approx_part(p: dict, source) -> ApproxTrace:
    """The approximation of the settings ``p`` on ``source`` (or random q/k/v)."""
    if source is not None:
        q, k, v = (torch.as_tensor(np.array(a))[None, None] for a in source)
    else:
        q, k, v = random_qkv(p["seq_len"], p["d"], scale=p["scale"], seed=p["seed"])
    return approximation_trace(
        p["method"], q, k, v, num_features=p["features"], orthogonal=p["orthogonal"],
        kind=p["feature_kind"],
        # the causal box is hidden (and meaningless) for Linformer / banded
        causal=p["approx_causal"] and p["method"] in ("performer", "linear"),
        k_len=p["k_len"], projection=p["projection"], seed=p["seed"],
        window=p["approx_window"])


def _theory_part(p: dict) -> CostTheory:
    """FLOPs and memory (bytes) of every method but xformers, N = 64 … 65536."""
    n_theory = np.unique(np.geomspace(64, 65536, 64).astype(int)).astype(np.float32)
    flops, memory = cost_theory(n_theory, p["cost_d"], p["cost_w"], p["cost_m"],
                                p["cost_k"])
    keep = [i for i, m in enumerate(COST_METHODS) if m != "xformers"]
    return CostTheory(methods=tuple(COST_METHODS[i] for i in keep), n=n_theory,
                      flops=flops[keep], memory=memory[keep] * 4)


def efficient_trace(p: dict, source, wanted: dict[str, dict],
                    previous: EfficientTrace | None = None) -> EfficientTrace:
    """Recompute the parts whose settings changed (any thread).

    ``p`` holds every setting of the tab; ``wanted[part]`` the settings that part depends
    on (compared with ``previous.keys[part]``: equal means the part is handed on as it
    is); ``source`` the q, k, v of a Transformer head as numpy arrays (n, d_k), or None
    for random ones.
    """
    keys = dict(previous.keys) if previous is not None else {}
    parts = ({"mask": (previous.mask, previous.conventions), "approx": previous.approx,
              "theory": previous.theory} if previous is not None else {})
    errors = {}
    makers = {"mask": _mask_part, "approx": lambda p: _approx_part(p, source),
              "theory": _theory_part}
    # each part on its own: a setting one part refuses leaves the others drawn, and the
    # refused part keeps showing its last good result next to the message
    for part in EFFICIENT_PARTS:
        if part in wanted and keys.get(part) != wanted[part]:
            try:
                parts[part] = makers[part](p)
                keys[part] = wanted[part]
            except InvalidParameterError as exc:
                errors[part] = str(exc)
    mask, conventions = parts.get("mask") or (None, None)
    return EfficientTrace(mask=mask, conventions=conventions, approx=parts.get("approx"),
                          theory=parts.get("theory"), keys=keys, errors=errors)
