"""The blocks of the stacks: ``AddNorm``, ``PositionWiseFeedForward``, ``EncoderLayer``
and ``DecoderLayer``."""

from __future__ import annotations

import torch
from torch import nn

from models.errors import InvalidParameterError
from models.transformer.attention import MultiHeadAttention

#: the normalisations of ``AddNorm``: the paper's LayerNorm, and BatchNorm (an ablation)
NORMS = ("layer", "batch")


class AddNorm(nn.Module):
    """Residual connection then layer normalisation (post-norm, as in the paper):
    ``LayerNorm(x + Dropout(sublayer_output))``.

    ``eps`` is the layer norm's (PyTorch's 1e-5 by default; BERT uses 1e-12). A pre-norm
    block (GPT-2, ``EncoderLayer(norm_first=True)``) uses the same two parts the other
    way round: ``x + Dropout(sublayer(LayerNorm(x)))``.

    Two switches break one idea each (ablations; the defaults are the paper's):
    ``residual=False`` drops the ``x +`` (the block is then ``Norm(Dropout(sublayer))``),
    and ``norm="batch"`` puts a ``BatchNorm1d`` where the ``LayerNorm`` was: each feature
    is normalised over the batch *and every position*, padding included, instead of each
    position over its own features.

    Shapes: x and sublayer_output (batch, n, d_model) → (batch, n, d_model).
    """

    def __init__(self, normalized_shape: int, dropout: float = 0.1, eps: float = 1e-5,
                 *, residual: bool = True, norm: str = "layer") -> None:
        super().__init__()
        if norm not in NORMS:
            raise InvalidParameterError(f"unknown norm {norm!r}; one of {', '.join(NORMS)}.")
        self.residual, self.norm = residual, norm
        if norm == "layer":
            self.layer_norm = nn.LayerNorm(normalized_shape, eps=eps)
        else:
            self.batch_norm = nn.BatchNorm1d(normalized_shape, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        """The block's normalisation of (batch, n, d_model)."""
        if self.norm == "layer":
            return self.layer_norm(x)
        # BatchNorm1d reads (batch, channels, length): statistics per feature over the
        # batch and all n positions
        return self.batch_norm(x.transpose(1, 2)).transpose(1, 2)

    def add(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The residual connection ``x + y`` (just ``y`` with ``residual=False``)."""
        return x + y if self.residual else y

    def forward(self, x: torch.Tensor, sublayer_output: torch.Tensor) -> torch.Tensor:
        return self.normalize(self.add(x, self.dropout(sublayer_output)))

    def extra_repr(self) -> str:
        return ", ".join(([] if self.residual else ["residual=False"])
                         + ([] if self.norm == "layer" else [f"norm={self.norm!r}"]))


#: the feed-forward activations by the names Hugging Face configs give them: the paper's
#: ReLU, BERT's exact (erf) GELU, GPT-2's tanh approximation of it ("gelu_new")
ACTIVATIONS = ("relu", "gelu", "gelu_new")


def activation_module(name: str) -> nn.Module:
    """The ``nn.Module`` of an activation in ``ACTIVATIONS``."""
    if name == "relu":
        return nn.ReLU()
    if name == "gelu":
        return nn.GELU()
    if name == "gelu_new":
        return nn.GELU(approximate="tanh")
    raise InvalidParameterError(f"unknown activation {name!r}; one of {', '.join(ACTIVATIONS)}.")


class PositionWiseFeedForward(nn.Module):
    """FFN(x) = W_2 Dropout(ReLU(W_1 x + b_1)) + b_2, the same MLP at every position.

    ``activation`` is "relu" (the paper's), "gelu" (BERT's) or "gelu_new" (GPT-2's).

    Shapes: (batch, n, d_model) → (batch, n, d_model), with d_ff hidden units.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1,
                 activation: str = "relu") -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.activation = activation_module(activation)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class EncoderLayer(nn.Module):
    """Self-attention, Add & Norm, feed-forward, Add & Norm.

    The defaults are the paper's block. Pretrained models need three options:
    ``activation`` of the feed-forward ("gelu" for BERT), ``eps`` of the layer norms,
    and ``norm_first`` (pre-norm, GPT-2's layout): each sub-layer then reads the
    normalised input and its output is added to the un-normalised one,
    ``x + Dropout(sublayer(LayerNorm(x)))``, as PyTorch's ``norm_first`` does.

    The ablations (defaults: the paper's): ``scaled=False`` leaves the 1/√d_k out of
    the attention, ``residual=False`` the residual connections, ``norm="batch"`` puts
    BatchNorm where LayerNorm was (see ``AddNorm``).

    Shapes: x (batch, n, d_model); mask: keep-mask broadcastable to
    (batch, heads, n, n), e.g. ``create_padding_mask`` (batch, 1, 1, n).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.1,
                 *, activation: str = "relu", eps: float = 1e-5,
                 norm_first: bool = False, scaled: bool = True, residual: bool = True,
                 norm: str = "layer") -> None:
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, scaled)
        self.add_norm1 = AddNorm(d_model, dropout, eps, residual=residual, norm=norm)
        self.ffn = PositionWiseFeedForward(d_model, d_ff, dropout, activation)
        self.add_norm2 = AddNorm(d_model, dropout, eps, residual=residual, norm=norm)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                return_attention: bool = False, head_mask: torch.Tensor | None = None,
                attention=None):
        """``attention``: the self-attention's replacement for softmax attention
        (``MultiHeadAttention``'s argument), None for the exact one."""
        if self.norm_first:
            # 1. (pre-norm) attention over the normalised input, added to the input
            h = self.add_norm1.normalize(x)
            attn, weights = self.self_attn(h, h, h, mask, return_attention=True,
                                           head_mask=head_mask, attention=attention)
            x = self.add_norm1.add(x, self.add_norm1.dropout(attn))
            # 2. (pre-norm) the position-wise MLP likewise
            x = self.add_norm2.add(x, self.add_norm2.dropout(
                self.ffn(self.add_norm2.normalize(x))))
            return (x, weights) if return_attention else x
        # 1. every position attends to every (unmasked) position
        attn, weights = self.self_attn(x, x, x, mask, return_attention=True,
                                       head_mask=head_mask, attention=attention)
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

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.1,
                 *, activation: str = "relu", norm_first: bool = False) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.masked_self_attn = MultiHeadAttention(d_model, num_heads)
        self.add_norm1 = AddNorm(d_model, dropout)
        self.encoder_decoder_attn = MultiHeadAttention(d_model, num_heads)
        self.add_norm2 = AddNorm(d_model, dropout)
        self.ffn = PositionWiseFeedForward(d_model, d_ff, dropout, activation)
        self.add_norm3 = AddNorm(d_model, dropout)

    def forward(self, x: torch.Tensor, encoder_output: torch.Tensor,
                look_ahead_mask: torch.Tensor | None = None,
                padding_mask: torch.Tensor | None = None, return_attention: bool = False):
        if self.norm_first:
            return self._forward_pre_norm(x, encoder_output, look_ahead_mask, padding_mask,
                                          return_attention)
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

    def _forward_pre_norm(self, x, encoder_output, look_ahead_mask, padding_mask,
                          return_attention):
        """Each sub-layer reads its normalised input and adds to the un-normalised one,
        ``x + Dropout(sublayer(LayerNorm(x)))`` (``nn.TransformerDecoderLayer(norm_first=
        True)``); the encoder output is read as it comes (the stack normalises it)."""
        h = self.add_norm1.normalize(x)
        attn, self_w = self.masked_self_attn(h, h, h, look_ahead_mask, return_attention=True)
        x = self.add_norm1.add(x, self.add_norm1.dropout(attn))
        h = self.add_norm2.normalize(x)
        attn, cross_w = self.encoder_decoder_attn(h, encoder_output, encoder_output,
                                                  padding_mask, return_attention=True)
        x = self.add_norm2.add(x, self.add_norm2.dropout(attn))
        x = self.add_norm3.add(x, self.add_norm3.dropout(self.ffn(self.add_norm3.normalize(x))))
        return (x, self_w, cross_w) if return_attention else x

