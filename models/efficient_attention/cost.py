"""What attention costs as the sequence grows: the O(N²) of exact attention against the
O(N) of the sparse and linear methods, in theory and measured on the chosen device.

Theory counts multiply-adds of one head's forward pass (a multiply-add = 2 FLOPs) and
the floats of the largest intermediate each method keeps:

    naive       QKᵀ, softmax, AV          4·N²·d            N² (the score matrix)
    sdpa        the same arithmetic, fused; PyTorch's kernels never store N² scores
                                           4·N²·d            N·d
    banded      window w                  4·N·(w+1)·d       N·(w+1)
    performer   m random features         8·N·m·d           N·m + m·d
    linformer   projected length k        4·N·k·d + 4·k·N·d N·k

``measure_costs`` times each method for N = 256, 512, … (median of a few runs after a
warm-up) and measures the peak memory it allocates: ``torch.cuda.max_memory_allocated``
on CUDA, the allocator's driver memory on MPS, and on the CPU the running total of the
allocations torch's profiler records during one call. A method stops growing N once a
call takes longer than the time budget, or the next one is predicted to (×4 per
doubling for the O(N²) methods, ×2 for the others), or would need more than the memory
budget (from the theory, before it runs, so nothing is allocated that cannot be).
"""

from __future__ import annotations

import importlib.util
import math
import os
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

import numpy as np
import torch

from models import gcpause
from models.efficient_attention.options import COST_METHODS as METHODS
from models.efficient_attention.options import QUADRATIC
from models.errors import InvalidParameterError
from models.traces import CostTrace, Progress

_PROFILER_LOCK = threading.Lock()


def xformers_status(device: str) -> str:
    """"" when xformers' memory_efficient_attention can run on ``device``, else why not."""
    if importlib.util.find_spec("xformers") is None:
        return "xformers is not installed"
    if not str(device).startswith("cuda"):
        return "xformers' memory_efficient_attention needs a CUDA device"
    return ""


def cost_theory(n_values: np.ndarray, d: int, w: int, m: int, k: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """(flops[methods, t], memory_floats[methods, t]) for one head; xformers as sdpa."""
    n = np.asarray(n_values, dtype=np.float64)
    kk = np.minimum(k, n)
    ww = np.minimum(w + 1, n)
    flops = np.stack([4 * n * n * d, 4 * n * n * d, 4 * n * ww * d, 8 * n * m * d,
                      8 * n * kk * d, 4 * n * n * d])
    memory = np.stack([n * n, n * d, n * ww, n * m + m * d, n * kk, n * d])
    return flops.astype(np.float32), memory.astype(np.float32)


def theory_crossover(m: int) -> float:
    """N where Performer's 8·N·m·d equals exact attention's 4·N²·d: N = 2m."""
    return 2.0 * m


def _run(method: str, q, k, v, w: int, m: int, kk: int, proj):
    from models.efficient_attention.banded import banded_attention
    from models.efficient_attention.linear import linformer_attention, performer_attention

    if method == "naive":
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return torch.softmax(scores, dim=-1) @ v
    if method == "sdpa":
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)
    if method == "banded":
        return banded_attention(q, k, v, w)
    if method == "performer":
        return performer_attention(q, k, v, m, orthogonal=True, seed=0)
    if method == "linformer":
        return linformer_attention(q, k, v, *proj)
    if method == "xformers":   # pragma: no cover - needs xformers and CUDA
        import xformers.ops as xops

        # xformers takes (batch, n, heads, d)
        return xops.memory_efficient_attention(q.transpose(1, 2), k.transpose(1, 2),
                                               v.transpose(1, 2)).transpose(1, 2)
    raise InvalidParameterError(f"Unknown method '{method}'.")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """torch 2.13's profiler prints two "USDT: … profiler_start/stop" lines to the
    process's stderr per use, from C++; a measurement run would fill the terminal with
    them. File descriptor 2 points at /dev/null for the few milliseconds of one call."""
    try:
        saved = os.dup(2)
    except OSError:          # no stderr at all: nothing to protect
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _peak_bytes(fn, device: torch.device) -> float:
    """Peak bytes allocated during one call of ``fn`` (NaN where the device can't say)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
        fn()
        torch.cuda.synchronize(device)
        return float(torch.cuda.max_memory_allocated(device) - base)
    if device.type == "mps":
        base = torch.mps.driver_allocated_memory()
        fn()
        torch.mps.synchronize()
        return float(max(0, torch.mps.driver_allocated_memory() - base))
    # Kineto's CPU profiler, as ``torch.profiler.profile(activities=[CPU])`` runs it,
    # without that wrapper: its start asks ``hasattr(torch, "_inductor")``, which imports
    # torch's compiler (~70 MB with sympy, see models/optim.py) to read one GPU setting
    from torch.autograd.profiler import profile

    # one profiler at a time (two at once raise), and stderr silenced by one thread
    # at a time, so it is always given back
    with _PROFILER_LOCK, _quiet_stderr(), _no_automatic_gc():
        with profile(use_cpu=True, profile_memory=True, use_kineto=True) as prof:
            fn()
        # allocations (+) and frees (−) in the order they happened; the peak of their
        # sum. Self memory only: an operator's total includes its children's, counted
        # again. Parsed under the lock: one profiler's results at a time.
        usage = [(e.time_range.start, e.self_cpu_memory_usage) for e in prof.function_events
                 if e.self_cpu_memory_usage]
        # the profiler's C++ results are referenced from a reference cycle (its events),
        # so they were freed whenever the cyclic collector next ran, on whichever thread,
        # often the GUI thread: drop them here, on the thread that made them
        if getattr(prof, "kineto_results", None) is not None:
            prof.kineto_results = None
    total = peak = 0
    for _, change in sorted(usage, key=lambda u: u[0]):
        total += change
        peak = max(peak, total)
    return float(peak)


def _no_automatic_gc():
    """No automatic garbage collection (on any thread) while the profiler records and
    its results are parsed. Fresh-clone test runs aborted inside Kineto while the GUI
    thread was garbage-collecting (freeing an earlier profiler's results). Collecting
    here instead deadlocked: a finalizer on this thread waited for the GUI thread. So
    collection only waits, for the second or so this takes.
    """
    return gcpause.paused()


# long (85 lines): one loop over N × method, its budget checks and the trace as it grows
def measure_costs(n_values=(256, 512, 1024, 2048, 4096, 8192, 16384), d: int = 64,
                  w: int = 256, m: int = 256, k: int = 256, heads: int = 1,
                  device: str | torch.device = "cpu", time_budget_s: float = 2.0,
                  memory_budget_bytes: float = 2e9, repeats: int = 3,
                  methods: tuple[str, ...] = METHODS, seed: int = 0) -> Iterator[Progress]:
    """Time and peak memory of each method at each N, as a generator of ``Progress``
    whose ``trace`` is the ``CostTrace`` measured so far (points appear as measured).
    Stop by no longer iterating."""
    if d < 1 or w < 1 or m < 1 or k < 1 or heads < 1:
        raise InvalidParameterError("d, w, m, k and heads must be positive.")
    dev = torch.device(device)
    methods = tuple(x for x in methods if x in METHODS)
    skip = {"xformers": xformers_status(str(dev))} if "xformers" in methods else {}
    if skip.get("xformers") == "":
        skip.pop("xformers")
    n_theory = np.unique(np.geomspace(min(n_values), max(n_values) * 2, 48).astype(int))
    flops, memory = cost_theory(n_theory, d, w, m, k)
    rows: list[tuple[int, int, float, float, str]] = []
    stopped: dict[str, str] = {}
    last: dict[str, tuple[int, float]] = {}     # method -> (N, seconds) last measured
    gen = torch.Generator().manual_seed(seed)
    total = len(n_values) * len(methods)
    done = 0
    for n in n_values:
        q, kt, v = (torch.randn(1, heads, n, d, generator=gen).to(dev) for _ in range(3))
        proj = None
        for mi, method in enumerate(methods):
            done += 1
            if method in skip or method in stopped:
                continue
            _, mem = cost_theory(np.array([n]), d, w, m, k)
            need = float(mem[METHODS.index(method), 0]) * 4 * heads * 3   # a few copies
            if need > memory_budget_bytes:
                stopped[method] = "budget"
                rows.append((n, mi, math.nan, math.nan, "budget: memory"))
                continue
            if method in last:       # O(N²) methods take 4× longer per doubling
                n0, s0 = last[method]
                predicted = s0 * (n / n0) ** (2 if method in QUADRATIC else 1)
                if predicted > time_budget_s:
                    stopped[method] = "budget"
                    rows.append((n, mi, math.nan, math.nan,
                                 f"budget: time (about {predicted:.2g} s predicted)"))
                    continue
            if method == "linformer" and proj is None:
                from models.efficient_attention.linear import linformer_projection

                e = linformer_projection(n, min(k, n), "random", seed).to(dev)
                proj = (e, e)
            try:
                with torch.no_grad():
                    fn = partial(_run, method, q, kt, v, w, m, k, proj)
                    fn()                                   # warm-up
                    _sync(dev)
                    times = []
                    for _ in range(repeats):
                        t0 = time.perf_counter()
                        fn()
                        _sync(dev)
                        times.append(time.perf_counter() - t0)
                    peak = _peak_bytes(fn, dev)
                seconds = statistics.median(times)
                last[method] = (n, seconds)
                status = "ok"
                if seconds > time_budget_s:
                    stopped[method] = "budget"
                    status = "ok; budget reached"
            except (RuntimeError, torch.OutOfMemoryError) as exc:   # out of memory, ...
                seconds, peak, status = math.nan, math.nan, f"error: {exc}".split("\n")[0]
                stopped[method] = "error"
            rows.append((n, mi, seconds, peak, status))
            trace = CostTrace(
                methods=methods, n_theory=n_theory.astype(np.float32), flops=flops[
                    [METHODS.index(x) for x in methods]],
                memory=memory[[METHODS.index(x) for x in methods]] * 4.0,
                measured_n=np.array([r[0] for r in rows], np.int64),
                measured_method=np.array([r[1] for r in rows], np.int64),
                seconds=np.array([r[2] for r in rows], np.float32),
                peak_bytes=np.array([r[3] for r in rows], np.float32),
                status=tuple(r[4] for r in rows), device=str(dev), d=d,
                params={"w": w, "m": m, "k": k, "heads": heads,
                        "skipped": dict(skip), "repeats": repeats})
            yield Progress(step=done, total=total, loss=seconds,
                           metrics={"n": float(n), "seconds": seconds}, trace=trace,
                           message=f"{method} at N = {n}: {status}")


def measured_crossover(trace: CostTrace, fast: str = "performer", slow: str = "sdpa"
                       ) -> float | None:
    """Smallest measured N from which ``fast`` is quicker than ``slow`` at every larger
    N measured for both (None if it never is)."""
    if fast not in trace.methods or slow not in trace.methods:
        return None
    fi, si = trace.methods.index(fast), trace.methods.index(slow)
    t = {}
    for n, mi, s in zip(trace.measured_n, trace.measured_method, trace.seconds, strict=True):
        if np.isfinite(s):
            t[(int(n), int(mi))] = float(s)
    both = sorted(n for (n, mi) in t if mi == fi and (n, si) in t)
    crossover = None
    for n in reversed(both):
        if t[(n, fi)] < t[(n, si)]:
            crossover = n
        else:
            break
    return crossover
