"""Attention as the course writes it: ``scaled_dot_product_attention``,
``MultiHeadAttention`` (``W_q W_k W_v W_o``, ``split_heads``, ``combine_heads``) and the
masks. Masks are keep-masks everywhere: 1/True = may attend.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from models.errors import InvalidParameterError


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 mask: torch.Tensor | None = None, scale: float | None = None
                                 ) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V.

    ``scale`` replaces the 1/√d_k (as in ``torch.nn.functional.scaled_dot_product_attention``);
    ``scale=1.0`` is the ablation without it: the scores then grow like √d_k and the
    softmax saturates.

    ``mask`` is a *keep*-mask, as in the course: 1/True = may attend, 0/False =
    blocked, broadcastable to (..., q_len, k_len). Blocked scores become -inf before
    the softmax; a row with every key blocked (a padding query, say) gets all-zero
    weights and a zero output instead of the NaNs a softmax over -inf would give.

    Shapes:
        - q: (..., q_len, d_k), k: (..., k_len, d_k), v: (..., k_len, d_v)
        - returns output (..., q_len, d_v) and weights (..., q_len, k_len)
    """
    d_k = q.size(-1)
    # 1. similarity of every query with every key, scaled so the softmax stays soft
    if scale is None:
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    else:
        scores = (q @ k.transpose(-2, -1)) * scale
    if mask is not None:
        keep = mask.to(torch.bool)
        # 2. blocked pairs get -inf: exp(-inf) = 0 after the softmax (in place: the
        #    scores are this function's own, and the division's gradient needs no output)
        scores.masked_fill_(~keep, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        # 3. rows with nothing to attend to: zeros, not NaN (in place unless autograd
        #    needs the softmax's output; at N = 512 each full-size copy cost ~7 ms)
        empty = ~keep.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(empty, 0.0) if torch.is_grad_enabled() else \
            weights.masked_fill_(empty, 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    # 4. the weighted sum of the values
    return weights @ v, weights


class MultiHeadAttention(nn.Module):
    r"""MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_o, with
    head_i = Attention(Q W_q^i, K W_k^i, V W_v^i).

    The h heads share one ``nn.Linear`` per projection (``W_q, W_k, W_v``: d_model →
    d_model) whose output is split into h slices of d_k = d_model / h. ``scaled=False``
    (an ablation) leaves out the 1/√d_k.

    Shapes:
        - q: (batch, q_len, d_model), k and v: (batch, k_len, d_model)
        - mask: keep-mask broadcastable to (batch, heads, q_len, k_len)
        - output: (batch, q_len, d_model); weights (batch, heads, q_len, k_len)
    """

    def __init__(self, d_model: int, num_heads: int, scaled: bool = True) -> None:
        super().__init__()
        self.scaled = scaled
        if d_model % num_heads:
            raise InvalidParameterError(
                f"d_model ({d_model}) must be divisible by num_heads ({num_heads}).")
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, n, d_model) → (batch, heads, n, d_k)."""
        b, n, _ = x.shape
        return x.view(b, n, self.num_heads, self.d_k).transpose(1, 2)

    def combine_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, heads, n, d_k) → (batch, n, d_model)."""
        b, _, n, _ = x.shape
        return x.transpose(1, 2).contiguous().view(b, n, self.d_model)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                mask: torch.Tensor | None = None, return_attention: bool = False,
                head_mask: torch.Tensor | None = None, attention=None):
        """``head_mask`` (heads,): 1 keeps a head, 0 switches it off (its weights and
        its output become zero, so it adds nothing through ``W_o``). ``attention``, when
        given, replaces ``scaled_dot_product_attention`` in every head: a function
        ``(q, k, v, mask) → (output, weights)`` of the split heads (an approximation of
        ``models.pretrained.approx``, say)."""
        # 1. project, then split into heads
        q = self.split_heads(self.W_q(q))
        k = self.split_heads(self.W_k(k))
        v = self.split_heads(self.W_v(v))
        # 2. attention in every head at once
        if attention is None:
            out, weights = scaled_dot_product_attention(q, k, v, mask,
                                                        None if self.scaled else 1.0)
        else:                      # an approximation put in its place (models/pretrained)
            out, weights = attention(q, k, v, mask)
        if head_mask is not None:
            scale = head_mask.to(out.dtype).view(1, -1, 1, 1)
            out, weights = out * scale, weights * scale
        # 3. concatenate the heads and mix them
        out = self.W_o(self.combine_heads(out))
        return (out, weights) if return_attention else out

    def extra_repr(self) -> str:
        return (f"d_model={self.d_model}, num_heads={self.num_heads}, d_k={self.d_k}"
                + ("" if self.scaled else ", scaled=False"))


def create_padding_mask(seq: torch.Tensor, pad_token_idx: int = 0) -> torch.Tensor:
    """Keep-mask of the non-padding keys. (batch, k_len) → bool (batch, 1, 1, k_len)."""
    return (seq != pad_token_idx).unsqueeze(1).unsqueeze(2)


def create_look_ahead_mask(size: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Keep-mask of position i seeing positions 0..i: lower triangle *with* the diagonal.

    (The course's ``create_look_ahead_mask`` builds ``triu(ones, diagonal=1)``, which
    marks the *blocked* pairs, and returns its negation ``~mask``: the same keep-mask.
    Where the course's code does differ is in ``models.transformer.course``.)

    Shapes: returns bool (1, 1, size, size).
    """
    return torch.tril(torch.ones(size, size, dtype=torch.bool, device=device))[None, None]


def combine_masks(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """Keep-masks combine with AND: a pair is attended only if every mask allows it."""
    out = None
    for m in masks:
        if m is not None:
            out = m if out is None else out & m
    return out
