"""Efficient attention: sparse patterns, random features, low-rank projections.

Exact attention, softmax(Q Kᵀ/√d) V, builds an n×n matrix: O(n²) time and memory.
The methods here avoid that matrix in three ways, and every one is measured against
the exact result:

* **Sparse patterns** (Longformer, BigBird, Sparse Transformer): each query sees only
  some keys. The masks are *keep*-masks as in the course (True = may attend); ``reach``
  shows how stacking layers lets information travel further than one layer's pattern.
  ``banded_attention`` computes a sliding window in O(n·w) without any n×n matrix.
* **Random features** (Performer, FAVOR+): exp(q·k) = E_w[φ(q)·φ(k)], so softmax
  attention ≈ φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), computed right-to-left in O(n·m·d). The
  estimate's error shrinks with the number of features m and grows with ‖q‖, ‖k‖;
  trigonometric features can even give negative "attention weights".
* **Low rank** (Linformer): keys and values are projected along the sequence to
  k ≪ n rows, softmax(Q (E K)ᵀ/√d)(F V). ``linear_attention`` (elu + 1 kernel) drops
  the softmax altogether.

* **Chunked keys, online softmax** (xformers, FlashAttention): exact, not an
  approximation. ``chunked_attention`` walks over the keys c at a time keeping a
  running max and sum per query, so no score block larger than N×c is ever held.

``implied_attention`` returns the n×n matrix each method effectively uses (for display
only), and ``mask_trace``/``approximation_trace``/``convention_trace`` fill the frozen
dataclasses of ``models.traces`` for the views.
"""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    "MASK_KINDS": "options",
    "APPROX_METHODS": "options",
    "SWEEP_CURVES": "options",
    "SCALES": "options",
    "FEATURE_KINDS": "options",
    "PROJECTIONS": "options",
    "MASK_ARGS": "options",
    "COST_METHODS": "options",
    "local_window_mask": "patterns",
    "dilated_window_mask": "patterns",
    "strided_mask": "patterns",
    "global_token_mask": "patterns",
    "random_mask": "patterns",
    "bigbird_mask": "patterns",
    "causal_mask": "patterns",
    "combine_masks": "patterns",
    "union_masks": "patterns",
    "padding_keep": "patterns",
    "build_mask": "patterns",
    "mask_params": "patterns",
    "density": "patterns",
    "reach": "patterns",
    "banded_weights": "banded",
    "banded_attention": "banded",
    "random_projection": "linear",
    "performer_features": "linear",
    "performer_attention": "linear",
    "linformer_projection": "linear",
    "fit_linformer_projections": "linear",
    "linformer_attention": "linear",
    "linear_attention": "linear",
    "exact_attention": "implied",
    "implied_attention": "implied",
    "row_tv_distance": "sweeps",
    "relative_error": "sweeps",
    "performer_error_sweep": "sweeps",
    "scale_sweep": "sweeps",
    "random_qkv": "sweeps",
    "mask_trace": "tracing",
    "approximation_trace": "tracing",
    "convention_trace": "tracing",
    "cost_theory": "cost",
    "theory_crossover": "cost",
    "measure_costs": "cost",
    "measured_crossover": "cost",
    "xformers_status": "cost",
    "chunked_attention": "chunked",
    "online_softmax_steps": "chunked",
    "chunked_trace": "chunked",
    "chunk_memory_trace": "chunked",
    "measure_peak": "chunked",
    "EFFICIENT_PARTS": "probe",
    "efficient_trace": "probe",
})
