"""Traces of the Transformer tab: attention maps, one head's panels, forward steps.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

import numpy as np

from models.traces.base import trace

__all__ = ["AblationTrace", "SizeStudy", "AttentionMaps", "AttentionPanels", "CourseAttention", "TransformerTrace", "ForwardStep",
           "ForwardSteps"]


@trace
class AttentionMaps:
    """Attention weights of one batch item through a whole Transformer.

    Masks are the keep-masks actually applied (True = may attend), broadcast to
    query × key. A stack the model does not have (the decoder of an encoder-only
    model) has 0 layers.

    Shapes:
        encoder_self: float32[enc_layers, heads, s, s]
        decoder_self: float32[dec_layers, heads, t, t]
        cross: float32[dec_layers, heads, t, s]
        src_mask: bool[s, s], tgt_mask: bool[t, t], cross_mask: bool[t, s]
        src_ids: int64[s], tgt_ids: int64[t]
    """

    encoder_self: np.ndarray
    decoder_self: np.ndarray
    cross: np.ndarray
    src_mask: np.ndarray
    tgt_mask: np.ndarray
    cross_mask: np.ndarray
    src_ids: np.ndarray
    tgt_ids: np.ndarray


@trace
class AttentionPanels:
    """One head's attention, step by step: mask, raw scores, masked scores, softmax.

    Shapes (q × k):
        mask: bool[q, k] keep-mask applied (True = may attend)
        raw: float32[q, k] Q Kᵀ / √d_k
        masked: float32[q, k] raw scores with blocked pairs as NaN (shown blank: -inf)
        softmax: float32[q, k] the attention weights
        fully_masked: bool[q] rows where every key is blocked (their weights are 0)
    """

    mask: np.ndarray
    raw: np.ndarray
    masked: np.ndarray
    softmax: np.ndarray
    fully_masked: np.ndarray


@trace
class CourseAttention:
    """One attention kind and layer as the course's code computes it, beside ours.

    ``max_delta`` is the largest |course weight − our weight| over the layer's heads;
    ``rows`` the query rows where they differ (> 1e-6); ``blocked_rows`` the rows the
    course's mask blocks entirely, which its ``masked_fill(mask == 0, -1e9)`` makes
    uniform (1/``keys`` each) where ours gives zeros. For decoder self-attention,
    ``sdpa`` is the chosen head under the chapter's ``F.scaled_dot_product_attention``
    example (its True = blocked mask read by PyTorch as True = may attend; NaN rows where
    nothing is left), ``sdpa_max_delta`` its largest difference with ours (NaN rows
    left out), ``sdpa_nan_rows`` its NaN rows and ``sdpa_error`` what the call raises as
    written (the key argument missing). Empty elsewhere.

    Shapes:
        rows, blocked_rows, sdpa_nan_rows: int64[r]; sdpa: float32[q, k] or [0, 0]
    """

    kind: str
    layer: int
    head: int
    max_delta: float
    rows: np.ndarray
    blocked_rows: np.ndarray
    keys: int
    sdpa: np.ndarray
    sdpa_max_delta: float
    sdpa_nan_rows: np.ndarray
    sdpa_error: str


@trace
class AblationTrace:
    """One ablation measured beside the baseline: the same seeded encoder stack, the same
    input, one idea switched off (``ablation``, one of ``options.ABLATIONS``).

    Two plots, each with the baseline's and the ablated model's values at the same x:

    * no_pe: ``x`` = depth (0 = embeddings, n = after layer n), ``baseline``/``ablated``
      = max |f(Px) − P f(x)| over positions and features; ``x2`` = position, row 0 of
      ``baseline2``/``ablated2`` = that error per position at the last layer.
    * no_scale: ``x`` = the centres of the bins of the softmax's largest weight per query
      row (all heads and layers, real tokens only), ``baseline``/``ablated`` = fraction
      of rows; ``x2`` = layer (1-based), rows of ``baseline2``/``ablated2`` = ‖∂L/∂S‖ (S:
      the scores fed to the softmax) and ‖∂L/∂W_q‖ per layer.
    * no_residual: ``x`` = layer, ``baseline``/``ablated`` = ‖∂L/∂(layer input)‖;
      ``x2`` = layer, row 0 = the norm of the layer's parameter gradient.
    * batchnorm: ``x`` = padding columns added to the batch (a few amounts),
      ``baseline``/``ablated`` = max |change of the output at the real tokens| against
      no added padding (LayerNorm baseline, BatchNorm ablated); ``x2`` = position of the input at the padding shown, rows =
      mean and standard deviation over features of the first norm's output there.

    ``summary`` holds the headline numbers, baseline then ablated in each pair: no_pe
    (max error, max error); no_scale (mean largest weight ×2, fraction of rows above 0.9
    ×2, mean ‖∂L/∂S‖ ×2, mean ‖∂L/∂W_q‖ ×2); no_residual (parameter-gradient norm of the
    first layer / the last ×2, ‖∂L/∂(first layer input)‖ ×2); batchnorm (max change ×2);
    ``tokens`` the input's tokens as shown; ``layers``, ``d_model``, ``d_k`` the sizes.

    Shapes:
        x: float32[n]; baseline, ablated: float32[n]
        x2: float32[m]; baseline2, ablated2: float32[c, m]
        summary: float32[k]
    """

    ablation: str
    x: np.ndarray
    baseline: np.ndarray
    ablated: np.ndarray
    x2: np.ndarray
    baseline2: np.ndarray
    ablated2: np.ndarray
    summary: np.ndarray
    tokens: tuple[str, ...]
    layers: int
    d_model: int
    d_k: int
    seed: int


@trace
class TransformerTrace:
    """What the Transformer tab draws for one input: every head's attention, one
    head's panels, the tokens and the model's greedy output.

    ``kind`` is "encoder", "decoder" or "cross"; ``weights`` is the chosen kind's
    float32[layers, heads, q, k] (a view of ``maps``), ``q_tokens`` / ``k_tokens``
    label its axes. With ``course`` set ("as the course writes it"), ``maps`` and
    ``panels`` are the course's code's and ``course`` compares them with ours.
    """

    maps: AttentionMaps
    panels: AttentionPanels
    kind: str
    layer: int
    head: int
    src_tokens: tuple[str, ...]
    tgt_tokens: tuple[str, ...]
    predicted: tuple[str, ...]
    expected: tuple[str, ...]
    use_padding_mask: bool
    use_look_ahead_mask: bool
    device: str
    steps: ForwardSteps | None = None
    course: CourseAttention | None = None
    ablation: AblationTrace | None = None
    #: the size study of the request's variant as initialised (``sizes.initial_study``)
    sizes: SizeStudy | None = None

    @property
    def weights(self) -> np.ndarray:
        return {"encoder": self.maps.encoder_self, "decoder": self.maps.decoder_self,
                "cross": self.maps.cross}[self.kind]

    @property
    def q_tokens(self) -> tuple[str, ...]:
        return self.src_tokens if self.kind == "encoder" else self.tgt_tokens

    @property
    def k_tokens(self) -> tuple[str, ...]:
        return self.tgt_tokens if self.kind == "decoder" else self.src_tokens

    @property
    def correct(self) -> bool:
        return self.predicted == self.expected


@trace
class ForwardStep:
    """One step of a forward pass: the tensor after it, for one batch item (and, for
    per-head tensors, one head).

    ``key`` names the step ("embedding", "self.scores", "ffn.hidden", ...; the app
    translates it), ``dims`` is the shape as the course annotates it, e.g.
    "(batch, num_heads, q_len, d_k)", and ``shape`` the actual full shape.
    ``kind`` tells the view how to colour it: "values" (signed, centred on 0),
    "weights" (0..1), "mask" (True = may attend) or "ids".

    Shapes:
        values: float32[rows, cols]; row_labels has ``rows`` entries, col_labels
        ``cols`` entries or is empty (columns are feature indices)
    """

    key: str
    dims: str
    shape: tuple[int, ...]
    values: np.ndarray
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    kind: str = "values"


@trace
class ForwardSteps:
    """One layer of one stack, step by step, from the token ids on: the steps in
    order, with the stack ("encoder" or "decoder"), layer and head they follow."""

    stack: str
    layer: int
    head: int
    steps: tuple[ForwardStep, ...]

    def keys(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.steps)

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def get(self, key: str) -> ForwardStep | None:
        return next((s for s in self.steps if s.key == key), None)


@trace
class SizeStudy:
    """A variant of the Transformer trained beside the baseline (the Transformer tab's
    Sizes view): the same architecture, task, seed, batches and schedule; the variant's
    sizes and block (``variant``) differ from the baseline's (``baseline``), both
    ``ModelConfig`` fields as {name: value}.

    ``step`` of ``total`` steps are done (each model; a study stopped early is drawn as
    far as it went). ``params`` = (baseline, variant) weight counts; ``ms_per_step`` =
    (baseline wall, variant wall, baseline CPU, variant CPU) milliseconds per training
    step; ``evals`` rows = (step, baseline held-out sequence accuracy, variant's).

    Shapes:
        losses: float32[2, step]; token_accuracy: float32[2, step]
        evals: float32[k, 3]; ms_per_step: float32[4]
    """

    architecture: str
    task: str
    tokenizer: str
    baseline: dict
    variant: dict
    params: tuple[int, int]
    step: int
    total: int
    losses: np.ndarray
    token_accuracy: np.ndarray
    evals: np.ndarray
    ms_per_step: np.ndarray
    seed: int
