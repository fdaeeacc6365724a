"""Chunked attention with an online softmax (issue 35): equal to exact attention, its
running state ends at the row's exact max and sum, and it holds less memory than the
N×N score matrix, measured. The references are torch's own
``F.scaled_dot_product_attention`` and the app's ``exact_attention``."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as tnf

from models.efficient_attention import (
    chunk_memory_trace,
    chunked_attention,
    chunked_trace,
    exact_attention,
    online_softmax_steps,
)
from models.efficient_attention.chunked import mask_for
from models.errors import InvalidParameterError

N = 50          # divided by neither 3, 7, 16 nor 49


def _qkv(dtype, n=N, d=16, seed=0, lead=(2, 3)):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*lead, n, d, generator=g, dtype=dtype) for _ in range(3))


@pytest.mark.parametrize("mask_kind", ["none", "causal", "padding"])
@pytest.mark.parametrize("chunk", [1, 3, 7, 16, N - 1, N, N + 5])
@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-6), (torch.float64, 1e-12)])
def test_chunked_equals_sdpa_and_the_apps_exact_attention(mask_kind, chunk, dtype, tol):
    q, k, v = _qkv(dtype)
    keep = mask_for(mask_kind, N)
    out = chunked_attention(q, k, v, chunk, keep)
    sdpa = tnf.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    exact, _ = exact_attention(q, k, v, keep)
    assert out.shape == (2, 3, N, 16) and out.dtype == dtype
    assert (out - sdpa).abs().max() < tol
    assert (out - exact).abs().max() < tol


def test_a_mask_with_holes_and_a_fully_masked_row():
    """A random keep-mask (holes inside chunks, chunks all masked for some rows) and one
    row with no key at all: that row is zero, as in the app's exact attention."""
    q, k, v = _qkv(torch.float64, lead=(1,))
    keep = torch.rand(N, N, generator=torch.Generator().manual_seed(1)) < 0.3
    keep[5] = False
    out = chunked_attention(q, k, v, 4, keep)
    exact, _ = exact_attention(q, k, v, keep)
    assert torch.equal(out[:, 5], torch.zeros_like(out[:, 5]))
    assert (out - exact).abs().max() < 1e-12
    rows = keep.any(-1)
    sdpa = tnf.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    assert (out[:, rows] - sdpa[:, rows]).abs().max() < 1e-12


def test_queries_and_keys_of_different_lengths():
    g = torch.Generator().manual_seed(2)
    q = torch.randn(7, 8, generator=g, dtype=torch.float64)
    k, v = torch.randn(30, 8, generator=g, dtype=torch.float64), torch.randn(
        30, 5, generator=g, dtype=torch.float64)
    out = chunked_attention(q, k, v, 4)
    assert out.shape == (7, 5)
    assert (out - tnf.scaled_dot_product_attention(q, k, v)).abs().max() < 1e-12


def test_the_running_max_and_sum_end_at_the_rows_exact_values():
    q, k, v = _qkv(torch.float64, lead=())
    row, chunk = 31, 7
    steps = online_softmax_steps(q, k, v, chunk, row)
    s = q[row] @ k.T / math.sqrt(16)
    assert steps["end"].tolist() == [7, 14, 21, 28, 35, 42, 49, 50]
    np.testing.assert_allclose(steps["m"][-1], s.max(), rtol=1e-6)
    np.testing.assert_allclose(steps["l"][-1], torch.exp(s - s.max()).sum(), rtol=1e-6)
    # after each chunk: m is the max so far, l the sum so far against it
    for i, end in enumerate(steps["end"].int().tolist()):
        seen = s[:end]
        np.testing.assert_allclose(steps["m"][i], seen.max(), rtol=1e-6)
        np.testing.assert_allclose(steps["l"][i], torch.exp(seen - seen.max()).sum(),
                                   rtol=1e-6)
        np.testing.assert_allclose(steps["chunk_max"][i], s[i * chunk:end].max(), rtol=1e-6)
    m = steps["m"].numpy()
    assert (np.diff(m) >= 0).all()
    alpha = steps["alpha"].numpy()
    np.testing.assert_allclose(alpha[1:], np.exp(m[:-1] - m[1:]), rtol=1e-6)
    assert alpha[0] == 1.0 and (alpha < 1).any()      # the rescale really happened


def test_bad_arguments_are_refused():
    q, k, v = _qkv(torch.float32, lead=())
    with pytest.raises(InvalidParameterError, match="chunk"):
        chunked_attention(q, k, v, 0)
    with pytest.raises(InvalidParameterError, match="query row"):
        online_softmax_steps(q, k, v, 4, N)
    with pytest.raises(InvalidParameterError, match="mask"):
        chunked_attention(q, k, v, 4, torch.ones(3, 3, dtype=torch.bool))
    with pytest.raises(InvalidParameterError, match="mask is one of"):
        mask_for("diagonal", 4)


def test_the_trace_compares_every_chunk_size_and_clamps_the_row():
    t = chunked_trace(40, 6, 99, "padding", seed=3)
    assert t.row == 39 and t.n == 40
    assert {1, 6, 39, 40, 45} <= set(t.sweep_chunks.tolist())
    assert t.sweep_diff.shape == (2, t.sweep_chunks.size)
    assert t.sweep_diff.max() < 1e-6 and max(t.diff_exact, t.diff_sdpa) < 1e-6
    assert len(t.step_end) == math.ceil(40 / 6)
    assert abs(t.step_m[-1] - t.row_max) < 1e-5 and abs(t.step_l[-1] - t.row_sum) < 1e-4
    # padding: the keys from 3N/4 = 30 on are masked, so the last chunk adds nothing
    assert t.step_chunk_max[-1] == -np.inf and t.step_l[-1] == t.step_l[-2]


def test_peak_memory_measured_grows_as_n_squared_for_exact_and_as_n_chunked():
    """Measured by torch's profiler (CPU allocations and frees). Exact attention holds at
    least the N×N float32 scores; chunked attention far less, growing about linearly."""
    m = chunk_memory_trace(16, d=64, ns=(256, 1024))
    assert m.exact_bytes[1] >= 4 * 1024 ** 2
    assert m.chunked_bytes[1] < 4 * 1024 ** 2 / 2 and m.chunked_bytes[1] < m.exact_bytes[1] / 4
    assert m.exact_bytes[1] / m.exact_bytes[0] > 10         # ×16 for 4× N
    assert m.chunked_bytes[1] / m.chunked_bytes[0] < 6      # ×4 for 4× N
    far = chunk_memory_trace(1, d=8, ns=(64, 512))          # 512 chunks: not measured
    assert np.isfinite(far.chunked_bytes[0]) and np.isnan(far.chunked_bytes[1])


def test_the_view_exports_headless_with_set(tmp_path):
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OMP_NUM_THREADS="1",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    out = tmp_path / "online.csv"
    run = subprocess.run([sys.executable, "-m", "app", "export", "efficient.online",
                          "--set", "chunk=12", "--set", "chunk_n=100", "--set", "chunk_row=99",
                          "--set", "chunk_mask=causal", "--out", str(out)],
                         cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = [line.split(",") for line in out.read_text().splitlines()
            if not line.startswith("#")]
    assert rows[0][1:] == ["keys_seen", "m", "l", "chunk_max", "alpha"]
    assert len(rows) == 1 + math.ceil(100 / 12) and float(rows[-1][1]) == 100
