"""The graph tab's explanations in the real window: seconds and the longest event-loop
stall of the GUI thread while GNNExplainer explains one node (its epochs drawn as
progress), and while GAT's attention explanation runs, on karate and on football.

    .venv/bin/python benchmarks/bench_explain_tab.py [--epochs 200]

A 5 ms QTimer ticks on the GUI thread; a stall is the time between two ticks minus the
interval; "own" leaves out the time the GUI thread waited for a CPU (tests/heartbeat.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=200)
    args = parser.parse_args()

    from bench_window import bench_window
    from heartbeat import Heartbeat


    with bench_window() as (app, window, run_until):
        tab = window.tab("graph")
        window.tabs_widget.setCurrentWidget(tab)
        run_until(lambda: window.torch_is_ready and tab.result is not None, 120)
        run_until(lambda: False, 2.0)

        def phase(name, start, until, limit=600):
            t0 = time.perf_counter()
            with Heartbeat(interval_ms=5, limit_ms=1e9) as beat:
                start()
                run_until(until, limit)
                run_until(lambda: False, 0.3)
            g = np.asarray(beat.gaps_ms or [0.0])
            print(f"{name:<34} {time.perf_counter() - t0:7.1f} s   stall max "
                  f"{g.max():6.1f} ms (own {beat.longest_own_ms:6.1f}) · p99 "
                  f"{np.percentile(g, 99):5.1f} · median {np.median(g):4.1f}", flush=True)

        for dataset, node in (("karate", 33), ("football", 0)):
            for model, method in (("gcn", "gnnexplainer"), ("gat", "attention")):
                tab.apply_state({"dataset": dataset, "model": model, "epochs": 100,
                                 "train_per_class": 2})
                # training, for comparison: the same redraws follow any job of the tab
                phase(f"{dataset} {model} train 100 epochs",
                      lambda: tab.apply_state({"train": True}),
                      lambda: not tab.running() and tab.trained_steps() >= 100, 300)
                tab.canvas.nodeClicked.emit(node)
                run_until(lambda node=node: tab.result.message is not None and
                          tab.result.message.node == node, 60)
                tab.explaining.form.set_values({"explain_method": method,
                                             "explain_epochs": args.epochs})
                phase(f"{dataset} {model} {method}", tab.explaining.button.click,
                      lambda: not tab.running())
                phase(f"{dataset} {model} {method} again", tab.explaining.button.click,
                      lambda: not tab.running())
                x = tab.explaining.current()
                print(f"    fid+ {x.fidelity_plus:.0f} fid- {x.fidelity_minus:.0f} · "
                      f"p {x.prob_full:.2f} / {x.prob_explanation:.2f} / "
                      f"{x.prob_complement:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
