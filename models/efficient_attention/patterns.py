"""Sparse attention patterns as keep-masks (True = may attend), as in the course:
local and dilated windows, strided, global tokens, random keys, BigBird blocks,
Longformer (window + global), composed with causal and padding masks by AND and OR;
their density and how far information reaches through stacked layers."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from models.efficient_attention.common import MaskLike, _as_mask, _int, _offsets
from models.efficient_attention.options import MASK_KINDS
from models.errors import InvalidParameterError


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
