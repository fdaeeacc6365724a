"""The three architectures on the synthetic tasks: building them, the training loss,
greedy decoding and sequence accuracy.

Architectures (``ModelConfig.architecture``): the encoder-decoder ``Transformer``;
an encoder-only stack (BERT-style) that labels every position at once (all four
tasks keep the length); a decoder-only stack (GPT-style) that reads ``x ▸`` and
continues it with ``y ■``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from models.errors import InvalidParameterError
from models.transformer.model import (
    DecoderOnly,
    EncoderOnly,
    Transformer,
    check_block,
    eval_mode,
)
from models.transformer.options import ARCHITECTURES, BOS, EOS, PAD
from models.transformer.tasks import TaskConfig, lm_length, lm_sequences


@dataclass(frozen=True)
class ModelConfig:
    """The model's size and architecture. One-stack models get as many layers as
    the encoder and decoder together, so the three architectures are about the same
    size."""

    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    d_model: int = 64
    num_heads: int = 4
    d_ff: int = 128
    dropout: float = 0.0
    architecture: str = "encoder-decoder"
    #: the feed-forward's activation ("relu", the paper's; "gelu", BERT's and GPT's)
    activation: str = "relu"
    #: pre-norm blocks (x + sublayer(LayerNorm(x)), and a last LayerNorm per stack)
    #: instead of the paper's post-norm LayerNorm(x + sublayer(x))
    norm_first: bool = False

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise InvalidParameterError(f"Unknown architecture '{self.architecture}' "
                                        f"(choose {', '.join(ARCHITECTURES)}).")
        check_block(self.activation, self.norm_first)

    def build(self, task: TaskConfig) -> nn.Module:
        layers = self.num_encoder_layers + self.num_decoder_layers
        block = {"activation": self.activation, "norm_first": self.norm_first}
        if self.architecture == "encoder-only":
            return EncoderOnly(layers, self.d_model, self.num_heads, self.d_ff,
                               task.vocab_size, task.vocab_size, task.src_len + 1,
                               self.dropout, PAD, **block)
        if self.architecture == "decoder-only":
            return DecoderOnly(layers, self.d_model, self.num_heads, self.d_ff,
                               task.vocab_size, lm_length(task) + 1, self.dropout, PAD,
                               **block)
        return Transformer(self.num_encoder_layers, self.num_decoder_layers, self.d_model,
                           self.num_heads, self.d_ff, task.vocab_size, task.vocab_size,
                           max_seq_len=task.tgt_len + 1, dropout=self.dropout,
                           pad_token_idx=PAD, **block)


@torch.no_grad()
def greedy_decode(model: Transformer, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """Decode one token at a time, always taking the most likely next token.

    Shapes: src (batch, s) → generated ids (batch, ≤ max_steps) without the <bos>;
    finished rows continue with <pad> after their <eos>.
    """
    with eval_mode(model):
        return _greedy(model, src, max_steps)


def _greedy(model: Transformer, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    src_mask = model.create_padding_mask(src, PAD)
    memory = model.encode(src, src_mask)
    out = torch.full((src.size(0), 1), BOS, dtype=torch.long, device=src.device)
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_steps):
        _, tgt_mask = model.masks(src, out)
        logits = model.final_linear(model.decode(out, memory, tgt_mask, src_mask)[:, -1])
        nxt = logits.argmax(-1).masked_fill(done, PAD)
        out = torch.cat([out, nxt[:, None]], dim=1)
        done |= nxt == EOS
        if done.all():
            break
    return out[:, 1:]


def _lm_decode(model: DecoderOnly, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """Greedy continuation of ``x ▸`` for every row at once (rows have their own n)."""
    seq, n = lm_sequences(src, torch.full_like(src, PAD))
    seq = seq.clone()
    rows = torch.arange(src.size(0), device=src.device)
    pos = n[:, 0].clone()                                  # where each ▸ is
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    out = []
    for _ in range(max_steps):
        logits = model(seq[:, :-1])
        nxt = logits[rows, pos.clamp(max=seq.size(1) - 2)].argmax(-1).masked_fill(done, PAD)
        out.append(nxt)
        seq[rows, (pos + 1).clamp(max=seq.size(1) - 1)] = torch.where(
            done, seq[rows, (pos + 1).clamp(max=seq.size(1) - 1)], nxt)
        pos += 1
        done |= nxt == EOS
        if done.all():
            break
    return torch.stack(out, 1)


@torch.no_grad()
def decode_output(model: nn.Module, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """The model's answer for ``src`` whatever its architecture: greedy decoding for
    the encoder-decoder and the decoder-only model, one argmax per position for the
    encoder-only model. (batch, s) → (batch, ≤ max_steps), <pad> after each <eos>."""
    with eval_mode(model):
        if isinstance(model, Transformer):
            return greedy_decode(model, src, max_steps)
        if isinstance(model, DecoderOnly):
            return _lm_decode(model, src, max_steps)
        out = model(src).argmax(-1)[:, :max_steps]
        after_eos = (out == EOS).long().cumsum(1) - (out == EOS).long() > 0
        return out.masked_fill(after_eos, PAD)


def training_loss(model: nn.Module, loss_fn: nn.Module, src: torch.Tensor,
                  tgt_in: torch.Tensor, tgt_out: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(loss, logits, targets) of one batch for any architecture; targets use <pad>
    where nothing is to be predicted (the decoder-only model's prompt)."""
    if isinstance(model, Transformer):
        logits, target = model(src, tgt_in), tgt_out
    elif isinstance(model, EncoderOnly):
        logits, target = model(src), tgt_out           # the same length: label each position
    else:
        seq, n = lm_sequences(src, tgt_out)
        logits, target = model(seq[:, :-1]), seq[:, 1:].clone()
        j = torch.arange(target.size(1), device=src.device)
        target = target.masked_fill(j < n, PAD)        # the prompt x ▸ is given, not learned
    loss = loss_fn(logits.reshape(-1, logits.size(-1)), target.reshape(-1))
    return loss, logits, target


def sequence_accuracy(model: nn.Module, src: torch.Tensor, tgt_out: torch.Tensor) -> float:
    """Fraction of sequences decoded exactly (every token up to and including <eos>)."""
    pred = decode_output(model, src, tgt_out.size(1))
    pred = torch.nn.functional.pad(pred, (0, tgt_out.size(1) - pred.size(1)), value=PAD)
    keep = tgt_out != PAD
    return float(((pred == tgt_out) | ~keep).all(dim=1).float().mean())

