"""What the training contract costs: each session's step against the floor (the same model,
optimizer and data in a plain loop), and one source tree against another, side by side.

    .venv/bin/python benchmarks/bench_sessions.py [--rounds 5] [--steps 200]
                                                  [--trees OLD_CHECKOUT,.]

Each round runs one worker process per tree, alternating, so a noisy neighbour slows
both alike; the figures are medians over rounds of milliseconds per step (1 torch thread).
"Session / floor" is the overhead of the lock, the checked step, the rollback points and
the ``Progress`` reports over the bare step. The worker imports only public names that
both layouts have (``models.flows``, ``models.ode``, ``models.meta``, and the GNN session
from ``models.graphs`` or, in older trees, ``models.gnn``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _per_step(fn, steps: int) -> float:
    t0 = time.perf_counter()
    fn(steps)
    return (time.perf_counter() - t0) / steps * 1e3


def _flows(steps: int) -> dict[str, float]:
    import torch

    from models.flows import FlowSession

    s = FlowSession("realnvp", "two_moons", num_flows=8, hidden_dim=64, batch_size=256)

    def session(n):
        for _ in s.train(n):
            pass

    flow, opt, pool = s.flow, s.optimizer, s.pool
    gen = torch.Generator().manual_seed(1)

    def floor(n):                        # the bare step: batch, NLL, backward, Adam
        for _ in range(n):
            x = pool[torch.randint(0, len(pool), (256,), generator=gen)]
            loss = -flow.log_prob(x).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

    session(5), floor(5)
    return {"flow session": _per_step(session, steps), "flow floor": _per_step(floor, steps)}


def _gnn(steps: int) -> dict[str, float]:
    import torch
    import torch.nn.functional as F

    try:
        from models.graphs import NodeClassificationSession, karate_club
    except ImportError:
        from models.gnn import NodeClassificationSession, karate_club
    data = karate_club()
    s = NodeClassificationSession(data, "gcn", seed=0)

    def session(n):
        for _ in s.train(n, report_every=n):
            pass

    model, opt, d, mask = s.model, s.optimizer, s.data, s.train_mask

    def floor(n):                        # a plain PyG loop on the same model and data
        for _ in range(n):
            model.train()
            out = model(d.x, d.edge_index)
            out = out[0] if isinstance(out, tuple) else out
            loss = F.cross_entropy(out[mask], d.y[mask])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

    session(5), floor(5)
    torch.manual_seed(0)
    return {"gcn session": _per_step(session, steps), "gcn floor": _per_step(floor, steps)}


def _ode(steps: int) -> dict[str, float]:
    from models.ode import SpiralSession

    s = SpiralSession(seed=0)

    def session(n):
        for _ in s.train(n, eval_every=n):
            pass

    session(3)
    return {"spiral session": _per_step(session, max(steps // 4, 10))}


def _meta(steps: int) -> dict[str, float]:
    from models.meta import MetaSession, ProtoSession

    m, p = MetaSession(seed=0), ProtoSession(seed=0)

    def meta(n):
        for _ in m.train(n, history_every=n):
            pass

    def proto(n):
        for _ in p.train(n, history_every=n):
            pass

    meta(2), proto(5)
    return {"meta session": _per_step(meta, max(steps // 10, 5)),
            "proto session": _per_step(proto, steps)}


def worker(tree: str, steps: int) -> None:
    sys.path.insert(0, tree)
    import torch

    torch.set_num_threads(1)
    out: dict[str, float] = {}
    for part in (_flows, _gnn, _ode, _meta):
        out.update(part(steps))
    print(json.dumps(out))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--trees", default=str(ROOT),
                        help="comma-separated source trees (checkouts) to compare")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps)
        return 0
    trees = [str(Path(t).resolve()) for t in args.trees.split(",")]
    runs: dict[str, list[dict[str, float]]] = {t: [] for t in trees}
    for r in range(args.rounds):
        for tree in trees:
            proc = subprocess.run([sys.executable, __file__, "--worker", tree, "--steps",
                                   str(args.steps)], cwd=tree, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 1
            runs[tree].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1} {tree}: {runs[tree][-1]}", flush=True)
    print(f"\nms per step, median of {args.rounds} rounds (1 torch thread)")
    keys = list(runs[trees[0]][0])
    print(f"  {'':<16}" + "".join(f"{Path(t).name:>14}" for t in trees))
    med = {t: {k: statistics.median(run[k] for run in runs[t]) for k in keys} for t in trees}
    for k in keys:
        print(f"  {k:<16}" + "".join(f"{med[t][k]:14.2f}" for t in trees))
    for name in ("flow", "gcn"):
        print(f"  {name + ' session/floor':<16}" + "".join(
            f"{med[t][name + ' session'] / med[t][name + ' floor']:13.2f}x" for t in trees))
    return 0


if __name__ == "__main__":
    sys.exit(main())
