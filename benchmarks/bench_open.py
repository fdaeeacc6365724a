"""File → Open of large files: time to load (or to refuse) and the longest event-loop stall.

    .venv/bin/python benchmarks/bench_open.py            # File → Open as it is now
    .venv/bin/python benchmarks/bench_open.py --sync     # read on the GUI thread (as
                                                         # before issue 19), to compare
    .venv/bin/python benchmarks/bench_open.py --only edges_3M.csv points_1M.csv
    .venv/bin/python benchmarks/bench_open.py --switch 5    # Python's default interval
                                                         # instead of the app's 1 ms

The files are written to a temporary folder first (about 100 MB, ~20 s): a 3-million-line
edge list (refused: over 2,000,000 edges), a 300,000-node GraphML (refused: over 200,000
nodes), a 100,000-node GraphML and a 500,000-line edge list (both accepted), a
1,000,000-point CSV (accepted), a model file with ``max_len=1e9`` (refused) and a saved
model (accepted). Each is opened in a fresh state of its tab (the graph tab on karate,
the flows tab on two moons, the Transformer tab's untrained model) while a 5 ms QTimer
ticks on the GUI thread; a stall is the time between two ticks minus the interval.

Printed first: the longest stall in 5 s with nothing running (the machine's own noise).
Then per file: the outcome, seconds until the file is accepted or refused, the longest
stall while it was read, and the longest stall in the 3 s after (what the tab then draws).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "")
if not os.environ["QT_QPA_PLATFORM"]:
    del os.environ["QT_QPA_PLATFORM"]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def model_files(folder: Path) -> list[Path]:
    import torch

    from models.transformer import Seq2SeqSession
    from tests.data.make_hostile import model_doc

    torch.save(model_doc(task__max_len=10 ** 9), folder / "max_len_1e9.pt")
    Seq2SeqSession(device="cpu").save(folder / "model.pt")
    return [folder / "max_len_1e9.pt", folder / "model.pt"]


def make_files(folder: Path) -> dict[str, tuple[str, Path]]:
    from tests.data.make_hostile import edge_list, graphml, points_file

    t = time.perf_counter()
    files = {
        "edges_3M.csv": ("graph", edge_list(folder / "edges_3M.csv", 3_000_000, 100_000)),
        "edges_500k.csv": ("graph", edge_list(folder / "edges_500k.csv", 500_000, 20_000)),
        "nodes_300k.graphml": ("graph", graphml(folder / "nodes_300k.graphml", 300_000,
                                                weights=True)),
        "nodes_100k.graphml": ("graph", graphml(folder / "nodes_100k.graphml", 100_000,
                                                weights=True)),
        "points_1M.csv": ("flows", points_file(folder / "points_1M.csv", 1_000_000)),
    }
    for p in model_files(folder):
        files[p.name] = ("transformer", p)
    print(f"files written in {time.perf_counter() - t:.1f} s to {folder}")
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sync", action="store_true",
                        help="read on the GUI thread (tab.open_file), as before issue 19")
    parser.add_argument("--only", nargs="*", help="only these files")
    parser.add_argument("--switch", type=float, metavar="MS",
                        help="the interpreter's switch interval, instead of the app's "
                             "(app/responsive.py)")
    args = parser.parse_args()

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    _app = QApplication.instance() or QApplication(["bench"])  # kept alive while it runs
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
        """The event loop as the app runs it (``exec``, which lets the interpreter go
        while it waits), in 10 ms rounds until ``pred()``; not ``processEvents`` plus a
        sleep, which hid the workers' hold on the interpreter (app/responsive.py)."""
        end = time.perf_counter() + limit
        while time.perf_counter() < end and not pred():
            loop = QEventLoop()
            QTimer.singleShot(10, loop.quit)
            loop.exec()

    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(Path(tmp))
        win = MainWindow(Settings(tmp), Translations())
        win.resize(1500, 940)
        if args.switch:
            sys.setswitchinterval(args.switch / 1000)
        print(f"switch interval {1000 * sys.getswitchinterval():g} ms")
        win.show()
        shown: list[BaseException] = []
        win.report_error = lambda e, d: shown.append(e)
        run_until(lambda: win.torch_is_ready
                  and all(getattr(t, "trace", None) is not None for t in win.tabs), 180)
        def settle(tab) -> None:
            """Until the tab has drawn what showing it computes: a quiet second (no stall
            over 50 ms), at most 20 s."""
            end = time.perf_counter() + 20
            while time.perf_counter() < end:
                run_until(lambda: not tab.compute.is_busy(), 20)
                gaps.clear()
                last[0] = time.perf_counter()
                timer.start()
                run_until(lambda: False, 1.0)
                timer.stop()
                if max(gaps, default=0.0) < 0.05:
                    return

        gaps.clear()
        last[0] = time.perf_counter()
        timer.start()
        run_until(lambda: False, 5.0)
        timer.stop()
        print(f"idle baseline: longest stall {1000 * max(gaps):.0f} ms in 5 s with nothing "
              "running (this machine's noise)")
        mode = "on the GUI thread (--sync)" if args.sync else "File → Open in the background"
        print(f"\n{mode}\n{'file':20s} {'outcome':9s} {'time':>8s} {'stall reading':>14s} "
              f"{'median':>7s} {'stall after':>12s}")
        for name, (key, path) in files.items():
            if args.only and name not in args.only:
                continue
            tab = next(t for t in win.tabs if t.key == key)
            win.tabs_widget.setCurrentWidget(tab)
            settle(tab)
            shown.clear()
            done = [False, 0.0]

            def start(tab=tab, path=path, done=done):
                done[1] = time.perf_counter()
                if args.sync:
                    try:
                        tab.open_file(str(path))
                    except Exception as exc:  # noqa: BLE001 - a refusal is an outcome
                        shown.append(exc)
                    done[0] = True
                else:
                    tab.start_open(str(path))

            gaps.clear()
            last[0] = time.perf_counter()
            timer.start()
            QTimer.singleShot(0, start)
            run_until(lambda tab=tab, done=done: done[1] and (
                done[0] or not tab.is_opening() and bool(getattr(tab, "_opening", ""))), 300)
            took = time.perf_counter() - done[1]
            run_until(lambda: False, 0.05)    # the tick that ends a stall still counts
            reading = max(gaps, default=0.0)
            median = sorted(gaps)[len(gaps) // 2] if gaps else 0.0
            gaps.clear()
            run_until(lambda: False, 3.0)
            after = max(gaps, default=0.0)
            timer.stop()
            outcome = "refused" if shown else "opened"
            print(f"{name:20s} {outcome:9s} {took:7.2f}s {1000 * reading:11.0f} ms "
                  f"{1000 * median:4.0f} ms {1000 * after:9.0f} ms   {str(shown[0])[:90] if shown else ''}",
                  flush=True)
            if hasattr(tab, "stop_jobs"):
                tab.stop_jobs()
        win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
