"""Traces: the frozen, torch-free dataclasses passed from ``models/`` to ``viz/``.

Every array is a C-contiguous numpy array (float32 unless stated). This module
imports numpy only; ``viz/`` may import it for type hints and field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np


def _freeze(obj) -> None:
    """Make every array field C-contiguous float32 (unless integer) and read-only."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            if value.dtype.kind == "f":
                value = np.ascontiguousarray(value, dtype=np.float32)
            else:
                value = np.ascontiguousarray(value)
            value.setflags(write=False)
            object.__setattr__(obj, f.name, value)


@dataclass(frozen=True)
class PEGrid:
    """Everything the positional-encoding tab draws, computed in one pass.

    Shapes:
        pe: float32[max_len, d_model], the sinusoidal table ``PE[pos, i]``.
        curve_dims: int64[c], the dimensions plotted as curves.
        curves: float32[c, max_len], ``pe[:, curve_dims].T``.
        sim_positions: int64[s], positions used for the similarity matrix
            (every position when ``max_len <= 1024``, else an even stride).
        similarity: float32[s, s], ``PE[sim_positions] @ PE[sim_positions].T``.
        offset_matrix: float32[d_model, d_model], ``M_k`` with
            ``PE[pos + k] = M_k @ PE[pos]`` for every ``pos`` (block-diagonal rotations).
        offset_error: float32[max_len - k], ``max_i |M_k PE[pos] - PE[pos + k]|`` per pos.
        tokens: tuple of the token strings of the example sentence.
        token_embedding: float32[t, d_model], ``sqrt(d_model) * E[token]``.
        token_pe: float32[t, d_model], ``PE[:t]``.
        token_sum: float32[t, d_model], the ``PositionalEncoding`` module's output
            (eval mode, so no dropout) for the scaled embeddings.
        token_rms: float32[3, t], root mean square over dimensions of
            ``token_embedding``, ``token_pe`` and ``token_sum`` (the bars drawn).
        tokens_dropped: how many tokens of the sentence did not fit in ``max_len``.
    """

    d_model: int
    max_len: int
    base: float
    offset: int
    device: str
    pe: np.ndarray
    curve_dims: np.ndarray
    curves: np.ndarray
    sim_positions: np.ndarray
    similarity: np.ndarray
    offset_matrix: np.ndarray
    offset_error: np.ndarray
    tokens: tuple[str, ...]
    embedding_init: str
    token_embedding: np.ndarray
    token_pe: np.ndarray
    token_sum: np.ndarray
    token_rms: np.ndarray
    tokens_dropped: int = 0

    def __post_init__(self) -> None:
        _freeze(self)

    @property
    def offset_max_error(self) -> float:
        return float(self.offset_error.max()) if self.offset_error.size else 0.0

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays behind the views, by name (for Export data)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}


@dataclass(frozen=True)
class Progress:
    """One report from a background job (a training loop or a long computation).

    Shapes:
        history: float32[step] of the loss at every step so far (a copy).
    """

    step: int
    total: int
    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    history: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    trace: object | None = None
    message: str = ""

    def __post_init__(self) -> None:
        _freeze(self)

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / self.total) if self.total else 0.0


@dataclass(frozen=True)
class OffsetFitTrace:
    """A linear map fitted by gradient descent to ``PE[pos + k] ≈ W PE[pos]``.

    ``d_model``, ``max_len``, ``base`` and ``offset`` are those of the fitted table, so
    a view can tell whether the fit still belongs to what it shows.

    Shapes:
        learned: float32[d_model, d_model], the current ``W``.
        analytic: float32[d_model, d_model], the exact ``M_k``.
    """

    d_model: int
    max_len: int
    base: float
    offset: int
    learned: np.ndarray
    analytic: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)

    @property
    def max_abs_difference(self) -> float:
        return float(np.abs(self.learned - self.analytic).max())

    def matches(self, d_model: int, max_len: int, base: float, offset: int) -> bool:
        return (self.d_model, self.max_len, self.base, self.offset) == (
            d_model, max_len, float(base), offset)


@dataclass(frozen=True)
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

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
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

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class TransformerTrace:
    """What the Transformer tab draws for one input: every head's attention, one
    head's panels, the tokens and the model's greedy output.

    ``kind`` is "encoder", "decoder" or "cross"; ``weights`` is the chosen kind's
    float32[layers, heads, q, k] (a view of ``maps``), ``q_tokens`` / ``k_tokens``
    label its axes.
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


@dataclass(frozen=True)
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

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
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


# -- efficient attention --------------------------------------------------------------------
@dataclass(frozen=True)
class MaskTrace:
    """A sparse attention pattern and how far information travels through it.

    ``reach_fraction[l]`` is the share of (query, key) pairs connected after l + 1
    layers (the boolean mask composed l + 1 times); ``field[l]`` the number of keys the
    middle query reaches after l + 1 layers, ``field_theory[l]`` the textbook span
    (ℓ·w + 1 for a window, ℓ·d·w + 1 dilated, the query included; NaN where there is
    none). A dilated window's span has holes, so ``field`` stays below it.

    Shapes:
        mask: bool[n, n] (True = may attend), reach: bool[n, n] after ``layers`` layers
        reach_fraction, field, field_theory: float32[max_layers]
    """

    kind: str
    n: int
    params: dict
    mask: np.ndarray
    density: float
    layers: int
    reach: np.ndarray
    reach_fraction: np.ndarray
    field: np.ndarray
    field_theory: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class ApproxTrace:
    """One approximation of softmax attention against the exact result.

    ``implied`` is the attention matrix the method effectively applies to v (rows sum
    to 1, except Linformer's with random projections, whose F·v rows are no averages);
    matrices are of batch item 0, head 0;
    ``row_tv`` the total variation distance of each of its rows from the exact row;
    ``output_error`` = ‖approx − exact‖_F / ‖exact‖_F of the outputs; ``negative``
    the share of negative implied weights (trigonometric features have some).
    ``sweep_x`` are numbers of features m (Performer) or projected lengths k
    (Linformer), ``sweep_error[c]`` the mean output error of curve c (named in
    ``sweep_names``, e.g. "orthogonal", "i.i.d.") over seeds, ``sweep_std`` its
    standard deviation; ``scale_x`` the q/k norm scales and ``scale_error`` the error
    at each (same curves).

    Shapes:
        exact, implied: float32[n, n]; row_tv: float32[n]
        sweep_x: float32[s]; sweep_error, sweep_std: float32[c, s]
        scale_x: float32[r]; scale_error: float32[c, r]
    """

    method: str
    params: dict
    exact: np.ndarray
    implied: np.ndarray
    row_tv: np.ndarray
    output_error: float
    negative: float
    sweep_x: np.ndarray
    sweep_error: np.ndarray
    sweep_std: np.ndarray
    sweep_names: tuple[str, ...]
    scale_x: np.ndarray
    scale_error: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class ConventionTrace:
    """One keep-mask run through three APIs: the course's function (1 = attend),
    ``F.scaled_dot_product_attention`` (bool True = take part) and
    ``nn.MultiheadAttention`` (bool True = blocked), each given the mask it needs.

    ``max_diff[i]`` is the largest |output_i − course output| over rows that have at
    least one key; ``nan_rows[i]`` how many rows API i returns as NaN (fully masked
    rows; batch item 0, head 0); ``flipped_diff[i]`` the difference when each API gets
    the opposite polarity (the convention mix-up).

    Shapes:
        mask: bool[n, n]; weights: float32[3, n, n] (NaN where an API gives NaN)
        max_diff, flipped_diff: float32[3]; nan_rows: int64[3]
    """

    mask: np.ndarray
    api_names: tuple[str, ...]
    conversions: tuple[str, ...]
    weights: np.ndarray
    max_diff: np.ndarray
    flipped_diff: np.ndarray
    nan_rows: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class CostTrace:
    """Cost of attention against sequence length N.

    Theory (``n_theory``): FLOPs and memory of each method (named in ``methods``).
    Measured: one row per (method, N) measured so far: median seconds, peak bytes
    (NaN where the device cannot tell), and ``status`` ("ok", "budget", "error: …").

    Shapes:
        n_theory: float32[t]; flops, memory: float32[methods, t]
        measured_n: int64[r]; measured_method: int64[r] (index into methods)
        seconds, peak_bytes: float32[r]
    """

    methods: tuple[str, ...]
    n_theory: np.ndarray
    flops: np.ndarray
    memory: np.ndarray
    measured_n: np.ndarray
    measured_method: np.ndarray
    seconds: np.ndarray
    peak_bytes: np.ndarray
    status: tuple[str, ...]
    device: str
    d: int
    params: dict

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class FlowTrace:
    """Points pushed through every layer of a normalizing flow.

    ``direction`` "forward" runs data → latent (``points[0]`` = x, ``points[L]`` = z);
    "inverse" runs latent → data (``points[0]`` = z, ``points[L]`` = x, layers in reverse
    order, ``layer_names``/``masked``/``transformed`` in the order they were applied).
    ``logdet_points[l, i]`` is log|det ∂out/∂in| of the l-th applied layer at point i.
    ``masked[l]`` is the coordinate that layer passes unchanged, -1 if none (autoregressive
    layers, ActNorm, permutations); ``transformed[l]`` the coordinate it changes, -1 if it
    changes every coordinate (or, for a permutation, only reorders them).

    Shapes:
        points: float32[L+1, n, d]; logdet: float32[L] (mean over points)
        logdet_points: float32[L, n]; masked, transformed: int64[L]
    """

    points: np.ndarray
    logdet: np.ndarray
    logdet_points: np.ndarray
    masked: np.ndarray
    transformed: np.ndarray
    layer_names: tuple[str, ...]
    direction: str

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class FlowDensity:
    """A flow's density on a grid, and samples from it.

    ``extent`` is (x_min, x_max, y_min, y_max); ``density[i, j]`` is exp log p at the
    centre of cell (row i from y_min upwards, column j from x_min rightwards).
    ``mass`` is the sum of density times cell area (≈ 1 when the grid covers the mass).

    Shapes:
        density: float32[h, w]; samples: float32[n, 2]
    """

    density: np.ndarray
    extent: tuple[float, float, float, float]
    samples: np.ndarray
    mass: float

    def __post_init__(self) -> None:
        _freeze(self)
