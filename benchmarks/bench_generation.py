"""Graph generation on this CPU: GraphRNN and the classical baselines (Erdős–Rényi,
Barabási–Albert, a fitted stochastic block model) fitted to the training share of each
family, scored on its held-out share with the GraphRNN paper's MMD² of degree and
clustering-coefficient histograms (Gaussian-EMD kernel) and of graphlet orbit counts
(Gaussian, σ = 30), with the wall time of fitting and sampling each (scoring apart). "training" is the training graphs themselves against the held-out
ones: the level a perfect generator would reach with this many graphs.

    .venv/bin/python benchmarks/bench_generation.py [--datasets community grid ego]
        [--count 150] [--steps 300] [--samples 100] [--seeds 0] [--threads 1] [--kernel emd]
"""

from __future__ import annotations

import argparse
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", nargs="+", default=["community", "grid", "ego"])
    parser.add_argument("--count", type=int, default=150, help="graphs per family (80/20)")
    parser.add_argument("--steps", type=int, default=300, help="GraphRNN training steps")
    parser.add_argument("--samples", type=int, default=100, help="graphs drawn per method")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kernel", default="emd", choices=["emd", "tv"])
    args = parser.parse_args()
    import numpy as np
    import torch

    from models.generation import METHOD_LABELS, METHODS
    from models.generation.probe import generation_result

    torch.set_num_threads(args.threads)
    print(f"MMD² against held-out graphs ({args.kernel} kernel), {args.samples} samples per "
          f"method, GraphRNN {args.steps} steps, torch threads {args.threads}")
    for dataset in args.datasets:
        for seed in args.seeds:
            t0 = time.perf_counter()
            tr = generation_result(dataset, methods=METHODS, seed=seed, count=args.count,
                                   steps=args.steps, samples=args.samples,
                                   kernel=args.kernel)
            print(f"\n{dataset} (seed {seed}): {tr.train_count} training, {tr.held_out} "
                  f"held-out graphs; GraphRNN weights of step {tr.best_step}, final loss "
                  f"{tr.losses[-1]:.4f}; {time.perf_counter() - t0:.1f} s in all")
            print(f"| {'method':<26} | {'degree':>8} | {'clustering':>10} | {'orbits':>8} | "
                  f"{'seconds':>7} |")
            print(f"|{'-' * 28}|{'-' * 9}:|{'-' * 11}:|{'-' * 9}:|{'-' * 8}:|")
            for m, method in enumerate(tr.methods):
                deg, clu, orb = tr.mmd[m]
                print(f"| {METHOD_LABELS[method]:<26} | {deg:8.4f} | {clu:10.4f} | "
                      f"{orb:8.4f} | {tr.seconds[m]:7.2f} |")
            deg, clu, orb = tr.reference_mmd
            print(f"| {'training (reference)':<26} | {deg:8.4f} | {clu:10.4f} | {orb:8.4f} | "
                  f"{'':>7} |")
            for s, name in ((1, "clustering"), (2, "orbit")):
                er = tr.row("er")[s]
                print(f"GraphRNN {name} MMD² / Erdős–Rényi's: "
                      f"{tr.row('graphrnn')[s] / er if er > 0 else np.nan:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
