"""Flows → Export animation… of a big flow (issue 19: 32 layers x 20,000 points froze the
window for 101 s writing a GIF, up to 90 s writing PNG frames): the export's wall time,
the longest event-loop stall while it runs (the goal: under 100 ms), the peak of the
process's resident memory above what it held before, and the old figure: the same
frames painted on the GUI thread the way the export used to (vector symbols, one frame
per call), timed over ``--old-frames`` frames and scaled to the whole animation (or all
of them with ``--old-frames 0``).

    .venv/bin/python benchmarks/bench_flows_export.py [--layers 32] [--points 20000]
        [--formats gif,png] [--old-frames 4]

Prints an idle baseline first (the stalls this machine has with nothing running).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class PeakRSS:
    """The largest resident size seen by a thread looking every 10 ms."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.01)

    def __enter__(self) -> PeakRSS:
        self.peak = rss_mb()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--points", type=int, default=20_000)
    parser.add_argument("--per-layer", type=int, default=8)
    parser.add_argument("--formats", default="gif,png")
    parser.add_argument("--old-frames", type=int, default=4,
                        help="frames painted the old way (0: all of them)")
    args = parser.parse_args()
    import numpy as np
    from heartbeat import Heartbeat
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from app.tabs.flows.export import ANIMATION_WIDTH, FRAMES_WIDTH
    from viz import figure, theme

    os.environ["ARCHSCOPE_SETTINGS_DIR"] = tempfile.mkdtemp()
    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    win = MainWindow(Settings(), Translations())
    win.resize(1500, 940)
    win.show()

    def run_until(pred, limit: float) -> None:
        end = time.perf_counter() + limit
        while time.perf_counter() < end and not pred():
            app.processEvents()
            time.sleep(0.001)

    run_until(lambda: win.torch_is_ready, 120)
    tab = win.tab("flows")
    win.tabs_widget.setCurrentWidget(tab)
    run_until(lambda: tab.result is not None, 60)
    tab.apply_state({"layers": args.layers, "points": args.points})
    shape = (args.layers + 1, args.points, 2)
    run_until(lambda: tab.result is not None and tab.result.trace.points.shape == shape, 120)
    for _ in tab.session().train(50):       # frames that differ (a GIF merges equal ones)
        pass
    tab.compute_now()
    run_until(lambda: False, 1.0)
    frames = args.layers * args.per_layer + 1
    with Heartbeat() as idle:
        run_until(lambda: False, 2.0)
    print(f"{args.layers} layers x {args.points} points, {frames} frames; cores "
          f"{os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    print(f"idle            {idle.report()}")
    for fmt in args.formats.split(","):
        folder = Path(tempfile.mkdtemp())
        width = FRAMES_WIDTH if fmt == "png" else ANIMATION_WIDTH
        run_until(lambda: False, 1.0)       # what the last one left to repaint, painted
        before = rss_mb()
        t0 = time.perf_counter()
        with PeakRSS() as peak, Heartbeat() as beat:
            if fmt == "png":
                tab.export_frames(str(folder), args.per_layer, width)
            else:
                tab.export_animation(str(folder / f"flow.{fmt}"), args.per_layer, width)
            run_until(lambda: not tab.exporting(), 3600)
        took = time.perf_counter() - t0
        gaps = np.array(beat.gaps_ms)
        size = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
        print(f"{fmt:4s} {width} px  export {took:6.1f} s   stall max {beat.longest_ms:5.0f} ms"
              f"  p99 {np.percentile(gaps, 99):5.0f} ms  median {np.median(gaps):4.1f} ms   "
              f"peak RSS +{peak.peak - before:5.0f} MB   {size:.1f} MB written   "
              f"({win.statusBar().currentMessage()})")
        # the old way: each frame painted on the GUI thread in one call (vector symbols)
        view = tab.flow_view
        count = frames if args.old_frames <= 0 else min(args.old_frames, frames)
        t0 = time.perf_counter()
        longest = 0.0
        for i in range(count):
            f0 = time.perf_counter()
            view.set_position(i * (frames - 1) / max(1, count - 1) / args.per_layer)
            figure.render(view, str(folder / "old.png"), "png", width=width)
            longest = max(longest, time.perf_counter() - f0)
        per = (time.perf_counter() - t0) / count
        print(f"     old way: {1000 * per:.0f} ms a frame on the GUI thread (longest "
              f"{1000 * longest:.0f} ms, {count} frames), {per * frames:.0f} s frozen for "
              f"{frames} frames")
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
