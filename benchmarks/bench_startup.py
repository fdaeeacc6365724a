"""Start-up figures: `archscope --smoke` run N times (default 5), median of each, beside
the floor (an empty QMainWindow with one PlotWidget) and, with ``--tabs``, the resident
memory once every tab has been opened: when the last tab shows its first trace
(``rss_all_tabs_mb``), 8 s later (``rss_settled_mb``), once the work the tabs started has
ended and the window has handed freed pages back (``rss_quiet_mb``, ``quiet_s`` after the
last tab opened) and 30 s after it (``rss_30s_mb``).

    .venv/bin/python benchmarks/bench_startup.py [N] [--trees OLD_CHECKOUT,.] [--tabs]

Each round runs, one process after another: the floor, then ``--smoke`` of each source
tree (and with ``--tabs`` a window of each tree with every tab visited in turn), so a
noisy neighbour slows them alike. Prints one line per run, then the medians per tree
and first paint over the floor's. Runs offscreen unless DISPLAY is set. Times are
seconds since the process started (from /proc on Linux); ``max_stall_ms`` is the longest
event-loop stall from the first paint to the first trace (trees without it show "-").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: how long no tab may have work running before the window counts as quiet (seconds)
IDLE_S = 3.0
KEYS = ("first_paint_s", "torch_ready_s", "first_trace_s", "max_stall_ms",
        "rss_first_paint_mb", "rss_mb")


def _process_age() -> float:
    with open("/proc/self/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    with open("/proc/uptime") as fh:
        uptime = float(fh.read().split()[0])
    return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6, 1)


def floor_worker() -> int:
    """The floor: an empty QMainWindow with one PlotWidget; first paint, RSS."""
    import pyqtgraph as pg
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([])
    win = QMainWindow()
    win.setCentralWidget(pg.PlotWidget())
    win.resize(1500, 940)
    out = {}

    class Paint(QObject):
        def eventFilter(self, obj, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint and not out:
                out.update(first_paint_s=round(_process_age(), 3), rss_mb=_rss_mb())
                QTimer.singleShot(0, app.quit)
            return False

    app.installEventFilter(f := Paint())     # the first paint of any of its widgets
    win.show()
    app.exec()
    app.removeEventFilter(f)
    print(json.dumps(out), flush=True)
    return 0


def tabs_worker() -> int:
    """A window of this tree (cwd) with every tab visited in turn until it shows its
    first trace; prints the resident memory then."""
    import time

    from PySide6.QtWidgets import QApplication

    sys.path.insert(0, os.getcwd())
    from app.i18n import Translations
    from app.jobs import ComputeRunner
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    app = QApplication([])
    theme.apply()
    with tempfile.TemporaryDirectory() as tmp:
        win = MainWindow(Settings(tmp), Translations())
        win.resize(1500, 940)
        win.show()
        end = time.monotonic() + 300
        for i in range(win.tabs_widget.count()):
            win.tabs_widget.setCurrentIndex(i)
            while time.monotonic() < end and getattr(win.tabs_widget.widget(i), "trace",
                                                     None) is None:
                app.processEvents()
                time.sleep(0.005)
        out = {"rss_all_tabs_mb": _rss_mb(), "all_tabs_s": round(_process_age(), 3)}
        opened = time.monotonic()

        def pump(until: float) -> None:
            while time.monotonic() < until:
                app.processEvents()
                time.sleep(0.01)

        # Sampled from here on: 8 s later (``rss_settled_mb``, the figure of earlier
        # notes: work the tabs started on their first visit, such as the meta tab's
        # evaluation, may still be running then); once that work has ended and what it
        # freed went back (``rss_quiet_mb``): no tab with a job or a computation running,
        # and the window's release of freed pages (app.memory, a few seconds after work
        # ends) done since the last work was seen, None if that does not come within
        # 90 s (or on a system without malloc_trim, where nothing is released); and 30 s
        # later (``rss_30s_mb``): the pretrained tab hands its model's weights back 20 s
        # after it was left (app/tabs/pretrained/tab.py).
        tabs = getattr(win, "built_tabs", lambda: win.tabs)()
        out["rss_quiet_mb"] = out["quiet_s"] = None
        idle_since, releases = opened, win.releaser.releases
        while time.monotonic() < opened + 90 and (out["quiet_s"] is None
                                                  or "rss_30s_mb" not in out):
            now = time.monotonic()
            if "rss_settled_mb" not in out and now >= opened + 8:
                out["rss_settled_mb"] = _rss_mb()
            if "rss_30s_mb" not in out and now >= opened + 30:
                out["rss_30s_mb"] = _rss_mb()
            if out["quiet_s"] is None:
                # idle: no job or computation for IDLE_S in a row (a tab starts some of its
                # work a moment after its first trace, such as the meta tab's evaluation),
                # and a release since the last work was seen
                if any(t.jobs.is_running() or any(r.is_busy() for r in t.findChildren(
                        ComputeRunner)) for t in tabs):
                    idle_since, releases = now, win.releaser.releases
                elif now - idle_since >= IDLE_S and win.releaser.releases > releases:
                    pump(now + 0.5)                # the release runs in its own thread
                    out["rss_quiet_mb"] = _rss_mb()
                    out["quiet_s"] = round(now - opened, 1)
            pump(time.monotonic() + 0.05)
        for tab in getattr(win, "built_tabs", lambda: win.tabs)():
            tab.shutdown()
        win.close()
        win.deleteLater()
        app.processEvents()
    print(json.dumps(out), flush=True)
    return 0


def _run(cmd: list[str], cwd: str, env: dict) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(env, ARCHSCOPE_SETTINGS_DIR=tmp)
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=420)
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=5, help="rounds")
    parser.add_argument("--trees", default=str(ROOT),
                        help="comma-separated source trees (checkouts) to compare")
    parser.add_argument("--tabs", action="store_true",
                        help="also the resident memory with every tab opened")
    parser.add_argument("--worker", choices=("floor", "tabs"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "floor":
        return floor_worker()
    if args.worker == "tabs":
        return tabs_worker()
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    trees = [str(Path(t).resolve()) for t in args.trees.split(",")]
    floor: list[dict] = []
    runs: dict[str, list[dict]] = {t: [] for t in trees}
    for i in range(args.n):
        got = _run([sys.executable, __file__, "--worker", "floor"], str(ROOT), env)
        if got:
            floor.append(got)
            print(f"round {i + 1} floor: {got}")
        for tree in trees:
            figures = _run([sys.executable, "-m", "app", "--smoke"], tree, env)
            if figures is None:
                return 1
            if args.tabs:
                figures.update(_run([sys.executable, __file__, "--worker", "tabs"], tree, env)
                               or {})
            runs[tree].append(figures)
            print(f"round {i + 1} {Path(tree).name}: {figures}")
    where = 'xvfb' if env.get('DISPLAY') else 'offscreen'
    floor_paint = statistics.median(f["first_paint_s"] for f in floor) if floor else None
    print(f"\nmedians of {args.n} rounds ({where}, {os.cpu_count()} cores); floor: first "
          f"paint {floor_paint} s, RSS "
          f"{statistics.median(f['rss_mb'] for f in floor) if floor else '-'} MB")
    keys = [*KEYS, *(("rss_all_tabs_mb", "rss_settled_mb", "rss_quiet_mb", "quiet_s",
                      "rss_30s_mb") if args.tabs else ())]
    print(f"  {'':<22}" + "".join(f"{Path(t).name:>18}" for t in trees))
    med = {}
    for k in keys:
        row = []
        for t in trees:
            values = [r[k] for r in runs[t] if r.get(k) is not None]
            med[t, k] = statistics.median(values) if values else None
            row.append(f"{med[t, k]:18.3f}" if med[t, k] is not None else f"{'-':>18}")
        print(f"  {k:<22}" + "".join(row))
    if floor_paint:
        print(f"  {'first paint / floor':<22}" + "".join(
            f"{med[t, 'first_paint_s'] / floor_paint:17.2f}x" for t in trees))
    return 0


if __name__ == "__main__":
    sys.exit(main())
