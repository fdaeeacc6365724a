"""Our training sessions side by side with the floor and the peers (figures, not a test).

Rows (issue 18's table), each measured in interleaved rounds in one process, torch on
one thread (``models.devices.warm_up(1)``, what the app calls when it loads torch, so
the BLAS threads are whatever the app sets too):

* GCN epochs on a 2,000-node SBM (4 blocks, noisy features, 20 labels per class) and on
  Zachary's karate club: ``NodeClassificationSession`` as the graph tab runs it (one
  ``train`` generator, a ``NodeTrainTrace`` every 5 epochs) against a plain PyG loop
  (two ``GCNConv``, dropout 0.5, Adam lr 0.01, weight decay 5e-4, on the same data),
  and beside it the same loop with ``cached=True`` as in PyG's ``examples/gcn.py``;
* RealNVP training step at batch 512 (8 couplings, 64 hidden, two moons):
  ``FlowSession`` as the flows tab runs it against its own flow + Adam in a plain loop,
  normflows (``AffineCouplingBlock`` + swap, MLP [1, 64, 64, 2]) and zuko
  (``RealNVP(2, transforms=8, hidden_features=(64, 64))``);
* RealNVP sampling of 20,000 points (no grad): ``Flow.sample`` against normflows'
  ``NormalizingFlow.sample`` and zuko's ``flow().sample``;
* ODE spiral step (torchdiffeq's ``ode_demo``: 20 windows of 10 points, y³ → 50 tanh → 2):
  ``SpiralSession`` as the ODE tab runs it (one generator, the whole-trajectory metric on
  its schedule; noise 0, the demo's data) against the demo's training loop (``odeint`` + RMSprop, its test every
  20 iterations left out: that is the floor) at the session's default tolerances
  (dopri5 rtol 1e-3, atol 1e-4) and at the demo's (rtol 1e-7, atol 1e-9).

Both sides train from scratch in lockstep, so they stay at a comparable stage (the ODE
rows print the evaluations of f per step of each, the figure a step's cost follows).
The figure of a row is the median over rounds of the per-round ratio ours / floor, in
wall time and in CPU time (``time.process_time``, beside it: the cores are shared). The GCN
rows also print ours / the cached loop (issue 36's floor: the session caches its own
normalisation, so that is the like-for-like figure).

    .venv/bin/python benchmarks/bench_peers.py [--rounds 7] [--trees OLD_CHECKOUT,.]
        [--rows gcn_sbm,gcn_karate,flow_step,flow_sample,ode,ode_tight]

``--trees`` runs one worker process per source tree, one after the other, each with its
own peers, so an old checkout's ratios print beside this one's. normflows and zuko are
the optional ``bench`` extra (``pip install -c constraints.txt -e '.[bench]'``); a
missing peer is named and its columns left out.
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
ROWS = ("gcn_sbm", "gcn_karate", "flow_step", "flow_sample", "ode", "ode_tight")
TITLES = {"gcn_sbm": "GCN epoch, 2,000-node SBM", "gcn_karate": "GCN epoch, karate",
          "flow_step": "RealNVP step, batch 512", "flow_sample": "RealNVP sampling 20k",
          "ode": "ODE spiral step, rtol 1e-3", "ode_tight": "ODE spiral step, rtol 1e-7"}
#: the floor each row's ratio is taken against, and the goal of issue 18
FLOORS = {"gcn_sbm": ("plain PyG", 1.15), "gcn_karate": ("plain PyG", 1.15),
          "flow_step": ("own flow + Adam", 1.05), "flow_sample": ("faster peer", 1.0),
          "ode": ("torchdiffeq demo", 1.1), "ode_tight": ("torchdiffeq demo", 1.1)}
#: a second floor printed beside the first, and its goal (issue 36)
SECOND_FLOORS = {"gcn_sbm": ("plain PyG cached", 1.15), "gcn_karate": ("plain PyG cached", 1.15)}


def _peer(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


# -- GCN ---------------------------------------------------------------------------------------
def _sbm():
    """bench_gnn's SBM: 4 blocks of 500 nodes, p_in 0.02, p_out 0.002, features one-hot of
    the block in 16 columns plus N(0, 2²) noise."""
    import numpy as np
    import torch

    from models import graphs as gnn

    data = gnn.builtin_graph("sbm", seed=0, sizes=(500,) * 4, p_in=0.02, p_out=0.002).data
    n = data.num_nodes
    x = np.zeros((n, 16), np.float32)
    x[np.arange(n), data.y.numpy() % 16] = 1.0
    x += np.random.default_rng(0).normal(0, 2.0, x.shape).astype(np.float32)
    data.x = torch.as_tensor(x)
    return data


def _gcn_cases(which: str) -> dict:
    import torch
    import torch.nn.functional as F
    from torch_geometric.nn import GCNConv

    from models import graphs as gnn

    data, per_class = (_sbm(), 20) if which == "sbm" else (gnn.karate_club(), 1)
    session = gnn.NodeClassificationSession(data, "gcn", seed=0, train_per_class=per_class)
    ours = session.train(10 ** 9, report_every=5)          # as the graph tab runs it
    d, mask = session.data, session.train_mask
    classes = session.num_classes

    class Net(torch.nn.Module):                             # PyG's examples/gcn.py
        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(d.num_features, 16)
            self.conv2 = GCNConv(16, classes)

        def forward(self, x, edge_index):
            x = F.dropout(x, p=0.5, training=self.training)
            x = F.relu(self.conv1(x, edge_index))
            x = F.dropout(x, p=0.5, training=self.training)
            return self.conv2(x, edge_index)

    def plain_loop(cached: bool):
        torch.manual_seed(0)
        net = Net()
        for conv in (net.conv1, net.conv2):
            conv.cached = cached
        opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=5e-4)

        def plain(n):
            for _ in range(n):
                net.train()
                opt.zero_grad()
                out = net(d.x, d.edge_index)
                loss = F.cross_entropy(out[mask], d.y[mask])
                loss.backward()
                opt.step()
        return plain

    def session_epochs(n):
        for _ in range(n):
            next(ours)

    per = 20 if which == "sbm" else 100
    # the floor recomputes the normalisation every call, as GCNConv does by default; the
    # cached column is PyG's examples/gcn.py (``cached=True``), for comparison
    return {"per_round": per, "cases": {"ours": session_epochs, "plain PyG": plain_loop(False),
                                        "plain PyG cached": plain_loop(True)}}


# -- RealNVP -----------------------------------------------------------------------------------
def _normflows_realnvp(nf):
    import torch

    flows = []
    for _ in range(8):
        flows += [nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 64, 64, 2], init_zeros=True)),
                  nf.flows.Permute(2, mode="swap")]
    torch.manual_seed(0)
    return nf.NormalizingFlow(nf.distributions.base.DiagGaussian(2), flows)


def _flow_cases(which: str, missing: list[str]) -> dict:
    import torch

    from models.flows import FlowSession, build_flow

    batch = 512
    session = FlowSession("realnvp", "two_moons", num_flows=8, hidden_dim=64,
                          batch_size=batch, lr=1e-3)
    pool, gen = session.pool, torch.Generator().manual_seed(0)
    nf, zuko = _peer("normflows"), _peer("zuko")
    missing += [n for n, m in (("normflows", nf), ("zuko", zuko)) if m is None]
    torch.manual_seed(0)
    own = build_flow("realnvp", num_flows=8, hidden_dim=64)
    nf_model = _normflows_realnvp(nf) if nf is not None else None
    if zuko is not None:
        torch.manual_seed(0)
        zk = zuko.flows.RealNVP(2, transforms=8, hidden_features=(64, 64))

    def batch_x():
        return pool[torch.randint(0, len(pool), (batch,), generator=gen)]

    if which == "sample":
        n = 20_000
        cases = {"ours": lambda: session.flow.sample(n, seed=1)}
        if nf_model is not None:
            def nf_sample():
                with torch.no_grad():
                    nf_model.sample(n)
            cases["normflows"] = nf_sample
        if zuko is not None:
            def zuko_sample():
                with torch.no_grad():
                    zk().sample((n,))
            cases["zuko"] = zuko_sample
        def repeated(f):
            return lambda reps: [f() for _ in range(reps)]
        return {"per_round": 3, "cases": {k: repeated(f) for k, f in cases.items()}}

    def loop(model, loss_of):
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)

        def run(steps):
            for _ in range(steps):
                loss = loss_of(model, batch_x())
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
        return run

    ours = session.train(10 ** 9)                        # as the flows tab runs it
    cases = {"ours": lambda n: [next(ours) for _ in range(n)],
             "own flow + Adam": loop(own, lambda m, x: -m.log_prob(x).mean())}
    if nf_model is not None:
        cases["normflows"] = loop(nf_model, lambda m, x: m.forward_kld(x))
    if zuko is not None:
        cases["zuko"] = loop(zk, lambda m, x: -m().log_prob(x).mean())
    return {"per_round": 50, "cases": cases}


# -- the ODE spiral ----------------------------------------------------------------------------
def _ode_cases(tight: bool) -> dict:
    import numpy as np
    import torch
    from torch import nn
    from torchdiffeq import odeint

    from models import ode

    tol = {"rtol": 1e-7, "atol": 1e-9} if tight else {"rtol": 1e-3, "atol": 1e-4}
    # noise 0: the demo's clean observations (the tab's default adds noise 0.05)
    session = ode.SpiralSession(seed=0, noise=0.0, solver=ode.SolverConfig(method="dopri5", **tol))
    ours = session.train(10 ** 9)                          # as the ODE tab runs it
    a = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
    t = torch.linspace(0.0, 25.0, 1000)
    with torch.no_grad():
        true_y = odeint(lambda _t, y: torch.mm(y ** 3, a), torch.tensor([[2.0, 0.0]]), t,
                        method="dopri5")

    class ODEFunc(nn.Module):                              # ode_demo.py's, counting calls
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))
            for m in self.net.modules():
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, mean=0, std=0.1)
                    nn.init.constant_(m.bias, val=0)
            self.nfe = 0

        def forward(self, t, y):
            self.nfe += 1
            return self.net(y ** 3)

    torch.manual_seed(0)
    func = ODEFunc()
    opt = torch.optim.RMSprop(func.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    nfe = {"ours": [], "torchdiffeq demo": []}

    def demo(n):
        for _ in range(n):
            opt.zero_grad()
            s = torch.from_numpy(rng.choice(np.arange(1000 - 10, dtype=np.int64), 20,
                                            replace=False))
            batch_y0, batch_t = true_y[s], t[:10]
            batch_y = torch.stack([true_y[s + i] for i in range(10)], dim=0)
            func.nfe = 0
            pred_y = odeint(func, batch_y0, batch_t, method="dopri5", **tol)
            nfe["torchdiffeq demo"].append(func.nfe)
            loss = torch.mean(torch.abs(pred_y - batch_y))
            loss.backward()
            opt.step()

    def session_steps(n):
        for _ in range(n):
            p = next(ours)
            nfe["ours"].append(p.metrics["nfe_forward"])

    return {"per_round": 25, "cases": {"ours": session_steps, "torchdiffeq demo": demo},
            "nfe": nfe}


# -- one process: the rows, interleaved rounds -------------------------------------------------
def worker(tree: str, rows: list[str], rounds: int, threads: int) -> dict:
    sys.path.insert(0, tree)
    from models.devices import warm_up

    warm_up(threads)                     # torch's threads (and BLAS's, where the app sets them)
    missing: list[str] = []
    builders = {"gcn_sbm": lambda: _gcn_cases("sbm"), "gcn_karate": lambda: _gcn_cases("karate"),
                "flow_step": lambda: _flow_cases("step", missing),
                "flow_sample": lambda: _flow_cases("sample", missing),
                "ode": lambda: _ode_cases(False), "ode_tight": lambda: _ode_cases(True)}
    setups = {row: builders[row]() for row in rows}
    times: dict[str, dict[str, list[float]]] = {r: {k: [] for k in s["cases"]}
                                                 for r, s in setups.items()}
    cpu: dict[str, dict[str, list[float]]] = {r: {k: [] for k in s["cases"]}
                                               for r, s in setups.items()}
    for i in range(rounds + 1):          # round 0 warms everything up
        for row, setup in setups.items():
            per = setup["per_round"]
            names = list(setup["cases"])
            for name in names if i % 2 else names[::-1]:      # alternate who goes first
                t0, c0 = time.perf_counter(), time.process_time()
                setup["cases"][name](per)
                if i:
                    times[row][name].append((time.perf_counter() - t0) / per * 1e3)
                    cpu[row][name].append((time.process_time() - c0) / per * 1e3)
    nfe = {row: {k: statistics.fmean(v[len(v) // 4:]) for k, v in s["nfe"].items()}
           for row, s in setups.items() if "nfe" in s}
    return {"times": times, "cpu": cpu, "nfe": nfe, "missing": sorted(set(missing)),
            "torch_threads": _threads()}


def _threads() -> str:
    import torch

    out = f"torch {torch.get_num_threads()}"
    try:
        from threadpoolctl import threadpool_info
        blas = [f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info()
                if i["user_api"] == "blas"]
        out += ", BLAS " + (", ".join(blas) or "none loaded")
    except ImportError:
        out += ", BLAS threads unknown (threadpoolctl missing)"
    return out


def _ratio(times: dict[str, list[float]], row: str, floor: str | None = None
           ) -> tuple[str, float]:
    """(floor name, median over rounds of ours / floor); ``floor`` defaults to the row's
    first floor."""
    floor = FLOORS[row][0] if floor is None else floor
    peers = [k for k in times if k != "ours"]
    if floor == "faster peer":
        peers = [k for k in peers if times[k]]
        if not peers:
            return "", float("nan")
        per_round = [min(times[k][j] for k in peers) for j in range(len(times["ours"]))]
        floor = "faster peer"
    else:
        per_round = times[floor]
    return floor, statistics.median(o / f for o, f in zip(times["ours"], per_round,
                                                          strict=True))


def report(tree: str, result: dict) -> None:
    print(f"\n{tree} ({result['torch_threads']}); ms per step / epoch / 20k samples, "
          "median over rounds, wall (CPU)")
    for row, times in result["times"].items():
        cpu = result["cpu"][row]
        floor, ratio = _ratio(times, row)
        cols = " · ".join(f"{k} {statistics.median(v):.2f} ({statistics.median(cpu[k]):.2f})"
                          for k, v in times.items())
        nfe = result["nfe"].get(row)
        extra = (" · NFE per forward solve " + ", ".join(f"{k} {v:.0f}" for k, v in nfe.items())
                 ) if nfe else ""
        print(f"  {TITLES[row]:<28} {cols}{extra}")
        print(f"  {'':<28} ours / {floor}: {ratio:.2f}x, CPU {_ratio(cpu, row, floor)[1]:.2f}x "
              f"(goal ≤ {FLOORS[row][1]:.2f}x)")
        if row in SECOND_FLOORS and times.get(SECOND_FLOORS[row][0]):
            second, goal = SECOND_FLOORS[row]
            print(f"  {'':<28} ours / {second}: {_ratio(times, row, second)[1]:.2f}x, CPU "
                  f"{_ratio(cpu, row, second)[1]:.2f}x (goal ≤ {goal:.2f}x, issue 36)")
    if result["missing"]:
        print(f"  peers not installed: {', '.join(result['missing'])} "
              "(pip install -c constraints.txt -e '.[bench]')")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--trees", default=str(ROOT),
                        help="comma-separated source trees (checkouts) to compare")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = sorted(set(rows) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows {', '.join(unknown)} (choose {', '.join(ROWS)})")
    if args.worker:
        print(json.dumps(worker(args.worker, rows, args.rounds, args.threads)))
        return 0
    for tree in (str(Path(t).resolve()) for t in args.trees.split(",")):
        proc = subprocess.run([sys.executable, __file__, "--worker", tree, "--rows",
                               ",".join(rows), "--rounds", str(args.rounds), "--threads",
                               str(args.threads)], cwd=tree, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        report(tree, json.loads(proc.stdout.strip().splitlines()[-1]))
    return 0

if __name__ == "__main__":
    sys.exit(main())
