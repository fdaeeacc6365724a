"""The graph-generation tab in the real window: how long the family and its baselines take
to appear, and the longest event-loop stall of the GUI thread while GraphRNN trains,
while it is sampled and scored (Compare), and while a family is changed (the baselines
refitted in the background); then the MMD table the tab shows.

    .venv/bin/python benchmarks/bench_generation_tab.py [--steps 100] [--dataset community]

A 5 ms QTimer ticks on the GUI thread; a stall is the time between two ticks minus the
interval. For each phase: seconds, and max / 99th percentile / median stall in ms; the
"own" max leaves out the time the GUI thread waited for a CPU (tests/heartbeat.py).
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
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--dataset", default="community", choices=["community", "grid", "ego"])
    args = parser.parse_args()

    from bench_window import bench_window
    from heartbeat import Heartbeat

    with bench_window() as (app, window, run_until):
        run_until(lambda: window.torch_is_ready and all(
            getattr(t, "trace", None) is not None for t in window.tabs), 120)
        tab = next(t for t in window.tabs if t.key == "generation")
        run_until(lambda: False, 2.0)       # the start-up's work done: a quiet window

        def phase(name, start, until, limit=600):
            t0 = time.perf_counter()
            with Heartbeat(interval_ms=5, limit_ms=1e9) as beat:
                start()
                run_until(until, limit)
                run_until(lambda: False, 0.3)     # and what it left to paint
            g = np.asarray(beat.gaps_ms or [0.0])
            print(f"{name:<28} {time.perf_counter() - t0:7.1f} s   stall max "
                  f"{g.max():6.1f} ms (own {beat.longest_own_ms:6.1f}) · p99 "
                  f"{np.percentile(g, 99):5.1f} · median {np.median(g):4.1f}", flush=True)

        print(f"generation tab, {args.dataset}, GraphRNN {args.steps} steps per Train")
        phase("first open (baselines)", lambda: window.tabs_widget.setCurrentWidget(tab),
              lambda: tab.current_view() is not None and not tab.compute.is_busy())
        tab.apply_state({"dataset": args.dataset, "steps": args.steps})
        run_until(lambda: tab.current_view() is not None and not tab.compute.is_busy(), 120)
        phase(f"train {args.steps} steps", tab.toggle_training,
              lambda: not tab.jobs.is_running())
        phase("compare (sample + MMD)", tab.toggle_compare, lambda: not tab.jobs.is_running())
        shown = tab.shown_comparison()
        print(f"MMD² on {shown.held_out} held-out graphs (degree, clustering) and seconds to "
              "fit and sample, as the tab shows them:")
        for m, method in enumerate(shown.methods):
            print(f"  {method:<9} {shown.mmd[m, 0]:.4f}  {shown.mmd[m, 1]:.4f}  "
                  f"{shown.seconds[m]:6.2f} s")
        print(f"  training  {shown.reference_mmd[0]:.4f}  {shown.reference_mmd[1]:.4f}  "
              f"(reference; GraphRNN's weights of step {shown.best_step})")
        phase("change family (refit)", lambda: tab.apply_state({"seed": 1}),
              lambda: tab.current_view() is not None and not tab.compute.is_busy())
    return 0


if __name__ == "__main__":
    sys.exit(main())
