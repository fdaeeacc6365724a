"""Views derived from attention weights: head average and attention rollout.

Pure numpy on the arrays of an ``AttentionMaps`` trace (no torch needed).
"""

from __future__ import annotations

import numpy as np


def head_average(weights: np.ndarray) -> np.ndarray:
    """Mean over heads. float[layers, heads, q, k] → float32[layers, q, k]."""
    return np.ascontiguousarray(weights.mean(axis=1), dtype=np.float32)


def attention_rollout(weights: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema, 2020) through a stack of self-attention layers.

    Each layer's head-averaged attention is mixed with the identity for the residual
    connection, ``Â = residual·I + (1 − residual)·A``, rows renormalised, and the
    layers multiplied from the first up: ``R_ℓ = Â_ℓ · R_{ℓ−1}``. Row i of the result
    says how much each input position flows into position i after all layers.

    Shapes: float[layers, heads, n, n] → float32[layers, n, n] (the rollout after each
    layer). Rows that were fully masked (all zeros) stay identity rows.
    """
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"rollout needs self-attention weights [layers, heads, n, n], "
                         f"got shape {weights.shape}")
    layers, _, n, _ = weights.shape
    eye = np.eye(n, dtype=np.float64)
    out = np.empty((layers, n, n), np.float32)
    rollout = eye
    for layer, a in enumerate(weights.mean(axis=1).astype(np.float64)):
        mixed = residual * eye + (1.0 - residual) * a
        mixed /= mixed.sum(axis=1, keepdims=True)
        rollout = mixed @ rollout
        out[layer] = rollout
    return out
