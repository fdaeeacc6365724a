"""Traces of the efficient-attention tab: sparse masks, approximations, mask conventions, cost,
and the tab's whole computation (``EfficientTrace``).

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from models.traces.base import trace

__all__ = ["MaskTrace", "ApproxTrace", "ConventionTrace", "CostTrace", "CostTheory",
           "ChunkedTrace", "ChunkMemoryTrace", "EfficientTrace"]


@trace
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


@trace
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


@trace
class ConventionTrace:
    """One keep-mask run through three APIs: the course's function (1 = attend),
    ``F.scaled_dot_product_attention`` (bool True = take part) and
    ``nn.MultiheadAttention`` (bool True = blocked), each given the mask it needs.

    ``max_diff[i]`` is the largest |output_i − course output| over rows that have at
    least one key; ``nan_rows[i]`` how many rows API i returns as NaN (fully masked
    rows; batch item 0, head 0); ``flipped_diff[i]`` the difference when each API gets
    the opposite polarity (the convention mix-up). ``as_written``: the course's tile is
    the chapter's ``masked_fill(mask == 0, -1e9)`` rather than ours; ``course_delta`` is
    then its largest |weight difference| with ours and ``course_rows`` the rows that
    differ (the fully blocked ones).

    Shapes:
        mask: bool[n, n]; weights: float32[3, n, n] (NaN where an API gives NaN)
        max_diff, flipped_diff: float32[3]; nan_rows: int64[3]; course_rows: int64[r]
    """

    mask: np.ndarray
    api_names: tuple[str, ...]
    conversions: tuple[str, ...]
    weights: np.ndarray
    max_diff: np.ndarray
    flipped_diff: np.ndarray
    nan_rows: np.ndarray
    as_written: bool = False
    course_delta: float = 0.0
    course_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


@trace
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


@trace
class CostTheory:
    """What attention costs in theory, one head's forward pass, against sequence length N
    (``models.efficient_attention.cost.cost_theory``; xformers left out: as SDPA).

    Shapes:
        n: float32[t]; flops: float32[methods, t]
        memory: float32[methods, t], bytes of float32 (4 per float)
    """

    methods: tuple[str, ...]
    n: np.ndarray
    flops: np.ndarray
    memory: np.ndarray


@trace
class ChunkedTrace:
    """Chunked attention with an online softmax against exact attention, one head of
    seeded random q, k, v (``models.efficient_attention.chunked.chunked_trace``).

    ``diff_exact`` / ``diff_sdpa``: max |chunked − reference| over the output, against
    the app's exact attention and ``F.scaled_dot_product_attention``; ``sweep_diff`` the
    same two (rows) for each chunk size of ``sweep_chunks``. ``step_*`` follow query
    ``row`` chunk by chunk: keys seen, running max m, running sum l, the chunk's own
    largest score (−inf if all its keys are masked) and the rescale factor
    α = e^{m_old − m_new} (1 for the first chunk); ``row_max`` and ``row_sum`` =
    Σ e^{s − row_max} are the row's exact values the last m and l must equal.

    Shapes:
        sweep_chunks: int64[s]; sweep_diff: float32[2, s]
        step_end, step_m, step_l, step_chunk_max, step_alpha: float32[ceil(n / chunk)]
    """

    n: int
    d: int
    chunk: int
    row: int
    mask_kind: str
    seed: int
    diff_exact: float
    diff_sdpa: float
    sweep_chunks: np.ndarray
    sweep_diff: np.ndarray
    step_end: np.ndarray
    step_m: np.ndarray
    step_l: np.ndarray
    step_chunk_max: np.ndarray
    step_alpha: np.ndarray
    row_max: float
    row_sum: float


@trace
class ChunkMemoryTrace:
    """Measured peak bytes of one call of exact and of chunked attention against N
    (``how`` says how it was measured), with the bytes of each one's largest
    intermediate, the N×N and the N×chunk score block (float32), beside them.
    ``chunked_bytes`` is NaN where a point was not measured (too many chunks).

    Shapes: n: int64[t]; exact_bytes, chunked_bytes, exact_scores_bytes,
    chunk_scores_bytes: float32[t]
    """

    chunk: int
    d: int
    n: np.ndarray
    exact_bytes: np.ndarray
    chunked_bytes: np.ndarray
    exact_scores_bytes: np.ndarray
    chunk_scores_bytes: np.ndarray
    how: str


@trace
class EfficientTrace:
    """Everything the efficient-attention tab draws, from one background computation.

    Parts, each computed on its own: ``mask`` with ``conventions`` (the same mask
    through three APIs), ``approx``, ``theory``, ``chunked`` and ``chunk_memory``; a part is None until it was first
    computed. ``keys[part]`` holds the settings the shown part was computed with, so the
    next computation redoes only the parts whose settings changed (and hands the others
    on unchanged, the same objects). ``errors[part]`` is the message of a setting the part
    refused; the part then keeps its last good result.

    Shapes: those of ``MaskTrace``, ``ConventionTrace``, ``ApproxTrace``, ``CostTheory``,
    ``ChunkedTrace`` and ``ChunkMemoryTrace``.
    """

    mask: MaskTrace | None = None
    conventions: ConventionTrace | None = None
    approx: ApproxTrace | None = None
    theory: CostTheory | None = None
    chunked: ChunkedTrace | None = None
    chunk_memory: ChunkMemoryTrace | None = None
    keys: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
