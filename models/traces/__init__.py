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


# -- graph neural networks ---------------------------------------------------------------------
@dataclass(frozen=True)
class EdgeValues:
    """One value (or one per head) on every edge a message-passing layer uses.

    ``edge_index[0]`` is the source j, ``edge_index[1]`` the target i (messages flow
    j → i). The edges are the layer's own: the input edges plus the self-loops the layer
    adds, which come last; ``self_loops_added`` says how many (GCN adds one for every node
    that has none; GAT first removes existing self-loops, then adds one per node).

    Shapes:
        edge_index: int64[2, E']
        values: float32[E'] (e.g. GCN's 1/√(d̂_i d̂_j)) or float32[E', heads] (GAT's α_ij)
    """

    edge_index: np.ndarray
    values: np.ndarray
    name: str
    self_loops_added: int

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class SampleTrace:
    """GraphSAGE neighbour sampling around one node, hop by hop (as NeighborLoader does).

    Hop 0 is ``node``. At hop h every node first reached at hop h-1 (the frontier) draws
    at most ``sizes[h-1]`` of its in-neighbours without replacement (all of them when the
    size is -1); neighbours not seen before form the next frontier. Sampled edges to
    already-seen nodes are kept.

    Shapes:
        hop: int64[n], the hop at which each node was first sampled, -1 if never.
        nodes: int64[m], the sampled nodes in the order they were reached (node first).
        node_hop: int64[m], the hop of each of ``nodes``.
        edges: int64[2, s], the sampled edges (source j, target i = a frontier node).
        edge_hop: int64[s], the hop (1-based) at which each edge was sampled.
        nodes_per_hop: int64[len(sizes)+1], how many new nodes each hop reached.
    """

    node: int
    sizes: tuple[int, ...]
    seed: int
    hop: np.ndarray
    nodes: np.ndarray
    node_hop: np.ndarray
    edges: np.ndarray
    edge_hop: np.ndarray
    nodes_per_hop: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class MessageTrace:
    """What one message-passing layer does at one node i, with its real weights (eval mode).

    ``layer`` is 0-based; the layer's input ``h`` is the real features (layer 0) or the
    activated output of the previous layer. ``kind`` is "gcn", "sage" or "gat".
    Messages (what each neighbour j sends):

    * GCN: ``c_ij · W h_j`` with ``c_ij = 1/√(d̂_i d̂_j)`` (``coefficients``), summed.
    * GraphSAGE: ``h_j`` itself (what the aggregator sees; ``W_l`` is applied after
      aggregating); ``root`` is ``W_r h_i``; coefficients are 1 (1/k shown by "mean").
    * GAT: ``α_ij · W h_j`` per head, concatenated or averaged over heads as the layer
      does; ``coefficients`` is α_ij averaged over heads, ``attention`` per head.

    ``update = combine(aggregate) + root + bias`` where combine is ``W_l`` for SAGE and
    the identity otherwise. With ``aggregation == model_aggregation`` the update equals
    ``layer_output`` (the real layer's output row i, before the activation); otherwise it
    is what the same weights would give with that aggregator, and ``note`` says so.

    Shapes:
        hops: int64[n], hop distance to ``node`` (≤ the model's number of layers), -1
            outside its receptive field.
        neighbors: int64[k], the sources j of the layer's edges into i (incl. self-loop).
        is_self_loop: bool[k]
        coefficients: float32[k]
        attention: float32[k, heads] (GAT; [k, 0] otherwise)
        h_node: float32[d_in], h_neighbors: float32[k, d_in]: the layer's input rows.
        messages: float32[k, d_msg]
        aggregate: float32[d_msg]
        root, bias: float32[d_out] (zeros where the layer has none)
        update, layer_output: float32[d_out]
    """

    kind: str
    node: int
    layer: int
    aggregation: str
    model_aggregation: str
    note: str
    hops: np.ndarray
    neighbors: np.ndarray
    is_self_loop: np.ndarray
    coefficients: np.ndarray
    attention: np.ndarray
    h_node: np.ndarray
    h_neighbors: np.ndarray
    messages: np.ndarray
    aggregate: np.ndarray
    root: np.ndarray
    bias: np.ndarray
    update: np.ndarray
    layer_output: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)

    @property
    def max_abs_difference(self) -> float:
        """|update − layer_output| (≈ 0 with the model's own aggregation)."""
        return float(np.abs(self.update - self.layer_output).max()) if self.update.size else 0.0


@dataclass(frozen=True)
class NodeTrainTrace:
    """A node classifier's state after ``epoch`` epochs (evaluated in eval mode).

    ``embedding`` is the last hidden layer (activated) projected on its first two
    principal axes; the axes are kept aligned across epochs (orthogonal Procrustes onto the
    previous projection), so points move smoothly instead of flipping.

    Shapes:
        predictions: int64[n]; labels: int64[n] (-1 = unlabelled)
        probabilities: float32[n, c]
        embedding: float32[n, 2]; explained_variance: float32[2] (fractions)
        train_mask, val_mask, test_mask: bool[n]
    """

    epoch: int
    loss: float
    train_acc: float
    val_acc: float
    test_acc: float
    predictions: np.ndarray
    probabilities: np.ndarray
    embedding: np.ndarray
    explained_variance: np.ndarray
    labels: np.ndarray
    train_mask: np.ndarray
    val_mask: np.ndarray
    test_mask: np.ndarray
    kind: str = "gcn"

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class BatchTrace:
    """Several graphs collated into one ``Batch`` (one big disconnected graph).

    Shapes:
        graph_indices: int64[g], which graphs of the list, in batch order.
        adjacency: float32[N, N], block-diagonal (N = total nodes; 1 per edge).
        batch: int64[N], the graph (0..g-1) of every node.
        ptr: int64[g+1], where each graph's nodes start (``ptr[-1] == N``).
        num_nodes: int64[g]; labels: int64[g]
        edge_index: int64[2, E], the Batch's edges (node ids shifted by ``ptr``).
    """

    graph_indices: np.ndarray
    adjacency: np.ndarray
    batch: np.ndarray
    ptr: np.ndarray
    num_nodes: np.ndarray
    labels: np.ndarray
    edge_index: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class GraphClassTrace:
    """A graph classifier's state after ``epoch`` epochs (evaluated in eval mode).

    ``embedding`` is the pooled graph embedding projected on two aligned principal axes.

    Shapes:
        predictions, labels: int64[g]; probabilities: float32[g, c]
        train_mask, test_mask: bool[g]
        embedding: float32[g, 2]
    """

    epoch: int
    loss: float
    train_acc: float
    test_acc: float
    pooling: str
    predictions: np.ndarray
    probabilities: np.ndarray
    labels: np.ndarray
    train_mask: np.ndarray
    test_mask: np.ndarray
    embedding: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class LinkTrace:
    """A link predictor's state: scores of held-out pairs, ROC, best-scoring non-edges.

    Scores are ``sigmoid(z_u · z_v)``. Labels are 1 for held-out edges, 0 for sampled
    non-edges. ROC points run from (0, 0) to (1, 1) over the test pairs.

    Shapes:
        roc: float32[k, 2] of (false positive rate, true positive rate)
        val_pairs: int64[v, 2]; val_labels: int64[v]; val_scores: float32[v]
        test_pairs: int64[t, 2]; test_labels: int64[t]; test_scores: float32[t]
        top_pairs: int64[k, 2] (u < v, not edges of the full graph); top_scores: float32[k]
    """

    epoch: int
    loss: float
    val_auc: float
    test_auc: float
    roc: np.ndarray
    val_pairs: np.ndarray
    val_labels: np.ndarray
    val_scores: np.ndarray
    test_pairs: np.ndarray
    test_labels: np.ndarray
    test_scores: np.ndarray
    top_pairs: np.ndarray
    top_scores: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


# -- neural ODE --------------------------------------------------------------------------------
@dataclass(frozen=True)
class VectorField:
    """The dynamics f(t, y) of a neural ODE on an n × n grid of a plane, at one time.

    ``extent`` is (x_min, x_max, y_min, y_max); the grid runs over it corner to corner
    (``x[i, j] = x_min + j·(x_max − x_min)/(n − 1)``, rows ``i`` from y_min upwards).
    ``dims`` are the two state coordinates spanning the plane (the others are 0);
    ``u``, ``v`` are f's components along them; ``speed = hypot(u, v)``.

    Shapes:
        x, y, u, v, speed: float32[n, n] (row i ↔ y_i, column j ↔ x_j)
    """

    x: np.ndarray
    y: np.ndarray
    u: np.ndarray
    v: np.ndarray
    speed: np.ndarray
    t: float
    extent: tuple[float, float, float, float]
    dims: tuple[int, int] = (0, 1)

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class SolverSteps:
    """Every step attempt of one ODE solve from ``t0`` to ``t1``.

    Adaptive solvers (dopri5, bosh3) attempt a step of size dt from t; the step is
    accepted when the error estimate is within the tolerances, otherwise it is rejected
    and retried from the same t with a smaller dt. Accepted steps tile [t0, T] with
    T ≥ t1 (the last step may overshoot t1: the solution at t1 is interpolated).
    Fixed-grid solvers accept every step (``step_size``, the last one shortened to end
    at t1). ``dt`` is signed: negative when t1 < t0. ``nfe`` counts every evaluation of
    f in the solve (dopri5: 2 + 6 per attempt; bosh3: 2 + 3 per attempt; rk4: 4 per
    step, midpoint 2, euler 1).

    Shapes:
        accepted_t, accepted_dt: float32[a] (float64 would be exact; float32 is for drawing)
        rejected_t, rejected_dt: float32[r]
    """

    method: str
    accepted_t: np.ndarray
    accepted_dt: np.ndarray
    rejected_t: np.ndarray
    rejected_dt: np.ndarray
    nfe: int
    t0: float = 0.0
    t1: float = 0.0

    def __post_init__(self) -> None:
        _freeze(self)

    @property
    def n_accepted(self) -> int:
        return int(self.accepted_t.size)

    @property
    def n_rejected(self) -> int:
        return int(self.rejected_t.size)


@dataclass(frozen=True)
class SpiralTrace:
    """The spiral fit: the whole trajectory predicted from the true y0 against the truth.

    ``error_l1`` is the mean absolute error over all points and both coordinates,
    ``mean |fitted − true|`` (the loss of torchdiffeq's ode_demo); ``trivial`` holds the
    same error of two trivial predictors: ``constant_y0`` (y0 everywhere, 1.257) and
    ``zero`` (0 everywhere, 0.530). ``nfe`` is the evaluations of f in the solve.

    Shapes:
        t: float32[n]; true, observed, fitted: float32[n, 2]
    """

    t: np.ndarray
    true: np.ndarray
    observed: np.ndarray
    fitted: np.ndarray
    error_l1: float
    trivial: dict
    nfe: int
    step: int = 0

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class ClassifierTrace:
    """A neural-ODE classifier: decision regions, and points moving through the flow.

    ``extent`` is (x_min, x_max, y_min, y_max); ``prob[i, j]`` is the probability of
    class 1 at the centre of cell (row i from y_min upwards, column j from x_min
    rightwards) of the input plane. ``paths[k]`` are the first two state coordinates of
    ``points`` at ``times[k]`` (``paths[0]`` = the inputs, ``paths[-1]`` = what the linear
    output layer sees); with ``augment`` > 0 the extra coordinates start at 0 and are not
    drawn. ``accuracy`` is on the whole held-out set.

    Shapes:
        prob: float32[g, g]; points: float32[n, 2]; labels, predictions: int64[n]
        paths: float32[T, n, 2]; times: float32[T]
    """

    extent: tuple[float, float, float, float]
    prob: np.ndarray
    points: np.ndarray
    labels: np.ndarray
    paths: np.ndarray
    times: np.ndarray
    accuracy: float
    augment: int
    predictions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    data: str = ""
    step: int = 0

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class CNFTrace:
    """A continuous normalizing flow from the base N(0, I) to the data.

    Time runs data → base: z(0) = x, z(t1) ~ N(0, I). ``times`` run from t1 (the base)
    down to 0 (the data); ``samples[k]`` are base samples pushed back to ``times[k]``
    (``samples[0]`` = the base draws, ``samples[-1]`` = the model's samples), and
    ``density[k]`` is the model's density p_t of the points at ``times[k]``, at the cell
    centres of ``extent`` (x_min, x_max, y_min, y_max; row i from y_min upwards).
    ``mass[k]`` is the sum of ``density[k]`` times the cell area (≈ 1 where the grid holds
    the mass). ``nll`` is the held-out negative log-likelihood in nats; ``entropy`` the
    data's differential entropy (the floor no model can go below).

    Shapes:
        times: float32[T]; samples: float32[T, n, 2]; density: float32[T, g, g]
        mass: float32[T]
    """

    times: np.ndarray
    samples: np.ndarray
    density: np.ndarray
    extent: tuple[float, float, float, float]
    nll: float
    entropy: float
    mass: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    step: int = 0

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class AdjointComparison:
    """One batch's loss and gradient through the solver (direct backpropagation) and with
    the adjoint method, from the same weights and with the same solver and tolerances.

    ``seconds_*``: median wall time of forward + backward. ``saved_bytes_*``: bytes of
    the tensors autograd keeps between the forward and the backward pass (distinct
    storages, parameters excluded): direct backpropagation keeps every stage of every
    step, the adjoint only the solution at the requested times. ``cuda_peak_*``: growth
    of ``torch.cuda.max_memory_allocated`` over the pass (NaN off CUDA).
    ``nfe_forward_*`` / ``nfe_backward_*``: evaluations of f in the forward solve / those
    backpropagated through (the adjoint's are the evaluations of its backward solve).
    ``grad_rel_diff`` = max|g_adjoint − g_direct| / max|g_direct|.
    """

    seconds_direct: float
    seconds_adjoint: float
    saved_bytes_direct: int
    saved_bytes_adjoint: int
    nfe_forward_direct: int
    nfe_backward_direct: int
    nfe_forward_adjoint: int
    nfe_backward_adjoint: int
    grad_rel_diff: float
    loss_direct: float
    loss_adjoint: float
    cuda_peak_direct: float = float("nan")
    cuda_peak_adjoint: float = float("nan")
    method: str = ""
    rtol: float = float("nan")
    atol: float = float("nan")

    def __post_init__(self) -> None:
        _freeze(self)


# -- meta-learning -------------------------------------------------------------------------------
@dataclass(frozen=True)
class MetaHistory:
    """Every meta-learner's training loss so far (the query MSE after the inner loop on
    each step's batch, the same quantity for every method).

    Shapes:
        losses: float32[M, step], one row per method of ``methods``
    """

    methods: tuple[str, ...]
    losses: np.ndarray

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class AdaptationTrace:
    """Each method adapted on one task's support points: its prediction on a grid after
    0, 1, …, ``steps`` SGD steps of ``inner_lr`` (``predictions[m, 0]`` is the
    meta-learned initialisation's own prediction).

    Shapes:
        x_grid: float32[G]; predictions: float32[M, steps+1, G] (M = len(methods))
        x_support, y_support: float32[K] (K may be 0: no adaptation)
    """

    x_grid: np.ndarray
    predictions: np.ndarray
    methods: tuple[str, ...]
    x_support: np.ndarray
    y_support: np.ndarray
    inner_lr: float
    steps: int

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class MetaEvalTrace:
    """MSE against adaptation steps over ``n_tasks`` test tasks (amplitude up to
    ``amp_max``; 5 in distribution, 10 out of it), K support points each, scored on 100
    points spread over [−5, 5]. ``ci95`` is the 95% half-width 1.96·s/√n (s: sample
    standard deviation over the tasks); ``seconds`` the wall time of each method's
    adaptation and scoring; ``step`` the training step of the weights evaluated.
    ``median`` is robust where a few tasks blow up (SGD with a fixed step on large
    amplitudes can diverge, and one such task dominates the mean).

    Shapes:
        mse, ci95, median: float32[M, steps+1]; seconds: float32[M]
        task_mse: float32[M, steps+1, n_tasks] (every task's MSE)
    """

    methods: tuple[str, ...]
    steps: int
    mse: np.ndarray
    ci95: np.ndarray
    n_tasks: int
    k: int
    amp_max: float
    seconds: np.ndarray
    task_mse: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.float32))
    median: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    inner_lr: float = float("nan")
    seed: int = 0
    step: int = 0

    def __post_init__(self) -> None:
        _freeze(self)


@dataclass(frozen=True)
class ProtoTrace:
    """One few-shot episode through a prototypical network.

    Prototypes are the class means of the embedded support points; a point belongs to
    the class of the nearest prototype (squared Euclidean distance in the embedding).
    ``regions_input`` colours the input plane by that rule (each grid point embedded
    first); ``regions_embedding`` is the Voronoi diagram of the prototypes in the
    embedding plane. The baseline is nearest class mean in the INPUT plane, no learning
    (``baseline_prototypes``, ``regions_baseline``). Extents are (x_min, x_max, y_min,
    y_max); region rasters are cell centres, row i from y_min upwards, column j from
    x_min rightwards (as ``FlowDensity``). Labels are 0..n_way-1, support class-major.

    Shapes:
        support_x: float32[N*K, 2]; support_y: int64[N*K]
        query_x: float32[Q, 2]; query_y, query_pred: int64[Q]
        support_emb: float32[N*K, 2]; query_emb: float32[Q, 2]; prototypes: float32[N, 2]
        regions_input, regions_embedding, regions_baseline: int64[g, g]
        baseline_prototypes: float32[N, 2]
    """

    n_way: int
    k_shot: int
    support_x: np.ndarray
    support_y: np.ndarray
    query_x: np.ndarray
    query_y: np.ndarray
    support_emb: np.ndarray
    query_emb: np.ndarray
    prototypes: np.ndarray
    extent_input: tuple[float, float, float, float]
    regions_input: np.ndarray
    extent_embedding: tuple[float, float, float, float]
    regions_embedding: np.ndarray
    accuracy: float
    baseline_accuracy: float
    query_pred: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    baseline_prototypes: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    regions_baseline: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    family: str = ""
    seed: int = 0
    step: int = 0

    def __post_init__(self) -> None:
        _freeze(self)
