"""Errors against exact attention and how they move: per-row total variation, relative
output error, and sweeps over the number of features, the projected length, the window
and the q/k scale, on seeded random inputs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from models.efficient_attention.banded import banded_attention
from models.efficient_attention.common import _int
from models.efficient_attention.implied import exact_attention
from models.efficient_attention.linear import (
    linear_attention,
    linformer_attention,
    linformer_projection,
    performer_attention,
)
from models.efficient_attention.options import APPROX_METHODS, SWEEP_CURVES
from models.efficient_attention.patterns import causal_mask
from models.errors import InvalidParameterError


# -- errors and sweeps ---------------------------------------------------------------------------
def row_tv_distance(approx_weights: torch.Tensor, exact_weights: torch.Tensor) -> torch.Tensor:
    """Total variation distance per row, ½·Σ_j |a_ij − e_ij| (0 = same, 1 = disjoint for
    probability rows; can exceed 1 when a has negative entries).

    Shapes: (..., n, n) twice → (..., n).
    """
    return 0.5 * (approx_weights - exact_weights).abs().sum(-1)


def relative_error(approx_out: torch.Tensor, exact_out: torch.Tensor) -> float:
    """‖approx − exact‖_F / ‖exact‖_F over the whole tensors."""
    return float((approx_out - exact_out).norm() / exact_out.norm().clamp_min(1e-30))


def _orthogonal_flag(curve: str) -> bool:
    if curve in ("orthogonal", "ortho"):
        return True
    if curve in ("i.i.d.", "iid"):
        return False
    raise InvalidParameterError(f"A Performer curve is 'orthogonal' or 'i.i.d.', got {curve!r}.")


@torch.no_grad()
def performer_error_sweep(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                          features: Sequence[int], seeds: int,
                          kinds: Sequence[str] = ("orthogonal", "i.i.d."), causal: bool = False,
                          feature_kind: str = "positive", first_seed: int = 0
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Relative output error of the Performer against exact attention, for each curve
    (``kinds``: "orthogonal" or "i.i.d." directions) and number of features m, over the
    projection seeds first_seed..first_seed + seeds − 1. Std is the population std.

    Shapes: returns mean, std float32 (len(kinds), len(features)).
    """
    seeds = _int("seeds", seeds)
    exact, _ = exact_attention(q, k, v, causal_mask(k.size(-2)) if causal else None)
    errors = np.zeros((len(kinds), len(features), seeds))
    for c, curve in enumerate(kinds):
        orthogonal = _orthogonal_flag(curve)
        for s, m in enumerate(features):
            for r in range(seeds):
                out = performer_attention(q, k, v, m, orthogonal, first_seed + r, causal,
                                          feature_kind)
                errors[c, s, r] = relative_error(out, exact)
    return errors.mean(-1).astype(np.float32), errors.std(-1).astype(np.float32)


def random_qkv(n: int, d: int, scale: float = 1.0, seed: int = 0, batch: int = 1,
               heads: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random inputs: q, k ~ N(0, 1)·scale, v ~ N(0, 1), float32, seeded.

    Shapes: each (batch, heads, n, d).
    """
    shape = (_int("batch", batch), _int("heads", heads), _int("n", n), _int("d", d))
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.randn(shape, generator=gen) * scale
    k = torch.randn(shape, generator=gen) * scale
    v = torch.randn(shape, generator=gen)
    return q, k, v


@torch.no_grad()
def _curve_errors(method: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  x: int | None = None, *, num_features: int = 64, kind: str = "positive",
                  causal: bool = False, k_len: int = 32, window: int = 8, seeds: int = 1,
                  first_seed: int = 0) -> np.ndarray:
    """Mean and std of the relative error of each curve of ``method`` at one setting
    (``x`` overrides m, k or w). Shapes: returns float64 (curves, 2)."""
    n = k.size(-2)
    exact, _ = exact_attention(q, k, v, causal_mask(n) if causal else None)
    curves = SWEEP_CURVES[method]
    out = np.zeros((len(curves), 2))
    for c, curve in enumerate(curves):
        errs = []
        if method == "performer":
            for r in range(seeds):
                approx = performer_attention(q, k, v, x or num_features, _orthogonal_flag(curve),
                                             first_seed + r, causal, kind)
                errs.append(relative_error(approx, exact))
        elif method == "linformer":
            k_here = x or k_len
            for r in range(seeds if curve == "random" else 1):
                proj = linformer_projection(n, k_here, curve, first_seed + r, q.dtype)
                errs.append(relative_error(linformer_attention(q, k, v, proj, proj), exact))
        elif method == "linear":
            errs.append(relative_error(linear_attention(q, k, v, causal), exact))
        else:
            errs.append(relative_error(banded_attention(q, k, v, x or window), exact))
        out[c] = np.mean(errs), np.std(errs)
    return out


def _check_method(method: str) -> None:
    if method not in APPROX_METHODS:
        raise InvalidParameterError(f"Unknown method {method!r}; choose one of "
                                    f"{', '.join(APPROX_METHODS)}.")


def scale_sweep(method: str, scales: Sequence[float], n: int, d: int, seed: int = 0,
                **params) -> np.ndarray:
    """Relative output error of ``method`` on random q, k ~ N(0, 1)·scale (v ~ N(0, 1))
    for each scale. Larger ‖q‖, ‖k‖ make softmax peakier and random-feature estimates
    of exp(q·k) worse: the Performer's error grows with the scale.

    ``params``: num_features=64, kind="positive", causal=False (performer, linear),
    k_len=32 (linformer), window=8 (banded), seeds=1 projection draws averaged (random
    curves), first_seed=0 the first of them. Curves: ``SWEEP_CURVES[method]``.

    Shapes: returns float32 (curves, len(scales)).
    """
    _check_method(method)
    result = np.zeros((len(SWEEP_CURVES[method]), len(scales)), np.float32)
    for r, scale in enumerate(scales):
        q, k, v = random_qkv(n, d, float(scale), seed)
        result[:, r] = _curve_errors(method, q, k, v, **params)[:, 0]
    return result
