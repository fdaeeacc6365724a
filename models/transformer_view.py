"""Everything the Transformer tab asks of a model for one input sequence.

``parse_sequence`` turns typed text into symbols (or a clear error);
``compute_transformer_trace`` decodes greedily, runs the model once more with the
chosen masks to collect every head's attention, and recomputes one head's
mask / raw scores / masked scores / softmax from its own Q and K.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from models.errors import InvalidParameterError
from models.seq2seq import BOS, EOS, PAD, TaskConfig, greedy_decode, target_of
from models.traces import AttentionPanels, TransformerTrace
from models.transformer import Transformer

KINDS = ("encoder", "decoder", "cross")


def parse_sequence(text: str, task: TaskConfig) -> list[int]:
    """"3 1 4 1 5" (or "31415" when every symbol is one character) → symbols."""
    text = text.strip()
    if not text:
        raise InvalidParameterError("The input sequence is empty: type symbols or press "
                                    "Generate.")
    parts = text.replace(",", " ").split()
    if len(parts) == 1 and task.vocab <= 10 and len(parts[0]) > 1:
        parts = list(parts[0])
    symbols = []
    for p in parts:
        if not (p.isascii() and p.isdecimal()) or int(p) >= task.vocab:
            raise InvalidParameterError(
                f"'{p}' is not a symbol of this task: use numbers 0 to {task.vocab - 1}.")
        symbols.append(int(p))
    if len(symbols) > task.max_len:
        raise InvalidParameterError(
            f"The sequence has {len(symbols)} symbols; this model takes at most "
            f"{task.max_len}.")
    return symbols


def random_sequence(task: TaskConfig, seed: int) -> list[int]:
    gen = torch.Generator().manual_seed(seed)
    n = int(torch.randint(task.min_len, task.max_len + 1, (1,), generator=gen))
    return torch.randint(0, task.vocab, (n,), generator=gen).tolist()


def _panels(model: Transformer, src: torch.Tensor, tgt: torch.Tensor, src_mask, tgt_mask,
            kind: str, layer: int, head: int) -> AttentionPanels:
    """Recompute one head from the input of its layer (eval mode, no dropout)."""
    with torch.no_grad():
        x = model.embed(src, model.encoder_embedding)
        for lyr in model.encoder_layers[: layer if kind == "encoder" else None]:
            x = lyr(x, src_mask)
        memory = x
        if kind == "encoder":
            mha, q_in, k_in, mask = model.encoder_layers[layer].self_attn, x, x, src_mask
        else:
            y = model.embed(tgt, model.decoder_embedding)
            for lyr in model.decoder_layers[:layer]:
                y = lyr(y, memory, tgt_mask, src_mask)
            dec = model.decoder_layers[layer]
            if kind == "decoder":
                mha, q_in, k_in, mask = dec.masked_self_attn, y, y, tgt_mask
            else:
                y = dec.add_norm1(y, dec.masked_self_attn(y, y, y, tgt_mask))
                mha, q_in, k_in, mask = dec.encoder_decoder_attn, y, memory, src_mask
        q = mha.split_heads(mha.W_q(q_in))[0, head]
        k = mha.split_heads(mha.W_k(k_in))[0, head]
        raw = q @ k.T / math.sqrt(mha.d_k)
        keep = (torch.ones_like(raw, dtype=torch.bool) if mask is None
                else mask[0, 0].expand_as(raw).to(torch.bool))
        masked = raw.masked_fill(~keep, float("-inf"))
        soft = torch.softmax(masked, dim=-1).masked_fill(~keep.any(-1, keepdim=True), 0.0)
        masked_np = masked.cpu().numpy().astype(np.float32)
        masked_np[~np.isfinite(masked_np)] = np.nan
        return AttentionPanels(mask=keep.cpu().numpy(), raw=raw.cpu().numpy(),
                               masked=masked_np, softmax=soft.cpu().numpy(),
                               fully_masked=(~keep.any(-1)).cpu().numpy())


def compute_transformer_trace(model: Transformer, task: TaskConfig, symbols: list[int],
                              pad_to: int, kind: str = "cross", layer: int = 0,
                              head: int = 0, use_padding_mask: bool = True,
                              use_look_ahead_mask: bool = True,
                              generated: int | None = None) -> TransformerTrace:
    """Greedy output of ``model`` for ``symbols`` padded to ``pad_to``, and the attention
    of every head with the chosen masks (padding/look-ahead can be switched off).

    ``generated = k`` shows the decoder after it has produced k tokens: its input is
    <bos> and the first k - 1 outputs, so the last query row is the one choosing token
    k. (With the look-ahead mask those rows equal the first rows of the full view.)

    Runs where the model's weights are; it never moves the model (a training session
    owns that, with its optimiser state).
    """
    if kind not in KINDS:
        raise InvalidParameterError(f"Unknown attention kind '{kind}'.")
    n_layers = len(model.encoder_layers if kind == "encoder" else model.decoder_layers)
    heads = model.encoder_layers[0].self_attn.num_heads
    if not (0 <= layer < n_layers and 0 <= head < heads):
        raise InvalidParameterError(f"Layer {layer} / head {head} does not exist "
                                    f"({n_layers} layers, {heads} heads).")
    if not len(symbols) <= pad_to <= task.max_len:
        raise InvalidParameterError(
            f"Pad to a length between {len(symbols)} and {task.max_len}, got {pad_to}.")
    names = task.token_names()
    dev = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        return _trace(model, task, symbols, pad_to, kind, layer, head, use_padding_mask,
                      use_look_ahead_mask, dev, names, generated)
    finally:
        model.train(was_training)


def _trace(model, task, symbols, pad_to, kind, layer, head, use_padding_mask,
           use_look_ahead_mask, dev, names, generated=None) -> TransformerTrace:
    src = torch.full((1, pad_to + 1), PAD, dtype=torch.long)
    src[0, : len(symbols)] = torch.tensor([3 + s for s in symbols], dtype=torch.long)
    src[0, len(symbols)] = EOS
    src = src.to(dev)
    # 1. what the model says, one token at a time (with the normal masks)
    out = greedy_decode(model, src, task.tgt_len)[0].tolist()
    predicted = out[: out.index(EOS) + 1] if EOS in out else out
    # 2. the decoder input is <bos> + that output, padded like the source, or, token by
    #    token, <bos> + the first generated - 1 outputs
    if generated is not None:
        tgt_ids = [BOS, *predicted][: max(1, min(generated, len(predicted)))]
        width = len(tgt_ids)
    else:
        tgt_ids = [BOS, *predicted][: pad_to + 1]
        width = pad_to + 1
    tgt = torch.full((1, width), PAD, dtype=torch.long)
    tgt[0, : len(tgt_ids)] = torch.tensor(tgt_ids, dtype=torch.long)
    tgt = tgt.to(dev)
    with torch.no_grad():
        _, maps = model(src, tgt, return_attention=True, use_padding_mask=use_padding_mask,
                        use_look_ahead_mask=use_look_ahead_mask)
    src_mask, tgt_mask = model.masks(src, tgt, use_padding_mask, use_look_ahead_mask)
    panels = _panels(model, src, tgt, src_mask, tgt_mask, kind, layer, head)
    expected = [3 + s for s in target_of(task.task, symbols)] + [EOS]
    return TransformerTrace(
        maps=maps, panels=panels, kind=kind, layer=layer, head=head,
        src_tokens=tuple(names[i] for i in src[0].tolist()),
        tgt_tokens=tuple(names[i] for i in tgt[0].tolist()),
        predicted=tuple(names[i] for i in predicted), expected=tuple(names[i] for i in expected),
        use_padding_mask=use_padding_mask, use_look_ahead_mask=use_look_ahead_mask,
        device=str(dev))
