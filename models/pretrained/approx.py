"""Approximate attention inside a pretrained model: softmax(QKᵀ/√d_k)V of every head of
every layer replaced by one of the approximations of ``models.efficient_attention``
(nothing new is implemented here, only fitted to a trained encoder's heads and its
padding mask):

* ``"performer"`` (m features): FAVOR+ positive random features, φ(Q)(φ(K)ᵀV) /
  φ(Q)(φ(K)ᵀ1), one orthogonal draw per layer (seeded ``seed + layer``), shared by the
  layer's heads; a masked key's features are zeroed, so it adds nothing to either sum.
* ``"linformer"`` (k rows): keys and values pooled along the sequence to k rows,
  softmax(Q(EK)ᵀ/√d_k)(FV) with E = F = mean pooling over the unmasked keys. The
  paper learns E and F while training; a trained model never saw any, so a fixed
  pooling is the honest stand-in. k ≥ the number of keys is the identity: exact.
* ``"sparse"`` (window w): the local window of the Longformer, |i − j| ≤ w // 2, AND the
  padding mask, then the exact masked softmax. A window covering every token is exact.

``layer_attention(kind, number, seed)`` returns, for ``PretrainedEncoder``'s
``attention=`` argument, a function of the layer index giving that layer's
``(q, k, v, mask) → (output, weights)``; ``"exact"`` gives None, the model's own path.
The weights are the n×n matrix each method effectively applies to V
(``implied_attention``), for display.

Shapes: q, k, v (batch, heads, n, d_k), mask None or a key keep-mask (batch, 1, 1, n)
→ output (batch, heads, n, d_k), weights (batch, heads, n, n).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from models.efficient_attention.common import _guard
from models.efficient_attention.implied import exact_attention, implied_attention
from models.efficient_attention.linear import (
    _kernel_attention,
    linformer_attention,
    linformer_projection,
    performer_features,
    random_projection,
)
from models.efficient_attention.patterns import local_window_mask
from models.errors import InvalidParameterError
from models.pretrained.options import APPROXIMATIONS

__all__ = ["layer_attention", "performer_heads", "linformer_heads", "window_heads"]


def _key_keep(mask: torch.Tensor | None) -> torch.Tensor | None:
    """The key keep-mask (batch, 1, 1, n) as bool (batch, 1, n); a mask over query-key
    pairs (a decoder's look-ahead mask) is refused."""
    if mask is None:
        return None
    if mask.dim() != 4 or mask.size(-2) != 1:
        raise InvalidParameterError(
            "approximate attention is offered for encoders (BERT-style models): a "
            "decoder's look-ahead mask is not a mask over keys alone.")
    return mask[:, :, 0, :].to(torch.bool)


def performer_heads(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    mask: torch.Tensor | None, num_features: int, seed: int
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Every head by FAVOR+ with ``num_features`` orthogonal random features."""
    keep = _key_keep(mask)
    d = q.size(-1)
    # 1. the layer's random directions, and the features of the scaled queries and keys
    projection = random_projection(num_features, d, True, seed, torch.float32).to(q)
    scale = d ** -0.25
    phi_q = performer_features(q * scale, projection, "positive", is_query=True)
    phi_k = performer_features(k * scale, projection, "positive", is_query=False)
    if keep is not None:                       # a masked key adds to neither sum
        phi_k = phi_k * keep.unsqueeze(-1).to(phi_k.dtype)
    # 2. linear cost: φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), no n×n matrix
    out = _kernel_attention(phi_q, phi_k, v, causal=False)
    # 3. the matrix it implies (display): φ(Q)φ(K)ᵀ, masked keys out, rows normalised
    weights = implied_attention("performer", q, k, projection=projection)
    if keep is not None:
        weights = weights * keep.unsqueeze(-2).to(weights.dtype)
        weights = weights / _guard(weights.sum(-1, keepdim=True))
    return out, weights


def linformer_heads(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    mask: torch.Tensor | None, rows: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every head by Linformer, keys and values mean-pooled to ``rows`` rows (fewer when
    a sentence has fewer unmasked keys). One sentence of the batch at a time: each has
    its own unmasked keys to pool."""
    keep = _key_keep(mask)
    n = k.size(-2)
    outs, maps = [], []
    for b in range(q.size(0)):
        kept = (torch.arange(n, device=k.device) if keep is None
                else keep[b, 0].nonzero()[:, 0])
        m = int(kept.numel())
        # 1. E = F: mean pooling over the unmasked keys, zero columns at the masked ones
        E = k.new_zeros(min(rows, m), n)
        E[:, kept] = linformer_projection(m, min(rows, m), "mean").to(k)
        # 2. softmax(Q(EK)ᵀ/√d)(FV), and the n×n matrix it applies to V
        outs.append(linformer_attention(q[b], k[b], v[b], E, E))
        maps.append(implied_attention("linformer", q[b], k[b], E=E, F=E))
    return torch.stack(outs), torch.stack(maps)


def window_heads(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                 mask: torch.Tensor | None, w: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every head by exact softmax over a local window |i − j| ≤ w // 2 (AND the mask)."""
    _key_keep(mask)
    window = local_window_mask(k.size(-2), w).to(q.device)
    keep = window if mask is None else mask.to(torch.bool) & window
    return exact_attention(q, k, v, keep)


def layer_attention(kind: str, number: int = 0, seed: int = 0
                    ) -> Callable[[int], Callable] | None:
    """For ``attention=`` of the encoder: layer index → that layer's attention; None for
    ``"exact"`` (the model's own softmax attention, untouched). ``number`` is m
    (performer), k (linformer) or w (sparse)."""
    if kind not in APPROXIMATIONS:
        raise InvalidParameterError(f"attention must be one of {', '.join(APPROXIMATIONS)}, "
                                    f"not {kind!r}.")
    if kind == "exact":
        return None
    number = int(number)
    if number < (0 if kind == "sparse" else 1):
        raise InvalidParameterError(f"{kind} needs a number of at least "
                                    f"{0 if kind == 'sparse' else 1}, not {number}.")
    if kind == "performer":
        return lambda layer: partial(performer_heads, num_features=number,
                                     seed=int(seed) + layer)
    if kind == "linformer":
        return lambda layer: partial(linformer_heads, rows=number)
    return lambda layer: partial(window_heads, w=number)
