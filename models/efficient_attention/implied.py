"""The reference and what each method effectively computes: exact softmax attention,
and the n×n matrix each approximation multiplies V with (for display only)."""

from __future__ import annotations

import math

import torch

from models.efficient_attention.banded import banded_weights
from models.efficient_attention.common import MaskLike, _as_mask, _check_qkv, _guard
from models.efficient_attention.linear import (
    _elu_feature,
    performer_features,
    random_projection,
)
from models.efficient_attention.patterns import causal_mask
from models.errors import InvalidParameterError
from models.transformer import scaled_dot_product_attention


def exact_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    mask: MaskLike | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The reference: the course's ``scaled_dot_product_attention`` (keep-mask; a fully
    masked row gets zero weights).

    Shapes: q, k (..., n, d), v (..., n, d_v), mask (n, n) → (..., n, d_v), (..., n, n).
    """
    _check_qkv(q, k, v)
    keep = None if mask is None else _as_mask(mask).to(q.device)
    return scaled_dot_product_attention(q, k, v, keep)


# -- what each method effectively computes ---------------------------------------------------------
def _row_normalise(a: torch.Tensor) -> torch.Tensor:
    return a / _guard(a.sum(-1, keepdim=True))


def implied_attention(method: str, q: torch.Tensor, k: torch.Tensor, **params) -> torch.Tensor:
    """The n×n matrix a method effectively multiplies V with (display only: O(n²)).

    * ``"performer"`` (num_features=64, orthogonal=True, seed=0, kind="positive",
      causal=False, projection=None): φ(q)φ(k)ᵀ (causal mask applied), rows divided by
      their sum — negative entries kept for trig features.
    * ``"linear"`` (causal=False): the same with φ = elu + 1.
    * ``"linformer"`` (E, F required): softmax(q(Ek)ᵀ/√d)·F. *Not* renormalised: this is
      exactly the matrix applied to V; its rows sum to 1 for mean pooling (F's rows sum
      to 1) but not for random projections — Linformer's output is no convex
      combination of the values.
    * ``"banded"`` (w required): the band weights scattered into place, i.e. the masked
      softmax of the local window.
    * ``"sparse"`` (mask required) and ``"exact"`` (mask=None): the (masked) softmax.

    Shapes: q, k (..., n, d) → (..., n, n).
    """
    _check_qkv(q, k)
    n, d = k.size(-2), k.size(-1)
    if method in ("performer", "linear"):
        causal = bool(params.get("causal", False))
        if method == "performer":
            projection = params.get("projection")
            if projection is None:
                projection = random_projection(params.get("num_features", 64), d,
                                               params.get("orthogonal", True),
                                               params.get("seed", 0), q.dtype)
            kind = params.get("kind", "positive")
            scale = d ** -0.25
            phi_q = performer_features(q * scale, projection.to(q), kind, is_query=True)
            phi_k = performer_features(k * scale, projection.to(q), kind, is_query=False)
        else:
            phi_q, phi_k = _elu_feature(q), _elu_feature(k)
        # 1. the kernel matrix, causal mask, rows normalised
        a = phi_q @ phi_k.transpose(-2, -1)
        if causal:
            a = a.masked_fill(~causal_mask(n).to(a.device), 0.0)
        return _row_normalise(a)
    if method == "linformer":
        E, F_ = params["E"].to(k), params["F"].to(k)
        scores = q @ (E @ k).transpose(-2, -1) / math.sqrt(d)
        return torch.softmax(scores, dim=-1) @ F_
    if method == "banded":
        weights = banded_weights(q, k, params["w"])
        band = weights.size(-1)
        half = (band - 1) // 2
        # 1. slot t of row i is column i − half + t of a (n, n + 2·half) matrix
        cols = (torch.arange(n, device=q.device)[:, None]
                + torch.arange(band, device=q.device)).expand(weights.shape)
        wide = weights.new_zeros(*weights.shape[:-1], n + 2 * half)
        return wide.scatter(-1, cols, weights)[..., half:half + n]
    if method in ("sparse", "exact"):
        mask = params.get("mask")
        if method == "sparse" and mask is None:
            raise InvalidParameterError("The sparse implied attention needs a mask.")
        _, weights = exact_attention(q, k, k, mask)
        return weights
    raise InvalidParameterError(f"Unknown method {method!r}; choose performer, linear, "
                                f"linformer, banded, sparse or exact.")
