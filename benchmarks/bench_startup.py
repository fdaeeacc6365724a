"""Start-up figures: `archscope --smoke` run N times (default 5), median of each.

    .venv/bin/python benchmarks/bench_startup.py [N]

Prints one line per run and the medians. Runs offscreen unless DISPLAY is set.
Figures are seconds since the process started (from /proc on Linux).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(n: int = 5) -> int:
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    runs = []
    for i in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            env["ARCHSCOPE_SETTINGS_DIR"] = tmp
            proc = subprocess.run([sys.executable, "-m", "app", "--smoke"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=180)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        figures = json.loads(proc.stdout.strip().splitlines()[-1])
        runs.append(figures)
        print(f"run {i + 1}: {figures}")
    keys = ("first_paint_s", "torch_ready_s", "first_trace_s")
    medians = {k: round(statistics.median(r[k] for r in runs), 3) for k in keys}
    print(f"median of {n} ({'xvfb' if env.get('DISPLAY') else 'offscreen'}, "
          f"{os.cpu_count()} cores): {json.dumps(medians)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
