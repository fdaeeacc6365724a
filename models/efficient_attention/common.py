"""Checks and conversions shared by the modules of ``models.efficient_attention``: whole
numbers in range, masks as bool tensors, detached numpy copies, guarded denominators and
the q/k/v shape check."""

from __future__ import annotations

import numpy as np
import torch

from models.errors import InvalidParameterError

# |denominator| below this is replaced by ±EPS (see ``_guard``)
EPS = 1e-12

MaskLike = torch.Tensor | np.ndarray


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
