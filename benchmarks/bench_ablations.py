"""The Ablations view's measurements and what one costs, on the tab's default model.

    .venv/bin/python benchmarks/bench_ablations.py [--repeats 5] [--threads 1]

For each switch (``models.transformer.options.ABLATIONS``) it prints the headline numbers
the view shows (baseline → ablated; the same seeded encoder stacks, the tab's default
input "3 1 4 1 5 9 2 6" padded to 10) and the time of one uncached ``ablation_trace``
(two models built, the measurement run): the median of ``--repeats``, wall and CPU
time side by side. Threads default to 1, as the GUI's background work.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch

    from models.transformer import ModelConfig, TaskConfig
    from models.transformer.ablation import _cached, ablation_trace
    from models.transformer.options import ABLATIONS

    torch.set_num_threads(args.threads)
    task, cfg = TaskConfig.for_alphabet("reverse", "digits"), ModelConfig()
    symbols = [3, 1, 4, 1, 5, 9, 2, 6]
    labels = {
        "no_pe": "max |f(Px) - P f(x)|: with PE, without",
        "no_scale": "mean largest weight, rows > 0.9, mean |dL/dS|, mean |dL/dW_q| "
                    "(scaled, not scaled each)",
        "no_residual": "param-grad norm layer 1 / last, |dL/d(layer-1 input)| "
                       "(with, without residuals each)",
        "batchnorm": "max change of real tokens' outputs with padding: LayerNorm, BatchNorm",
    }
    print(f"d_model {cfg.d_model}, heads {cfg.num_heads}, d_k {cfg.d_model // cfg.num_heads},"
          f" {cfg.num_encoder_layers + cfg.num_decoder_layers} layers, threads "
          f"{args.threads}")
    for name in ABLATIONS:
        walls, cpus = [], []
        for _ in range(args.repeats):
            _cached.cache_clear()
            w0, c0 = time.perf_counter(), time.process_time()
            trace = ablation_trace(cfg, task, symbols, 10, name)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        numbers = ", ".join(f"{v:.3g}" for v in trace.summary)
        print(f"{name:12s} wall {statistics.median(walls) * 1e3:6.1f} ms  cpu "
              f"{statistics.median(cpus) * 1e3:6.1f} ms  | {labels[name]}: {numbers}")


if __name__ == "__main__":
    main()
