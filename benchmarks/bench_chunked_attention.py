"""Peak memory and time of exact attention against chunked attention with an online
softmax (issue 35), against N, on the CPU.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_chunked_attention.py \
        [--max-n 4096] [--chunk 128] [--d 64] [--no-rss]

One head, float32. Exact is the app's ``exact_attention`` (it builds the N×N scores and
their softmax); chunked is ``chunked_attention`` with keys ``--chunk`` at a time.

Two measurements of memory, both real, not a formula:

* ``profiler``: the peak of torch's CPU allocations minus frees during one call, as
  recorded by torch's profiler with ``profile_memory=True`` (what the tab shows; it
  sees torch's allocator only, which is where the intermediates live);
* ``rss``: in a fresh Python process per point (torch imported, inputs made, one
  warm-up call), the resident high-water mark reset to the resident size (Linux:
  ``/proc/self/clear_refs``), one call, then VmHWM − VmRSS before: how far the process's
  resident memory rose during the call. Where the mark cannot be reset, the growth of
  ``ru_maxrss`` (a lower bound: importing torch may have set it higher already). Pages
  the allocator reuses from earlier calls are not new: small N read ~0.

Time: median of 3 calls after a warm-up, wall (perf_counter) and CPU (process_time:
all threads of this process) seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _call(method: str, n: int, d: int, chunk: int):
    import torch

    from models.efficient_attention import chunked_attention, exact_attention

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, d, generator=g) for _ in range(3))
    if method == "exact":
        return lambda: exact_attention(q, k, v)
    return lambda: chunked_attention(q, k, v, chunk)


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def child(method: str, n: int, d: int, chunk: int) -> None:
    """One point in a fresh process: how far the resident high-water mark rises above
    the resident size before the call. Linux: the mark (VmHWM) is first reset to the
    current size (``echo 5 > /proc/self/clear_refs``), else importing torch's high
    water hides the call; elsewhere ``ru_maxrss`` growth (a lower bound)."""
    import resource

    import torch

    torch.set_num_threads(1)
    fn = _call(method, n, d, chunk)
    with torch.no_grad():
        fn()                     # warm-up: one-time allocations are not the call's
        try:
            Path("/proc/self/clear_refs").write_text("5")
            before, how = _status_kib("VmRSS"), "VmHWM"
        except OSError:
            before, how = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"
        fn()
        after = (_status_kib("VmHWM") if how == "VmHWM"
                 else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    print(json.dumps({"rss_growth_bytes": max(0, after - before) * 1024, "how": how}))


def rss_point(method: str, n: int, d: int, chunk: int) -> tuple[float, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--child", method, str(n), str(d),
                          str(chunk)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return float(data["rss_growth_bytes"]), data["how"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-n", type=int, default=4096)
    parser.add_argument("--chunk", type=int, default=128)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-rss", action="store_true", help="skip the subprocess RSS")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child:
        m, n, d, c = args.child
        child(m, int(n), int(d), int(c))
        return 0
    import torch

    from models.efficient_attention import measure_peak

    torch.set_num_threads(args.threads)
    ns = [2 ** i for i in range(8, int(math.log2(args.max_n)) + 1)]
    print(f"d = {args.d}, chunk c = {args.chunk}, float32, torch threads "
          f"{torch.get_num_threads()}, torch {torch.__version__}")
    print(f"{'N':>6} {'method':>8} {'wall ms':>9} {'cpu ms':>9} {'profiler MiB':>13} "
          f"{'rss MiB':>8} {'scores MiB':>11}")
    for n in ns:
        for method in ("exact", "chunked"):
            fn = _call(method, n, args.d, args.chunk)
            with torch.no_grad():
                fn()
                walls, cpus = [], []
                for _ in range(3):
                    w0, c0 = time.perf_counter(), time.process_time()
                    fn()
                    walls.append(time.perf_counter() - w0)
                    cpus.append(time.process_time() - c0)
                peak = measure_peak(fn)
            rss, how = (math.nan, "-") if args.no_rss else rss_point(method, n, args.d,
                                                                     args.chunk)
            scores = 4 * n * (n if method == "exact" else min(args.chunk, n))
            print(f"{n:6d} {method:>8} {statistics.median(walls) * 1e3:9.2f} "
                  f"{statistics.median(cpus) * 1e3:9.2f} {peak / 2**20:13.2f} "
                  f"{rss / 2**20:8.2f} {scores / 2**20:11.3f}", flush=True)
    print(f"\nprofiler: peak of torch's CPU allocations − frees in one call; rss: rise of "
          f"the resident high-water mark over one call in a fresh process ({how}); "
          f"scores: bytes of the largest score block, N×N or N×c float32, for comparison.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
