"""Efficient attention: sparse patterns, random features, low-rank projections.

Exact attention, softmax(Q Kᵀ/√d) V, builds an n×n matrix: O(n²) time and memory.
The methods here avoid that matrix in three ways, and every one is measured against
the exact result:

* **Sparse patterns** (Longformer, BigBird, Sparse Transformer): each query sees only
  some keys. The masks are *keep*-masks as in the course (True = may attend); ``reach``
  shows how stacking layers lets information travel further than one layer's pattern.
  ``banded_attention`` computes a sliding window in O(n·w) without any n×n matrix.
* **Random features** (Performer, FAVOR+): exp(q·k) = E_w[φ(q)·φ(k)], so softmax
  attention ≈ φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), computed right-to-left in O(n·m·d). The
  estimate's error shrinks with the number of features m and grows with ‖q‖, ‖k‖;
  trigonometric features can even give negative "attention weights".
* **Low rank** (Linformer): keys and values are projected along the sequence to
  k ≪ n rows, softmax(Q (E K)ᵀ/√d)(F V). ``linear_attention`` (elu + 1 kernel) drops
  the softmax altogether.

``implied_attention`` returns the n×n matrix each method effectively uses (for display
only), and ``mask_trace``/``approximation_trace``/``convention_trace`` fill the frozen
dataclasses of ``models.traces`` for the views.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as tnf

from models.errors import InvalidParameterError
from models.traces import ApproxTrace, ConventionTrace, MaskTrace
from models.transformer import scaled_dot_product_attention

__all__ = [
    "MASK_KINDS", "APPROX_METHODS", "SWEEP_CURVES", "SCALES",
    "local_window_mask", "dilated_window_mask", "strided_mask", "global_token_mask",
    "random_mask", "bigbird_mask", "causal_mask", "combine_masks", "union_masks",
    "padding_keep", "build_mask", "mask_params", "density", "reach",
    "banded_weights", "banded_attention", "random_projection", "performer_features",
    "performer_attention", "linformer_projection", "fit_linformer_projections",
    "linformer_attention", "linear_attention", "exact_attention", "implied_attention",
    "row_tv_distance", "relative_error", "performer_error_sweep", "scale_sweep",
    "random_qkv", "mask_trace", "approximation_trace", "convention_trace",
]

MASK_KINDS = ("local", "dilated", "strided", "global", "random", "bigbird", "longformer")
APPROX_METHODS = ("performer", "linformer", "linear", "banded")
# the curves of the sweeps of each method (ApproxTrace.sweep_names)
SWEEP_CURVES = {"performer": ("orthogonal", "i.i.d."), "linformer": ("random", "mean"),
                "linear": ("elu+1",), "banded": ("banded",)}
SCALES = (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)

# |denominator| below this is replaced by ±EPS (see ``_guard``)
EPS = 1e-12
# causal kernel attention walks the positions in chunks of this many (see _kernel_attention)
CAUSAL_CHUNK = 64

MaskLike = torch.Tensor | np.ndarray


# -- helpers ------------------------------------------------------------------------------------
def _int(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as an int in [minimum, maximum], else InvalidParameterError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(f"{name} must be a whole number, got {value!r}.")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and at most {maximum}"
        raise InvalidParameterError(f"{name} must be at least {minimum}{upper}, got {value}.")
    return value


def _as_mask(mask: MaskLike) -> torch.Tensor:
    """A numpy or torch mask as a torch bool tensor."""
    if isinstance(mask, np.ndarray):
        return torch.from_numpy(np.array(mask, dtype=bool))   # a copy: may be read-only
    if not isinstance(mask, torch.Tensor):
        raise InvalidParameterError(f"A mask must be a numpy array or a tensor, got "
                                    f"{type(mask).__name__}.")
    return mask.to(torch.bool)


def _np(t: torch.Tensor) -> np.ndarray:
    """A detached CPU copy: float32, or bool for a boolean tensor."""
    t = t.detach().cpu()
    if t.dtype == torch.bool:
        return t.numpy().copy()
    return t.to(torch.float32).numpy().copy()


def _offsets(n: int) -> torch.Tensor:
    """i − j for every (query i, key j). Shapes: returns int32 (n, n)."""
    pos = torch.arange(n, dtype=torch.int32)
    return pos[:, None] - pos[None, :]


def _guard(den: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """A denominator with |den| < eps replaced by ±eps (its sign kept, 0 → +eps).

    Random-feature and kernel denominators are sums of positive terms in theory but can
    underflow to 0 in float32 (huge ‖q‖, ‖k‖), and trigonometric features make them
    signed and possibly ~0. The guard turns a would-be NaN/inf into a large but finite
    number; it never changes a denominator of normal size.
    """
    sign = torch.where(den < 0, -torch.ones_like(den), torch.ones_like(den))
    return torch.where(den.abs() < eps, sign * eps, den)


def _check_qkv(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor | None = None) -> None:
    if q.dim() < 2 or k.dim() < 2 or q.size(-1) != k.size(-1):
        raise InvalidParameterError(f"q and k must be (..., n, d) with the same d, got "
                                    f"{tuple(q.shape)} and {tuple(k.shape)}.")
    if q.size(-2) != k.size(-2):
        raise InvalidParameterError(
            f"These approximations compare square (self-)attention: {q.size(-2)} queries "
            f"against {k.size(-2)} keys is not square.")
    if v is not None and v.size(-2) != k.size(-2):
        raise InvalidParameterError(f"k and v must have the same length, got {k.size(-2)} "
                                    f"and {v.size(-2)}.")


# -- masks --------------------------------------------------------------------------------------
def local_window_mask(n: int, w: int) -> torch.Tensor:
    """Sliding window (Longformer): query i sees keys with |i − j| ≤ w//2, i.e. w/2 on
    each side of itself (an odd w is rounded down to the even w − 1).

    Shapes: returns bool (n, n), True = may attend.
    """
    n, w = _int("n", n), _int("w", w, 0)
    return _offsets(n).abs() <= w // 2


def dilated_window_mask(n: int, w: int, dilation: int) -> torch.Tensor:
    """Dilated sliding window: every ``dilation``-th key, w//2 of them on each side,
    |i − j| ≤ (w//2)·dilation and (i − j) divisible by the dilation. Same cost as a
    window of width w, ``dilation`` times the span (with holes).

    Shapes: returns bool (n, n).
    """
    n, w, dilation = _int("n", n), _int("w", w, 0), _int("dilation", dilation)
    off = _offsets(n)
    return (off.abs() <= (w // 2) * dilation) & (off % dilation == 0)


def strided_mask(n: int, stride: int) -> torch.Tensor:
    """The strided pattern of the Sparse Transformer: keys whose distance from the query
    is a multiple of ``stride``, (i − j) % stride == 0. The paper pairs it with a local
    window (``union_masks`` or ``build_mask("strided", n, stride=..., w=...)``), and
    ``combine_masks`` with ``causal_mask`` makes it autoregressive.

    Shapes: returns bool (n, n).
    """
    n, stride = _int("n", n), _int("stride", stride)
    return _offsets(n) % stride == 0


def global_token_mask(n: int, indices: Sequence[int]) -> torch.Tensor:
    """Global tokens (a [CLS] token, the question in QA): their rows and columns are all
    True, they see every token and every token sees them; nothing else is allowed.
    Symmetric.

    Shapes: returns bool (n, n).
    """
    n = _int("n", n)
    idx = [_int("a global token index", i, 0, n - 1) for i in indices]
    is_global = torch.zeros(n, dtype=torch.bool)
    is_global[idx] = True
    return is_global[:, None] | is_global[None, :]


def random_mask(n: int, r: int, seed: int = 0) -> torch.Tensor:
    """Exactly r distinct random keys for each query (BigBird's random part at token
    level), reproducible for a given seed.

    Shapes: returns bool (n, n) with r True per row.
    """
    n = _int("n", n)
    r = _int("r", r, 0, n)
    gen = torch.Generator().manual_seed(int(seed))
    # 1. a random order of the keys per row; the first r of it are the chosen keys
    chosen = torch.rand(n, n, generator=gen).argsort(dim=-1)[:, :r]
    mask = torch.zeros(n, n, dtype=torch.bool)
    return mask.scatter_(1, chosen, True)


def bigbird_mask(n: int, block: int, window_blocks: int = 3, global_blocks: int = 1,
                 random_blocks: int = 1, seed: int = 0) -> torch.Tensor:
    """BigBird: built on blocks of ``block`` tokens (what a GPU likes), then expanded.

    At block level: a sliding window of ``window_blocks`` blocks (odd, centred), the first
    ``global_blocks`` blocks global (their rows and columns all True), and for each block
    row ``random_blocks`` extra blocks drawn (seeded) among those not allowed yet, as many
    as exist.

    Shapes: returns bool (n, n); n must be divisible by ``block``.
    """
    n, block = _int("n", n), _int("block", block)
    if n % block:
        raise InvalidParameterError(f"BigBird needs n divisible by the block size, got "
                                    f"n = {n} and block = {block}.")
    nb = n // block
    window_blocks = _int("window_blocks", window_blocks, 1)
    if window_blocks % 2 == 0:
        raise InvalidParameterError(f"window_blocks must be odd (a centred window), got "
                                    f"{window_blocks}.")
    global_blocks = _int("global_blocks", global_blocks, 0, nb)
    random_blocks = _int("random_blocks", random_blocks, 0)
    # 1. window and global blocks
    allowed = local_window_mask(nb, window_blocks - 1)
    allowed |= global_token_mask(nb, range(global_blocks))
    # 2. random blocks: random scores, -1 where already allowed, the top r that are >= 0
    r = min(random_blocks, nb)
    if r:
        gen = torch.Generator().manual_seed(int(seed))
        scores = torch.rand(nb, nb, generator=gen).masked_fill(allowed, -1.0)
        top, idx = scores.topk(r, dim=-1)
        allowed = allowed.scatter(1, idx, top >= 0) | allowed
    # 3. every block becomes block × block tokens
    return allowed.repeat_interleave(block, 0).repeat_interleave(block, 1)


def causal_mask(n: int) -> torch.Tensor:
    """Query i sees keys 0..i (lower triangle with the diagonal). Shapes: bool (n, n)."""
    n = _int("n", n)
    return torch.ones(n, n, dtype=torch.bool).tril()


def combine_masks(*masks: MaskLike | None) -> torch.Tensor | None:
    """AND of keep-masks (None ignored; None if all are): allowed only if every mask
    allows it. Masks broadcast against each other."""
    out = None
    for m in masks:
        if m is not None:
            out = _as_mask(m) if out is None else out & _as_mask(m)
    return out


def union_masks(*masks: MaskLike | None) -> torch.Tensor | None:
    """OR of keep-masks (None ignored; None if all are): allowed if any mask allows it,
    e.g. window OR global tokens (Longformer)."""
    out = None
    for m in masks:
        if m is not None:
            out = _as_mask(m) if out is None else out | _as_mask(m)
    return out


def padding_keep(n: int, length: int) -> torch.Tensor:
    """Keys at positions >= ``length`` (padding) are blocked for every query.

    Shapes: returns bool (n, n).
    """
    n = _int("n", n)
    length = _int("length", length, 0, n)
    return (torch.arange(n) < length)[None, :].expand(n, n).clone()


_MASK_DEFAULTS: dict[str, dict] = {
    "local": {"w": 4},
    "dilated": {"w": 4, "dilation": 2},
    "strided": {"stride": 4, "w": None},
    "global": {"indices": (0,)},
    "random": {"r": 2, "seed": 0},
    "bigbird": {"block": 4, "window_blocks": 3, "global_blocks": 1, "random_blocks": 1,
                "seed": 0},
    "longformer": {"w": 4, "indices": (0,)},
}


def mask_params(kind: str, **params) -> dict:
    """The full parameters ``build_mask(kind, n, **params)`` uses: defaults filled in,
    plus ``causal`` and ``length``. Unknown kinds or parameters raise."""
    if kind not in _MASK_DEFAULTS:
        raise InvalidParameterError(f"Unknown mask kind {kind!r}; choose one of "
                                    f"{', '.join(MASK_KINDS)}.")
    full = dict(_MASK_DEFAULTS[kind], causal=False, length=None)
    unknown = sorted(set(params) - set(full))
    if unknown:
        raise InvalidParameterError(f"The {kind} mask takes {', '.join(sorted(full))}, not "
                                    f"{', '.join(unknown)}.")
    full.update(params)
    if "indices" in full:
        full["indices"] = tuple(int(i) for i in full["indices"])
    return full


def build_mask(kind: str, n: int, **params) -> torch.Tensor:
    """The pattern ``kind`` (one of MASK_KINDS) for n tokens.

    Parameters (defaults in ``mask_params``): local ``w``; dilated ``w, dilation``;
    strided ``stride`` and optional ``w`` (a local window OR-ed in, the Sparse
    Transformer's pair of heads); global ``indices``; random ``r, seed``; bigbird
    ``block, window_blocks, global_blocks, random_blocks, seed``; longformer ``w, indices``
    (window OR global). For every kind ``causal=True`` ANDs the causal mask and
    ``length`` blocks keys from that position on (padding).

    Shapes: returns bool (n, n).
    """
    p = mask_params(kind, **params)
    # 1. the pattern itself
    if kind == "local":
        mask = local_window_mask(n, p["w"])
    elif kind == "dilated":
        mask = dilated_window_mask(n, p["w"], p["dilation"])
    elif kind == "strided":
        mask = strided_mask(n, p["stride"])
        if p["w"] is not None:
            mask = mask | local_window_mask(n, p["w"])
    elif kind == "global":
        mask = global_token_mask(n, p["indices"])
    elif kind == "random":
        mask = random_mask(n, p["r"], p["seed"])
    elif kind == "bigbird":
        mask = bigbird_mask(n, p["block"], p["window_blocks"], p["global_blocks"],
                            p["random_blocks"], p["seed"])
    else:
        mask = union_masks(local_window_mask(n, p["w"]), global_token_mask(n, p["indices"]))
    # 2. causality and padding compose with AND
    return combine_masks(mask, causal_mask(n) if p["causal"] else None,
                         None if p["length"] is None else padding_keep(n, p["length"]))


def density(mask: MaskLike) -> float:
    """The fraction of (query, key) pairs allowed: the cost relative to full attention."""
    m = _as_mask(mask)
    return float(m.float().mean()) if m.numel() else 0.0


def _reach_steps(mask: MaskLike, layers: int) -> list[torch.Tensor]:
    """Reach after 1..layers layers (``reach`` of each)."""
    m = _as_mask(mask)
    if m.dim() != 2 or m.size(0) != m.size(1):
        raise InvalidParameterError(f"reach needs a square (n, n) mask, got {tuple(m.shape)}.")
    # 1. the residual connection carries each token's own state: mask OR identity
    step = (m | torch.eye(m.size(0), dtype=torch.bool)).float()
    out, cur = [], step
    for _ in range(layers):
        out.append(cur > 0)
        # 2. one more layer: i reaches j if i attends some k that already reaches j
        cur = ((cur > 0).float() @ step)
    return out


def reach(mask: MaskLike, layers: int) -> torch.Tensor:
    """Which keys' information can reach which query after ``layers`` layers.

    Layer ℓ + 1 lets query i read token k, which already holds what k reached in ℓ
    layers, so reach = (mask OR I)^layers as a boolean matrix product (float matmul,
    then > 0). A window of w//2 each side reaches ℓ·w//2 each side after ℓ layers.

    Shapes: mask bool (n, n) → bool (n, n); ``layers = 0`` gives the identity.
    """
    layers = _int("layers", layers, 0)
    m = _as_mask(mask)
    if layers == 0:
        return torch.eye(m.size(0), dtype=torch.bool)
    return _reach_steps(m, layers)[-1]


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


# -- Performer: random features -------------------------------------------------------------------
def random_projection(num_features: int, d: int, orthogonal: bool = True, seed: int = 0,
                      dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The m random directions w of the Performer's features.

    i.i.d.: rows ~ N(0, I_d). Orthogonal (FAVOR+): ⌈m/d⌉ blocks, each the Q of a QR
    decomposition of a Gaussian d×d matrix (orthonormal rows), stacked and cut to m rows;
    each row is rescaled by the norm of a fresh Gaussian d-vector (chi distribution with
    d degrees of freedom), so every row has the same marginal law as an i.i.d. one, but
    rows within a block are exactly orthogonal (less redundancy, lower variance).

    Shapes: returns (num_features, d).
    """
    m, d = _int("num_features", num_features), _int("d", d)
    gen = torch.Generator().manual_seed(int(seed))
    if not orthogonal:
        return torch.randn(m, d, generator=gen, dtype=torch.float64).to(dtype)
    # 1. orthonormal blocks: the rows of Qᵀ of each Gaussian block (one batched QR).
    #    QR's sign convention (R with a positive diagonal in LAPACK's Householder form
    #    is not guaranteed) biases the directions; multiplying the columns of Q by
    #    sign(diag R) makes Q Haar-distributed, i.e. the directions isotropic.
    gaussian = torch.randn(math.ceil(m / d), d, d, generator=gen, dtype=torch.float64)
    q_, r_ = torch.linalg.qr(gaussian)
    q_ = q_ * torch.sign(torch.diagonal(r_, dim1=-2, dim2=-1)).unsqueeze(-2)
    rows = q_.transpose(-2, -1).reshape(-1, d)[:m]
    # 2. lengths as those of Gaussian vectors
    norms = torch.randn(m, d, generator=gen, dtype=torch.float64).norm(dim=-1)
    return (rows * norms[:, None]).to(dtype)


def performer_features(x: torch.Tensor, projection: torch.Tensor, kind: str = "positive",
                       is_query: bool = True, stabilize: bool = True) -> torch.Tensor:
    """φ(x) with E[φ(q)·φ(k)] = exp(q·k), for x already scaled by d^(-1/4).

    * ``"positive"`` (FAVOR+): φ(x) = exp(w·x − ‖x‖²/2)/√m, m features, all > 0.
    * ``"trig"``: φ(x) = exp(‖x‖²/2)/√m · [sin(w·x), cos(w·x)], 2m features; products
      can be negative, so the "attention weights" can be negative and the denominator
      can get near 0 — why the Performer uses positive features.

    Stabiliser: the largest exponent is subtracted before exp — per row for queries, one
    max over all keys and features of each (batch, head) for keys. Each is a constant
    factor of a query's row or of the whole key side, so it cancels in the normalised
    attention (a per-row max for keys would not: it would reweight the keys).

    Shapes: x (..., n, d), projection (m, d) → (..., n, m) or (..., n, 2m) for trig.
    """
    if kind not in ("positive", "trig"):
        raise InvalidParameterError(f"Feature kind must be 'positive' or 'trig', got {kind!r}.")
    m = projection.size(0)
    # 1. random projections w·x and half the squared norm
    wx = x @ projection.to(x).T                                  # (..., n, m)
    half_sq = (x * x).sum(-1, keepdim=True) / 2                  # (..., n, 1)
    exponent = wx - half_sq if kind == "positive" else half_sq
    # 2. stabiliser: per row (queries) or one constant (keys)
    if stabilize:
        dims = (-1,) if is_query else (-2, -1)
        exponent = exponent - exponent.amax(dim=dims, keepdim=True).detach()
    # 3. the features
    if kind == "positive":
        return torch.exp(exponent) / math.sqrt(m)
    return torch.exp(exponent) / math.sqrt(m) * torch.cat([torch.sin(wx), torch.cos(wx)], -1)


def _kernel_attention(phi_q: torch.Tensor, phi_k: torch.Tensor, v: torch.Tensor,
                      causal: bool) -> torch.Tensor:
    """φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), right to left, or with prefix sums when causal.

    Shapes: phi_q, phi_k (..., n, m), v (..., n, d_v) → (..., n, d_v).
    """
    if not causal:
        # 1. φ(K)ᵀV and φ(K)ᵀ1 once for all queries: (..., m, d_v) and (..., m)
        kv = phi_k.transpose(-2, -1) @ v
        k_sum = phi_k.sum(dim=-2)
        num = phi_q @ kv
        den = (phi_q * k_sum.unsqueeze(-2)).sum(-1, keepdim=True)
    else:
        # 1. prefix sums over positions: query i uses S_i = Σ_{j≤i} φ(k_j) v_jᵀ and
        #    z_i = Σ_{j≤i} φ(k_j). Computed a chunk of c positions at a time: the sums over
        #    the earlier chunks are carried as one (m, d_v) state and one m-vector, and the
        #    chunk's own terms come from the c×c lower triangle of φ(Q_c)φ(K_c)ᵀ — the same
        #    numbers as a cumsum over positions without holding n (m × d_v) matrices.
        n = phi_k.size(-2)
        state = phi_k.new_zeros(*phi_k.shape[:-2], phi_k.size(-1), v.size(-1))
        k_sum = phi_k.new_zeros(*phi_k.shape[:-2], 1, phi_k.size(-1))
        tri = torch.ones(CAUSAL_CHUNK, CAUSAL_CHUNK, device=v.device).tril().to(v.dtype)
        nums, dens = [], []
        for start in range(0, n, CAUSAL_CHUNK):
            sl = slice(start, start + CAUSAL_CHUNK)
            fq, fk, vc = phi_q[..., sl, :], phi_k[..., sl, :], v[..., sl, :]
            c = fk.size(-2)
            local = (fq @ fk.transpose(-2, -1)) * tri[:c, :c]          # (..., c, c)
            nums.append(fq @ state + local @ vc)
            dens.append((fq * k_sum).sum(-1, keepdim=True) + local.sum(-1, keepdim=True))
            state = state + fk.transpose(-2, -1) @ vc
            k_sum = k_sum + fk.sum(-2, keepdim=True)
        num, den = torch.cat(nums, dim=-2), torch.cat(dens, dim=-2)
    # 2. normalise (guarded against a vanishing denominator)
    return num / _guard(den)


def performer_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, num_features: int,
                        orthogonal: bool = True, seed: int = 0, causal: bool = False,
                        kind: str = "positive", projection: torch.Tensor | None = None
                        ) -> torch.Tensor:
    """Performer (FAVOR+): softmax attention estimated with m random features.

    softmax(QKᵀ/√d)V ≈ φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) with q, k scaled by d^(-1/4): cost
    O(n·m·d), never an n×n matrix; causal attention uses prefix sums over positions
    (chunk by chunk, the running sums carried over; at most 64×64 scores at once). A
    denominator with |den| < 1e-12 is replaced by ±1e-12 (``_guard``) so an underflow
    gives a finite output rather than NaN. ``projection`` overrides the (num_features,
    seed, orthogonal) draw.

    Shapes: q, k (..., n, d), v (..., n, d_v) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    d = q.size(-1)
    # 1. random directions (the same for queries and keys)
    if projection is None:
        projection = random_projection(num_features, d, orthogonal, seed, q.dtype)
    projection = projection.to(q)
    # 2. features of the scaled queries and keys
    scale = d ** -0.25
    phi_q = performer_features(q * scale, projection, kind, is_query=True)
    phi_k = performer_features(k * scale, projection, kind, is_query=False)
    # 3. linear-cost attention with those features
    return _kernel_attention(phi_q, phi_k, v, causal)


# -- Linformer and linear attention ---------------------------------------------------------------
def linformer_projection(n: int, k: int, kind: str = "random", seed: int = 0,
                         dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A projection of a length-n sequence to k rows.

    ``"random"``: entries N(0, 1/k) (Johnson–Lindenstrauss); ``"mean"``: mean pooling over
    k consecutive segments as equal as possible (row r averages positions
    ⌊r·n/k⌋..⌊(r+1)·n/k⌋−1; rows sum to 1; needs k ≤ n); ``"identity"``: k must be n.

    Shapes: returns (k, n).
    """
    n, k = _int("n", n), _int("k", k)
    if kind == "random":
        gen = torch.Generator().manual_seed(int(seed))
        return (torch.randn(k, n, generator=gen, dtype=torch.float64) / math.sqrt(k)).to(dtype)
    if kind == "mean":
        if k > n:
            raise InvalidParameterError(f"Mean pooling needs k <= n (segments of at least "
                                        f"one position), got k = {k} and n = {n}.")
        bounds = (torch.arange(k + 1) * n) // k
        pos = torch.arange(n)
        member = (pos[None, :] >= bounds[:-1, None]) & (pos[None, :] < bounds[1:, None])
        return (member.double() / member.sum(-1, keepdim=True)).to(dtype)
    if kind == "identity":
        if k != n:
            raise InvalidParameterError(f"An identity projection needs k = n, got k = {k} "
                                        f"and n = {n}.")
        return torch.eye(n, dtype=dtype)
    raise InvalidParameterError(f"Projection kind must be 'random', 'mean' or 'identity', "
                                f"got {kind!r}.")


def linformer_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, E: torch.Tensor,
                        F: torch.Tensor) -> torch.Tensor:
    """Linformer: softmax(Q (E K)ᵀ/√d)(F V). Keys and values are projected along the
    sequence to k rows, so the score matrix is n×k: O(n·k) instead of O(n²).

    Shapes: q, k (..., n, d), v (..., n, d_v), E, F (k, n) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    if E.size(-1) != k.size(-2) or F.size(-1) != v.size(-2) or E.size(-2) != F.size(-2):
        raise InvalidParameterError(f"E and F must both be (k, n) with n = {k.size(-2)}, got "
                                    f"{tuple(E.shape)} and {tuple(F.shape)}.")
    # 1. the sequence projected to k rows
    k_proj, v_proj = E.to(k) @ k, F.to(v) @ v                   # (..., k, d), (..., k, d_v)
    # 2. ordinary attention over those k rows
    scores = q @ k_proj.transpose(-2, -1) / math.sqrt(q.size(-1))
    return torch.softmax(scores, dim=-1) @ v_proj


def fit_linformer_projections(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_len: int,
                              steps: int = 200, lr: float = 0.05, seed: int = 0
                              ) -> tuple[torch.Tensor, torch.Tensor]:
    """Linformer's projections are learned; here, a small honest demo: E and F start as
    mean pooling and Adam minimises the mean squared difference between
    ``linformer_attention`` and exact attention *on these q, k, v* (fitted to one input,
    not trained over a data set as in the paper). The fit is deterministic; ``seed`` is
    accepted for a uniform signature and not used.

    Shapes: q, k (..., n, d), v (..., n, d_v) → E, F (k_len, n), detached.
    """
    del seed
    _check_qkv(q, k, v)
    n = k.size(-2)
    steps = _int("steps", steps, 0)
    q, k, v = q.detach(), k.detach(), v.detach()
    if not 1 <= int(k_len) <= n:
        raise InvalidParameterError(f"Learned projections shorten the sequence: k must be "
                                    f"between 1 and n = {n}, got {k_len}.")
    # 1. start from mean pooling
    start = linformer_projection(n, k_len, "mean", dtype=q.dtype).to(q.device)
    E = start.clone().requires_grad_(True)
    F_ = start.clone().requires_grad_(True)
    with torch.no_grad():
        target, _ = scaled_dot_product_attention(q, k, v)
    opt = torch.optim.Adam([E, F_], lr=lr)
    with torch.enable_grad():
        for _ in range(steps):
            # 2. one Adam step on the output error
            opt.zero_grad()
            loss = torch.mean((linformer_attention(q, k, v, E, F_) - target) ** 2)
            loss.backward()
            opt.step()
    return E.detach(), F_.detach()


def _elu_feature(x: torch.Tensor) -> torch.Tensor:
    return tnf.elu(x) + 1


def linear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     causal: bool = False) -> torch.Tensor:
    """Linear attention (Katharopoulos et al.): the softmax replaced by the kernel
    φ(q)·φ(k) with φ = elu + 1 (positive), computed right to left in O(n·d²):
    φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1); prefix sums when causal. Not an estimate of softmax
    attention: a different attention. Denominator guarded as in ``performer_attention``.

    Shapes: q, k (..., n, d), v (..., n, d_v) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    return _kernel_attention(_elu_feature(q), _elu_feature(k), v, causal)


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


# -- traces for the views -------------------------------------------------------------------------
def mask_trace(kind: str, n: int, layers: int = 2, max_layers: int = 8, **params) -> MaskTrace:
    """A mask, its density and how far information travels through 1..max_layers layers.

    ``field[l]`` counts the keys the middle query n//2 reaches after l + 1 layers;
    ``field_theory[l]`` is the span of a stacked window: min(n, (l+1)·w + 1) for a local
    window, min(n, (l+1)·dilation·w + 1) dilated, with w rounded down to even (w//2 each
    side); causal: one side, ℓ·w/2 + 1 up to n//2 + 1. NaN for other kinds and with
    padding. A dilated
    window's span has holes: ``field`` counts keys, so it stays below the span.
    """
    n = _int("n", n)
    layers, max_layers = _int("layers", layers), _int("max_layers", max_layers)
    p = mask_params(kind, **params)
    mask = build_mask(kind, n, **p)
    # 1. reach after 1..max(layers, max_layers) layers
    steps = _reach_steps(mask, max(layers, max_layers))
    reach_fraction = np.array([float(r.float().mean()) for r in steps[:max_layers]])
    field = np.array([float(r[n // 2].sum()) for r in steps[:max_layers]])
    # 2. the textbook receptive field
    ell = np.arange(1, max_layers + 1)
    theory = np.full(max_layers, np.nan)
    if kind in ("local", "dilated") and p["length"] is None:
        step = 2 * (p["w"] // 2) * (p["dilation"] if kind == "dilated" else 1)
        if p["causal"]:       # one side only: the middle query has n//2 keys behind it
            theory = np.minimum(n // 2 + 1, ell * (step // 2) + 1.0)
        else:
            theory = np.minimum(n, ell * step + 1.0)
    return MaskTrace(kind=kind, n=n, params=p, mask=_np(mask), density=density(mask),
                     layers=layers, reach=_np(steps[layers - 1]),
                     reach_fraction=reach_fraction.astype(np.float32),
                     field=field.astype(np.float32), field_theory=theory.astype(np.float32))


def _sweep_x(method: str, n: int, d: int, num_features: int) -> list[int]:
    if method == "performer":                 # m = 8, 16, … up to 4·max(d, m)
        top = 4 * max(d, num_features)
        return [8 * 2 ** i for i in range(64) if 8 * 2 ** i <= top] or [top]
    if method == "linformer":                 # k = 2, 4, … below n, then n
        return [2 ** i for i in range(1, 64) if 2 ** i < n] + [n]
    if method == "banded":                    # w = 2, 4, … until the window covers all
        xs = [2]
        while xs[-1] < 2 * (n - 1):
            xs.append(xs[-1] * 2)
        return xs
    return [d]                                # linear: no knob, one point at m = d


@torch.no_grad()
def approximation_trace(method: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
                        num_features: int = 64, orthogonal: bool = True,
                        kind: str = "positive", causal: bool = False, k_len: int = 32,
                        projection: str = "random", seed: int = 0, sweep_seeds: int = 5,
                        window: int = 8) -> ApproxTrace:
    """One approximation against exact attention, with its sweeps.

    ``method``: "performer" (num_features, orthogonal, kind, causal, seed), "linformer"
    (k_len, projection in random/mean/identity/learned, seed; not causal), "linear"
    (causal) or "banded" (window; not causal). The matrices are batch item 0, head 0;
    the output error is over all of q, k, v.

    Sweeps (``sweep_x``): performer — m = 8, 16, … up to 4·max(d, num_features), curves
    orthogonal / i.i.d., ``sweep_seeds`` draws each; linformer — k = 2, 4, … up to n,
    curves random (``sweep_seeds`` draws) / mean pooling; banded — window w = 2, 4, …
    until it covers the sequence (error 0 there); linear — no parameter, a single point
    at x = d (φ has d features). ``scale_x`` = SCALES on random N(0, 1)·scale inputs
    of the same n and d, the same curves.
    """
    _check_method(method)
    _check_qkv(q, k, v)
    if causal and method in ("linformer", "banded"):
        raise InvalidParameterError(f"The {method} approximation here is not causal; "
                                    f"switch causal off.")
    n, d = k.size(-2), k.size(-1)
    sweep_seeds = _int("sweep_seeds", sweep_seeds)
    # 1. the exact reference
    exact_out, exact_w = exact_attention(q, k, v, causal_mask(n) if causal else None)
    # 2. the approximation and the matrix it implies
    params: dict = {"method": method, "seed": int(seed), "causal": bool(causal)}
    if method == "performer":
        params.update(num_features=num_features, orthogonal=orthogonal, kind=kind)
        proj = random_projection(num_features, d, orthogonal, seed, q.dtype)
        out = performer_attention(q, k, v, num_features, causal=causal, kind=kind,
                                  projection=proj)
        implied = implied_attention("performer", q, k, projection=proj, kind=kind,
                                    causal=causal)
    elif method == "linformer":
        params.update(k_len=k_len, projection=projection)
        if projection == "learned":
            E, F_ = fit_linformer_projections(q, k, v, k_len, seed=seed)
        else:
            E = F_ = linformer_projection(n, k_len, projection, seed, q.dtype)
        out = linformer_attention(q, k, v, E, F_)
        implied = implied_attention("linformer", q, k, E=E, F=F_)
    elif method == "linear":
        out = linear_attention(q, k, v, causal)
        implied = implied_attention("linear", q, k, causal=causal)
    else:
        params.update(window=window)
        out = banded_attention(q, k, v, window)
        implied = implied_attention("banded", q, k, w=window)
    implied0, exact0 = implied.reshape(-1, n, n)[0], exact_w.reshape(-1, n, n)[0]
    # 3. sweeps over the method's knob and over the q/k scale
    xs = _sweep_x(method, n, d, num_features)
    if method == "performer":
        sweep_mean, sweep_std = performer_error_sweep(q, k, v, xs, sweep_seeds, causal=causal,
                                                      feature_kind=kind, first_seed=seed)
    else:
        stats = np.stack([_curve_errors(method, q, k, v, x, causal=causal, seeds=sweep_seeds,
                                        first_seed=seed) for x in xs], axis=1)
        sweep_mean, sweep_std = stats[..., 0], stats[..., 1]
    scale_params = {"performer": {"num_features": num_features, "kind": kind,
                                  "causal": causal, "seeds": sweep_seeds},
                    "linformer": {"k_len": min(k_len, n), "seeds": sweep_seeds},
                    "linear": {"causal": causal}, "banded": {"window": window}}[method]
    scale_error = scale_sweep(method, SCALES, n, d, seed, first_seed=seed, **scale_params)
    return ApproxTrace(method=method, params=params, exact=_np(exact0), implied=_np(implied0),
                       row_tv=_np(row_tv_distance(implied0, exact0)),
                       output_error=relative_error(out, exact_out),
                       negative=float((implied0 < 0).float().mean()),
                       sweep_x=np.asarray(xs, np.float32),
                       sweep_error=np.asarray(sweep_mean, np.float32),
                       sweep_std=np.asarray(sweep_std, np.float32),
                       sweep_names=SWEEP_CURVES[method],
                       scale_x=np.asarray(SCALES, np.float32), scale_error=scale_error)


def _identity_mha(d: int, dtype: torch.dtype, device: torch.device) -> nn.MultiheadAttention:
    """One-head ``nn.MultiheadAttention`` whose in and out projections are the identity,
    so it computes plain softmax(QKᵀ/√d)V (left in training mode with dropout 0, which
    keeps it off the fused fast path)."""
    mha = nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=dtype,
                                device=device)
    with torch.no_grad():
        eye = torch.eye(d, dtype=dtype, device=device)
        mha.in_proj_weight.copy_(torch.cat([eye, eye, eye]))
        mha.out_proj.weight.copy_(eye)
    return mha


@torch.no_grad()
def convention_trace(mask: MaskLike, q: torch.Tensor, k: torch.Tensor,
                     v: torch.Tensor) -> ConventionTrace:
    """One keep-mask through three APIs, each given the mask in its own convention.

    1. the course's ``scaled_dot_product_attention(q, k, v, mask)`` (1 = attend);
    2. ``F.scaled_dot_product_attention(q, k, v, attn_mask=mask)`` (bool True = take
       part); its weights are read off by passing the identity as the values;
    3. ``nn.MultiheadAttention`` with identity projections, ``attn_mask=~mask`` (bool
       True = blocked), ``need_weights=True``.

    ``max_diff`` compares outputs with the course's over rows with at least one allowed
    key (all batch items and heads). ``flipped_diff`` is the same comparison when each
    API gets the opposite polarity: the course and SDPA ~mask, MultiheadAttention the
    course's mask unconverted (NaN rows ignored; NaN if nothing is left). ``nan_rows``
    counts the rows of weights (item 0, head 0) that are NaN.

    Shapes: mask (n, n), q, k, v (..., n, d) → weights float32 (3, n, n).
    """
    _check_qkv(q, k, v)
    keep = _as_mask(mask).to(q.device)
    n, d = k.size(-2), k.size(-1)
    if keep.shape != (n, n):
        raise InvalidParameterError(f"The mask must be (n, n) = ({n}, {n}), got "
                                    f"{tuple(keep.shape)}.")
    lead = q.shape[:-2]
    q3, k3, v3 = (t.reshape(-1, n, t.size(-1)) for t in (q, k, v))
    mha = _identity_mha(d, q.dtype, q.device)
    eye = torch.eye(n, dtype=q.dtype, device=q.device).expand(q3.size(0), n, n)

    def run(api: int, m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(output (..., n, d_v), weights of item 0 (n, n)) of API ``api`` given mask m."""
        if api == 0:
            out, w = scaled_dot_product_attention(q3, k3, v3, m)
        elif api == 1:
            out = tnf.scaled_dot_product_attention(q3, k3, v3, attn_mask=m)
            w = tnf.scaled_dot_product_attention(q3, k3, eye, attn_mask=m)
        else:
            out, w = mha(q3, k3, v3, attn_mask=m, need_weights=True,
                         average_attn_weights=False)
            w = w[:, 0]
        return out.reshape(*lead, n, -1), w[0]

    def diff(out: torch.Tensor, ref: torch.Tensor) -> float:
        rows = (out - ref).abs().amax(-1)[..., keep.any(-1)]
        rows = rows[~torch.isnan(rows)]
        return float(rows.max()) if rows.numel() else float("nan")

    # 1. each API with the mask it needs, then with the opposite polarity
    right = [run(0, keep), run(1, keep), run(2, ~keep)]
    wrong = [run(0, ~keep), run(1, ~keep), run(2, keep)]
    ref = right[0][0]
    # 2. compare with the course's function
    weights = torch.stack([w for _, w in right])
    return ConventionTrace(
        mask=_np(keep),
        api_names=("course scaled_dot_product_attention", "F.scaled_dot_product_attention",
                   "nn.MultiheadAttention"),
        conversions=("mask (1 = attend)", "attn_mask=mask (True = take part)",
                     "attn_mask=~mask (True = blocked)"),
        weights=_np(weights),
        max_diff=np.array([diff(out, ref) for out, _ in right], np.float32),
        flipped_diff=np.array([diff(out, ref) for out, _ in wrong], np.float32),
        nan_rows=np.array([int(torch.isnan(w).any(-1).sum()) for _, w in right], np.int64))
