"""Everything the Transformer tab asks of a model for one input sequence.

``parse_sequence`` turns typed text into symbols (or a clear error);
``compute_transformer_trace`` decodes greedily, runs the model once more with the
chosen masks to collect every head's attention, and walks the chosen layer step by
step (``models.forward_steps``), which also gives one head's mask / raw scores /
masked scores / softmax from its own Q and K.
"""

from __future__ import annotations

import torch

from models.errors import InvalidParameterError
from models.forward_steps import stack_steps
from models.seq2seq import BOS, EOS, PAD, TaskConfig, greedy_decode, target_of
from models.traces import TransformerTrace
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


def _steps(model: Transformer, src, tgt, src_mask, tgt_mask, kind: str, layer: int, head: int,
           src_names: list[str], tgt_names: list[str]):
    """The chosen layer step by step (its stack: the encoder for encoder
    self-attention, else the decoder) and the chosen head's panels."""
    common = {"positional_encoding": model.positional_encoding, "layer": layer, "head": head}
    if kind == "encoder":
        return stack_steps(stack="encoder", embedding=model.encoder_embedding,
                           layers=model.encoder_layers, tokens=src, mask=src_mask,
                           labels=src_names, **common)
    with torch.no_grad():
        memory = model.encode(src, src_mask)
    return stack_steps(stack="decoder", embedding=model.decoder_embedding,
                       layers=model.decoder_layers, tokens=tgt, mask=tgt_mask,
                       labels=tgt_names, memory=memory, memory_mask=src_mask,
                       memory_labels=src_names, final_linear=model.final_linear, **common)


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
    src_names = [names[i] for i in src[0].tolist()]
    tgt_names = [names[i] for i in tgt[0].tolist()]
    steps, panels = _steps(model, src, tgt, src_mask, tgt_mask, kind, layer, head,
                           src_names, tgt_names)
    expected = [3 + s for s in target_of(task.task, symbols)] + [EOS]
    return TransformerTrace(
        maps=maps, panels=panels["cross" if kind == "cross" else "self"], kind=kind, layer=layer, head=head,
        src_tokens=tuple(src_names), tgt_tokens=tuple(tgt_names), steps=steps,
        predicted=tuple(names[i] for i in predicted), expected=tuple(names[i] for i in expected),
        use_padding_mask=use_padding_mask, use_look_ahead_mask=use_look_ahead_mask,
        device=str(dev))
