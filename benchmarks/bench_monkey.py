"""The long monkey (issue 19): thousands of seeded random actions on the whole window,
with the resident memory every 250 actions, the longest event-loop stall and the seed.

    .venv/bin/python benchmarks/bench_monkey.py [--seed 7] [--actions 2000]
                                                [--log /tmp/monkey.log] [--every 250]
                                                [--big]

Runs ``tests/monkey.py`` in a subprocess (a crash is reported with the seed and the last
actions, as in tests/test_monkey.py) and prints its figures as they come:

    actions   RSS MB   longest own stall ms
        0      731            0
      250      902          812
    ...

then the longest stall (the GUI thread's own part, and the wall time with the wait for a
CPU on a busy machine), the action it came with, what failed, and the command that
replays the seed. Prints figures; fails only on a crash or a hang (exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.monkey import crash_report  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock")
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--every", type=int, default=250, help="RSS every N actions")
    parser.add_argument("--log", default=None, help="keep the action log here")
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds")
    parser.add_argument("--big", action="store_true",
                        help="the corpus also holds the large text files (80 MB)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    with tempfile.TemporaryDirectory(prefix="bench-monkey-") as tmp:
        log = args.log or str(Path(tmp) / "monkey.log")
        env = {**os.environ, "ARCHSCOPE_SETTINGS_DIR": str(Path(tmp) / "settings")}
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        cmd = [sys.executable, "-m", "tests.monkey", "--seed", str(seed), "--actions",
               str(args.actions), "--rss-every", str(args.every), "--log", log]
        cmd += ["--big"] if args.big else []
        print(f"seed {seed}: {' '.join(cmd[1:])}", flush=True)
        print(f"{'actions':>8} {'RSS MB':>8} {'longest own stall ms':>21}", flush=True)
        t0 = time.perf_counter()
        # stderr into a file, not a pipe read at the end: Qt's warnings over thousands of
        # actions fill a pipe's 64 KB and the monkey would block writing the next one
        errors = (Path(tmp) / "stderr.txt").open("w+", encoding="utf-8")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=errors, text=True)
        summary = None
        try:
            for line in proc.stdout:
                if not line.startswith("{"):
                    continue
                item = json.loads(line)
                if "rss_mb" in item:
                    print(f"{item['action']:>8} {item['rss_mb']:>8.0f} "
                          f"{item.get('longest_stall_ms', 0):>21}", flush=True)
                summary = item.get("summary", summary)
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
        errors.seek(0)
        err = errors.read()
        errors.close()
        took = time.perf_counter() - t0
        rc = proc.returncode
        if summary is None:
            tail = Path(log).read_text(encoding="utf-8").splitlines()[-40:] \
                if Path(log).exists() else []
            print(f"\nthe monkey (seed {seed}) did not finish: return code {rc}.\n"
                  "last actions:\n" + "\n".join(tail) + "\nstderr:\n" + crash_report(err))
            return 2
        print(f"\nseed {seed}: {summary['actions']} actions in {took:.0f} s "
              f"({summary['seconds']:.0f} s of actions)")
        print(f"longest stall: {summary['longest_stall_ms']:.0f} ms of the GUI thread's own "
              f"({summary['longest_wall_stall_ms']:.0f} ms wall, with the wait for a CPU), "
              f"at action {summary['longest_stall_action']}; the run's limit "
              f"{summary.get('stall_limit_ms', 0):.0f} ms (2 s × load per core, at least 1)")
        print(f"RSS: {' → '.join(f'{mb:.0f}' for _, mb in summary['rss_mb'])} MB")
        settled = summary.get("settled_mb", [])
        if len(settled) == 2:
            print(f"settled RSS (jobs stopped, garbage collected, free pages returned): "
                  f"{settled[0][1]:.0f} MB at the start, {settled[1][1]:.0f} MB after "
                  f"{settled[1][0]} actions")
        print(f"clear messages shown: {summary['messages']}; actions: {summary['counts']}")
        for p in summary["problems"]:
            print(f"- action {p['action']}: {p['kind']}: {p['text'][:1500]}")
        print(f"replay: .venv/bin/python -m tests.monkey --seed {seed} --actions "
              f"{args.actions} --log /tmp/monkey.log")
        return 0


if __name__ == "__main__":
    sys.exit(main())
