"""Mask toggle → recompute → redraw, timed in the Transformer tab itself.

    .venv/bin/python benchmarks/bench_attention.py [--repeats 15] [--threads 1]

The issue's goals: after a mask toggle, recompute + redraw of all heads of a 6-layer,
8-head model at sequence length 32 under 30 ms (median); at length 512 one layer's
8 heads under 150 ms (the model alone: the tab takes at most 64 positions).

Each toggle flips the padding mask and does what the tab does, synchronously: its
``compute_fn`` (the model run with every head's attention, the step-through of the
chosen layer; the greedy output is cached per input, so a toggle does not decode
again) and ``show_trace`` (heads of the chosen layer, the layers × heads mosaic, the
head's panels, the step view), then the event loop paints what changed. Model and
drawing are reported separately, medians and p90. Threads default to 1, as the GUI's
background work. Offscreen.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _window():
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    win = MainWindow(Settings(tempfile.mkdtemp()), Translations())
    win.resize(1600, 1000)
    win.show()
    tab = win.tab("transformer")
    win.tabs_widget.setCurrentWidget(tab)
    end = time.monotonic() + 120
    while not (tab.torch_ready and tab.trace is not None) and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    return app, win, tab


def _toggles(app, win, tab, repeats: int) -> tuple[list[float], list[float]]:
    model_ms, draw_ms = [], []
    for i in range(repeats + 2):
        tab.padding.blockSignals(True)
        tab.padding.setChecked(not tab.padding.isChecked())      # the toggle
        tab.padding.blockSignals(False)
        t0 = time.perf_counter()
        trace = tab.compute_fn()()
        t1 = time.perf_counter()
        tab.show_trace(trace)
        app.processEvents()              # delivers the paint events of what changed
        t2 = time.perf_counter()
        if i >= 2:                                                # two warm-ups
            model_ms.append((t1 - t0) * 1e3)
            draw_ms.append((t2 - t1) * 1e3)
    return model_ms, draw_ms


def _report(what: str, model_ms, draw_ms, goal: float | None) -> None:
    import numpy as np

    total = [m + d for m, d in zip(model_ms, draw_ms, strict=True)]
    goal_text = f"; goal < {goal:.0f} ms" if goal else ""
    print(f"{what}: median {statistics.median(total):6.1f} ms (model "
          f"{statistics.median(model_ms):6.1f} + draw {statistics.median(draw_ms):6.1f}), "
          f"p90 {np.percentile(total, 90):6.1f} ms{goal_text}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    app, win, tab = _window()
    import torch

    from models.transformer import (
        ModelConfig,
        Seq2SeqSession,
        TaskConfig,
        format_sequence,
        random_sequence,
    )
    from viz.attention import HeadGrid
    from viz.mosaic import TileMosaic

    torch.set_num_threads(args.threads)
    key = ("encoder-decoder", "digits", "reverse")

    # 0. the tab's own model (2 + 2 layers, 4 heads, d_model 64), length 11
    _report("tab's model, length 11, all 2x4 cross heads + views",
            *_toggles(app, win, tab, args.repeats), None)

    # 1. a 6 + 6-layer, 8-head model (d_model 256) at length 32: all of its heads
    big = ModelConfig(6, 6, d_model=256, num_heads=8, d_ff=1024)
    # (64: the longest input any model the tab makes or opens takes, ``HYPERPARAMETER_
    # LIMITS["max_len"]``; the tab's request refuses a longer padding, and this loop's
    # 512 stopped the benchmark at "pad_to must be between 1 and 64, not 511")
    for length, repeats in ((32, args.repeats), (64, max(3, args.repeats // 2))):
        task = TaskConfig("reverse", 10, length - 1, length - 1)
        session = Seq2SeqSession(task, big)
        symbols = random_sequence(task, 0)
        # the greedy output, as a cache the tab fills on its first look at an input
        src = tuple([3 + s for s in symbols] + [2])
        session.output_cache[src] = [3 + s for s in reversed(symbols)] + [2]
        tab.sessions[key] = session
        tab.apply_state({"architecture": "encoder-decoder", "tokenizer": "digits",
                         "task": "reverse", "sequence": format_sequence(symbols, task),
                         "pad_to": length - 1, "kind": "cross", "layer": 5, "head": 0,
                         "generated": 0})
        tab.jobs.stop()
        _report(f"6+6 layers x 8 heads, length {length}: 48 cross maps + views",
                *_toggles(app, win, tab, repeats), 30 if length == 32 else None)

    # 2. length 32, the narrow reading of the goal: the model run that recomputes all
    #    48 heads, and the 48 heads redrawn (the mosaic alone), nothing else
    task = TaskConfig("reverse", 10, 31, 31)
    model = Seq2SeqSession(task, big).model.eval()
    mosaic = TileMosaic()
    mosaic.resize(500, 500)
    mosaic.show()
    src = torch.randint(3, 13, (1, 32))
    src[0, 26:] = 0
    tgt = torch.randint(3, 13, (1, 32))
    model_ms, draw_ms, padding = [], [], True
    for i in range(args.repeats + 2):
        padding = not padding
        t0 = time.perf_counter()
        with torch.no_grad():
            _, maps = model(src, tgt, return_attention=True, use_padding_mask=padding)
        t1 = time.perf_counter()
        mosaic.set_tiles(maps.cross.reshape(48, 32, 32), 8, [f"H{h}" for h in range(8)],
                         [f"L{i}" for i in range(6)], 0)
        app.processEvents()
        t2 = time.perf_counter()
        if i >= 2:
            model_ms.append((t1 - t0) * 1e3)
            draw_ms.append((t2 - t1) * 1e3)
    _report("6+6 layers x 8 heads, length 32: model run + the 48 maps' mosaic only",
            model_ms, draw_ms, 30)
    mosaic.close()

    # 3. length 512, one layer's 8 heads: the layer alone (its input does not depend on
    #    the padding mask for encoder layer 0), drawn in the heads view
    # a 512-token model, made here: longer than any the tab takes
    model = Seq2SeqSession(TaskConfig("reverse", 10, 511, 511), big).model.eval()
    view = HeadGrid()
    view.resize(1100, 700)
    view.show()
    src = torch.randint(3, 13, (1, 512))
    src[0, 400:] = 0
    tokens = [str(i) for i in range(512)]
    model_ms, draw_ms, padding = [], [], True
    for i in range(max(3, args.repeats // 2) + 2):
        padding = not padding
        t0 = time.perf_counter()
        with torch.no_grad():
            mask = model.create_padding_mask(src) if padding else None
            x = model.embed(src, model.encoder_embedding)
            _, w0 = model.encoder_layers[0](x, mask, return_attention=True)
            tiles = w0[0].numpy()
        t1 = time.perf_counter()
        view.set_heads(tiles, tokens, tokens, [f"head {j}" for j in range(8)])
        view.repaint()
        app.processEvents()
        t2 = time.perf_counter()
        if i >= 2:
            model_ms.append((t1 - t0) * 1e3)
            draw_ms.append((t2 - t1) * 1e3)
    _report("length 512, encoder layer 0 alone, 8 heads", model_ms, draw_ms, 150)
    print(f"torch threads {torch.get_num_threads()}, offscreen, window 1600x1000")
    view.close()
    tab.jobs.stop()
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
