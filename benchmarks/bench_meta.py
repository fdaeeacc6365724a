"""Meta-learning on this CPU: MAML, first-order MAML, Reptile and the pretrained baseline
trained side by side on one stream of sinusoid tasks (meta-batch 25, inner lr 0.01, one
inner step for (FO)MAML as in Finn et al. 2017, Adam 1e-3), then the MSE after 1 and 10
adaptation steps over test tasks with K support points (mean ± 95% half-width), next to
the paper's figures; the out-of-distribution setting (amplitude up to 10); training wall
time and time per meta-step; the latency of the interactive re-adaptation; and
prototypical networks on the 2D task families against nearest-mean in the input.

    .venv/bin/python benchmarks/bench_meta.py [--steps 8000] [--threads 1] [--k 10] [--tasks 600]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

#: the MAML paper's sinusoid figure (K = 10, α = 0.01): MSE after 1 and 10 steps
REFERENCE = {"maml": (0.6, "0.25–0.30"), "pretrained": (2.4, "1.8")}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=8000, help="meta-steps of training")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--k", type=int, default=10, help="support points per task")
    parser.add_argument("--tasks", type=int, default=600, help="test tasks")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--proto-episodes", type=int, default=500)
    args = parser.parse_args()
    import numpy as np
    import torch

    from models.meta import FAMILIES, METHOD_LABELS, MetaSession, ProtoSession

    torch.set_num_threads(args.threads)
    session = MetaSession(k=args.k, inner_lr=0.01, inner_steps=1, meta_batch=25,
                          meta_lr=1e-3, seed=args.seed)
    print(f"Training {', '.join(session.methods)} on one task stream: {args.steps} meta-steps, "
          f"meta-batch {session.meta_batch}, K={session.k}, inner lr {session.inner_lr}, "
          f"inner steps {session.inner_steps} (Reptile {session.reptile_inner_steps}), "
          f"Adam {session.meta_lr:g}", flush=True)
    t0 = time.perf_counter()
    for p in session.train(args.steps):
        if p.step % max(1, args.steps // 5) == 0:
            print(f"  step {p.step:6d}  {p.metrics['seconds']:6.0f} s  "
                  + "  ".join(f"{m} {p.metrics['loss_' + m]:.3f}" for m in session.methods),
                  flush=True)
    wall = time.perf_counter() - t0
    print(f"training: {wall:.1f} s wall, {wall / args.steps * 1e3:.1f} ms per meta-step "
          "(all four methods, incl. the rollback points and the side losses)")
    for m in session.methods:
        print(f"  {METHOD_LABELS[m]:17s} {session.seconds[m]:6.1f} s, "
              f"{session.seconds[m] / args.steps * 1e3:5.2f} ms per meta-step")

    for amp_max in (5.0, 10.0):
        ev = session.evaluate(n_tasks=args.tasks, k=args.k, steps=10, amp_max=amp_max)
        title = "in distribution" if amp_max == 5.0 else "out of distribution"
        print(f"\nMSE over {ev.n_tasks} test tasks, K={ev.k}, amplitude ≤ {amp_max:g} "
              f"({title}), mean ± 95% CI:")
        print(f"  {'method':17s} {'0 steps':>15s} {'1 step':>15s} {'10 steps':>15s}"
              f"   {'paper 1 / 10':>15s}  {'median 1 / 10':>13s}  worse  eval s")
        for i, m in enumerate(ev.methods):
            ref = REFERENCE.get(m) if amp_max == 5.0 else None
            cells = [f"{ev.mse[i, s]:6.3f} ± {ev.ci95[i, s]:5.3f}" for s in (0, 1, 10)]
            ref_s = f"{ref[0]:g} / {ref[1]}" if ref else "—"
            med = f"{ev.median[i, 1]:.3f} / {ev.median[i, 10]:.3f}"
            # tasks whose whole-curve MSE after 10 steps exceeds the unadapted one
            worse = int((ev.task_mse[i, 10] > ev.task_mse[i, 0]).sum())
            print(f"  {METHOD_LABELS[m]:17s} {cells[0]:>15s} {cells[1]:>15s} {cells[2]:>15s}"
                  f"   {ref_s:>15s}  {med:>13s}  {worse:5d}  {ev.seconds[i]:.2f}")

    task = session.test_task(7)
    grid = np.linspace(-5, 5, 200)
    times = []
    for _ in range(25):
        t = time.perf_counter()
        session.adapt_curves(task["x_support"], task["y_support"], grid, steps=10)
        times.append(time.perf_counter() - t)
    print(f"\nadapt_curves (4 methods × 10 steps, K={args.k}, 200 grid points): median "
          f"{statistics.median(times[5:]) * 1e3:.1f} ms, max {max(times[5:]) * 1e3:.1f} ms")

    print(f"\nPrototypical networks, 5-way 5-shot, {args.proto_episodes} training episodes; "
          "query accuracy over 100 test episodes (chance 0.20):")
    for family in FAMILIES:
        proto = ProtoSession(n_way=5, k_shot=5, n_query=15, family=family, lr=3e-3)
        t = time.perf_counter()
        for _ in proto.train(args.proto_episodes):
            pass
        train_s = time.perf_counter() - t
        traces = [proto.episode(seed=10_000 + s, grid=8) for s in range(100)]
        acc = np.mean([tr.accuracy for tr in traces])
        base = np.mean([tr.baseline_accuracy for tr in traces])
        print(f"  {family:12s} proto net {acc:.3f}, nearest mean in the input {base:.3f}; "
              f"{train_s / args.proto_episodes * 1e3:.1f} ms per episode")
    print(f"torch threads {torch.get_num_threads()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
