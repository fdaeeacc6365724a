"""Time and peak memory of exact and efficient attention against N, and the measured
N from which Performer beats PyTorch's scaled_dot_product_attention (the issue asks for
it at d = 64, m = 256 on this CPU).

    .venv/bin/python benchmarks/bench_attention_cost.py [--max-n 16384] [--threads 1]

One head, float32, median of 3 calls after a warm-up; a method stops growing N once a
call takes longer than --budget-s seconds or would need more than --memory-mb.
"""

from __future__ import annotations

import argparse
import math
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-n", type=int, default=16384)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--m", type=int, default=256)
    parser.add_argument("--w", type=int, default=256)
    parser.add_argument("--k", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--budget-s", type=float, default=5.0)
    parser.add_argument("--memory-mb", type=float, default=4096)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    import torch

    from models.efficient_attention import measure_costs, measured_crossover, theory_crossover

    torch.set_num_threads(args.threads)
    ns = tuple(2 ** i for i in range(8, int(math.log2(args.max_n)) + 1))
    last = None
    for p in measure_costs(ns, args.d, args.w, args.m, args.k, device=args.device,
                           time_budget_s=args.budget_s,
                           memory_budget_bytes=args.memory_mb * 2 ** 20):
        last = p.trace
        mi = int(last.measured_method[-1])
        s, b = float(last.seconds[-1]), float(last.peak_bytes[-1])
        print(f"N {int(last.measured_n[-1]):6d}  {last.methods[mi]:10s} "
              f"{s * 1e3:10.2f} ms  peak {b / 2**20:9.2f} MiB  {last.status[-1]}",
              flush=True)
    cross = measured_crossover(last, "performer", "sdpa")
    print(f"\nd = {args.d}, m = {args.m}, w = {args.w}, k = {args.k}, device {args.device}, "
          f"torch threads {torch.get_num_threads()}")
    print(f"theory (FLOPs): Performer cheaper than exact attention from N = "
          f"{theory_crossover(args.m):g}")
    print("measured: Performer faster than SDPA from N = "
          + (f"{cross}" if cross else f"never up to {max(ns)}"))
    skipped = last.params.get("skipped", {})
    for method, why in skipped.items():
        print(f"{method}: not measured ({why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
