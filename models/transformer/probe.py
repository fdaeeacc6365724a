"""Everything the Transformer tab asks of a model, off the GUI thread.

``compute_transformer_trace`` decodes greedily, runs the model once more with the
chosen masks to collect every head's attention, and walks the chosen layer step by
step (``models.transformer.forward_steps``), which also gives one head's mask / raw
scores / masked scores / softmax from its own Q and K. ``session_trace`` does it for a
training session's model under its lock, as a ``TransformerRequest`` asks; ``train_with_traces``
trains a session and draws the current input with the current weights as it goes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import torch
from torch import nn

from models.errors import InvalidParameterError
from models.traces import Progress, TransformerTrace
from models.transformer.ablation import ablation_trace
from models.transformer.attention import MultiHeadAttention
from models.transformer.course import course_comparison
from models.transformer.forward_steps import stack_steps
from models.transformer.model import DecoderOnly, EncoderOnly, Transformer, eval_mode
from models.transformer.options import BOS, EOS, KINDS, PAD, TransformerRequest
from models.transformer.seq2seq import decode_output
from models.transformer.sizes import initial_study
from models.transformer.tasks import TaskConfig, target_of
from models.transformer.tokenizers import parse_sequence


def kinds_of(model: nn.Module) -> tuple[str, ...]:
    """The attention kinds a model has: an encoder-only model has no decoder, a
    decoder-only one no encoder and no cross-attention."""
    if isinstance(model, EncoderOnly):
        return ("encoder",)
    if isinstance(model, DecoderOnly):
        return ("decoder",)
    return KINDS


def layers_and_heads(model: nn.Module, kind: str) -> tuple[int, int]:
    """(layers of the stack that has ``kind`` attention, heads per attention)."""
    layers = model.encoder_layers if kind == "encoder" else model.decoder_layers
    return len(layers), next(m.num_heads for m in model.modules()
                             if isinstance(m, MultiHeadAttention))


# long: mostly its docstring; the checks, the cached decoding and the dispatch
def compute_transformer_trace(model: nn.Module, task: TaskConfig, symbols: list[int],
                              pad_to: int, kind: str = "cross", layer: int = 0,
                              head: int = 0, use_padding_mask: bool = True,
                              use_look_ahead_mask: bool = True,
                              generated: int | None = None,
                              output_cache: dict | None = None,
                              course: bool = False) -> TransformerTrace:
    """The model's output for ``symbols`` padded to ``pad_to``, and the attention of
    every head with the chosen masks (padding/look-ahead can be switched off), for an
    encoder-decoder ``Transformer``, an ``EncoderOnly`` or a ``DecoderOnly`` model.

    ``generated = k`` shows the decoder after it has produced k tokens: its input is
    <bos> (decoder-only: x ▸) and the first k - 1 outputs, so the last query row is
    the one choosing token k. (With the look-ahead mask those rows equal the
    corresponding rows of the full view.) An encoder-only model labels all positions
    at once and ignores it.

    ``output_cache`` (a dict the caller empties whenever the weights change) keeps
    the decoded output per source: toggling a mask or choosing another head does not
    decode again (the output is always decoded with the normal masks).

    ``course=True`` ("as the course writes it") shows the weights the chapter's code
    computes instead (``models.transformer.course``) and compares them with ours in the
    trace's ``course``.

    Runs where the model's weights are; it never moves the model (a training session
    owns that, with its optimiser state).
    """
    if kind not in kinds_of(model):
        raise InvalidParameterError(
            f"This model has no '{kind}' attention (it has {', '.join(kinds_of(model))}).")
    n_layers, heads = layers_and_heads(model, kind)
    if not (0 <= layer < n_layers and 0 <= head < heads):
        raise InvalidParameterError(f"Layer {layer} / head {head} does not exist "
                                    f"({n_layers} layers, {heads} heads).")
    if not len(symbols) <= pad_to <= task.max_len:
        raise InvalidParameterError(
            f"Pad to a length between {len(symbols)} and {task.max_len}, got {pad_to}.")
    names = task.token_names()
    dev = next(model.parameters()).device
    with eval_mode(model):
        src = torch.full((1, pad_to + 1), PAD, dtype=torch.long)
        src[0, : len(symbols)] = torch.tensor([3 + s for s in symbols], dtype=torch.long)
        src[0, len(symbols)] = EOS
        src = src.to(dev)
        # 1. what the model says (with the normal masks)
        key = tuple(src[0].tolist())
        predicted = None if output_cache is None else output_cache.get(key)
        if predicted is None:
            out = decode_output(model, src, task.tgt_len)[0].tolist()
            predicted = out[: out.index(EOS) + 1] if EOS in out else out
            if output_cache is not None:
                if len(output_cache) > 256:
                    output_cache.clear()
                output_cache[key] = predicted
        args = (model, src, predicted, pad_to, kind, layer, head, use_padding_mask,
                use_look_ahead_mask, generated, names)
        fields = (_one_stack(*args) if isinstance(model, EncoderOnly | DecoderOnly)
                  else _encoder_decoder(*args))
        if course:
            # 2. the chapter's code on the same input and weights, beside ours
            fields["maps"], fields["panels"], fields["course"] = course_comparison(
                model, fields.pop("_src"), fields.pop("_tgt"), kind, layer, head,
                fields["maps"], use_padding_mask, use_look_ahead_mask)
        fields.pop("_src", None)
        fields.pop("_tgt", None)
    expected = [3 + s for s in target_of(task.task, symbols)] + [EOS]
    return TransformerTrace(
        **fields, kind=kind, layer=layer, head=head,
        predicted=tuple(names[i] for i in predicted), expected=tuple(names[i] for i in expected),
        use_padding_mask=use_padding_mask, use_look_ahead_mask=use_look_ahead_mask,
        device=str(dev))


def _decoder_input(prefix: list[int], predicted: list[int], generated: int | None,
                   width: int) -> list[int]:
    """``prefix`` + the output so far: all of it, or (token by token) the first
    generated - 1 tokens, so that the last row chooses token ``generated``."""
    if generated is not None:
        return [*prefix, *predicted][: len(prefix) - 1 + max(1, min(generated, len(predicted)))]
    return [*prefix, *predicted][:width]


def _ids(ids: list[int], width: int, dev) -> torch.Tensor:
    t = torch.full((1, max(width, len(ids))), PAD, dtype=torch.long)
    t[0, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    return t.to(dev)


def _encoder_decoder(model: Transformer, src, predicted, pad_to, kind, layer, head,
                     use_padding_mask, use_look_ahead_mask, generated, names) -> dict:
    # 2. the decoder input is <bos> + the output, padded like the source, or, token by
    #    token, <bos> + the first generated - 1 outputs
    tgt_ids = _decoder_input([BOS], predicted, generated, pad_to + 1)
    tgt = _ids(tgt_ids, len(tgt_ids) if generated is not None else pad_to + 1, src.device)
    states: dict = {}
    with torch.no_grad():
        _, maps = model(src, tgt, return_attention=True, use_padding_mask=use_padding_mask,
                        use_look_ahead_mask=use_look_ahead_mask, states=states)
    src_mask, tgt_mask = model.masks(src, tgt, use_padding_mask, use_look_ahead_mask)
    src_names = [names[i] for i in src[0].tolist()]
    tgt_names = [names[i] for i in tgt[0].tolist()]
    steps, panels = _steps(model, src, tgt, src_mask, tgt_mask, kind, layer, head,
                           src_names, tgt_names, states)
    return {"maps": maps, "panels": panels["cross" if kind == "cross" else "self"],
            "steps": steps, "src_tokens": tuple(src_names), "tgt_tokens": tuple(tgt_names),
            "_src": src, "_tgt": tgt}


def _one_stack(model: EncoderOnly | DecoderOnly, src, predicted, pad_to, kind, layer, head,
               use_padding_mask, use_look_ahead_mask, generated, names) -> dict:
    """Encoder-only: the source itself. Decoder-only: x ▸ followed by the output."""
    src_names = [names[i] for i in src[0].tolist()]
    if isinstance(model, DecoderOnly):
        n = int((src[0] != PAD).sum()) - 1
        prompt = [*src[0, :n].tolist(), BOS]
        ids = _decoder_input(prompt, predicted, generated, 2 * pad_to + 2)
        tokens = _ids(ids, len(ids) if generated is not None else 2 * pad_to + 2, src.device)
    else:
        tokens = src
    token_names = [names[i] for i in tokens[0].tolist()]
    states: list = []
    with torch.no_grad():
        _, maps = model(tokens, return_attention=True, use_padding_mask=use_padding_mask,
                        use_look_ahead_mask=use_look_ahead_mask, states=states)
    steps, panels = stack_steps(
        stack="encoder" if isinstance(model, EncoderOnly) else "decoder",
        embedding=model.embedding, positional_encoding=model.positional_encoding,
        layers=model.layers, tokens=tokens,
        mask=model.mask(tokens, use_padding_mask, use_look_ahead_mask), layer=layer,
        head=head, labels=token_names, final_linear=model.final_linear,
        layer_input=states[layer])
    return {"maps": maps, "panels": panels["self"], "steps": steps,
            "src_tokens": tuple(src_names),
            "tgt_tokens": tuple(token_names) if isinstance(model, DecoderOnly) else (),
            "_src": tokens, "_tgt": None}


def _steps(model: Transformer, src, tgt, src_mask, tgt_mask, kind: str, layer: int, head: int,
           src_names: list[str], tgt_names: list[str], states: dict):
    """The chosen layer step by step (its stack: the encoder for encoder
    self-attention, else the decoder) and the chosen head's panels."""
    common = {"positional_encoding": model.positional_encoding, "layer": layer, "head": head}
    if kind == "encoder":
        return stack_steps(stack="encoder", embedding=model.encoder_embedding,
                           layers=model.encoder_layers, tokens=src, mask=src_mask,
                           labels=src_names, layer_input=states["encoder"][layer], **common)
    return stack_steps(stack="decoder", embedding=model.decoder_embedding,
                       layers=model.decoder_layers, tokens=tgt, mask=tgt_mask,
                       labels=tgt_names, memory=states["memory"], memory_mask=src_mask,
                       layer_input=states["decoder"][layer],
                       memory_labels=src_names, final_linear=model.final_linear, **common)


# -- a training session's model, with the tab's controls -------------------------------------
def session_key(session) -> tuple[str, str, str]:
    """(architecture, tokenizer, task) of a model: where the tab keeps it."""
    return session.model_config.architecture, session.task.alphabet, session.task.task


def session_trace(session, ask: TransformerRequest, symbols: list[int]) -> TransformerTrace:
    """The trace of ``symbols`` as the request ``ask`` says (layer / head / padding clamped
    to the session's model and task), under the session's lock, with the ``AblationTrace``
of ``ask.ablation`` (``models.transformer.ablation``) and the size study as initialised
(``models.transformer.sizes``). Any thread."""
    n_layers, heads = layers_and_heads(session.model, ask.kind)
    pad_to = min(max(ask.pad_to, len(symbols)), session.task.max_len)
    with session.lock:
        trace = compute_transformer_trace(
            session.model, session.task, symbols, pad_to, ask.kind,
            min(ask.layer, n_layers - 1), min(ask.head, heads - 1),
            ask.padding, ask.look_ahead, ask.generated or None,
            output_cache=session.output_cache, course=ask.course)
    # the Ablations view's measurement: fresh seeded models of this one's sizes (cached);
    # the Sizes view's variant and baseline as initialised (cached)
    return replace(trace, ablation=ablation_trace(session.model_config, session.task,
                                                  symbols, pad_to, ask.ablation),
                   sizes=initial_study(session.task, session.model_config.architecture,
                                       ask.size_values, ask.size_steps))


def train_with_traces(session, request: Callable[[], TransformerRequest | None],
                      steps: int = 100_000) -> Iterator[Progress]:
    """Train and, about three times a second, draw the current input with the current
    weights. ``request()`` is the latest request of the tab's controls (a frozen
    ``TransformerRequest`` swapped atomically by the GUI thread). A trace that cannot be
    made (bad input typed meanwhile, or the controls show another model) is skipped; it
    never stops the training."""
    next_trace = 0.0
    for p in session.train(steps, eval_every=100, eval_from_token_accuracy=0.9):
        if time.perf_counter() >= next_trace:
            t0 = time.perf_counter()
            trace = _job_trace(session, request())
            next_trace = time.perf_counter() + max(0.3, 4 * (time.perf_counter() - t0))
            if trace is not None:
                p = replace(p, trace=trace)
        yield p


def _job_trace(session, ask: TransformerRequest | None) -> TransformerTrace | None:
    """Runs in the job's thread: reads only the request it is handed."""
    if ask is None or ask.model_key != session_key(session):
        return None
    try:
        return session_trace(session, ask, parse_sequence(ask.sequence, session.task))
    except Exception:  # noqa: BLE001 - the panel shows input problems; skip this frame
        return None
