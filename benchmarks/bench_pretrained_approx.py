"""What approximate attention inside all-MiniLM-L6-v2 does, and what it costs.

    .venv/bin/python benchmarks/bench_pretrained_approx.py [--repeats 5] [--seeds 3]

For the pretrained tab's default text and four sentences, each approximation of the
tab (Performer m = 8 … 1024, Linformer k = 2 … 16, sparse window w = 0 … 16) in every
layer and head: max |Δ cos| of the sentence similarities against exact, the mean row
TV distance of all heads, and of layer 0 alone (its input is still exact), averaged
over ``--seeds`` Performer draws; then the wall and CPU time of one
``approximation_comparison`` (the text's maps and the sentences' embeddings under the
approximation, the exact ones computed too), median of ``--repeats``. CPU only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TEXT = "The cat sat on the mat, and then it fell asleep."
SENTENCES = ("A man is eating food.", "A man is eating a piece of bread.",
             "A man is riding a horse.", "The girl is carrying a baby.")
CASES = ([("exact", 0)] + [("performer", m) for m in (8, 64, 256, 1024)]
         + [("linformer", k) for k in (2, 4, 8, 16)] + [("sparse", w) for w in (0, 4, 8, 16)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    import numpy as np
    import torch

    from models.pretrained import approximation_comparison, load_pretrained

    torch.set_num_threads(1)
    model = load_pretrained(None)
    n = len(model.tokens(TEXT))
    print(f"{model.name}; text of {n} tokens, {len(SENTENCES)} sentences; 1 thread")
    print(f"{'attention':>10} {'number':>6} {'max|dcos|':>10} {'TV all':>8} {'TV L0':>7}"
          f" {'wall ms':>8} {'CPU ms':>7}")
    for kind, number in CASES:
        seeds = range(args.seeds) if kind == "performer" else range(1)
        runs = [approximation_comparison(model, TEXT, SENTENCES, kind, number, s)
                for s in seeds]
        delta = float(np.mean([c.max_delta for c in runs]))
        tv_all = float(np.mean([c.head_tv.mean() for c in runs]))
        tv_0 = float(np.mean([c.head_tv[0].mean() for c in runs]))
        walls, cpus = [], []
        for _ in range(args.repeats):
            w, c = time.perf_counter(), time.process_time()
            approximation_comparison(model, TEXT, SENTENCES, kind, number, 0)
            walls.append(1e3 * (time.perf_counter() - w))
            cpus.append(1e3 * (time.process_time() - c))
        print(f"{kind:>10} {number:>6} {delta:>10.3f} {tv_all:>8.3f} {tv_0:>7.3f}"
              f" {statistics.median(walls):>8.1f} {statistics.median(cpus):>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
