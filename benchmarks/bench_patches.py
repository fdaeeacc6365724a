"""What each patch of another library's internals buys, measured: the same work in a
fresh process with the patch and without it, interleaved, N rounds (default 3).

    .venv/bin/python benchmarks/bench_patches.py [N]

The five patches (``tests/test_patches.py`` lists them, with the versions they were
written for):

* ``app.torch_loader`` PySide's per-import source check: import torch and PyG after
  ``PySide6.QtCore``, with ``lighten_pyside_import_check`` and without.
* ``models.optim`` torch.optim's compiler wrappers: build and step an Adam, ours and
  ``torch.optim.Adam``.
* ``models.optional_imports`` the finder that keeps transformers, the compiler (PyG's
  isinstance module) and scipy.integrate (torchdiffeq) out: ``import torch_geometric,
  torchdiffeq`` with the finder and with it taken out of ``sys.meta_path``.
* ``models.ode.adjoint`` our adjoint against torchdiffeq's ``odeint_adjoint`` on the same
  small ODE, forward and backward.
* ``viz.light_plot`` pyqtgraph's options form: 60 ``PlotWidget``s with ``LightForm`` and
  with pyqtgraph's own form (offscreen).

Each run prints CPU seconds (user + system of the work), wall seconds, the peak resident
memory of the process and the modules it loaded; then the medians and the gain. Figures,
not a test: nothing here fails on a slow day.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: each child prints one JSON line of what ``_MEASURE`` reads around ``work()``
_MEASURE = textwrap.dedent("""
    import json, resource, sys, time
    {setup}
    t0, c0 = time.perf_counter(), time.process_time()
    work()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({{"cpu_s": cpu, "wall_s": wall, "peak_mb": peak,
                      "modules": len(sys.modules), "extra": extra()}}))
""")

_TORCH_LOADER = str(ROOT / "app" / "torch_loader.py")

CASES: dict[str, dict[str, str]] = {
    "app.torch_loader": {
        "patched": f"""
import importlib.util, PySide6.QtCore
spec = importlib.util.spec_from_file_location("loader", {_TORCH_LOADER!r})
loader = importlib.util.module_from_spec(spec); spec.loader.exec_module(loader)
assert loader.lighten_pyside_import_check()
def work():
    import torch, torch_geometric  # noqa
def extra(): return None
""",
        "unpatched": """
import PySide6.QtCore
def work():
    import torch, torch_geometric  # noqa
def extra(): return None
"""},
    "models.optim": {
        "patched": """
import torch, models.optim
def work():
    p = torch.nn.Parameter(torch.ones(8)); opt = models.optim.Adam([p], lr=0.1)
    for _ in range(3):
        opt.zero_grad(); (p ** 2).sum().backward(); opt.step()
def extra(): return "torch._dynamo" in sys.modules
""",
        "unpatched": """
import torch
def work():
    p = torch.nn.Parameter(torch.ones(8)); opt = torch.optim.Adam([p], lr=0.1)
    for _ in range(3):
        opt.zero_grad(); (p ** 2).sum().backward(); opt.step()
def extra(): return "torch._dynamo" in sys.modules
"""},
    "models.optional_imports": {
        "patched": """
import torch, models
def work():
    import torch_geometric, torchdiffeq  # noqa
def extra(): return sorted(m for m in ("transformers", "torch._dynamo", "scipy.integrate")
                           if m in sys.modules)
""",
        "unpatched": """
import torch, models, models.optional_imports as oi
sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, oi._HideFromPyG)]
def work():
    import torch_geometric, torchdiffeq  # noqa
def extra(): return sorted(m for m in ("transformers", "torch._dynamo", "scipy.integrate")
                           if m in sys.modules)
"""},
    "models.ode.adjoint": {
        "patched": """
import torch
from models.ode.adjoint import odeint_adjoint
""",
        "unpatched": """
import torch
from torchdiffeq import odeint_adjoint
"""},
    "viz.light_plot": {
        "patched": """
import os; os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtWidgets import QApplication
app = QApplication([])
import viz, pyqtgraph as pg
from viz import light_plot
assert light_plot.installed()
plots = []
def work():
    plots.extend(pg.PlotWidget() for _ in range(60))
def extra(): return None
""",
        "unpatched": """
import os; os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtWidgets import QApplication
app = QApplication([])
import pyqtgraph as pg
plots = []
def work():
    plots.extend(pg.PlotWidget() for _ in range(60))
def extra(): return None
"""},
}

_ADJOINT_WORK = """
class F(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Sequential(
            torch.nn.Linear(2, 32), torch.nn.Tanh(), torch.nn.Linear(32, 2))
    def forward(self, t, y): return self.net(y)
torch.manual_seed(0)
f = F(); y0 = torch.randn(16, 2); t = torch.linspace(0, 1, 5)
def work():
    y = odeint_adjoint(f, y0, t, adjoint_params=tuple(f.parameters()), rtol=1e-5, atol=1e-6)
    y.pow(2).sum().backward()
def extra(): return "sympy" in sys.modules
"""
for _side in ("patched", "unpatched"):
    CASES["models.ode.adjoint"][_side] += _ADJOINT_WORK


def run_one(setup: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    code = _MEASURE.format(setup=setup)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=600).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(rounds: int) -> None:
    results: dict[tuple[str, str], list[dict]] = {}
    for r in range(rounds):
        for name, sides in CASES.items():
            for side in (("patched", "unpatched") if r % 2 == 0 else ("unpatched", "patched")):
                got = run_one(sides[side])
                results.setdefault((name, side), []).append(got)
                print(f"round {r + 1} {name:<24} {side:<9} cpu {got['cpu_s']:.3f} s  "
                      f"wall {got['wall_s']:.3f} s  peak {got['peak_mb']:.0f} MB  "
                      f"modules {got['modules']}  {got['extra']}", flush=True)
    print("\nmedians (patched vs unpatched; the gain is unpatched - patched)")
    for name in CASES:
        med = {side: {k: statistics.median(x[k] for x in results[(name, side)])
                      for k in ("cpu_s", "wall_s", "peak_mb", "modules")}
               for side in ("patched", "unpatched")}
        p, u = med["patched"], med["unpatched"]
        print(f"{name:<24} cpu {p['cpu_s']:.3f} vs {u['cpu_s']:.3f} s "
              f"(-{u['cpu_s'] - p['cpu_s']:.3f}), wall {p['wall_s']:.3f} vs {u['wall_s']:.3f} s, "
              f"peak {p['peak_mb']:.0f} vs {u['peak_mb']:.0f} MB "
              f"(-{u['peak_mb'] - p['peak_mb']:.0f}), modules {p['modules']:.0f} vs "
              f"{u['modules']:.0f}; last: {results[(name, 'patched')][-1]['extra']} vs "
              f"{results[(name, 'unpatched')][-1]['extra']}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
