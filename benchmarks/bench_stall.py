"""Longest event-loop stall of the GUI thread while work runs in the background.

    .venv/bin/python benchmarks/bench_stall.py
    .venv/bin/python benchmarks/bench_stall.py --startup [--rounds 5] [--trees OLD,.]
    .venv/bin/python benchmarks/bench_stall.py --visits [--rounds 3] [--trees OLD,.]

A 5 ms QTimer ticks on the GUI thread; a stall is the time between two ticks minus
the interval. Phases, measured one after another in one run:
  startup   from window.show() until torch is loaded (the loader thread has ended) and
            every tab built so far shows its first trace (before lazy tabs: all seven)
  idle      one second with nothing running (the baseline of this machine)
  training  the "Learn M_k" job (d_model 128, max_len 100) for 4 s
  training-big  the same job at d_model 512, max_len 2048
  sliders   d_model dragged across its range, 20 values, at max_len 4096
Prints max, 99th percentile and median stall for each phase, in milliseconds.

``--startup`` measures the start-up phase only, in a fresh process per round and per
source tree, alternating (A/B in one run), and prints the medians over rounds.
``--visits`` does the same for the first visit of every other tab, in order, after
start-up: the longest stall from the click until its first trace has been painted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "")
if not os.environ["QT_QPA_PLATFORM"]:
    del os.environ["QT_QPA_PLATFORM"]


def main(startup_only: bool = False, visits: bool = False) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append(max(0.0, now - last[0] - 0.005))
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)

    def run_until(pred, limit):
        end = time.perf_counter() + limit
        while time.perf_counter() < end and not pred():
            app.processEvents()
            time.sleep(0.0005)

    def phase(name, start, until, limit):
        gaps.clear()
        last[0] = time.perf_counter()
        timer.start()
        start()
        run_until(until, limit)
        timer.stop()
        g = np.array(gaps) * 1000
        figures = {"max": float(g.max()), "p99": float(np.percentile(g, 99)),
                   "median": float(np.median(g)), "ticks": len(g)}
        if startup_only:
            if not visits:
                print(json.dumps(figures), flush=True)
        else:
            print(f"{name:14s} max {g.max():7.1f} ms   p99 {np.percentile(g, 99):6.1f} ms   "
                  f"median {np.median(g):5.2f} ms   ({len(g)} ticks)")
        return g

    with tempfile.TemporaryDirectory() as tmp:
        # as the app starts it (the loader thread started by the window itself)
        win = MainWindow(Settings(tmp), Translations())
        win.resize(1500, 940)
        built = getattr(win, "built_tabs", lambda: win.tabs)   # lazy tabs, or all

        def started():
            thread = getattr(win.loader, "_thread", None)
            return (win.torch_is_ready and thread is not None and not thread.is_alive()
                    and all(t.trace is not None for t in built()))
        phase("startup", win.show, started, 180)
        tab = win.current_tab()
        if visits:
            # each other tab opened once, in order, as a user clicks it: until its first
            # trace has been shown and painted (one second after it arrived)
            out = {}
            widgets = win.tabs_widget
            for i in range(widgets.count()):
                if i == widgets.currentIndex():
                    continue
                seen = [0.0]

                def shown(i=i, seen=seen):
                    if getattr(widgets.widget(i), "trace", None) is None:
                        return False
                    seen[0] = seen[0] or time.perf_counter()
                    return time.perf_counter() - seen[0] > 1.0
                g = phase("visit", lambda i=i: widgets.setCurrentIndex(i), shown, 120)
                out[win.specs[i].key] = round(float(g.max()), 1)
            print(json.dumps(out), flush=True)
            win.close()
            return 0
        if startup_only:
            win.close()
            return 0
        t0 = time.perf_counter()
        phase("idle", lambda: None, lambda: time.perf_counter() - t0 > 1.0, 2)

        for name, d, n in (("training", 128, 100), ("training-big", 512, 2048)):
            tab.d_model.setValue(d)
            tab.max_len.setValue(n)
            tab.request_update()
            run_until(lambda d=d, n=n: tab.trace.d_model == d and tab.trace.max_len == n, 30)
            run_until(lambda: False, 0.5)   # let the new trace paint before measuring
            start = [0.0]
            phase(name, lambda s=start: (s.__setitem__(0, time.perf_counter()),
                                         tab.toggle_job("train")),
                  lambda s=start: time.perf_counter() - s[0] > 4.0, 10)
            steps = len(tab.fit_history)
            tab.jobs.stop()
            run_until(lambda: not tab.jobs.is_running(), 5)
            print(f"{'':14s} {steps} training steps in 4 s shown, "
                  f"{tab.fit_history[-1]:.2e} last loss")
        tab.max_len.setValue(4096)
        values = iter(np.linspace(2, 1024, 20).astype(int) // 2 * 2)
        done = [False]

        def drag():
            try:
                tab.d_model.setValue(int(next(values)))
                QTimer.singleShot(50, drag)
            except StopIteration:
                done[0] = True
        phase("sliders", drag, lambda: done[0] and not tab.compute.is_busy(), 60)
        win.close()
    print(f"torch threads for background work: {__import__('torch').get_num_threads()}, "
          f"cores: {os.cpu_count()}")
    return 0


def compare(trees: list[str], rounds: int, visits: bool = False) -> int:
    """The start-up phase of each tree (or, with ``visits``, the longest stall of each
    tab's first visit), a fresh process each, alternating."""
    runs: dict[str, list[dict]] = {t: [] for t in trees}
    worker = ["--worker", *(("--visits",) if visits else ())]
    for i in range(rounds):
        for tree in trees:
            proc = subprocess.run([sys.executable, __file__, *worker], cwd=tree,
                                  capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ, PYTHONPATH=tree))
            if proc.returncode != 0:
                print(proc.stderr[-2000:], file=sys.stderr)
                return 1
            runs[tree].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(f"round {i + 1} {Path(tree).name}: {runs[tree][-1]}", flush=True)
    what = "longest stall of a tab's first visit" if visits else "start-up stall"
    print(f"\n{what}, medians of {rounds} rounds (ms):")
    print(f"  {'':<12}" + "".join(f"{Path(t).name:>18}" for t in trees))
    for k in (runs[trees[0]][0] if visits else ("max", "p99", "median")):
        print(f"  {k:<12}" + "".join(
            f"{statistics.median(r[k] for r in runs[t]):18.1f}" for t in trees))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--startup", action="store_true", help="the start-up phase only")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trees", default=str(ROOT))
    parser.add_argument("--visits", action="store_true",
                        help="the longest stall of each tab's first visit, after start-up")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.exit(main(startup_only=True, visits=args.visits))
    if args.startup or args.visits:
        sys.exit(compare([str(Path(t).resolve()) for t in args.trees.split(",")],
                         args.rounds, visits=args.visits))
    sys.exit(main())
