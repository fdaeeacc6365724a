"""Graph neural networks on this CPU.

1. Zachary's karate club, 4 labelled nodes (one per class), 200 epochs: test accuracy
   median and IQR over ``--seeds`` seeds (each seed = a split and an init) for GCN,
   GraphSAGE, GAT and the nearest-training-node baseline.
2. Epochs per second of each model on karate (34 nodes) and on a stochastic block model
   graph (2000 nodes, 4 blocks), with 1 and 2 torch threads.
3. Graph classification (BA + house / 5-cycle motifs, 200 graphs): test accuracy and time.
4. Link prediction on karate (10 seeds) and the SBM graph (3 seeds), 200 epochs: val/test
   ROC-AUC of the best-validation weights, time, and on karate the share of the top 10
   predicted non-edges that join two members of one community.

0. (``--sections tab``) The graph tab's own defaults (its karate club with the Train
   button's settings: hidden units, learning rate, edge weights off, 1 label per class,
   200 epochs) over ``--seeds`` seeds: each model's test accuracy, and its wins / ties /
   losses against the nearest-labelled-node baseline on the same split, with a one-sided
   sign test.

    .venv/bin/python benchmarks/bench_gnn.py [--seeds 20] [--epochs 200]
    .venv/bin/python benchmarks/bench_gnn.py --sections tab --seeds 20
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _run(session, epochs: int) -> tuple[object, float]:
    t0 = time.perf_counter()
    *_, p = session.train(epochs, report_every=epochs)
    return p, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--sections", default="accuracy,speed,graphs,links",
                        help="comma-separated subset of tab,accuracy,speed,graphs,links")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    import torch

    from models import graphs as gnn

    torch.set_num_threads(2)
    karate = gnn.karate_club()
    names = {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT", "baseline": "nearest-train"}

    if "tab" in sections:
        torch.set_num_threads(1)
        _tab_defaults(gnn, args.seeds)
        torch.set_num_threads(2)
    # 1. accuracy on karate (one thread: a 34-node graph gains nothing from two)
    if "accuracy" in sections:
        torch.set_num_threads(1)
        t0 = time.perf_counter()
        res = gnn.compare_models(karate, epochs=args.epochs, seeds=range(args.seeds))
        print(f"Karate club, 4 labelled nodes (1 per class), {args.epochs} epochs, "
              f"{args.seeds} seeds, test = 80 % of the other 30 nodes "
              f"({time.perf_counter() - t0:.0f} s)")
        print(f"  {'model':<14} {'median':>7} {'IQR':>16} {'min':>6} {'max':>6}")
        for k, v in res.items():
            q1, med, q3 = np.percentile(v, [25, 50, 75])
            print(f"  {names[k]:<14} {med:7.3f}   [{q1:.3f}, {q3:.3f}] {v.min():6.3f} "
                  f"{v.max():6.3f}", flush=True)
        torch.set_num_threads(2)

    # 2. speed
    sbm = _sbm(gnn, seed=0)
    if "speed" in sections:
        print(f"\nEpochs per second (full batch, training step; SBM: {sbm.num_nodes} nodes, "
              f"{sbm.num_edges} directed edges, 4 blocks, noisy features)")
        print(f"  {'model':<10} {'karate 1t':>10} {'karate 2t':>10} {'SBM 1t':>8} {'SBM 2t':>8}"
              "  SBM test acc (20 labels/class, 200 epochs)")
        for kind in gnn.MODEL_KINDS:
            row, acc = [], float("nan")
            for data, per_class in ((karate, 1), (sbm, 20)):
                for threads in (1, 2):
                    torch.set_num_threads(threads)
                    epochs = 200 if data is karate or threads == 1 else 50
                    s = gnn.NodeClassificationSession(data, kind, seed=0,
                                                      train_per_class=per_class)
                    _run(s, 3)                                   # warm-up
                    p, wall = _run(s, epochs)
                    row.append(epochs / wall)
                    if data is sbm and threads == 1:
                        acc = p.trace.test_acc
            print(f"  {names[kind]:<10} {row[0]:10.0f} {row[1]:10.0f} {row[2]:8.1f} "
                  f"{row[3]:8.1f}  {acc:.3f}", flush=True)
        torch.set_num_threads(2)

    if "graphs" in sections:
        _graphs(gnn)
    if "links" in sections:
        _links(gnn, karate, sbm)
    print(f"\ntorch {torch.__version__}, threads {torch.get_num_threads()}")
    return 0


def tab_default_accuracy(seeds) -> tuple[dict, dict[str, np.ndarray]]:
    """The graph tab's default settings (its forms' defaults) and the test accuracy of
    GCN, GraphSAGE, GAT and the baseline with them on the tab's default graph, per seed
    (each seed = a split and an init, as the tab's Seed control)."""
    from app.tabs.graph.params import GRAPH_PARAMS, MODEL_PARAMS
    from models import graphs as gnn
    from models.graphs.options import session_kwargs

    p = {q.key: q.default for q in (*GRAPH_PARAMS, *MODEL_PARAMS)}
    data = gnn.builtin_graph(p["dataset"], seed=p["seed"]).data
    return p, gnn.compare_models(data, epochs=p["epochs"], seeds=seeds,
                                 train_per_class=p["train_per_class"], **session_kwargs(p))


def sign_test(wins: int, losses: int) -> float:
    """One-sided sign test: P(at least ``wins`` of ``wins + losses`` fair coin flips)."""
    from math import comb

    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2 ** n if n else 1.0


def _tab_defaults(gnn, seeds: int) -> None:
    t0 = time.perf_counter()
    p, res = tab_default_accuracy(range(seeds))
    print(f"The graph tab's defaults: {p['dataset']}, {p['train_per_class']} labelled node "
          f"per class, hidden {p['hidden']}, lr {p['lr']}, edge weights "
          f"{'on' if p['edge_weights'] else 'off'}, {p['epochs']} epochs; seeds 0-{seeds - 1} "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"  {'model':<14} {'mean':>6} {'median':>7} {'IQR':>16} {'min':>6}  "
          "vs baseline: mean diff, wins/ties/losses, sign test p")
    base = res["baseline"]
    names = {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT", "baseline": "nearest-train"}
    for k, v in res.items():
        q1, med, q3 = np.percentile(v, [25, 50, 75])
        d = v - base
        w, t, lo = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        vs = "" if k == "baseline" else \
            f"  {d.mean():+.3f}, {w}/{t}/{lo}, p = {sign_test(w, lo):.3f}"
        print(f"  {names[k]:<14} {v.mean():6.3f} {med:7.3f}   [{q1:.3f}, {q3:.3f}] "
              f"{v.min():6.3f}{vs}", flush=True)


def _sbm(gnn, seed: int = 0):
    """The SBM built-in (4 blocks of 500 nodes, p_in 0.02, p_out 0.002) with noisy
    block-indicator features: one-hot of the block in 16 columns plus N(0, 2²) noise."""
    import torch

    data = gnn.builtin_graph("sbm", seed=seed, sizes=(500,) * 4, p_in=0.02, p_out=0.002).data
    n = data.num_nodes
    x = np.zeros((n, 16), np.float32)
    x[np.arange(n), data.y.numpy() % 16] = 1.0
    x += np.random.default_rng(seed).normal(0, 2.0, x.shape).astype(np.float32)
    data.x = torch.as_tensor(x)
    return data


def _graphs(gnn) -> None:
    import torch
    from torch_geometric.data import Data

    graphs = gnn.motif_graphs(200, seed=0)
    print("\nGraph classification, 200 BA graphs + house (0) / 5-cycle (1), 3-layer GCN, "
          "degree one-hot features, 50 epochs, 2 threads")
    for pooling in gnn.POOLINGS:
        accs, walls = [], []
        for seed in range(3):
            s = gnn.GraphClassificationSession(graphs, pooling=pooling, seed=seed)
            p, wall = _run(s, 50)
            accs.append(p.trace.test_acc)
            walls.append(wall)
        print(f"  {pooling:<5} pooling: test acc {np.median(accs):.3f} (seeds {accs}), "
              f"{np.median(walls):.1f} s", flush=True)
    # the same graphs with a constant feature: the GCN cannot tell the motifs apart
    const = [Data(x=torch.ones(g.num_nodes, 1), edge_index=g.edge_index, y=g.y) for g in graphs]
    p, wall = _run(gnn.GraphClassificationSession(const, pooling="mean", seed=0), 50)
    print(f"  mean  pooling, constant features instead: test acc {p.trace.test_acc:.3f}, "
          f"{wall:.1f} s", flush=True)


def _links(gnn, karate, sbm) -> None:
    y = karate.y.numpy()
    print("\nLink prediction (2-layer GCN encoder, dropout 0.5, weight decay 5e-4, "
          "dot-product decoder; 5 % val / 10 % test edges, at least 10 each where the graph "
          "allows; weights of the best val-AUC epoch; karate: structural features instead of "
          "the identity; 200 epochs, 2 threads)")
    for name, data, seeds in (("karate", karate, 10), ("SBM 2000", sbm, 3)):
        aucs, walls, best, same = [], [], [], []
        for seed in range(seeds):
            s = gnn.LinkPredictionSession(data, seed=seed, top_k=10)
            p, wall = _run(s, 200)
            aucs.append((p.trace.val_auc, p.trace.test_auc))
            walls.append(wall)
            best.append(p.trace.epoch)
            t = p.trace.top_pairs
            same.append(float(np.mean(y[t[:, 0]] == y[t[:, 1]])) if data is karate else np.nan)
        a = np.asarray(aucs)
        q1, q3 = np.percentile(a[:, 1], [25, 75])
        print(f"  {name:<9} ({len(s.val_pos)} val / {len(s.test_pos)} test edges, "
              f"{s.features} features): val AUC {np.median(a[:, 0]):.3f}, test AUC "
              f"{np.median(a[:, 1]):.3f} [IQR {q1:.3f}, {q3:.3f}] (median of {seeds} seeds), "
              f"best-val epoch {np.median(best):.0f}, {np.median(walls):.1f} s", flush=True)
        if data is karate:
            print(f"            top 10 non-edges within a community (same y): median "
                  f"{np.median(same):.0%} (seeds: {', '.join(f'{v:.0%}' for v in same)}; "
                  f"all non-edges: {_same_community_base(karate):.0%})", flush=True)


def _same_community_base(data) -> float:
    """The fraction of all non-edges whose endpoints share ``y``: what random pairs give."""
    n, y = data.num_nodes, data.y.numpy()
    iu, ju = np.triu_indices(n, 1)
    edges = {(min(a, b), max(a, b)) for a, b in data.edge_index.T.tolist()}
    non = np.array([(a, b) not in edges for a, b in zip(iu, ju, strict=True)])
    return float(np.mean(y[iu[non]] == y[ju[non]]))

if __name__ == "__main__":
    sys.exit(main())
