"""The blocks of the stacks: ``AddNorm``, ``PositionWiseFeedForward``, ``EncoderLayer``
and ``DecoderLayer``."""

from __future__ import annotations

import torch
from torch import nn

from models.transformer.attention import MultiHeadAttention


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

