"""Sliding-window attention computed sparsely: the local window's softmax in band form,
O(n·w) time and memory, never an n×n matrix."""

from __future__ import annotations

import math

import torch
from torch.nn import functional as tnf

from models.efficient_attention.common import _check_qkv, _int


# -- sparse attention computed sparsely ----------------------------------------------------------
def banded_weights(q: torch.Tensor, k: torch.Tensor, w: int) -> torch.Tensor:
    """The local-window softmax weights in band form, without any n×n matrix.

    Band slot t of query i is key j = i − w//2 + t; slots outside 0..n−1 get weight 0.

    Shapes:
        - q, k: (..., n, d)
        - returns (..., n, band) with band = 2·min(w//2, n − 1) + 1
    """
    _check_qkv(q, k)
    n, d = k.size(-2), k.size(-1)
    half = min(_int("w", w, 0) // 2, n - 1)   # a wider window sees the same keys
    band = 2 * half + 1
    # 1. pad the keys by w//2 on both sides, then each query's band is a sliding view
    k_bands = tnf.pad(k, (0, 0, half, half)).unfold(-2, band, 1)          # (..., n, d, band)
    # 2. scores of each query with its band only: (..., n, 1, d) @ (..., n, d, band)
    scores = (q.unsqueeze(-2) @ k_bands).squeeze(-2) / math.sqrt(d)     # (..., n, band)
    # 3. slots that fall into the padding are masked out
    j = torch.arange(n, device=q.device)[:, None] - half + torch.arange(band, device=q.device)
    scores = scores.masked_fill(~((j >= 0) & (j < n)), float("-inf"))
    # 4. softmax over the band (every band holds the query itself: no empty row)
    return torch.softmax(scores, dim=-1)


def banded_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, w: int) -> torch.Tensor:
    """Sliding-window attention in O(n·w) time and memory.

    Equal to ``scaled_dot_product_attention(q, k, v, local_window_mask(n, w))`` but the
    largest tensors are the bands, (..., n, band) scores and (..., n, d, band) views of
    the keys and values, never (n, n).

    Shapes: q, k, v (..., n, d) → (..., n, d).
    """
    _check_qkv(q, k, v)
    # 1. the band weights (..., n, band)
    weights = banded_weights(q, k, w)
    half = (weights.size(-1) - 1) // 2
    # 2. the values in the same band form, (..., n, d, band)
    v_bands = tnf.pad(v, (0, 0, half, half)).unfold(-2, weights.size(-1), 1)
    # 3. weighted sum per query: (..., n, 1, band) @ (..., n, band, d)
    return (weights.unsqueeze(-2) @ v_bands.transpose(-1, -2)).squeeze(-2)
