"""Traces of the pretrained-model tab: a sentence through every head, one head's
neurons, sentence similarities under head masks, a decoder's next-token choice.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch. Made by ``models.pretrained.probe``.
"""

from __future__ import annotations

import numpy as np

from models.traces.base import trace

__all__ = ["SentenceAttention", "NeuronView", "SentenceSimilarity", "NextTokens",
           "GenerationStep", "ApproxComparison"]


@trace
class SentenceAttention:
    """One text (or sentence pair) through a pretrained model, every head of every layer,
    with the per-head statistics of Clark et al. 2019 ("What does BERT look at?").

    ``head_mask`` is what was applied (1 = head on, 0 = off: its weights are zero and it
    adds nothing to the layer's output, as Hugging Face's former ``head_mask`` did);
    ``keep`` the tokens that may be attended to (False: masked out like padding).
    ``to_cls``/``to_sep``/``to_punct``/``to_self`` are each head's attention to the
    [CLS]-like token(s), the [SEP]-like token(s), punctuation and the query itself,
    averaged over the query tokens; ``entropy`` the mean entropy of a query's row in
    nats. ``rollout`` is attention rollout (Abnar & Zuidema 2020): each layer's
    head-averaged weights with the residual added, 0.5·A + 0.5·I, multiplied up
    through the layers (row ``l`` = through layer ``l``).

    Shapes:
        weights: float32[layers, heads, n, n]
        type_ids: int64[n]; keep: bool[n]; head_mask: float32[layers, heads]
        to_cls, to_sep, to_punct, to_self, entropy: float32[layers, heads]
        rollout: float32[layers, n, n]
    """

    model: str
    kind: str                      # "encoder" or "decoder"
    tokens: tuple[str, ...]
    type_ids: np.ndarray
    weights: np.ndarray
    keep: np.ndarray
    head_mask: np.ndarray
    to_cls: np.ndarray
    to_sep: np.ndarray
    to_punct: np.ndarray
    to_self: np.ndarray
    entropy: np.ndarray
    rollout: np.ndarray


@trace
class NeuronView:
    """One head of one layer opened up, as BertViz's neuron view: each token's query and
    key vectors, the scaled scores q·k/√d_k and the softmax. ``scores`` is -inf where
    a pair is masked. For a chosen query i, q[i] ⊙ k[j] summed over d_k is
    scores[i, j]·√d_k.

    Shapes:
        q, k: float32[n, d_k]; scores, weights: float32[n, n]
    """

    model: str
    layer: int
    head: int
    tokens: tuple[str, ...]
    q: np.ndarray
    k: np.ndarray
    scores: np.ndarray
    weights: np.ndarray


@trace
class SentenceSimilarity:
    """Cosine similarity of the sentence embeddings of a few sentences, with the heads in
    ``head_mask`` switched off, next to the same with every head on.

    Shapes:
        similarity, reference: float32[sentences, sentences]; head_mask: float32[layers, heads]
    """

    model: str
    sentences: tuple[str, ...]
    similarity: np.ndarray
    reference: np.ndarray
    head_mask: np.ndarray


@trace
class NextTokens:
    """A decoder's choice of the next token: the most likely candidates at this
    temperature, which of them top-k and top-p keep, and the renormalised
    probabilities sampling draws from (Transformer Explainer's view).

    ``probs`` is softmax(logits / temperature) over the whole vocabulary (the shown
    candidates' part of it); ``kept`` marks the candidates that survive top-k (0 = off)
    and top-p (1 = off, nucleus sampling: the smallest set whose probability reaches
    p); ``filtered`` is the distribution over the kept tokens, summing to 1 over the
    whole kept set (its shown part here). ``kept_count`` is the kept set's size over
    the whole vocabulary.

    Shapes:
        ids: int64[m]; probs, filtered: float32[m]; kept: bool[m]   (m shown candidates)
    """

    model: str
    context: tuple[str, ...]
    candidates: tuple[str, ...]
    ids: np.ndarray
    probs: np.ndarray
    kept: np.ndarray
    filtered: np.ndarray
    kept_count: int
    temperature: float
    top_k: int
    top_p: float


@trace
class GenerationStep:
    """One token of token-by-token generation: the choice it was drawn from, the token,
    and the attention of the position that chose it (the last one) over the context.

    Shapes:
        attention: float32[layers, heads, n]  (n = len(context))
    """

    step: int
    context: tuple[str, ...]
    token: str
    token_id: int
    choice: NextTokens
    attention: np.ndarray


@trace
class ApproxComparison:
    """The model with its softmax attention replaced, in every layer and head, by an
    approximation (``attention``: "exact", "performer", "linformer" or "sparse", with
    its ``number``: m features, k rows or window w; ``seed`` of the Performer's draw),
    against the exact model, both under the same head and token masks.

    ``exact``/``approx`` are head ``head`` of layer ``layer`` for the text (``approx``
    is the matrix the approximation effectively applies to V); ``head_tv`` each head's
    mean total-variation distance between its exact and approximate rows,
    ½·Σ_j |a_ij − e_ij| averaged over the queries (the approximate model's own input
    to that layer, so errors of the layers below carry up). ``similarity_exact`` and
    ``similarity_approx`` are the cosine similarities of the sentences' mean-pooled
    embeddings; ``max_delta`` = max |approx − exact| over them (0 with fewer than two
    sentences, the matrices then 0×0).

    Shapes:
        exact, approx: float32[n, n]; head_tv: float32[layers, heads]
        similarity_exact, similarity_approx: float32[sentences, sentences]
    """

    model: str
    attention: str
    number: int
    seed: int
    layer: int
    head: int
    tokens: tuple[str, ...]
    exact: np.ndarray
    approx: np.ndarray
    head_tv: np.ndarray
    sentences: tuple[str, ...]
    similarity_exact: np.ndarray
    similarity_approx: np.ndarray
    max_delta: float
