"""The sinusoidal positional encoding of "Attention Is All You Need", section 3.5.

``sinusoidal_table`` builds the table, ``PositionalEncoding`` adds it to a batch of
embeddings, and ``relative_position_matrix`` is the linear map ``M_k`` that moves every
row of the table ``k`` positions on.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from models.errors import InvalidParameterError


def _check_encoding(d_model: int, base: float) -> None:
    if d_model < 2 or d_model % 2:
        raise InvalidParameterError(f"d_model must be a positive even number, got {d_model}.")
    if not base > 1.0 or not math.isfinite(base):
        raise InvalidParameterError(f"The base must be a finite number above 1, got {base}.")


def sinusoidal_table(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    r"""The sinusoidal table of "Attention Is All You Need", section 3.5.

    .. math::
        PE_{(pos, 2i)} = \sin(pos / base^{2i/d}), \quad
        PE_{(pos, 2i+1)} = \cos(pos / base^{2i/d})

    The angles are computed in float64 and the table is returned as float32: in
    float32, ``pos * div_term`` loses about ``pos * 6e-8`` radians, which at
    position 4000 already shows as a 1e-4 error in the relative-position property.

    Shapes:
        returns float32[max_len, d_model]
    """
    _check_encoding(d_model, base)
    if max_len < 1:
        raise InvalidParameterError(f"max_len must be at least 1, got {max_len}.")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                         * (-math.log(base) / d_model))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.to(torch.float32)


class PositionalEncoding(nn.Module):
    r"""Adds the fixed sinusoidal position signal to a batch of embeddings.

    The idea: attention is blind to order, so each position gets a distinct
    vector of sines and cosines at geometrically spaced frequencies; for any
    offset ``k`` there is one linear map ``M_k`` with ``PE[pos+k] = M_k PE[pos]``,
    which lets attention pick out relative positions.

    Args:
        d_model: embedding size (even).
        dropout: dropout applied to the sum (the paper uses 0.1).
        max_len: longest sequence the table covers.
        base: the wavelength base, 10000 in the paper.

    Shapes:
        - buffer ``pe``: (1, max_len, d_model)
        - input ``x``: (batch, seq_len, d_model) with seq_len <= max_len
        - output: (batch, seq_len, d_model)
    """

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000,
                 base: float = 10000.0) -> None:
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len
        self.base = base
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", sinusoidal_table(max_len, d_model, base).unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.size(1)
        if seq_len > self.max_len:
            raise InvalidParameterError(
                f"The sequence has {seq_len} positions but the encoding covers only "
                f"max_len = {self.max_len}.")
        # 1. add the first seq_len rows of the table (broadcast over the batch)
        x = x + self.pe[:, :seq_len]
        # 2. dropout on the sum, as in the paper
        return self.dropout(x)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"


def relative_position_matrix(d_model: int, offset: int, base: float = 10000.0) -> torch.Tensor:
    r"""The linear map ``M_k`` with ``PE[pos + k] = M_k @ PE[pos]`` for every pos.

    It is block-diagonal: for the pair of dimensions (2i, 2i+1) with frequency
    :math:`\omega_i = base^{-2i/d}`, the block is the rotation
    ``[[cos kω, sin kω], [-sin kω, cos kω]]`` (from the angle-sum identities).
    It does not depend on ``pos``, which is the whole point.

    Shapes:
        returns float32[d_model, d_model]
    """
    _check_encoding(d_model, base)
    omega = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                      * (-math.log(base) / d_model))
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(0, d_model, 2)
    m[idx, idx] = c
    m[idx, idx + 1] = s
    m[idx + 1, idx] = -s
    m[idx + 1, idx + 1] = c
    return m.to(torch.float32)

