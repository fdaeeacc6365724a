"""The Transformer, built from the components the course names.

``PositionalEncoding``, ``scaled_dot_product_attention``, ``MultiHeadAttention``
(``W_q W_k W_v W_o``, ``split_heads``, ``combine_heads``), ``AddNorm``,
``PositionWiseFeedForward``, ``EncoderLayer``, ``DecoderLayer`` and ``Transformer``
(``encode``, ``decode``, ``create_padding_mask``, ``create_look_ahead_mask``), plus
encoder-only and decoder-only stacks. Masks are keep-masks everywhere: 1/True = may
attend. Each part is tested against PyTorch's own module with the weights copied.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError
from models.traces import AttentionMaps


def _check_encoding(d_model: int, base: float) -> None:
    if d_model < 2 or d_model % 2:
        raise InvalidParameterError(f"d_model must be a positive even number, got {d_model}.")
    if not base > 1.0 or not math.isfinite(base):
        raise InvalidParameterError(f"The base must be a finite number above 1, got {base}.")


def sinusoidal_table(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    r"""The sinusoidal table of "Attention Is All You Need", section 3.5.

    .. math::
        PE_{(pos, 2i)} = \sin(pos / base^{2i/d}), \quad
        PE_{(pos, 2i+1)} = \cos(pos / base^{2i/d})

    The angles are computed in float64 and the table is returned as float32: in
    float32, ``pos * div_term`` loses about ``pos * 6e-8`` radians, which at
    position 4000 already shows as a 1e-4 error in the relative-position property.

    Shapes:
        returns float32[max_len, d_model]
    """
    _check_encoding(d_model, base)
    if max_len < 1:
        raise InvalidParameterError(f"max_len must be at least 1, got {max_len}.")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                         * (-math.log(base) / d_model))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.to(torch.float32)


class PositionalEncoding(nn.Module):
    r"""Adds the fixed sinusoidal position signal to a batch of embeddings.

    The idea: attention is blind to order, so each position gets a distinct
    vector of sines and cosines at geometrically spaced frequencies; for any
    offset ``k`` there is one linear map ``M_k`` with ``PE[pos+k] = M_k PE[pos]``,
    which lets attention pick out relative positions.

    Args:
        d_model: embedding size (even).
        dropout: dropout applied to the sum (the paper uses 0.1).
        max_len: longest sequence the table covers.
        base: the wavelength base, 10000 in the paper.

    Shapes:
        - buffer ``pe``: (1, max_len, d_model)
        - input ``x``: (batch, seq_len, d_model) with seq_len <= max_len
        - output: (batch, seq_len, d_model)
    """

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000,
                 base: float = 10000.0) -> None:
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len
        self.base = base
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", sinusoidal_table(max_len, d_model, base).unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.size(1)
        if seq_len > self.max_len:
            raise InvalidParameterError(
                f"The sequence has {seq_len} positions but the encoding covers only "
                f"max_len = {self.max_len}.")
        # 1. add the first seq_len rows of the table (broadcast over the batch)
        x = x + self.pe[:, :seq_len]
        # 2. dropout on the sum, as in the paper
        return self.dropout(x)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"


def relative_position_matrix(d_model: int, offset: int, base: float = 10000.0) -> torch.Tensor:
    r"""The linear map ``M_k`` with ``PE[pos + k] = M_k @ PE[pos]`` for every pos.

    It is block-diagonal: for the pair of dimensions (2i, 2i+1) with frequency
    :math:`\omega_i = base^{-2i/d}`, the block is the rotation
    ``[[cos kω, sin kω], [-sin kω, cos kω]]`` (from the angle-sum identities).
    It does not depend on ``pos``, which is the whole point.

    Shapes:
        returns float32[d_model, d_model]
    """
    _check_encoding(d_model, base)
    omega = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                      * (-math.log(base) / d_model))
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(0, d_model, 2)
    m[idx, idx] = c
    m[idx, idx + 1] = s
    m[idx + 1, idx] = -s
    m[idx + 1, idx + 1] = c
    return m.to(torch.float32)


# -- attention ---------------------------------------------------------------------------------
def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 mask: torch.Tensor | None = None
                                 ) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V.

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
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        keep = mask.to(torch.bool)
        # 2. blocked pairs get -inf: exp(-inf) = 0 after the softmax
        scores = scores.masked_fill(~keep, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        # 3. rows with nothing to attend to: zeros, not NaN
        weights = weights.masked_fill(~keep.any(dim=-1, keepdim=True), 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    # 4. the weighted sum of the values
    return weights @ v, weights


class MultiHeadAttention(nn.Module):
    r"""MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_o, with
    head_i = Attention(Q W_q^i, K W_k^i, V W_v^i).

    The h heads share one ``nn.Linear`` per projection (``W_q, W_k, W_v``: d_model →
    d_model) whose output is split into h slices of d_k = d_model / h.

    Shapes:
        - q: (batch, q_len, d_model), k and v: (batch, k_len, d_model)
        - mask: keep-mask broadcastable to (batch, heads, q_len, k_len)
        - output: (batch, q_len, d_model); weights (batch, heads, q_len, k_len)
    """

    def __init__(self, d_model: int, num_heads: int) -> None:
        super().__init__()
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
                mask: torch.Tensor | None = None, return_attention: bool = False):
        # 1. project, then split into heads
        q = self.split_heads(self.W_q(q))
        k = self.split_heads(self.W_k(k))
        v = self.split_heads(self.W_v(v))
        # 2. attention in every head at once
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        # 3. concatenate the heads and mix them
        out = self.W_o(self.combine_heads(out))
        return (out, weights) if return_attention else out

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, num_heads={self.num_heads}, d_k={self.d_k}"


class AddNorm(nn.Module):
    """Residual connection then layer normalisation (post-norm, as in the paper):
    ``LayerNorm(x + Dropout(sublayer_output))``."""

    def __init__(self, normalized_shape: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.layer_norm = nn.LayerNorm(normalized_shape)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer_output: torch.Tensor) -> torch.Tensor:
        return self.layer_norm(x + self.dropout(sublayer_output))


class PositionWiseFeedForward(nn.Module):
    """FFN(x) = W_2 Dropout(ReLU(W_1 x + b_1)) + b_2, the same MLP at every position.

    Shapes: (batch, n, d_model) → (batch, n, d_model), with d_ff hidden units.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.activation = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class EncoderLayer(nn.Module):
    """Self-attention, Add & Norm, feed-forward, Add & Norm.

    Shapes: x (batch, n, d_model); mask: keep-mask broadcastable to
    (batch, heads, n, n), e.g. ``create_padding_mask`` (batch, 1, 1, n).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads)
        self.add_norm1 = AddNorm(d_model, dropout)
        self.ffn = PositionWiseFeedForward(d_model, d_ff, dropout)
        self.add_norm2 = AddNorm(d_model, dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                return_attention: bool = False):
        # 1. every position attends to every (unmasked) position
        attn, weights = self.self_attn(x, x, x, mask, return_attention=True)
        x = self.add_norm1(x, attn)
        # 2. the position-wise MLP
        x = self.add_norm2(x, self.ffn(x))
        return (x, weights) if return_attention else x


class DecoderLayer(nn.Module):
    """Masked self-attention, Add & Norm, encoder-decoder attention, Add & Norm,
    feed-forward, Add & Norm.

    Shapes: x (batch, t, d_model); encoder_output (batch, s, d_model);
    look_ahead_mask: keep-mask broadcastable to (batch, heads, t, t) (it should
    already include the target padding); padding_mask: keep-mask of the source,
    broadcastable to (batch, heads, t, s).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.masked_self_attn = MultiHeadAttention(d_model, num_heads)
        self.add_norm1 = AddNorm(d_model, dropout)
        self.encoder_decoder_attn = MultiHeadAttention(d_model, num_heads)
        self.add_norm2 = AddNorm(d_model, dropout)
        self.ffn = PositionWiseFeedForward(d_model, d_ff, dropout)
        self.add_norm3 = AddNorm(d_model, dropout)

    def forward(self, x: torch.Tensor, encoder_output: torch.Tensor,
                look_ahead_mask: torch.Tensor | None = None,
                padding_mask: torch.Tensor | None = None, return_attention: bool = False):
        # 1. each target position sees itself and earlier positions only
        attn, self_w = self.masked_self_attn(x, x, x, look_ahead_mask, return_attention=True)
        x = self.add_norm1(x, attn)
        # 2. queries from the decoder, keys and values from the encoder
        attn, cross_w = self.encoder_decoder_attn(x, encoder_output, encoder_output,
                                                  padding_mask, return_attention=True)
        x = self.add_norm2(x, attn)
        # 3. the position-wise MLP
        x = self.add_norm3(x, self.ffn(x))
        return (x, self_w, cross_w) if return_attention else x


# -- the whole model ------------------------------------------------------------------------------
def create_padding_mask(seq: torch.Tensor, pad_token_idx: int = 0) -> torch.Tensor:
    """Keep-mask of the non-padding keys. (batch, k_len) → bool (batch, 1, 1, k_len)."""
    return (seq != pad_token_idx).unsqueeze(1).unsqueeze(2)


def create_look_ahead_mask(size: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Keep-mask of position i seeing positions 0..i: lower triangle *with* the diagonal.

    (The course's text builds ``triu(ones, diagonal=1)``, which marks the *blocked*
    pairs, and then uses it as if 1 meant "may attend"; here 1/True always means keep.)

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


def _item(weights: list[torch.Tensor], item: int, shape: tuple[int, int]) -> np.ndarray:
    if not weights:
        return np.zeros((0, 0, *shape), np.float32)
    return torch.stack([w[item] for w in weights]).detach().to(
        "cpu", torch.float32, copy=True).numpy()


def _mask_item(mask: torch.Tensor | None, item: int, shape: tuple[int, int]) -> np.ndarray:
    if mask is None:
        return np.ones(shape, bool)
    m = mask[item if mask.size(0) > 1 else 0, 0]
    return m.expand(*shape).detach().cpu().numpy().astype(bool)


@contextmanager
def eval_mode(model: nn.Module) -> Iterator[nn.Module]:
    """Eval mode (no dropout) inside the block, the previous mode after it. Does not
    touch a model already in eval mode: ``.eval()`` walks every submodule, about 2 ms
    on a 12-layer model, which showed in the mask-toggle benchmark."""
    was_training = model.training
    if was_training:
        model.eval()
    try:
        yield model
    finally:
        if was_training:
            model.train()


def token_embedding(vocab_size: int, d_model: int) -> nn.Embedding:
    """An embedding table initialised with std 1/√d_model, so that after the × √d_model
    of the paper its entries have unit scale, like the positional encoding's.

    (PyTorch's default N(0, 1) makes the scaled embedding about √d_model times larger
    than the PE: position is then nearly invisible, and a model that needs it, e.g. an
    encoder-only model reversing a sequence, barely learns: measured 41 % of tokens
    right after 3000 steps against 99.9 % after 750 with this initialisation.)
    """
    embedding = nn.Embedding(vocab_size, d_model)
    nn.init.normal_(embedding.weight, std=d_model ** -0.5)
    return embedding


class Transformer(nn.Module):
    r"""The encoder-decoder Transformer of "Attention Is All You Need", from the parts above.

    Embeddings are scaled by √d_model before the positional encoding is added. The
    decoder's embedding is computed once per call (the course's text computes it
    twice), and the decoder's self-attention mask is the AND of the target padding
    mask and the look-ahead mask.

    Shapes:
        - src: (batch, s) token ids, tgt: (batch, t) token ids, s, t <= max_seq_len
        - returns logits (batch, t, target_vocab_size); with ``return_attention``
          also an ``AttentionMaps`` of batch item ``attention_item``.
    """

    def __init__(self, num_encoder_layers: int, num_decoder_layers: int, d_model: int,
                 num_heads: int, d_ff: int, input_vocab_size: int, target_vocab_size: int,
                 max_seq_len: int, dropout: float = 0.1, pad_token_idx: int = 0) -> None:
        super().__init__()
        self.d_model, self.pad_token_idx = d_model, pad_token_idx
        self.encoder_embedding = token_embedding(input_vocab_size, d_model)
        self.decoder_embedding = token_embedding(target_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, dropout, max_seq_len)
        self.encoder_layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_encoder_layers)])
        self.decoder_layers = nn.ModuleList(
            [DecoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_decoder_layers)])
        self.final_linear = nn.Linear(d_model, target_vocab_size)

    create_padding_mask = staticmethod(create_padding_mask)
    create_look_ahead_mask = staticmethod(create_look_ahead_mask)

    def embed(self, tokens: torch.Tensor, embedding: nn.Embedding) -> torch.Tensor:
        """Token ids → embedding · √d_model + PE (then dropout)."""
        return self.positional_encoding(embedding(tokens) * math.sqrt(self.d_model))

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None,
               return_attention: bool = False, states: list | None = None):
        """``states``, if given, receives the input of every layer (for a view that
        walks one layer step by step without running the ones before it again)."""
        x = self.embed(src, self.encoder_embedding)
        weights = []
        for layer in self.encoder_layers:
            if states is not None:
                states.append(x)
            x, w = layer(x, src_mask, return_attention=True)
            weights.append(w)
        return (x, weights) if return_attention else x

    def decode(self, tgt: torch.Tensor, encoder_output: torch.Tensor,
               look_ahead_mask: torch.Tensor | None = None,
               padding_mask: torch.Tensor | None = None, return_attention: bool = False,
               states: list | None = None):
        x = self.embed(tgt, self.decoder_embedding)   # once (the text embeds twice)
        self_ws, cross_ws = [], []
        for layer in self.decoder_layers:
            if states is not None:
                states.append(x)
            x, sw, cw = layer(x, encoder_output, look_ahead_mask, padding_mask,
                              return_attention=True)
            self_ws.append(sw)
            cross_ws.append(cw)
        return (x, self_ws, cross_ws) if return_attention else x

    def masks(self, src: torch.Tensor, tgt: torch.Tensor, use_padding_mask: bool = True,
              use_look_ahead_mask: bool = True):
        """(source padding mask, target mask = target padding AND look-ahead).

        Switching a mask off (to see what it does) leaves it out; None = no mask.
        """
        pad = self.pad_token_idx
        src_mask = create_padding_mask(src, pad) if use_padding_mask else None
        tgt_mask = combine_masks(
            create_padding_mask(tgt, pad) if use_padding_mask else None,
            create_look_ahead_mask(tgt.size(1), tgt.device) if use_look_ahead_mask else None)
        return src_mask, tgt_mask

    def forward(self, src: torch.Tensor, tgt: torch.Tensor, return_attention: bool = False,
                attention_item: int = 0, use_padding_mask: bool = True,
                use_look_ahead_mask: bool = True, states: dict | None = None):
        """``states``, if given, receives "encoder" and "decoder": the input of every
        layer, and "memory": the encoder output."""
        # 1. masks: padding for the source, padding AND look-ahead for the target
        src_mask, tgt_mask = self.masks(src, tgt, use_padding_mask, use_look_ahead_mask)
        enc_states = dec_states = None
        if states is not None:
            enc_states, dec_states = states.setdefault("encoder", []), states.setdefault(
                "decoder", [])
        # 2. encoder stack over the source
        enc, enc_w = self.encode(src, src_mask, return_attention=True, states=enc_states)
        if states is not None:
            states["memory"] = enc
        # 3. decoder stack over the target, attending to the encoder output
        dec, self_w, cross_w = self.decode(tgt, enc, tgt_mask, src_mask, return_attention=True,
                                           states=dec_states)
        # 4. scores over the target vocabulary
        logits = self.final_linear(dec)
        if not return_attention:
            return logits
        s, t, i = src.size(1), tgt.size(1), attention_item
        maps = AttentionMaps(
            encoder_self=_item(enc_w, i, (s, s)), decoder_self=_item(self_w, i, (t, t)),
            cross=_item(cross_w, i, (t, s)), src_mask=_mask_item(src_mask, i, (s, s)),
            tgt_mask=_mask_item(tgt_mask, i, (t, t)), cross_mask=_mask_item(src_mask, i, (t, s)),
            src_ids=src[i].cpu().numpy().astype(np.int64),
            tgt_ids=tgt[i].cpu().numpy().astype(np.int64))
        return logits, maps


class _SelfAttentionStack(nn.Module):
    """Embedding · √d + PE, a stack of ``EncoderLayer`` blocks, a linear head.

    The two one-stack variants differ only in their mask and in which field of the
    ``AttentionMaps`` trace their weights go to.
    """

    def __init__(self, num_layers: int, d_model: int, num_heads: int, d_ff: int,
                 vocab_size: int, output_size: int, max_seq_len: int, dropout: float,
                 pad_token_idx: int) -> None:
        super().__init__()
        self.d_model, self.pad_token_idx = d_model, pad_token_idx
        self.embedding = token_embedding(vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, dropout, max_seq_len)
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.final_linear = nn.Linear(d_model, output_size)

    def mask(self, tokens: torch.Tensor, use_padding_mask: bool = True,
             use_look_ahead_mask: bool = True) -> torch.Tensor | None:
        """The keep-mask; switching a mask off (to see what it does) leaves it out."""
        raise NotImplementedError

    def run(self, tokens: torch.Tensor, use_padding_mask: bool = True,
            use_look_ahead_mask: bool = True, states: list | None = None):
        """(logits, keep-mask, per-layer weights); ``states`` receives layer inputs."""
        mask = self.mask(tokens, use_padding_mask, use_look_ahead_mask)
        x = self.positional_encoding(self.embedding(tokens) * math.sqrt(self.d_model))
        weights = []
        for layer in self.layers:
            if states is not None:
                states.append(x)
            x, w = layer(x, mask, return_attention=True)
            weights.append(w)
        return self.final_linear(x), mask, weights


_NO_MAPS = np.zeros((0, 0, 0, 0), np.float32)
_NO_MASK = np.zeros((0, 0), bool)
_NO_IDS = np.zeros(0, np.int64)


class EncoderOnly(_SelfAttentionStack):
    """A BERT-style stack: every token sees every non-padding token; a per-token head.

    Shapes: src (batch, s) → logits (batch, s, output_size).
    """

    def __init__(self, num_layers: int, d_model: int, num_heads: int, d_ff: int,
                 vocab_size: int, output_size: int, max_seq_len: int, dropout: float = 0.1,
                 pad_token_idx: int = 0) -> None:
        super().__init__(num_layers, d_model, num_heads, d_ff, vocab_size, output_size,
                         max_seq_len, dropout, pad_token_idx)

    @property
    def encoder_layers(self) -> nn.ModuleList:
        return self.layers

    def mask(self, tokens: torch.Tensor, use_padding_mask: bool = True,
             use_look_ahead_mask: bool = True) -> torch.Tensor | None:
        # no look-ahead mask here: every token sees the whole sequence
        return create_padding_mask(tokens, self.pad_token_idx) if use_padding_mask else None

    def forward(self, src: torch.Tensor, return_attention: bool = False,
                attention_item: int = 0, use_padding_mask: bool = True,
                use_look_ahead_mask: bool = True, states: list | None = None):
        logits, mask, weights = self.run(src, use_padding_mask, states=states)
        if not return_attention:
            return logits
        s, i = src.size(1), attention_item
        return logits, AttentionMaps(
            encoder_self=_item(weights, i, (s, s)), decoder_self=_NO_MAPS, cross=_NO_MAPS,
            src_mask=_mask_item(mask, i, (s, s)), tgt_mask=_NO_MASK, cross_mask=_NO_MASK,
            src_ids=src[i].cpu().numpy().astype(np.int64), tgt_ids=_NO_IDS)


class DecoderOnly(_SelfAttentionStack):
    """A GPT-style stack: masked self-attention blocks without cross attention.

    Each block is an ``EncoderLayer`` given the look-ahead mask (AND padding): with no
    encoder there is nothing to cross-attend to, and what remains of a
    ``DecoderLayer`` is exactly self-attention + FFN.

    Shapes: tokens (batch, t) → next-token logits (batch, t, vocab_size).
    """

    def __init__(self, num_layers: int, d_model: int, num_heads: int, d_ff: int,
                 vocab_size: int, max_seq_len: int, dropout: float = 0.1,
                 pad_token_idx: int = 0) -> None:
        super().__init__(num_layers, d_model, num_heads, d_ff, vocab_size, vocab_size,
                         max_seq_len, dropout, pad_token_idx)

    @property
    def decoder_layers(self) -> nn.ModuleList:
        return self.layers

    def mask(self, tokens: torch.Tensor, use_padding_mask: bool = True,
             use_look_ahead_mask: bool = True) -> torch.Tensor | None:
        return combine_masks(
            create_padding_mask(tokens, self.pad_token_idx) if use_padding_mask else None,
            create_look_ahead_mask(tokens.size(1), tokens.device) if use_look_ahead_mask
            else None)

    def forward(self, tokens: torch.Tensor, return_attention: bool = False,
                attention_item: int = 0, use_padding_mask: bool = True,
                use_look_ahead_mask: bool = True, states: list | None = None):
        logits, mask, weights = self.run(tokens, use_padding_mask, use_look_ahead_mask,
                                         states=states)
        if not return_attention:
            return logits
        t, i = tokens.size(1), attention_item
        return logits, AttentionMaps(
            encoder_self=_NO_MAPS, decoder_self=_item(weights, i, (t, t)), cross=_NO_MAPS,
            src_mask=_NO_MASK, tgt_mask=_mask_item(mask, i, (t, t)), cross_mask=_NO_MASK,
            src_ids=_NO_IDS, tgt_ids=tokens[i].cpu().numpy().astype(np.int64))
