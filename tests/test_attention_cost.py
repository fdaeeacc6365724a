"""Cost of attention: the theory's formulas, and the measuring job on small N."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models.efficient_attention.cost import (
    METHODS,
    cost_theory,
    measure_costs,
    measured_crossover,
    theory_crossover,
    xformers_status,
)
from models.traces import CostTrace


def test_theory_counts_and_crossover():
    n = np.array([256, 512, 1024])
    flops, memory = cost_theory(n, d=64, w=128, m=256, k=64)
    assert flops.shape == memory.shape == (len(METHODS), 3)
    naive, perf = METHODS.index("naive"), METHODS.index("performer")
    np.testing.assert_allclose(flops[naive], 4 * n**2 * 64)
    np.testing.assert_allclose(flops[perf], 8 * n * 256 * 64)
    assert memory[naive, 2] == 1024**2 and memory[METHODS.index("sdpa"), 2] == 1024 * 64
    # O(N²) against O(N): doubling N quadruples one and doubles the other
    assert flops[naive, 1] / flops[naive, 0] == pytest.approx(4)
    assert flops[perf, 1] / flops[perf, 0] == pytest.approx(2)
    x = theory_crossover(256)
    assert 4 * x * x * 64 == pytest.approx(8 * x * 256 * 64)


def test_measuring_yields_points_as_it_goes_and_respects_the_budgets():
    reports = list(measure_costs((256, 512), d=16, w=16, m=32, k=32, repeats=1,
                                 methods=("naive", "sdpa", "banded", "performer", "linformer",
                                          "xformers"), memory_budget_bytes=3e6))
    last = reports[-1].trace
    assert isinstance(last, CostTrace) and reports[0].trace.measured_n.size == 1
    ok = [s.startswith("ok") for s in last.status]
    assert sum(ok) >= 8                       # 4-5 methods x 2 lengths, xformers skipped
    assert "xformers" in last.params["skipped"] and xformers_status("cpu")
    # naive at N = 512 needs 512² floats x 3 x 4 bytes > 3 MB: refused before it runs
    naive = last.methods.index("naive")
    rows = [s for n, mi, s in zip(last.measured_n, last.measured_method, last.status,
                                  strict=True) if mi == naive and n == 512]
    assert rows == ["budget: memory"]
    # the measured peak of naive attention holds at least its N x N score matrix
    peak = [b for n, mi, b in zip(last.measured_n, last.measured_method, last.peak_bytes,
                                  strict=True) if mi == naive and n == 256][0]
    assert 256 * 256 * 4 <= peak <= 3 * 256 * 256 * 4    # scores + softmax, not counted twice
    assert all(math.isfinite(s) and s > 0 for s, st in zip(last.seconds, last.status,
                                                           strict=True) if st == "ok")


def test_measured_crossover_reads_the_table():
    def trace(perf, sdpa):
        ns = [256, 512, 1024, 2048]
        return CostTrace(
            methods=("sdpa", "performer"), n_theory=np.ones(1), flops=np.ones((2, 1)),
            memory=np.ones((2, 1)), measured_n=np.array(ns * 2),
            measured_method=np.array([0] * 4 + [1] * 4),
            seconds=np.array(sdpa + perf, np.float32), peak_bytes=np.full(8, np.nan),
            status=("ok",) * 8, device="cpu", d=64, params={})

    assert measured_crossover(trace([2, 3, 4, 5], [1, 2, 5, 9])) == 1024
    assert measured_crossover(trace([2, 3, 4, 5], [1, 2, 3, 4])) is None
    assert measured_crossover(trace([1, 3, 4, 5], [2, 2, 5, 9])) == 1024   # not 256
