"""The pretrained-models tab's responsiveness: the longest event-loop stall while the
bundled all-MiniLM-L6-v2 loads and its first sentence is drawn, while head masks are
toggled (each a recompute in the background and a redraw), and for a sentence of about
64 tokens; with the time from a mask toggle to its views drawn.

    .venv/bin/python benchmarks/bench_pretrained_tab.py [--toggles 12]

The issue's goal is a stall under 100 ms. Offscreen, the pretrained tab alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from app.tabs.catalog import tab_specs
    from tests.heartbeat import Heartbeat
    from viz import theme

    parser = argparse.ArgumentParser()
    parser.add_argument("--toggles", type=int, default=12)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    win = MainWindow(Settings(tempfile.mkdtemp()), Translations(),
                     specs=[s for s in tab_specs() if s.key == "pretrained"])
    win.resize(1500, 940)
    win.show()

    def pump(seconds: float, until=lambda: False) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            app.processEvents()
            time.sleep(0.002)

    pump(90, lambda: win.torch_is_ready)
    tab = win.tab("pretrained")

    def settled() -> bool:
        return tab.trace is not None and not tab.compute.is_busy() and not tab.is_drawing()

    with Heartbeat() as beat:
        pump(60, settled)
        pump(0.5)
    print(f"load + first sentence: {beat.report()}")
    waits = []
    with Heartbeat() as beat:
        for i in range(args.toggles):
            layer, head = i % 6, (5 * i) % 12
            mask = tab.mask_grid.mask()
            mask[layer, head] = 1 - mask[layer, head]
            tab.mask_grid.set_mask(mask)
            t0 = time.perf_counter()
            tab.mask_grid.changed.emit()
            pump(20, lambda m=mask: settled() and tab.trace.attention.head_mask.tolist()
                 == m.tolist())
            waits.append((time.perf_counter() - t0) * 1000)
    print(f"{args.toggles} head-mask toggles: {beat.report()}; toggle → drawn: median "
          f"{statistics.median(waits):.0f} ms, max {max(waits):.0f} ms")
    words = " ".join(["the cat sat on the mat, and then it fell asleep."] * 5)
    with Heartbeat() as beat:
        tab.sentence.setText(words)
        tab.run()
        pump(30, lambda: settled() and tab.trace.request.sentence == words)
        pump(0.5)
    print(f"a sentence of {len(tab.trace.attention.tokens)} tokens: {beat.report()}")
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
