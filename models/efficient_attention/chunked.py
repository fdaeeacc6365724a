"""Memory-efficient attention as xformers and FlashAttention compute it, on the CPU: the
keys in chunks, the softmax online.

Exact attention builds the N×N score matrix S = QKᵀ/√d before it normalises a row. The
chunked form never holds more than one N×c block of scores: it walks over the keys c at
a time and keeps, per query row, three running quantities, the largest score seen so far
m, the sum of the exponentials l (relative to m) and the unnormalised output o. When a
chunk brings a larger score, the old l and o are rescaled by e^{m − m_new}; at the end
o / l is exactly softmax(S)V. Compute stays O(N²·d) (every score is still computed
once), memory for the intermediates drops from O(N²) to O(N·c) (besides the N×d
running output, the size of the output itself: O(N·(c + d)) in all). The queries are
taken all at once here; FlashAttention also tiles them, for the GPU's on-chip memory.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from models.efficient_attention.common import MaskLike, _as_mask, _int
from models.efficient_attention.options import CHUNK_MASKS
from models.errors import InvalidParameterError
from models.traces.efficient import ChunkedTrace, ChunkMemoryTrace

__all__ = ["CHUNK_MASKS", "chunked_attention", "online_softmax_steps", "mask_for",
           "chunked_trace", "chunk_memory_trace", "measure_peak"]


def mask_for(kind: str, n: int, length: int | None = None) -> torch.Tensor | None:
    """A keep-mask (True = may attend) of ``kind``: None, the causal lower triangle, or
    the keys 0 … length − 1 kept (padding from ``length`` on; default 3n/4).

    Shapes: returns bool (n, n) or None.
    """
    if kind == "none":
        return None
    if kind == "causal":
        return torch.ones(n, n, dtype=torch.bool).tril()
    if kind == "padding":
        keep = torch.zeros(n, n, dtype=torch.bool)
        keep[:, : max(1, length if length else (3 * n) // 4)] = True
        return keep
    raise InvalidParameterError(f"The mask is one of {', '.join(CHUNK_MASKS)}, got {kind!r}.")


def chunked_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, chunk: int,
                      mask: MaskLike | None = None, row: int | None = None):
    """softmax(QKᵀ/√d)V with the keys taken ``chunk`` at a time and an online softmax.

    For each chunk C of keys, with scores s_j = q·k_j/√d (j in C, −∞ where the
    keep-mask is False), per query row:

        m_new = max(m, max_{j∈C} s_j)
        l     = l·e^{m − m_new} + Σ_{j∈C} e^{s_j − m_new}
        o     = o·e^{m − m_new} + Σ_{j∈C} e^{s_j − m_new} v_j
        m     = m_new

    starting from m = −∞, l = 0, o = 0; the output is o / l. A row whose keys are all
    masked has l = 0 and gets zeros (as the app's ``exact_attention``). The last chunk
    may be shorter: ``chunk`` need not divide N.

    ``row``: also return, for that query row (batch item 0, head 0), the state after
    each chunk: a dict of float32 tensors ``end`` (keys seen), ``m``, ``l``,
    ``chunk_max`` (the chunk's own largest score, −∞ if all masked) and ``alpha``
    (the rescale factor e^{m − m_new}, 1 for a first chunk with nothing to rescale).

    Shapes:
        q (..., n_q, d), k (..., n_k, d), v (..., n_k, d_v),
        mask bool (n_q, n_k), True = may attend → output (..., n_q, d_v)
        largest intermediate: the scores and exponentials of one chunk, (..., n_q, chunk)
    """
    if q.dim() < 2 or k.dim() < 2 or q.size(-1) != k.size(-1) or k.size(-2) != v.size(-2):
        raise InvalidParameterError(
            f"q, k, v must be (..., n, d) with the same d and as many keys as values, "
            f"got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}.")
    n_q, n_k = q.size(-2), k.size(-2)
    chunk = _int("chunk", chunk)
    if row is not None and not 0 <= row < n_q:
        raise InvalidParameterError(f"The query row must be 0 … {n_q - 1}, got {row}.")
    keep = None if mask is None else _as_mask(mask).to(q.device)
    if keep is not None and keep.shape != (n_q, n_k):
        raise InvalidParameterError(f"The mask must be (n_q, n_k) = ({n_q}, {n_k}), got "
                                    f"{tuple(keep.shape)}.")
    # 1. the running state per query row: max m, sum l, unnormalised output o
    m = torch.full((*q.shape[:-1], 1), -math.inf, dtype=q.dtype, device=q.device)
    l_sum = torch.zeros_like(m)
    o = torch.zeros((*q.shape[:-1], v.size(-1)), dtype=q.dtype, device=q.device)
    scale = 1.0 / math.sqrt(q.size(-1))
    steps: dict[str, list[float]] = {"end": [], "m": [], "l": [], "chunk_max": [],
                                     "alpha": []}
    for start in range(0, n_k, chunk):
        stop = min(start + chunk, n_k)
        # 2. this chunk's scores: (..., n_q, c), the only block of scores ever held
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if keep is not None:
            s = s.masked_fill(~keep[:, start:stop], -math.inf)
        # 3. the new running max; where it is still −∞ (nothing seen) subtract 0 instead
        chunk_max = s.amax(-1, keepdim=True)
        m_new = torch.maximum(m, chunk_max)
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        # 4. rescale what was summed against the old max, add this chunk's terms
        alpha = torch.exp(m - shift)                  # e^{m − m_new}; 0 while m = −∞
        p = torch.exp(s - shift)                      # e^{s − m_new}; 0 where masked
        l_sum = l_sum * alpha + p.sum(-1, keepdim=True)
        o = o * alpha + p @ v[..., start:stop, :]
        if row is not None:
            at = (0,) * (q.dim() - 2) + (row, 0)
            fresh = math.isinf(float(m[at]))          # nothing summed before: no rescale
            steps["end"].append(stop)
            steps["m"].append(float(m_new[at]))
            steps["l"].append(float(l_sum[at]))
            steps["chunk_max"].append(float(chunk_max[at]))
            steps["alpha"].append(1.0 if fresh else float(alpha[at]))
        m = m_new
    # 5. normalise; a row with nothing to attend to (l = 0) stays zero
    out = torch.where(l_sum > 0, o / l_sum.clamp_min(torch.finfo(o.dtype).tiny),
                      torch.zeros_like(o))
    if row is None:
        return out
    return out, {key: torch.tensor(vals, dtype=torch.float32) for key, vals in steps.items()}


def online_softmax_steps(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, chunk: int,
                         row: int, mask: MaskLike | None = None) -> dict[str, torch.Tensor]:
    """The running state of query ``row`` after each chunk (see ``chunked_attention``)."""
    return chunked_attention(q, k, v, chunk, mask, row=row)[1]


# -- traces for the chunked views ------------------------------------------------------------------
#: the chunk sizes the equality sweep always tries (with N − 1, N, N + 5 and the chosen one)
SWEEP_CHUNKS = (1, 2, 3, 5, 7, 8, 13, 16, 31, 32, 48, 64, 100, 128, 256)
#: the N the memory panel measures, and the most chunks one measured call may take (the
#: profiler records every operator: thousands of small chunks would take seconds)
MEMORY_NS = (128, 256, 512, 1024, 2048)
MEMORY_MAX_CHUNKS = 256


@torch.no_grad()
def chunked_trace(n: int, chunk: int, row: int, mask_kind: str = "none", d: int = 16,
                  seed: int = 0) -> ChunkedTrace:
    """Chunked attention against two exact references on seeded random q, k, v
    (N(0, 1), float32, one head): the app's ``exact_attention`` and
    ``F.scaled_dot_product_attention``; the same comparison for the chunk sizes of
    ``SWEEP_CHUNKS`` up to N + 5 (some do not divide N); and the online softmax state of
    query ``row`` (clamped to N − 1) after each chunk, beside its exact row max and
    Σ e^{s − max} from the full row of scores."""
    from torch.nn import functional as tnf

    from models.efficient_attention.implied import exact_attention
    from models.efficient_attention.sweeps import random_qkv

    n, chunk, d = _int("n", n), _int("chunk", chunk), _int("d", d)
    row = min(_int("row", row, 0), n - 1)
    q, k, v = random_qkv(n, d, seed=seed)
    keep = mask_for(mask_kind, n)
    # 1. the two references
    exact, _ = exact_attention(q, k, v, keep)
    sdpa = tnf.scaled_dot_product_attention(q, k, v, attn_mask=keep)

    def diffs(c: int) -> tuple[float, float]:
        out = chunked_attention(q, k, v, c, keep)
        return float((out - exact).abs().max()), float((out - sdpa).abs().max())

    # 2. the chosen chunk with its steps, then the sweep over chunk sizes
    out, steps = chunked_attention(q, k, v, chunk, keep, row=row)
    sizes = sorted({c for c in (*SWEEP_CHUNKS, n - 1, n, n + 5, chunk) if 1 <= c <= n + 5})
    sweep = [diffs(c) for c in sizes]
    # 3. the exact row statistics the online ones must end at
    scores = (q[0, 0, row] @ k[0, 0].T) / math.sqrt(d)
    if keep is not None:
        scores = scores.masked_fill(~keep[row], -math.inf)
    top = scores.max()
    return ChunkedTrace(
        n=n, d=d, chunk=chunk, row=row, mask_kind=mask_kind, seed=int(seed),
        diff_exact=float((out - exact).abs().max()),
        diff_sdpa=float((out - sdpa).abs().max()),
        sweep_chunks=np.asarray(sizes, np.int64),
        sweep_diff=np.asarray(sweep, np.float32).T.copy(),
        step_end=steps["end"].numpy(), step_m=steps["m"].numpy(), step_l=steps["l"].numpy(),
        step_chunk_max=steps["chunk_max"].numpy(), step_alpha=steps["alpha"].numpy(),
        row_max=float(top), row_sum=float(torch.exp(scores - top).sum()))


def measure_peak(fn) -> float:
    """Peak bytes torch allocates during one call of ``fn`` on the CPU: the running sum
    of the allocations and frees its profiler records (``cost._peak_bytes``)."""
    from models.efficient_attention.cost import _peak_bytes

    return _peak_bytes(fn, torch.device("cpu"))


@torch.no_grad()
def chunk_memory_trace(chunk: int, d: int = 64, ns=MEMORY_NS, seed: int = 0
                       ) -> ChunkMemoryTrace:
    """Measured peak bytes of one call of exact attention (the app's
    ``exact_attention``: an N×N score matrix, its softmax) and of
    ``chunked_attention`` with ``chunk`` (an N×chunk block), for each N in ``ns``, with
    the size of each one's largest intermediate in bytes beside them (N²·4, N·min(c, N)·4).
    A chunked point with more than ``MEMORY_MAX_CHUNKS`` chunks is not measured (NaN)."""
    from models.efficient_attention.implied import exact_attention

    chunk, d = _int("chunk", chunk), _int("d", d)
    gen = torch.Generator().manual_seed(seed)
    exact_b, chunked_b = [], []
    for n in ns:
        q, k, v = (torch.randn(1, 1, n, d, generator=gen) for _ in range(3))
        exact_b.append(measure_peak(lambda q=q, k=k, v=v: exact_attention(q, k, v)))
        chunked_b.append(measure_peak(lambda q=q, k=k, v=v: chunked_attention(q, k, v, chunk))
                         if -(-n // chunk) <= MEMORY_MAX_CHUNKS else math.nan)
    nn_ = np.asarray(ns, np.float64)
    return ChunkMemoryTrace(
        chunk=chunk, d=d, n=np.asarray(ns, np.int64),
        exact_bytes=np.asarray(exact_b, np.float32),
        chunked_bytes=np.asarray(chunked_b, np.float32),
        exact_scores_bytes=(4 * nn_ * nn_).astype(np.float32),
        chunk_scores_bytes=(4 * nn_ * np.minimum(chunk, nn_)).astype(np.float32),
        how="torch profiler: CPU allocations and frees, running peak")
