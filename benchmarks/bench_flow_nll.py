"""RealNVP's held-out NLL on two moons after a fixed budget of steps, ours beside zuko's
(issue 36), over several seeds, with the time a step takes (CPU time beside wall time).

Ours is ``FlowSession`` as the flows tab runs it with the tab's defaults (8 couplings,
64 hidden units, batch 256, Adam lr 1e-3; one ``train`` generator). zuko's is
``zuko.flows.RealNVP(2, transforms=8, hidden_features=(64, 64))`` trained by a plain
Adam loop (lr 1e-3) on the same batches: the same pool of points the session draws from
(``densities.sample("two_moons", 100_000, seed=seed + 1)``) and the same indices (a
generator seeded as the session's). Both initialise from ``torch.manual_seed(seed)``.
The two train in alternating rounds of 50 steps, so load from other processes falls on
both alike. The NLL is nats per point on 20,000 held-out points
(``densities.sample("two_moons", 20_000, seed=123)``, never trained on); the floor is
the density's differential entropy.

``--trees OLD,NEW`` runs one worker process per source tree and seed, the trees
interleaved seed by seed, so an old checkout's figures print beside this one's (zuko's
rows of the two trees must agree: the same seeds and batches). zuko is the optional
``bench`` extra (``pip install -c constraints.txt -e '.[bench]'``); without it only
ours is measured.

    .venv/bin/python benchmarks/bench_flow_nll.py [--steps 2000] [--seeds 0,1,2]
        [--trees OLD_CHECKOUT,.]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUND = 50


def worker(seed: int, steps: int) -> dict:
    """One seed: ours and zuko's trained in alternating rounds; NLLs and step times."""
    import torch

    from models.devices import warm_up
    from models.flows import FlowSession, densities

    warm_up(1)
    session = FlowSession("realnvp", "two_moons", seed=seed)     # the tab's defaults
    cases = {"ours": _ours(session)}
    try:
        import zuko
    except ImportError:
        zuko = None
    if zuko is not None:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = zuko.flows.RealNVP(2, transforms=8, hidden_features=(64, 64))
        cases["zuko"] = _plain_loop(model, session, seed, lambda m, x: -m().log_prob(x).mean())
    times = {name: [0.0, 0.0] for name in cases}       # CPU, wall
    done = 0
    while done < steps:
        n = min(ROUND, steps - done)
        for name, run in cases.items():
            c0, w0 = time.process_time(), time.perf_counter()
            run(n)
            times[name][0] += time.process_time() - c0
            times[name][1] += time.perf_counter() - w0
        done += n
    held_out = torch.as_tensor(densities.sample("two_moons", 20_000, seed=123))
    nll = {}
    with torch.no_grad():
        session.flow.eval()
        nll["ours"] = float(-session.flow.log_prob(held_out).mean())
        if zuko is not None:
            nll["zuko"] = float(-model().log_prob(held_out).mean())
    return {"seed": seed, "entropy": session.entropy, "nll": nll,
            "ms_cpu": {k: v[0] / steps * 1e3 for k, v in times.items()},
            "ms_wall": {k: v[1] / steps * 1e3 for k, v in times.items()},
            "threads": torch.get_num_threads()}


def _ours(session):
    run = session.train(10 ** 9)               # one generator, as the tab runs it

    def steps(n: int) -> None:
        for _ in range(n):
            next(run)
    return steps


def _plain_loop(model, session, seed: int, loss_of):
    import torch

    opt = torch.optim.Adam(model.parameters(), lr=session.lr)
    pool, batch = session.pool, session.batch_size
    gen = torch.Generator().manual_seed(seed)  # the session's batch indices, drawn alike

    def steps(n: int) -> None:
        for _ in range(n):
            x = pool[torch.randint(0, len(pool), (batch,), generator=gen)]
            loss = loss_of(model, x)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    return steps


def _spawn(tree: str, seed: int, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--worker", str(seed), "--steps",
                          str(steps)], env=env, cwd=str(Path(tree).resolve()),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _mean_sd(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} ± {sd:.3f}"


def report(tree: str, results: list[dict]) -> None:
    names = list(results[0]["nll"])
    print(f"{tree}: RealNVP on two moons, {len(results)} seeds "
          f"(floor: entropy {results[0]['entropy']:.3f}; torch threads "
          f"{results[0]['threads']})")
    for name in names:
        nlls = [r["nll"][name] for r in results]
        cpu = statistics.mean(r["ms_cpu"][name] for r in results)
        wall = statistics.mean(r["ms_wall"][name] for r in results)
        per_seed = ", ".join(f"{v:.3f}" for v in nlls)
        print(f"  {name:5s} held-out NLL {_mean_sd(nlls)} (seeds: {per_seed}); "
              f"step {cpu:.2f} ms CPU, {wall:.2f} ms wall")
    if "zuko" in names:
        gaps = [r["nll"]["ours"] - r["nll"]["zuko"] for r in results]
        ratio = (statistics.mean(r["ms_cpu"]["ours"] for r in results)
                 / statistics.mean(r["ms_cpu"]["zuko"] for r in results))
        print(f"  ours − zuko: NLL {_mean_sd(gaps)} nats; step CPU time ratio {ratio:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--trees", default=".",
                        help="comma-separated source trees, each run in its own process")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.steps)))
        return 0
    trees = [t.strip() for t in args.trees.split(",") if t.strip()]
    seeds = [int(s) for s in args.seeds.split(",")]
    results: dict[str, list[dict]] = {t: [] for t in trees}
    for seed in seeds:                             # trees interleaved seed by seed
        for tree in trees:
            results[tree].append(_spawn(tree, seed, args.steps))
            print(f"  ({tree}, seed {seed}: done)", file=sys.stderr, flush=True)
    for tree in trees:
        report(tree, results[tree])
    return 0


if __name__ == "__main__":
    sys.exit(main())
