"""Frame time of the flow view: 10,000 points (and the deformed grid) animated through
the 8 layers of a RealNVP trained briefly on two moons (the issue's goal: >= 30 frames
per second offscreen, i.e. a median frame under 33 ms).

    .venv/bin/python benchmarks/bench_flow_view.py [--points 10000] [--frames 240]

A frame moves the middle panel to the next position (linear interpolation between layer
outputs) and paints it; prints the median and p90 frame time and the frames per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--no-grid", action="store_true")
    args = parser.parse_args()
    import numpy as np
    import torch
    from PySide6.QtWidgets import QApplication

    from models.flows import FlowSession, densities, grid_lines
    from viz import theme
    from viz.flow_view import FlowView

    torch.set_num_threads(1)
    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    session = FlowSession("realnvp", "two_moons", num_flows=8)
    for _ in session.train(200):
        pass
    x = densities.sample("two_moons", args.points, seed=1)
    with torch.no_grad():
        session.flow.eval()
        trace = session.flow.trace(x)
        grid = None if args.no_grid else session.flow.grid_trace(
            grid_lines((-1.5, 2.5, -1.0, 1.5), 11, 60))
    view = FlowView()
    view.resize(1200, 450)
    view.show()
    view.set_trace(trace, grid)
    view.fit_middle()
    app.processEvents()
    layers = trace.points.shape[0] - 1
    times = []
    for i in range(args.frames + 10):
        t = (i * 0.05) % layers
        t0 = time.perf_counter()
        view.set_position(t)
        app.processEvents()            # the paint of the changed panel
        if i >= 10:
            times.append(time.perf_counter() - t0)
    med = statistics.median(times) * 1e3
    print(f"{args.points} points, {layers} layers, grid {'off' if args.no_grid else 'on'}: "
          f"median frame {med:.1f} ms ({1000 / med:.0f} frames/s), p90 "
          f"{np.percentile(times, 90) * 1e3:.1f} ms; goal >= 30 frames/s (offscreen)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
