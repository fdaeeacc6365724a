"""Mask toggle → recompute → redraw, timed (the issue's goals: all heads of a 6-layer,
8-head model at length 32 under 30 ms; one layer's 8 heads at length 512 under 150 ms).

    .venv/bin/python benchmarks/bench_attention.py [--repeats 15] [--threads 1]

A toggle flips the padding mask; the model runs once with return_attention=True and the
heads are drawn (HeadGrid.set_heads + a paint of the view). Prints medians and p90, the
model and the drawing separately. Threads default to 1, as the GUI's background work.
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
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import numpy as np
    import torch
    from PySide6.QtWidgets import QApplication

    from models.transformer import Transformer
    from viz import theme
    from viz.attention import HeadGrid

    torch.set_num_threads(args.threads)
    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    model = Transformer(6, 6, d_model=256, num_heads=8, d_ff=1024, input_vocab_size=13,
                        target_vocab_size=13, max_seq_len=600, dropout=0.0).eval()
    view = HeadGrid()
    view.resize(1100, 700)
    view.show()

    for n, all_layers, first_layer in ((32, True, False), (512, False, False),
                                       (512, False, True)):
        src = torch.randint(3, 13, (1, n))
        src[0, n - n // 5:] = 0                         # a padded tail, so the mask matters
        tgt = torch.randint(3, 13, (1, n))
        tokens = [str(i) for i in range(n)]
        model_ms, draw_ms, total_ms = [], [], []
        padding = True
        for i in range(args.repeats + 2):
            padding = not padding                        # the toggle
            t0 = time.perf_counter()
            with torch.no_grad():
                if first_layer:   # encoder layer 0: its input does not depend on the mask
                    mask = model.create_padding_mask(src) if padding else None
                    x = model.embed(src, model.encoder_embedding)
                    _, w0 = model.encoder_layers[0](x, mask, return_attention=True)
                    tiles = w0[0].numpy()
                else:
                    _, maps = model(src, tgt, return_attention=True, use_padding_mask=padding)
                    w = maps.cross
                    tiles = w.reshape(-1, n, n) if all_layers else w[5]
            t1 = time.perf_counter()
            view.set_heads(tiles, tokens, tokens, [f"t{j}" for j in range(len(tiles))],
                           cols=8, ticks=not all_layers)
            view.repaint()                               # paint now, synchronously
            app.processEvents()
            t2 = time.perf_counter()
            if i >= 2:                                   # the first two warm up
                model_ms.append((t1 - t0) * 1e3)
                draw_ms.append((t2 - t1) * 1e3)
                total_ms.append((t2 - t0) * 1e3)
        what = ("all 6 layers x 8 heads (48 maps)" if all_layers else
                "encoder layer 0, 8 heads" if first_layer else
                "last decoder layer's 8 cross heads (whole model run)")
        goal = 30 if all_layers else 150
        print(f"length {n:4d}, {what}: median {statistics.median(total_ms):6.1f} ms "
              f"(model {statistics.median(model_ms):5.1f} + draw "
              f"{statistics.median(draw_ms):5.1f}), p90 "
              f"{np.percentile(total_ms, 90):6.1f} ms; goal < {goal} ms")
    print(f"torch threads {torch.get_num_threads()}, {args.repeats} toggles each, offscreen")
    view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
