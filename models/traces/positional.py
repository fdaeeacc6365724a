"""Traces of the positional-encoding tab.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from models.traces.base import trace

__all__ = ["PEGrid", "OffsetFitTrace"]


@trace
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

    @property
    def offset_max_error(self) -> float:
        return float(self.offset_error.max()) if self.offset_error.size else 0.0

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays behind the views, by name (for Export data)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}


@trace
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

    @property
    def max_abs_difference(self) -> float:
        return float(np.abs(self.learned - self.analytic).max())

    def matches(self, d_model: int, max_len: int, base: float, offset: int) -> bool:
        return (self.d_model, self.max_len, self.base, self.offset) == (
            d_model, max_len, float(base), offset)
