"""Neural ODEs on this CPU (figures, not a test):

* spiral: torchdiffeq's ode_demo set-up (SpiralSession defaults: 20 windows of 10
  observations, Adam at 1e-3, dopri5 rtol 1e-3 atol 1e-4; observation noise 0.05, the
  default, and 0, the demo's) — the mean L1 error of
  the whole predicted trajectory after the budget, against the two trivial predictors
  (y0 everywhere: 1.257; zero: 0.530), NFE per forward solve at the start and the end,
  wall time;
* cnf: RealNVP (FlowSession("realnvp", "two_moons")) against a CNF (CNFSession) on two
  moons (the CNF with Adam at 1e-2, which trains much faster in this budget than the
  session's default 1e-3): held-out NLL on the same 20,000 points (densities.sample("two_moons", 20000,
  seed=123)), wall time, NFE per solve, and the entropy floor;
* adjoint: backpropagating through the solver against the adjoint method on one batch:
  time, bytes kept for backward, NFE, gradient difference.

    .venv/bin/python benchmarks/bench_ode.py [--steps 2000] [--cnf-steps 600]
        [--cnf-lr 1e-2] [--flow-steps 2000] [--spiral-noise 0.05,0] [--threads 1]
        [--sections spiral,cnf,adjoint]
"""

from __future__ import annotations

import argparse
import sys
import time


def _spiral(args, noise: float) -> None:
    import numpy as np

    from models import ode

    session = ode.SpiralSession(seed=args.seed, noise=noise)
    checkpoints = []
    t0 = time.perf_counter()
    for p in session.train(args.steps, eval_every=100):
        if p.step % max(1, args.steps // 10) == 0:
            checkpoints.append((p.step, p.metrics["error_l1"]))
    wall = time.perf_counter() - t0
    tr = session.trace()
    tight = ode.SolverConfig(rtol=1e-7, atol=1e-9)
    import torch
    with torch.no_grad():
        pred = ode.odesolve(session.func, session.true[:1], session.t, tight)[:, 0].numpy()
    nfe = np.asarray(session.nfe_forward, np.float64)
    k = min(50, len(nfe))
    print(f"spiral ({args.steps} steps, Adam lr {session.lr:g}, noise {session.noise:g}, "
          f"{session.solver.describe()}): mean L1 of the whole trajectory {tr.error_l1:.3f} "
          f"(at rtol 1e-7: {ode.l1_error(pred, session.true_np):.3f}); trivial predictors: "
          f"y0 everywhere {tr.trivial['constant_y0']:.3f}, zero {tr.trivial['zero']:.3f}",
          flush=True)
    print("  error along the way: " + ", ".join(f"{s}: {e:.3f}" for s, e in checkpoints))
    print(f"  NFE per forward solve: first {k} steps {nfe[:k].mean():.1f}, last {k} steps "
          f"{nfe[-k:].mean():.1f}; NFE of the whole-trajectory solve {tr.nfe}; "
          f"{wall:.1f} s, {args.steps / wall:.1f} steps/s", flush=True)


def _cnf(args) -> object:
    import torch

    from models import ode
    from models.flows import FlowSession, densities

    held = torch.as_tensor(densities.sample("two_moons", 20_000, seed=123))
    entropy = densities.differential_entropy("two_moons")
    flow = FlowSession("realnvp", "two_moons", seed=args.seed)
    t0 = time.perf_counter()
    for _ in flow.train(args.flow_steps):
        pass
    wall = time.perf_counter() - t0
    with torch.no_grad():
        flow.flow.eval()
        nll = float(-flow.flow.log_prob(held).mean())
    print(f"RealNVP (8 layers, 64 hidden, batch 256, {args.flow_steps} steps): held-out NLL "
          f"{nll:.3f} nats (floor {entropy:.3f}); {wall:.1f} s, "
          f"{args.flow_steps / wall:.1f} steps/s", flush=True)

    cnf = ode.CNFSession("two_moons", seed=args.seed, lr=args.cnf_lr)
    t0 = time.perf_counter()
    for _ in cnf.train(args.cnf_steps):
        pass
    wall = time.perf_counter() - t0
    cnf.dynamics.reset_counts()
    t1 = time.perf_counter()
    chunk = 5000
    nll_cnf = float(-torch.cat([cnf.log_prob(c) for c in held.split(chunk)]).mean())
    eval_s = time.perf_counter() - t1
    solves = (len(held) + chunk - 1) // chunk
    nfe = cnf.nfe_forward
    k = min(50, len(nfe))
    print(f"CNF (exact trace, {cnf.func.depth}×{cnf.func.hidden} tanh, batch {cnf.batch_size}, "
          f"Adam lr {cnf.lr:g}, "
          f"{args.cnf_steps} steps, {cnf.solver.describe()}): held-out NLL {nll_cnf:.3f} nats "
          f"(floor {entropy:.3f}); {wall:.1f} s, {args.cnf_steps / wall:.1f} steps/s", flush=True)
    print(f"  NFE per training solve: first {k} steps {sum(nfe[:k]) / k:.1f}, last {k} steps "
          f"{sum(nfe[-k:]) / k:.1f}; NFE per held-out solve (5,000 points) "
          f"{cnf.dynamics.nfe / solves:.1f}; 20,000 log-densities in {eval_s:.1f} s", flush=True)
    return cnf


def _adjoint(args, cnf) -> None:
    from models import ode

    cases = [("spiral", ode.SpiralSession(seed=args.seed), None),
             ("spiral", ode.SpiralSession(seed=args.seed), ode.SolverConfig(rtol=1e-6,
                                                                             atol=1e-8)),
             ("CNF" + (" (trained)" if cnf is not None else ""),
              cnf if cnf is not None else ode.CNFSession("two_moons", seed=args.seed), None)]
    for name, session, solver in cases:
        c = session.compare_adjoint(repeats=3, solver=solver)
        print(f"adjoint vs direct, {name}, {c.method} rtol {c.rtol:g} atol {c.atol:g}: "
              f"time {c.seconds_direct * 1e3:.1f} ms direct / {c.seconds_adjoint * 1e3:.1f} ms "
              f"adjoint; kept for backward {c.saved_bytes_direct / 1024:.1f} KiB / "
              f"{c.saved_bytes_adjoint / 1024:.1f} KiB; NFE forward {c.nfe_forward_direct} / "
              f"{c.nfe_forward_adjoint}, backward {c.nfe_backward_direct} / "
              f"{c.nfe_backward_adjoint}; max|Δgrad|/max|grad| {c.grad_rel_diff:.2e}",
              flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000, help="spiral training steps")
    parser.add_argument("--cnf-steps", type=int, default=600)
    parser.add_argument("--cnf-lr", type=float, default=1e-2)
    parser.add_argument("--flow-steps", type=int, default=2000)
    parser.add_argument("--spiral-noise", default="0.05,0",
                        help="observation noise std of each spiral run, comma-separated")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sections", default="spiral,cnf,adjoint")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    unknown = sections - {"spiral", "cnf", "adjoint"}
    if unknown:
        parser.error(f"unknown sections {', '.join(sorted(unknown))}")
    t0 = time.perf_counter()
    cnf = None
    if "spiral" in sections:
        for noise in args.spiral_noise.split(","):
            _spiral(args, float(noise))
    if "cnf" in sections:
        cnf = _cnf(args)
    if "adjoint" in sections:
        _adjoint(args, cnf)
    print(f"torch threads {torch.get_num_threads()}; total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
