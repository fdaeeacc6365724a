"""The bundled all-MiniLM-L6-v2 in the course's components, against transformers.

    .venv/bin/python benchmarks/bench_pretrained.py [--repeats 15] [--threads N]

Prints the load time of the bundled model (torch already imported; the import is
timed apart), then, for one sentence of 16, 128 and 512 tokens, ``attention(text)``
(tokenising, the forward pass with every head of every layer captured, the
``AttentionMaps`` trace in numpy) beside transformers' eager ``BertModel`` with
``output_attentions=True`` on the same ids and weights, its attentions also turned
into one numpy array. Medians and p90 of ``--repeats`` runs of wall time, and the
median CPU time of the process beside it (user + system: page faults on the 75 MB of
maps at 512 tokens count there), interleaved so a busy machine slows both alike; the
ratio is ours / transformers' of each. The goals: issue 24's within 1.5× of
transformers' eager path and under 100 ms at 128 tokens, issue 36's ≤ 1.05× at 512
tokens. Threads default to torch's own choice.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _ms(values: list[float], cpu: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return (f"median {statistics.median(values):7.1f} ms  p90 {p90:7.1f} ms  "
            f"CPU {statistics.median(cpu):7.1f} ms")


def _timed(fn):
    """``fn()``, its wall and CPU time in ms."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, 1e3 * (time.perf_counter() - w), 1e3 * (time.process_time() - c)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()

    t0 = time.perf_counter()
    import torch
    t1 = time.perf_counter()
    if args.threads:
        torch.set_num_threads(args.threads)
    from models.pretrained import load_pretrained
    from models.pretrained.options import bundled_model_path
    t2 = time.perf_counter()
    model = load_pretrained()
    t3 = time.perf_counter()
    print(f"torch import {1e3 * (t1 - t0):.0f} ms; models.pretrained import "
          f"{1e3 * (t2 - t1):.0f} ms; load_pretrained() (bundled {model.name}, "
          f"{model.num_parameters:,} parameters) {1e3 * (t3 - t2):.0f} ms; "
          f"threads {torch.get_num_threads()}")

    try:
        from transformers import BertModel
    except ImportError:
        BertModel = None
        print("transformers is not installed: our figures only")
    ref = None
    if BertModel is not None:
        t4 = time.perf_counter()
        ref = BertModel.from_pretrained(bundled_model_path(),
                                        attn_implementation="eager").eval()
        print(f"transformers BertModel.from_pretrained (eager) {1e3 * (time.perf_counter() - t4):.0f} ms")

    for n in (16, 128, 512):
        text = " ".join(["word"] * (n - 2))                 # [CLS] word × (n-2) [SEP]
        enc = model.encode(text)
        assert len(enc.ids) == n, len(enc.ids)
        ours, theirs, ours_cpu, theirs_cpu = [], [], [], []

        def run_ref(text=text):
            e = model.tokenizer.encode(text)
            with torch.inference_mode():
                out = ref(torch.tensor([e.ids]), token_type_ids=torch.tensor([e.type_ids]),
                          output_attentions=True)
            return torch.cat(out.attentions).numpy()

        for i in range(args.repeats + 2):                   # 2 warm-up runs
            maps, m, mc = _timed(lambda text=text: model.attention(text))
            if i >= 2:
                ours.append(m)
                ours_cpu.append(mc)
            if ref is not None:
                expected, r, rc = _timed(run_ref)
                if i >= 2:
                    theirs.append(r)
                    theirs_cpu.append(rc)
        line = f"{n:4d} tokens  ours: {_ms(ours, ours_cpu)}"
        if theirs:
            ratio = statistics.median(ours) / statistics.median(theirs)
            cpu_ratio = statistics.median(ours_cpu) / statistics.median(theirs_cpu)
            diff = float(abs(maps.encoder_self - expected).max())
            line += f"  |  transformers eager: {_ms(theirs, theirs_cpu)}  |  ratio " \
                    f"{ratio:.2f}x (CPU {cpu_ratio:.2f}x), max |Δ| {diff:.1e}"
        print(line)


if __name__ == "__main__":
    main()
