"""Frame times of the graph canvas (viz/graph_view.py) on a 10,000-node, 50,000-edge graph.

    .venv/bin/python benchmarks/bench_graph_view.py [--nodes 10000] [--edges 50000]
        [--repeats 20] [--layout local|uniform|both]

Offscreen (QT_QPA_PLATFORM=offscreen), the widget 1200×800 and shown. Measures the median
over ``--repeats`` of:

(a) pan/zoom: change the ViewBox range, then repaint the viewport (goal ≤ 33 ms, 30 fps);
(b) recolouring all edges from new random attention values with ``set_edge_values``
    (8 bins) + repaint (goal < 50 ms), and until the edges are sharp (drawn in part at
    once, the rest once still), beside the floor: every edge line drawn once into an
    image of the view, interleaved, CPU time beside wall time;
(c) recolouring the nodes by class (7 classes) with ``set_node_colors`` + repaint;
(d) the hover lookup: the nearest node to a mouse position (``node_at``);
(e) a PNG export at the on-screen size, against Qt's own ``grab`` of the view (the floor,
    interleaved, CPU time beside wall time) and ``networkx.draw`` + ``savefig`` of the
    same graph at the same pixel size (matplotlib, of the ``bench`` extra).

Two layouts: ``local`` puts random positions in the unit square and joins each node to
near neighbours (what a force layout of a real graph looks like, edges ~70 px long on
screen); ``uniform`` joins uniformly random node pairs (a hairball: 50k edges ~400 px
long each, the worst case, which fills the view many times over).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def make_graph(n: int, e: int, layout: str, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    pos = rng.random((n, 2)).astype(np.float32)
    src = rng.integers(0, n, e)
    if layout == "uniform":
        dst = (src + rng.integers(1, n, e)) % n                     # no self-loops
    else:
        # near neighbours: sort the nodes along a snake through a grid of cells and join
        # each source to a node a few places away in that order
        cells = int(np.sqrt(n / 8)) or 1
        cx = np.minimum((pos[:, 0] * cells).astype(int), cells - 1)
        cy = np.minimum((pos[:, 1] * cells).astype(int), cells - 1)
        snake = np.where(cy % 2 == 0, cx, cells - 1 - cx)
        order = np.lexsort((pos[:, 0], snake, cy))
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n)
        step = rng.integers(1, 13, e) * rng.choice([-1, 1], e)      # no self-loops
        dst = order[np.clip(rank[src] + step, 0, n - 1)]
        dst = np.where(dst == src, order[np.clip(rank[src] - step, 0, n - 1)], dst)
    edges = np.stack([src, dst], 1).astype(np.int64)
    return pos, edges


class _PaintCounter:
    """Counts the paint events of a widget."""

    def __init__(self, widget) -> None:
        from PySide6.QtCore import QEvent, QObject

        counter = self

        class Filter(QObject):
            def eventFilter(self, obj, event):  # noqa: N802 - Qt's API
                if event.type() == QEvent.Type.Paint:
                    counter.count += 1
                return False

        self.count = 0
        self._filter = Filter()
        widget.installEventFilter(self._filter)


def _pixels(image):
    import numpy as np

    return np.frombuffer(image.constBits(), np.uint32).copy()


def settle(app, layer, timeout_s: float = 10.0) -> None:
    """Run the event loop until the edge layer shows sharp, up-to-date edges."""
    end = time.perf_counter() + timeout_s
    while not layer.settled() and time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)


def png_export_ms(app, view, repeats: int) -> tuple[float, float, float, float]:
    """Medians of File → Export figure… as PNG at the on-screen size (scale 1) and of
    Qt's own picture of the view (``grab`` + save, the floor), interleaved: (export ms,
    export CPU ms, grab ms, grab CPU ms)."""
    import tempfile

    from viz import figure

    wall = {"export": [], "grab": []}
    cpu = {"export": [], "grab": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(max(3, repeats // 5)):
            for what in ("export", "grab"):
                t0, c0 = time.perf_counter(), time.process_time()
                if what == "export":
                    figure.render(view, os.path.join(folder, "graph.png"), "png", scale=1.0)
                else:
                    view.grab().save(os.path.join(folder, "grab.png"))
                wall[what].append(time.perf_counter() - t0)
                cpu[what].append(time.process_time() - c0)
    return (median_ms(wall["export"]), median_ms(cpu["export"]), median_ms(wall["grab"]),
            median_ms(cpu["grab"]))


def matplotlib_png_ms(pos, edges, width: int, height: int, repeats: int) -> float | None:
    """Median ms of ``networkx.draw`` + ``savefig`` (Agg, antialiased) of the same graph
    at the same pixel size, node size and edge width as the canvas; None without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    import tempfile

    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(len(pos)))
    graph.add_edges_from(map(tuple, edges.tolist()))
    layout = {i: tuple(p) for i, p in enumerate(pos.tolist())}
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(max(3, repeats // 5)):
            t0 = time.perf_counter()
            fig = plt.figure(figsize=(width / 100, height / 100), dpi=100)
            nx.draw(graph, layout, node_size=30, width=1.0, edge_color="#9a9a9a",
                    ax=fig.add_axes((0, 0, 1, 1)))
            fig.savefig(os.path.join(folder, "graph.png"), dpi=100)
            plt.close(fig)
            times.append(time.perf_counter() - t0)
    return median_ms(times)


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1e3


def run(layout: str, args) -> None:
    import numpy as np
    from PySide6.QtWidgets import QApplication

    from viz.edge_layer import SETTLE_MS, render_edges
    from viz.graph_view import GraphCanvas

    app = QApplication.instance()
    rng = np.random.default_rng(1)
    pos, edges = make_graph(args.nodes, args.edges, layout)
    view = GraphCanvas()
    view.resize(1200, 800)
    view.show()
    app.processEvents()
    t0 = time.perf_counter()
    view.set_graph(pos, edges)
    app.processEvents()
    view.viewport().repaint()
    t_set = time.perf_counter() - t0
    view.set_node_colors(rng.integers(0, 7, args.nodes), categorical=True)
    view.set_edge_values(rng.random(args.edges), title="α")
    app.processEvents()
    vb = view.plotItem.vb

    paints = _PaintCounter(view.viewport())

    def repaint() -> None:
        # schedule a full repaint and let the event loop deliver it: exactly one paint
        # (repaint() followed by processEvents() painted twice, since the range change
        # queues an update of its own, so that would time two frames)
        view.viewport().update()
        app.processEvents()

    (x0, x1), (y0, y1) = vb.viewRange()
    paints.count = 0
    pan = []
    for i in range(args.repeats + 3):
        f = 1.0 + 0.25 * np.sin(i * 0.7)          # zoom in and out around the centre
        dx = 0.05 * np.cos(i * 0.9)               # and pan
        cx, cy, hw, hh = (x0 + x1) / 2 + dx, (y0 + y1) / 2, (x1 - x0) / 2 * f, (y1 - y0) / 2 * f
        t0 = time.perf_counter()
        vb.setRange(xRange=(cx - hw, cx + hw), yRange=(cy - hh, cy + hh), padding=0)
        repaint()
        pan.append(time.perf_counter() - t0)
    pan = pan[3:]
    paints_per_frame = paints.count / (args.repeats + 3)
    vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    repaint()
    t0 = time.perf_counter()
    layer = view.edge_layer
    settle(app, layer)
    sharp = time.perf_counter() - t0

    recolour, recolour_sharp, part_differs = [], [], []
    sharp_cpu, floor, floor_cpu = [], [], []
    for _ in range(args.repeats):
        values = rng.random(args.edges).astype(np.float32)
        t0, c0 = time.perf_counter(), time.process_time()
        view.set_edge_values(values, levels=(0.0, 1.0), title="α")
        view.viewport().repaint()       # the GUI thread's part: new bins and one paint
        recolour.append(time.perf_counter() - t0)
        if layer.active() and not layer.settled():      # the top bins only, so far
            first = _pixels(layer.image())
            settle(app, layer)
            recolour_sharp.append(time.perf_counter() - t0)
            part_differs.append(float(np.mean(first != _pixels(layer.image()))))
        sharp_cpu.append(time.process_time() - c0)      # sharp now, at once or in part
        settle(app, layer)
        if layer.active():              # the floor: every edge line drawn once, in order
            size = (view.viewport().width(), view.viewport().height())
            t0, c0 = time.perf_counter(), time.process_time()
            render_edges(layer._parts(), layer._transform, size, 1.0)
            floor.append(time.perf_counter() - t0)
            floor_cpu.append(time.process_time() - c0)

    nodes = []
    for _ in range(args.repeats):
        classes = rng.integers(0, 7, args.nodes)
        t0 = time.perf_counter()
        view.set_node_colors(classes, categorical=True, names=[f"c{k}" for k in range(7)])
        repaint()
        nodes.append(time.perf_counter() - t0)

    static = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        repaint()
        static.append(time.perf_counter() - t0)

    hover = []
    points = rng.random((args.repeats * 10, 2))
    for x, y in points:
        t0 = time.perf_counter()
        view.node_at(float(x), float(y))
        hover.append(time.perf_counter() - t0)

    export, export_cpu, grab, grab_cpu = png_export_ms(app, view, args.repeats)
    peer = matplotlib_png_ms(pos, edges, view.width(), view.height(), args.repeats)

    lengths = np.hypot(*(pos[edges[:, 0]] - pos[edges[:, 1]]).T) / view._pixel_size()
    print(f"\n{layout} layout: {args.nodes} nodes, {args.edges} edges "
          f"(median edge {np.median(lengths):.0f} px on screen), view 1200×800; "
          f"set_graph + first paint {t_set * 1e3:.0f} ms")
    m = median_ms(pan)
    print(f"  (a) pan/zoom + repaint      median {m:6.1f} ms  ({1000 / m:5.1f} fps; "
          f"goal ≥ 30 fps) p90 {np.percentile(pan, 90) * 1e3:.1f} ms, "
          f"{paints_per_frame:.2f} paints/frame")
    if layer.active():
        print(f"      edges drawn as one image (viz/edge_layer.py); sharp again "
              f"{sharp * 1e3:.0f} ms after the last move (settle {SETTLE_MS} ms + drawing)")
    m = median_ms(recolour)
    print(f"  (b) edge recolour + repaint median {m:6.1f} ms  ({1000 / m:5.1f} fps; goal < 50 ms)")
    if recolour_sharp:
        print(f"      {len(recolour_sharp)} of {len(recolour)} drawn in part at once (the top "
              f"bins; {100 * statistics.median(part_differs):.2f} % of the edge image's "
              f"pixels differ), all sharp {median_ms(recolour_sharp):.0f} ms after the "
              f"recolour (settle {SETTLE_MS} ms + drawing), {median_ms(sharp_cpu):.0f} ms "
              f"CPU")
    if floor:
        until = recolour_sharp or recolour
        print(f"      floor: every edge line drawn once {median_ms(floor):.0f} ms "
              f"({median_ms(floor_cpu):.0f} ms CPU); recolour until sharp / floor: "
              f"{median_ms(until) / median_ms(floor):.2f} wall"
              f"{' (with the settle)' if recolour_sharp else ''}, "
              f"{median_ms(sharp_cpu) / median_ms(floor_cpu):.2f} CPU")
    m = median_ms(nodes)
    print(f"  (c) node recolour + repaint median {m:6.1f} ms  ({1000 / m:5.1f} fps)")
    m = median_ms(static)
    print(f"      static repaint          median {m:6.1f} ms  ({1000 / m:5.1f} fps)")
    print(f"  (d) hover lookup            median {median_ms(hover) * 1e3:6.0f} µs")
    peer_text = (f"networkx.draw + matplotlib savefig of the same graph and pixels "
                 f"{peer:.0f} ms (ratio {export / peer:.2f})" if peer else
                 "matplotlib not installed (the `bench` extra): no peer figure")
    print(f"  (e) PNG export at screen size median {export:6.0f} ms ({export_cpu:.0f} ms "
          f"CPU); Qt's grab + save {grab:.0f} ms ({grab_cpu:.0f} ms CPU), ratio "
          f"{export / grab:.2f} wall, {export_cpu / max(grab_cpu, 1e-9):.2f} CPU (goal "
          f"≤ 1.5)\n      {peer_text}")
    view.close()
    view.deleteLater()
    app.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--layout", choices=("local", "uniform", "both"), default="both")
    args = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    from app.responsive import share_the_interpreter
    from viz import theme

    share_the_interpreter()          # as the app's window does
    _app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    for layout in (("local", "uniform") if args.layout == "both" else (args.layout,)):
        run(layout, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
