"""The Transformer as the course's code behaves, run with a model's own weights, to set
beside ours ("as the course writes it" in the Transformer tab).

Three places where the chapter's code computes something else than ours:

a. its ``scaled_dot_product_attention`` blocks with ``scores.masked_fill(mask == 0, -1e9)``:
   a row whose every key is blocked gets softmax(-1e9, ..., -1e9) = uniform weights 1/k,
   where ours (-inf, then 0 for an empty row) gives zeros;
b. its ``forward`` combines the decoder's masks as
   ``torch.logical_and(tgt_padding_mask.transpose(-2, -1), look_ahead_mask)``: the
   transposed (batch, 1, t, 1) padding mask blocks every key of a *padded query* instead
   of the padded *keys* (its ``create_look_ahead_mask`` returns ``~triu(ones, 1)``, a
   keep-mask equal to ours);
c. its ``F.scaled_dot_product_attention`` example passes
   ``triu(ones, diagonal=1)`` (True = blocked) as ``attn_mask``, which PyTorch reads as
   True = may attend, and calls ``(query, value, attn_mask=...)`` without the key.

``course_forward`` runs the whole model the chapter's way (our own code reproducing
what its code does, with the model's modules), ``course_comparison`` sets the result of
one attention kind beside ours for the Transformer tab.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as tnf

from models.traces import AttentionMaps, AttentionPanels, CourseAttention
from models.transformer.attention import MultiHeadAttention, create_padding_mask

__all__ = ["course_scaled_dot_product_attention", "course_look_ahead_mask",
           "course_decoder_mask", "course_forward", "course_sdpa_example",
           "course_comparison"]

#: what the chapter fills blocked scores with
COURSE_FILL = -1e9


def course_scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                        mask: torch.Tensor | None = None
                                        ) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √d_k) V with the chapter's blocking: scores where ``mask == 0``
    become -1e9 (so a row with every key blocked is uniform, not zero).

    Shapes: q (..., q_len, d_k), k (..., k_len, d_k), v (..., k_len, d_v) → output
    (..., q_len, d_v), weights (..., q_len, k_len).
    """
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, COURSE_FILL)
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights


def course_look_ahead_mask(size: int, device=None) -> torch.Tensor:
    """The chapter's ``create_look_ahead_mask``: ``~triu(ones, diagonal=1)``, a keep-mask
    (True = may attend), bool (1, 1, size, size). It equals ours."""
    blocked = torch.triu(torch.ones(size, size, device=device), diagonal=1).bool()
    return ~blocked.unsqueeze(0).unsqueeze(0)


def course_decoder_mask(tgt: torch.Tensor, pad: int, use_padding_mask: bool = True,
                        use_look_ahead_mask: bool = True) -> torch.Tensor | None:
    """The chapter's decoder self-attention mask:
    ``logical_and(tgt_padding_mask.transpose(-2, -1), look_ahead_mask)``, (batch, 1, t, t).
    A switched-off mask is left out, as in the tab."""
    padding = (create_padding_mask(tgt, pad).transpose(-2, -1) if use_padding_mask
               else None)
    look_ahead = course_look_ahead_mask(tgt.size(1), tgt.device) if use_look_ahead_mask \
        else None
    if padding is not None and look_ahead is not None:
        return torch.logical_and(padding, look_ahead)
    return padding if padding is not None else look_ahead


class _Calls:
    """Each attention call of a course forward: (q, k, v per head, raw scores, weights)."""

    def __init__(self) -> None:
        self.calls: list[tuple[torch.Tensor, ...]] = []

    def mha(self, m: MultiHeadAttention, q: torch.Tensor, kv: torch.Tensor,
            mask: torch.Tensor | None) -> torch.Tensor:
        # 1. project and split, as the chapter's MultiHeadAttention.forward
        qh, kh, vh = (m.split_heads(m.W_q(q)), m.split_heads(m.W_k(kv)),
                      m.split_heads(m.W_v(kv)))
        # 2. the chapter's scaled_dot_product_attention
        out, weights = course_scaled_dot_product_attention(qh, kh, vh, mask)
        raw = qh @ kh.transpose(-2, -1) / math.sqrt(m.d_k)
        self.calls.append((qh, kh, vh, raw, weights))
        # 3. combine the heads, W_o
        return m.W_o(m.combine_heads(out))


def _encoder_layer(calls: _Calls, layer, x: torch.Tensor, mask) -> torch.Tensor:
    x = layer.add_norm1(x, calls.mha(layer.self_attn, x, x, mask))
    return layer.add_norm2(x, layer.ffn(x))


def _decoder_layer(calls: _Calls, layer, x, memory, look_ahead_mask, padding_mask):
    x = layer.add_norm1(x, calls.mha(layer.masked_self_attn, x, x, look_ahead_mask))
    x = layer.add_norm2(x, calls.mha(layer.encoder_decoder_attn, x, memory, padding_mask))
    return layer.add_norm3(x, layer.ffn(x))


@torch.no_grad()
def course_forward(model, src: torch.Tensor, tgt: torch.Tensor | None = None,
                   use_padding_mask: bool = True, use_look_ahead_mask: bool = True) -> dict:
    """Run ``model`` (a ``Transformer``, ``EncoderOnly`` or ``DecoderOnly``, in eval mode)
    the way the chapter's code does: its attention function (a), its decoder mask (b),
    the source padding mask for the encoder and the cross-attention (as ours).

    ``src`` is the source (the whole sequence of a one-stack model), ``tgt`` the
    decoder input of an encoder-decoder model. Returns {"encoder": calls, "decoder":
    calls, "cross": calls, "masks": {kind: keep-mask}}, each calls a list per layer of
    (q, k, v, raw scores, weights), heads split.
    """
    pad = model.pad_token_idx
    src_mask = create_padding_mask(src, pad) if use_padding_mask else None
    enc, dec, cross = _Calls(), _Calls(), _Calls()
    if hasattr(model, "encoder_embedding"):          # the encoder-decoder Transformer
        tgt_mask = course_decoder_mask(tgt, pad, use_padding_mask, use_look_ahead_mask)
        x = model.embed(src, model.encoder_embedding)
        for layer in model.encoder_layers:
            x = _encoder_layer(enc, layer, x, src_mask)
        y = model.embed(tgt, model.decoder_embedding)
        self_calls = _Calls()
        for layer in model.decoder_layers:
            # one decoder layer records a self- and a cross-attention call, in that order
            y = _decoder_layer(self_calls, layer, y, x, tgt_mask, src_mask)
        dec.calls, cross.calls = self_calls.calls[0::2], self_calls.calls[1::2]
        masks = {"encoder": src_mask, "decoder": tgt_mask, "cross": src_mask}
    elif hasattr(model, "encoder_layers"):           # EncoderOnly: the padding mask
        x = model.positional_encoding(model.embedding(src) * math.sqrt(model.d_model))
        for layer in model.layers:
            x = _encoder_layer(enc, layer, x, src_mask)
        masks = {"encoder": src_mask}
    else:                                            # DecoderOnly: the decoder's mask
        mask = course_decoder_mask(src, pad, use_padding_mask, use_look_ahead_mask)
        x = model.positional_encoding(model.embedding(src) * math.sqrt(model.d_model))
        for layer in model.layers:
            x = _encoder_layer(dec, layer, x, mask)
        masks = {"decoder": mask}
    return {"encoder": enc.calls, "decoder": dec.calls, "cross": cross.calls, "masks": masks}


@torch.no_grad()
def course_sdpa_example(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, str]:
    """The chapter's ``F.scaled_dot_product_attention`` example on these queries and keys
    (one head, (q_len, d_k) and (k_len, d_k)): its mask ``triu(ones, diagonal=1)`` (True =
    blocked, as its comment says) goes in as ``attn_mask``, where PyTorch reads True as
    "may attend". Called as written, ``(query, value, attn_mask=...)``, it raises; the
    weights are those of the call with the key restored (values = the identity, so the
    output is the weight matrix). Returns (weights (q_len, k_len), the call's error)."""
    n = k.size(-2)
    causal_mask_bool = torch.triu(torch.ones(q.size(-2), n, dtype=torch.bool,
                                             device=q.device), diagonal=1)
    try:        # as written: the key is missing
        tnf.scaled_dot_product_attention(q, k, attn_mask=causal_mask_bool, is_causal=False)
        error = ""
    except TypeError as exc:
        error = str(exc)
    eye = torch.eye(n, dtype=q.dtype, device=q.device)
    weights = tnf.scaled_dot_product_attention(q, k, eye, attn_mask=causal_mask_bool,
                                               is_causal=False)
    return weights, error


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float32, copy=True).numpy()


def _keep(mask: torch.Tensor | None, shape: tuple[int, int]) -> np.ndarray:
    if mask is None:
        return np.ones(shape, bool)
    return mask[0, 0].expand(*shape).cpu().numpy().astype(bool)


def course_comparison(model, src: torch.Tensor, tgt: torch.Tensor | None, kind: str,
                      layer: int, head: int, ours: AttentionMaps, use_padding_mask: bool,
                      use_look_ahead_mask: bool
                      ) -> tuple[AttentionMaps, AttentionPanels, CourseAttention]:
    """The course's weights of every attention kind (batch item 0) as ``AttentionMaps``,
    the chosen head's panels under the course's mask and fill, and the comparison of the
    chosen kind and layer with ``ours``: max |Δweight| and the query rows that differ,
    the rows the course's mask blocks entirely (uniform 1/k), and for decoder
    self-attention the chapter's SDPA example on the chosen head."""
    run = course_forward(model, src, tgt, use_padding_mask, use_look_ahead_mask)

    def stack(name: str) -> np.ndarray:
        calls = run[name]
        if not calls:
            return getattr(ours, {"encoder": "encoder_self", "decoder": "decoder_self",
                                  "cross": "cross"}[name])
        return np.stack([_np(c[4][0]) for c in calls])

    enc_w, dec_w, cross_w = stack("encoder"), stack("decoder"), stack("cross")
    masks = run["masks"]
    s = ours.src_mask.shape[0]
    t = ours.tgt_mask.shape[0]
    maps = AttentionMaps(
        encoder_self=enc_w, decoder_self=dec_w, cross=cross_w,
        src_mask=_keep(masks.get("encoder"), (s, s)) if "encoder" in masks else ours.src_mask,
        tgt_mask=_keep(masks.get("decoder"), (t, t)) if "decoder" in masks else ours.tgt_mask,
        cross_mask=_keep(masks.get("cross"), (t, s)) if "cross" in masks else ours.cross_mask,
        src_ids=ours.src_ids, tgt_ids=ours.tgt_ids)
    field = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}[kind]
    mine, theirs = getattr(ours, field)[layer], getattr(maps, field)[layer]
    delta = np.abs(theirs - mine)                    # (heads, q, k)
    row_delta = delta.max(axis=(0, 2))
    qh, kh, _, raw, weights = run[kind][layer]
    keep = {"encoder": maps.src_mask, "decoder": maps.tgt_mask, "cross": maps.cross_mask}[kind]
    raw_h = _np(raw[0, head])
    panels = AttentionPanels(mask=keep, raw=raw_h, masked=np.where(keep, raw_h, np.nan),
                             softmax=_np(weights[0, head]), fully_masked=~keep.any(-1))
    sdpa = np.zeros((0, 0), np.float32)
    sdpa_error = ""
    if kind == "decoder":
        w, sdpa_error = course_sdpa_example(qh[0, head], kh[0, head])
        sdpa = _np(w)
    ours_head = getattr(ours, field)[layer, head]
    with np.errstate(invalid="ignore"):
        sdpa_delta = np.abs(sdpa - ours_head) if sdpa.size else np.zeros((0, 0), np.float32)
    comparison = CourseAttention(
        kind=kind, layer=layer, head=head,
        max_delta=float(delta.max()) if delta.size else 0.0,
        rows=np.flatnonzero(row_delta > 1e-6).astype(np.int64),
        blocked_rows=np.flatnonzero(~keep.any(-1)).astype(np.int64),
        keys=int(keep.shape[1]),
        sdpa=sdpa,
        sdpa_max_delta=float(np.nanmax(sdpa_delta)) if sdpa.size and
        np.isfinite(sdpa_delta).any() else float("nan"),
        sdpa_nan_rows=np.flatnonzero(np.isnan(sdpa).any(-1)).astype(np.int64) if sdpa.size
        else np.zeros(0, np.int64),
        sdpa_error=sdpa_error)
    return maps, panels, comparison
