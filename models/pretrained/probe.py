"""What the pretrained-model tab computes in its background jobs, each returning one
trace of ``models.traces.pretrained``.

- ``sentence_attention``: every head of every layer for a text (or sentence pair),
  under a head mask and a token mask, with per-head statistics (Clark et al. 2019)
  and attention rollout (Abnar & Zuidema 2020).
- ``neuron_view``: one head opened up, q, k, q·k/√d_k and the softmax.
- ``sentence_similarity``: cosine similarities of a few sentences' embeddings with
  heads switched off, next to all heads on.
- ``approximation_comparison``: the model with an approximate attention (Performer,
  Linformer, a sparse window) in every layer and head against the exact model: one
  head's map and the sentence similarities.
- ``next_tokens`` / ``generate``: a decoder's next-token distribution under
  temperature, top-k and top-p (applied in that order, as Hugging Face's ``generate``
  applies its warpers), and token-by-token sampling.
"""

from __future__ import annotations

import math
import string
import unicodedata
from collections.abc import Iterator

import numpy as np
import torch

from models.errors import InvalidParameterError
from models.pretrained.model import PretrainedModel
from models.traces.pretrained import (
    ApproxComparison,
    GenerationStep,
    NeuronView,
    NextTokens,
    SentenceAttention,
    SentenceSimilarity,
)
from models.transformer.attention import scaled_dot_product_attention

#: the tokens counted as [CLS] and [SEP] in the statistics (BERT's and RoBERTa's names)
CLS_TOKENS = ("[CLS]", "<s>")
SEP_TOKENS = ("[SEP]", "</s>")
#: the most tokens one ``generate`` call adds
MAX_GENERATED = 256
#: the highest temperature the controls allow (above it every token is about as likely)
MAX_TEMPERATURE = 100.0


def is_punctuation(token: str) -> bool:
    """A token made only of punctuation (after a WordPiece '##', a byte-level 'Ġ' marker
    or the space it stands for): '.', ',', '?!', '"' …"""
    core = token.removeprefix("##").lstrip("Ġ▁ ")
    return bool(core) and all(c in string.punctuation or unicodedata.category(c).startswith("P")
                              for c in core)


def head_statistics(weights: np.ndarray, tokens) -> dict[str, np.ndarray]:
    """Per-head averages over the query tokens of ``weights`` float[layers, heads, n, n]:
    attention to [CLS], to [SEP], to punctuation, to the query itself, and the row
    entropy in nats. Each float32[layers, heads]."""
    w = np.asarray(weights, dtype=np.float64)
    n = w.shape[-1]
    toks = list(tokens)
    if len(toks) != n:
        raise InvalidParameterError(f"{len(toks)} tokens for attention over {n} keys.")

    def to(columns: np.ndarray) -> np.ndarray:
        return w[..., columns].sum(axis=-1).mean(axis=-1).astype(np.float32)

    cls = np.array([t in CLS_TOKENS for t in toks])
    sep = np.array([t in SEP_TOKENS for t in toks])
    punct = np.array([is_punctuation(t) for t in toks])
    to_self = np.diagonal(w, axis1=-2, axis2=-1).mean(axis=-1).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)
    entropy = (-plogp.sum(axis=-1)).mean(axis=-1).astype(np.float32)
    return {"to_cls": to(cls), "to_sep": to(sep), "to_punct": to(punct),
            "to_self": to_self, "entropy": entropy}


def attention_rollout(weights: np.ndarray) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020) of ``weights`` float[layers, heads, n, n]:
    Â_l = rownorm(0.5·mean_heads(A_l) + 0.5·I), R_0 = Â_0, R_l = Â_l·R_(l-1).
    float32[layers, n, n]; row i of R_l: how much token i after layer l draws on each
    input token."""
    w = np.asarray(weights, dtype=np.float64)
    n = w.shape[-1]
    out = np.empty((w.shape[0], n, n), np.float64)
    rolled = np.eye(n)
    for layer in range(w.shape[0]):
        a = 0.5 * w[layer].mean(axis=0) + 0.5 * np.eye(n)
        a /= a.sum(axis=-1, keepdims=True)
        rolled = a @ rolled
        out[layer] = rolled
    return out.astype(np.float32)


def _mask_array(model: PretrainedModel, head_mask) -> np.ndarray:
    if head_mask is None:
        return np.ones((model.config.layers, model.config.heads), np.float32)
    model.head_mask_tensor(head_mask)          # checks the shape, raises a clear error
    return np.asarray(head_mask, dtype=np.float32)


def sentence_attention(model: PretrainedModel, text: str, pair: str | None = None,
                       head_mask=None, keep=None) -> SentenceAttention:
    """Every head of every layer for ``text`` (and ``pair``), with the statistics."""
    encoded = model.encode(text, pair)
    maps = model.attention(text, pair, head_mask=head_mask, keep=keep)
    weights = maps.encoder_self if model.kind == "encoder" else maps.decoder_self
    n = weights.shape[-1]
    keep_arr = np.ones(n, bool) if keep is None else np.asarray(keep, bool)
    return SentenceAttention(
        model=model.name, kind=model.kind, tokens=tuple(encoded.tokens),
        type_ids=np.asarray(encoded.type_ids, np.int64), weights=weights, keep=keep_arr,
        head_mask=_mask_array(model, head_mask), **head_statistics(weights, encoded.tokens),
        rollout=attention_rollout(weights))


@torch.inference_mode()
def neuron_view(model: PretrainedModel, layer: int, head: int, text: str,
                pair: str | None = None, keep=None, head_mask=None) -> NeuronView:
    """Head ``head`` of layer ``layer`` opened up for ``text``: its queries and keys
    (from the layer's input, layer-normalised first in a pre-norm model), the scaled
    scores and their softmax. ``head_mask`` switches heads of the layers below off (it
    changes this layer's input); the weights shown are this head's own softmax, as it
    would attend even when it is itself switched off."""
    cfg = model.config
    if not (0 <= layer < cfg.layers and 0 <= head < cfg.heads):
        raise InvalidParameterError(f"{model.name} has layers 0–{cfg.layers - 1} and heads "
                                    f"0–{cfg.heads - 1}; asked for layer {layer}, head {head}.")
    encoded = model.encode(text, pair)
    inputs: list[torch.Tensor] = []
    (_, _, mask), _ = model._run(encoded, head_mask, keep, inputs=inputs)
    block = model.network.layers[layer]
    x = inputs[layer]
    if block.norm_first:
        x = block.add_norm1.layer_norm(x)
    attn = block.self_attn
    q = attn.split_heads(attn.W_q(x))[0, head]                 # (n, d_k)
    k = attn.split_heads(attn.W_k(x))[0, head]
    scores = q @ k.T / math.sqrt(attn.d_k)
    head_keep = None if mask is None else mask[0, 0].expand_as(scores)
    _, weights = scaled_dot_product_attention(q, k, k, head_keep)
    if head_keep is not None:
        scores = scores.masked_fill(~head_keep.bool(), float("-inf"))

    def arr(t: torch.Tensor) -> np.ndarray:
        return t.detach().to("cpu", torch.float32).numpy()

    return NeuronView(model=model.name, layer=layer, head=head, tokens=tuple(encoded.tokens),
                      q=arr(q), k=arr(k), scores=arr(scores), weights=arr(weights))


def sentence_similarity(model: PretrainedModel, sentences, head_mask=None
                        ) -> SentenceSimilarity:
    """Cosine similarities of the sentences' embeddings with ``head_mask`` applied, and
    with every head on (``reference``)."""
    sentences = tuple(sentences)
    reference = model.embed(sentences)
    masked = reference if head_mask is None else model.embed(sentences, head_mask=head_mask)
    return SentenceSimilarity(
        model=model.name, sentences=sentences,
        similarity=np.clip(masked @ masked.T, -1.0, 1.0),
        reference=np.clip(reference @ reference.T, -1.0, 1.0),
        head_mask=_mask_array(model, head_mask))


def approximation_comparison(model: PretrainedModel, text: str, sentences=(),
                             attention: str = "exact", number: int = 0, seed: int = 0,
                             layer: int = 0, head: int = 0, *, pair: str | None = None,
                             keep=None, head_mask=None, exact_weights=None,
                             exact_similarity=None) -> ApproxComparison:
    """The model with ``attention`` (``models.pretrained.approx.layer_attention``: its
    ``number`` m, k or w, the Performer's ``seed``) in every layer and head, against
    exact attention, both under ``head_mask`` (and ``keep`` for the text): head
    ``head`` of layer ``layer`` and every head's mean row TV distance for ``text``,
    and the cosine similarities of ``sentences`` (two or more; else none).
    ``exact_weights`` float[layers, heads, n, n] and ``exact_similarity`` float[s, s]
    are the exact results when the caller has them already (the tab does)."""
    from models.pretrained.approx import layer_attention

    approx = layer_attention(attention, number, seed)
    cfg = model.config
    if not (0 <= layer < cfg.layers and 0 <= head < cfg.heads):
        raise InvalidParameterError(f"{model.name} has layers 0–{cfg.layers - 1} and heads "
                                    f"0–{cfg.heads - 1}; asked for layer {layer}, head {head}.")
    if model.kind != "encoder" and approx is not None:
        raise InvalidParameterError(f"{model.name} is a decoder ({model.config.model_type}); "
                                    "approximate attention is offered for encoder models.")

    def weights_of(maps) -> np.ndarray:
        return maps.encoder_self if model.kind == "encoder" else maps.decoder_self

    exact = (weights_of(model.attention(text, pair, head_mask=head_mask, keep=keep))
             if exact_weights is None else np.asarray(exact_weights, np.float32))
    approx_w = exact if approx is None else weights_of(
        model.attention(text, pair, head_mask=head_mask, keep=keep, approx=approx))
    # ½·Σ_j |a_ij − e_ij|, averaged over the queries
    head_tv = 0.5 * np.abs(approx_w.astype(np.float64) - exact).sum(-1).mean(-1)
    sentences = tuple(sentences)
    sim_exact = sim_approx = np.zeros((0, 0), np.float32)
    if len(sentences) >= 2 and model.kind == "encoder":
        if exact_similarity is None:
            e = model.embed(sentences, head_mask=head_mask)
            sim_exact = np.clip(e @ e.T, -1.0, 1.0)
        else:
            sim_exact = np.asarray(exact_similarity, np.float32)
        sim_approx = sim_exact
        if approx is not None:
            a = model.embed(sentences, head_mask=head_mask, approx=approx)
            sim_approx = np.clip(a @ a.T, -1.0, 1.0)
    delta = float(np.abs(sim_approx - sim_exact).max()) if sim_exact.size else 0.0
    return ApproxComparison(
        model=model.name, attention=attention, number=int(number), seed=int(seed),
        layer=int(layer), head=int(head), tokens=tuple(model.encode(text, pair).tokens),
        exact=exact[layer, head], approx=approx_w[layer, head],
        head_tv=head_tv.astype(np.float32), sentences=sentences,
        similarity_exact=sim_exact, similarity_approx=sim_approx, max_delta=delta)


def _check_sampling(temperature: float, top_k: int, top_p: float) -> None:
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature)
            and 0 < temperature <= MAX_TEMPERATURE):
        raise InvalidParameterError(f"the temperature must be above 0 and at most "
                                    f"{MAX_TEMPERATURE:g}; got {temperature!r}.")
    if not (isinstance(top_k, (int, np.integer)) and top_k >= 0):
        raise InvalidParameterError(f"top-k is a whole number ≥ 0 (0 = off); got {top_k!r}.")
    if not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
        raise InvalidParameterError(f"top-p is in (0, 1] (1 = off); got {top_p!r}.")


def choice_distribution(logits: np.ndarray, temperature: float = 1.0, top_k: int = 0,
                        top_p: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(probs, filtered)`` over the vocabulary from one row of ``logits``:
    softmax(logits / T), and the distribution after top-k, then top-p (nucleus: the
    most likely tokens until their probability, renormalised after top-k, reaches p;
    the most likely token is always kept), renormalised. float64[vocab] each."""
    _check_sampling(temperature, top_k, top_p)
    z = np.asarray(logits, np.float64) / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-z, kind="stable")
    keep = np.ones(z.size, bool)
    if top_k and top_k < z.size:
        keep[order[top_k:]] = False
    if top_p < 1.0:
        p = np.where(keep, probs, 0.0)
        p /= p.sum()
        tail = np.cumsum(p[order][::-1])[::-1]   # probability of this token and all below
        # drop a token when what is left from it downwards is ≤ 1 - p (never the first)
        drop = tail <= 1.0 - top_p
        drop[0] = False
        keep[order[drop]] = False
    filtered = np.where(keep, probs, 0.0)
    return probs, filtered / filtered.sum()


def _next_tokens(model: PretrainedModel, row: np.ndarray, context, temperature, top_k,
                 top_p, shown: int) -> tuple[NextTokens, np.ndarray]:
    """The trace, and the filtered distribution over the whole vocabulary."""
    probs, filtered = choice_distribution(row, temperature, top_k, top_p)
    top = np.argsort(-probs, kind="stable")[:max(1, int(shown))]
    return NextTokens(
        model=model.name, context=tuple(context),
        candidates=tuple(model.tokenizer.token(int(i)) for i in top),
        ids=top.astype(np.int64), probs=probs[top], kept=filtered[top] > 0,
        filtered=filtered[top], kept_count=int((filtered > 0).sum()),
        temperature=float(temperature), top_k=int(top_k), top_p=float(top_p)), filtered


def next_tokens(model: PretrainedModel, text: str, temperature: float = 1.0, top_k: int = 0,
                top_p: float = 1.0, shown: int = 20) -> NextTokens:
    """A decoder's next token after ``text``: the ``shown`` most likely candidates."""
    _check_sampling(temperature, top_k, top_p)
    row = model.logits(text)[-1]
    return _next_tokens(model, row, model.tokens(text), temperature, top_k, top_p, shown)[0]


@torch.inference_mode()
def generate(model: PretrainedModel, text: str, steps: int, temperature: float = 1.0,
             top_k: int = 0, top_p: float = 1.0, seed: int = 0, shown: int = 20
             ) -> Iterator[GenerationStep]:
    """Sample ``steps`` tokens after ``text`` one at a time (seeded), yielding each
    with the distribution it was drawn from and the last position's attention over
    the context. Stops early at the model's longest sequence."""
    if model.kind != "decoder":
        raise InvalidParameterError(f"{model.name} is an encoder ({model.config.model_type});"
                                    " generation needs a decoder model such as GPT-2.")
    _check_sampling(temperature, top_k, top_p)
    if not (isinstance(steps, (int, np.integer)) and 1 <= steps <= MAX_GENERATED):
        raise InvalidParameterError(f"generate 1 to {MAX_GENERATED} tokens; got {steps!r}.")
    encoded = model.encode(text)
    ids, tokens = list(encoded.ids), list(encoded.tokens)
    rng = np.random.default_rng(seed)
    for step in range(int(steps)):
        if len(ids) >= model.max_tokens:
            return
        t = torch.tensor([ids], dtype=torch.long, device=model.device)
        hidden, weights, _ = model.network(t, torch.ones_like(t, dtype=torch.bool))
        row = model.network.logits(hidden[:, -1]).to(torch.float64)[0].cpu().numpy()
        choice, filtered = _next_tokens(model, row, tokens, temperature, top_k, top_p, shown)
        token_id = int(rng.choice(filtered.size, p=filtered))
        attention = torch.cat(weights)[:, :, -1, :].to("cpu", torch.float32).numpy()
        token = model.tokenizer.token(token_id)
        yield GenerationStep(step=step, context=tuple(tokens), token=token, token_id=token_id,
                             choice=choice, attention=attention)
        ids.append(token_id)
        tokens.append(token)
