"""The graph tab's depth study on this CPU (one torch thread, as the tab leaves the GUI a
core): wall time beside CPU time of

1. the study as initialised (``untrained_depth_study``: the run of 8 layers and the 2-layer
   baseline built and measured), which every trace of the tab computes once per setting;
2. the whole "Depth study" job (run and baseline trained side by side, then every depth
   1-8, ``--epochs`` each), with the test accuracy of each depth (median over
   ``--seeds`` seeds, each seed a split and an init)

for GCN (normalised and not), GraphSAGE and GAT on the karate club with the tab's
defaults, and (1) on a 2000-node stochastic block model graph.

    .venv/bin/python benchmarks/bench_gnn_depth.py [--seeds 3] [--epochs 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=200)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    from models.graphs import builtin_graph
    from models.graphs.depth import depth_study, untrained_depth_study
    from models.graphs.options import GraphRequest, session_kwargs

    kw = session_kwargs(GraphRequest())
    karate = builtin_graph("karate", 0).data
    sbm = builtin_graph("sbm", 0, sizes=[500] * 4, p_in=0.02, p_out=0.001).data
    runs = (("gcn", True), ("gcn", False), ("sage", True), ("gat", True))
    print("1. the study as initialised (8 layers + 2-layer baseline): wall / CPU")
    for name, data in (("karate", karate), (f"sbm {sbm.num_nodes} nodes", sbm)):
        for kind, norm in runs:
            untrained_depth_study(data, kind, 8, norm, 0, 1, "cpu", **kw)     # warm
            _s, wall, cpu = _timed(lambda d=data, k=kind, n=norm: untrained_depth_study(
                d, k, 8, n, 0, 1, "cpu", **kw))
            print(f"   {name:18s} {kind:4s} norm={norm!s:5s}  {wall * 1e3:7.1f} ms wall "
                  f"{cpu * 1e3:7.1f} ms CPU")
    print(f"2. the whole job on karate, {args.epochs} epochs per model, {args.seeds} seeds")
    for kind, norm in runs:
        accs, walls, cpus = [], [], []
        for seed in range(args.seeds):
            out, wall, cpu = _timed(lambda k=kind, n=norm, s=seed: list(depth_study(
                karate, k, 8, n, s, 1, args.epochs, "cpu", **kw)))
            accs.append(out[-1].trace.depth_test_acc)
            walls.append(wall)
            cpus.append(cpu)
        acc = np.median(np.array(accs), axis=0)
        print(f"   {kind:4s} norm={norm!s:5s} {np.median(walls):6.2f} s wall "
              f"{np.median(cpus):6.2f} s CPU · test accuracy by depth 1-8: "
              + " ".join(f"{a:.2f}" for a in acc))


if __name__ == "__main__":
    main()
