"""The Transformer tab's size study on this CPU (one torch thread, as the tab leaves the
GUI a core): for each variant, beside the course's baseline (2 + 2 layers, d_model 64,
4 heads, d_ff 128, ReLU, post-norm), trained side by side from one seed on the tab's
default task (reverse, digits): the loss at the last step, the share of held-out
sequences decoded right at each evaluation, the weights, and the milliseconds a step
(wall beside CPU) of each model; and the whole job's wall and CPU time.

    .venv/bin/python benchmarks/bench_sizes.py [--steps 300] [--architecture encoder-decoder]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: the variants measured (``TransformerRequest`` size fields; the first is the baseline's
#: own sizes: its curves must equal the baseline's)
VARIANTS = ({}, {"size_layers": 6}, {"size_layers": 6, "size_norm": "pre"},
            {"size_heads": 1}, {"size_d_model": 16}, {"size_activation": "gelu"},
            {"size_dropout": 0.3})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--architecture", default="encoder-decoder")
    args = parser.parse_args()
    import numpy as np
    import torch

    from models.transformer.options import TransformerRequest
    from models.transformer.sizes import size_study
    from models.transformer.tasks import TaskConfig

    torch.set_num_threads(1)
    task = TaskConfig.for_alphabet("reverse", "digits")
    print(f"{args.architecture}, reverse (digits), {args.steps} steps, seed 0, 1 thread")
    print("variant | weights (base → var) | loss (base → var) | held-out right at each "
          "evaluation, base / var | ms a step wall (CPU), base / var | job s wall / CPU")
    for sizes in VARIANTS:
        variant = TransformerRequest(**sizes).size_values
        w, c = time.perf_counter(), time.process_time()
        for progress in size_study(task, args.architecture, variant, args.steps):
            s = progress.trace
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        ms = s.ms_per_step
        right = " ".join(f"{b:.0%}/{v:.0%}" for _, b, v in s.evals)
        same = " (curves identical)" if np.array_equal(s.losses[0], s.losses[1]) else ""
        print(f"{sizes or 'as the baseline'} | {s.params[0]:,} → {s.params[1]:,} | "
              f"{s.losses[0, -1]:.4f} → {s.losses[1, -1]:.4f}{same} | {right} | "
              f"{ms[0]:.1f} ({ms[2]:.1f}) / {ms[1]:.1f} ({ms[3]:.1f}) | "
              f"{wall:.1f} / {cpu:.1f}", flush=True)


if __name__ == "__main__":
    main()
