"""The whole models: the encoder-decoder ``Transformer`` (``encode``, ``decode``), and
the encoder-only (BERT-style) and decoder-only (GPT-style) stacks, built from the parts
of ``attention``, ``layers`` and ``positional``; each can return the ``AttentionMaps``
of one batch item.
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
from models.transformer.attention import (
    combine_masks,
    create_look_ahead_mask,
    create_padding_mask,
)
from models.transformer.layers import DecoderLayer, EncoderLayer
from models.transformer.positional import PositionalEncoding


def _item(weights: list[torch.Tensor], item: int, shape: tuple[int, int]) -> np.ndarray:
    if not weights:
        return np.zeros((0, 0, *shape), np.float32)
    # the stack is new memory already: no copy on top of it (at N = 512, 6 layers × 8
    # heads, the copy was 40-50 ms of a 90 ms conversion)
    return torch.stack([w[item] for w in weights]).detach().to("cpu", torch.float32).numpy()


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

    (PyTorch's default N(0, 1) makes the scaled embedding about √(2·d_model) times larger
    than the PE: position is then nearly invisible, and a model that needs it, e.g. an
    encoder-only model reversing a sequence, barely learns: measured 41 % of tokens
    right after 3000 steps against 99.9 % after 750 with this initialisation.)
    """
    embedding = nn.Embedding(vocab_size, d_model)
    nn.init.normal_(embedding.weight, std=d_model ** -0.5)
    return embedding


def final_norm(d_model: int, norm_first: bool) -> nn.Module:
    """The LayerNorm after a pre-norm stack; nothing (no weight) after a post-norm one,
    whose last sub-layer ends in a norm already."""
    return nn.LayerNorm(d_model) if norm_first else nn.Identity()


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
                 max_seq_len: int, dropout: float = 0.1, pad_token_idx: int = 0, *,
                 activation: str = "relu", norm_first: bool = False) -> None:
        super().__init__()
        self.d_model, self.pad_token_idx = d_model, pad_token_idx
        self.encoder_embedding = token_embedding(input_vocab_size, d_model)
        self.decoder_embedding = token_embedding(target_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, dropout, max_seq_len)
        block = {"activation": activation, "norm_first": norm_first}
        self.encoder_layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout, **block)
             for _ in range(num_encoder_layers)])
        self.decoder_layers = nn.ModuleList(
            [DecoderLayer(d_model, num_heads, d_ff, dropout, **block)
             for _ in range(num_decoder_layers)])
        # pre-norm leaves each stack's output un-normalised: a last LayerNorm per stack
        # (nn.Transformer's encoder and decoder norm, GPT-2's ln_f); post-norm has none
        self.encoder_norm = final_norm(d_model, norm_first)
        self.decoder_norm = final_norm(d_model, norm_first)
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
        x = self.encoder_norm(x)
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
        x = self.decoder_norm(x)
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

    The ablations (``ablation`` keyword arguments; the defaults are the paper's):
    ``positional=False`` adds no positional encoding (the stack is then exactly
    permutation-equivariant), and ``scaled``, ``residual``, ``norm`` are passed to every
    ``EncoderLayer``. None of them adds or removes a weight drawn at random, so a model
    built with an ablation from the same seed has the same weights as the baseline.
    """

    def __init__(self, num_layers: int, d_model: int, num_heads: int, d_ff: int,
                 vocab_size: int, output_size: int, max_seq_len: int, dropout: float,
                 pad_token_idx: int, *, positional: bool = True, scaled: bool = True,
                 residual: bool = True, norm: str = "layer", activation: str = "relu",
                 norm_first: bool = False) -> None:
        super().__init__()
        self.d_model, self.pad_token_idx = d_model, pad_token_idx
        self.positional = positional
        self.embedding = token_embedding(vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, dropout, max_seq_len)
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout, scaled=scaled,
                          residual=residual, norm=norm, activation=activation,
                          norm_first=norm_first) for _ in range(num_layers)])
        self.final_norm = final_norm(d_model, norm_first)
        self.final_linear = nn.Linear(d_model, output_size)

    def mask(self, tokens: torch.Tensor, use_padding_mask: bool = True,
             use_look_ahead_mask: bool = True) -> torch.Tensor | None:
        """The keep-mask; switching a mask off (to see what it does) leaves it out."""
        raise NotImplementedError

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """Token ids → embedding · √d_model + PE (without PE if ``positional`` is off),
        then the encoding's dropout."""
        x = self.embedding(tokens) * math.sqrt(self.d_model)
        if self.positional:
            return self.positional_encoding(x)
        return self.positional_encoding.dropout(x)

    def hidden(self, tokens: torch.Tensor, use_padding_mask: bool = True,
               use_look_ahead_mask: bool = True, states: list | None = None):
        """(last layer's output, keep-mask, per-layer weights); ``states`` receives
        layer inputs."""
        mask = self.mask(tokens, use_padding_mask, use_look_ahead_mask)
        x = self.embed(tokens)
        weights = []
        for layer in self.layers:
            if states is not None:
                states.append(x)
            x, w = layer(x, mask, return_attention=True)
            weights.append(w)
        return self.final_norm(x), mask, weights

    def run(self, tokens: torch.Tensor, use_padding_mask: bool = True,
            use_look_ahead_mask: bool = True, states: list | None = None):
        """(logits, keep-mask, per-layer weights); ``states`` receives layer inputs."""
        x, mask, weights = self.hidden(tokens, use_padding_mask, use_look_ahead_mask, states)
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
                 pad_token_idx: int = 0, **ablation) -> None:
        super().__init__(num_layers, d_model, num_heads, d_ff, vocab_size, output_size,
                         max_seq_len, dropout, pad_token_idx, **ablation)

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
                 pad_token_idx: int = 0, **options) -> None:
        super().__init__(num_layers, d_model, num_heads, d_ff, vocab_size, vocab_size,
                         max_seq_len, dropout, pad_token_idx, **options)

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


# -- hyper-parameters of a saved model, checked before anything is built -----------------------
#: the range of each whole-number hyper-parameter of a model file (``ModelConfig`` and
#: ``TaskConfig`` fields, and the training schedule's batch size and warm-up). Generous
#: for the course (the paper's base model is 6 + 6 layers, d_model 512, 8 heads, d_ff
#: 2048), but bounded: a file asking for 100,000 layers or sequences of 10⁹ tokens is
#: refused before a single weight is allocated.
HYPERPARAMETER_LIMITS: dict[str, tuple[int, int]] = {
    "num_encoder_layers": (1, 12), "num_decoder_layers": (1, 12), "d_model": (2, 1024),
    "num_heads": (1, 64), "d_ff": (1, 8192), "vocab": (2, 1000), "min_len": (1, 64),
    "max_len": (1, 64), "batch_size": (1, 1024), "warmup": (0, 1_000_000),
    "decay_steps": (0, 10_000_000), "step": (0, 100_000_000),
}
#: the most weights a model may have (200 MB of float32; Adam keeps two more copies)
MAX_PARAMETERS = 50_000_000
#: the most attention weights one training step may keep for the backward pass
#: (batch × heads × length² × attention blocks; 1 GB of float32)
MAX_ATTENTION_VALUES = 256_000_000


def check_whole(field: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and math.isnan(value):
            raise InvalidParameterError(f"{field} is NaN; it must be a whole number from {lo} "
                                        f"to {hi}.")
        raise InvalidParameterError(f"{field} = {value!r} is not a whole number; it must be "
                                    f"a whole number from {lo} to {hi}.")
    if not lo <= value <= hi:
        raise InvalidParameterError(f"{field} = {value} is outside the allowed range {lo} "
                                    f"to {hi}.")
    return int(value)


#: the feed-forward activations a trained model may have (the paper's, BERT's)
BLOCK_ACTIVATIONS = ("relu", "gelu")


def check_block(activation, norm_first) -> None:
    """The block's layout: ``activation`` one of ``BLOCK_ACTIVATIONS``, ``norm_first`` a
    bool (``InvalidParameterError`` naming the field)."""
    if activation not in BLOCK_ACTIVATIONS:
        raise InvalidParameterError(f"activation = {activation!r} is not one of "
                                    f"{', '.join(BLOCK_ACTIVATIONS)}.")
    if not isinstance(norm_first, bool):
        raise InvalidParameterError(f"norm_first = {norm_first!r} is not true or false.")


def validate_hyperparameters(model: dict, task: dict, batch_size=None) -> None:
    """Check the hyper-parameters of a model file (the ``model`` and ``task`` dictionaries
    of a saved ``Seq2SeqSession``, defaults filled in) before anything is built: each whole
    number in ``HYPERPARAMETER_LIMITS`` (a float, NaN, bool or string where a whole number
    belongs is refused), ``d_model`` even (sinusoidal encoding) and divisible by
    ``num_heads``, ``dropout`` in [0, 1), ``min_len <= max_len``, at most
    ``MAX_PARAMETERS`` weights and ``MAX_ATTENTION_VALUES`` attention weights per training
    step. Raises ``InvalidParameterError`` naming the field, its value and the allowed
    range."""
    values = {}
    for field in ("num_encoder_layers", "num_decoder_layers", "d_model", "num_heads", "d_ff"):
        values[field] = check_whole(field, model.get(field), *HYPERPARAMETER_LIMITS[field])
    for field in ("vocab", "min_len", "max_len"):
        values[field] = check_whole(field, task.get(field), *HYPERPARAMETER_LIMITS[field])
    d, heads = values["d_model"], values["num_heads"]
    if d % 2:
        raise InvalidParameterError(f"d_model = {d} is odd; the sinusoidal encoding needs an "
                                    "even d_model.")
    if d % heads:
        raise InvalidParameterError(f"d_model = {d} is not divisible by num_heads = {heads}; "
                                    f"each head gets d_model / num_heads dimensions.")
    dropout = model.get("dropout")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
            not 0 <= dropout < 1:
        raise InvalidParameterError(f"dropout = {dropout!r} is outside the allowed range "
                                    "0 to 1 (1 excluded).")
    check_block(model.get("activation", "relu"), model.get("norm_first", False))
    if values["min_len"] > values["max_len"]:
        raise InvalidParameterError(f"min_len = {values['min_len']} is larger than max_len = "
                                    f"{values['max_len']}.")
    enc, dec, ff = values["num_encoder_layers"], values["num_decoder_layers"], values["d_ff"]
    vocab = values["vocab"] + 3                         # <pad>, <bos>, <eos>
    weights = enc * (4 * d * d + 2 * d * ff) + dec * (8 * d * d + 2 * d * ff) + 3 * vocab * d
    if weights > MAX_PARAMETERS:
        raise InvalidParameterError(
            f"the model would have about {weights:,} weights; ArchScope builds models of at "
            f"most {MAX_PARAMETERS:,} (fewer layers, a smaller d_model or d_ff).")
    if batch_size is not None:
        batch = check_whole("batch_size", batch_size, *HYPERPARAMETER_LIMITS["batch_size"])
        length = 2 * values["max_len"] + 2              # the decoder-only sequence, longest
        values_kept = batch * heads * length * length * (enc + 2 * dec)
        if values_kept > MAX_ATTENTION_VALUES:
            raise InvalidParameterError(
                f"batch_size = {batch} with these sizes keeps about {values_kept:,} attention "
                f"weights per training step; at most {MAX_ATTENTION_VALUES:,} (a smaller "
                "batch, fewer heads or layers, or shorter sequences).")
