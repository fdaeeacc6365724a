"""Every patch of another library's internals names the versions it was written for, and
fails here, with what to do, when another is installed (``constraints.txt`` pins them).
A patch that silently stops applying after an upgrade fails far from its cause: the
window starts slower, a test about memory drifts, an import comes back."""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

import pytest

#: (module, what it patches, what to check on an upgrade before changing WRITTEN_FOR)
PATCHES = [
    ("app.torch_loader", "PySide's per-import source check (_mod_uses_pyside)",
     "tests/test_memory_bound.py (the shell lightens PySide) and benchmarks/bench_startup.py"),
    ("viz.light_plot", "pyqtgraph's PlotItem options form (ui_template)",
     "tests/test_light_plot.py (the form against pyqtgraph's, call for call and pixel for "
     "pixel)"),
    ("models.optim", "torch.optim's _disable_dynamo wrappers and their caches",
     "tests/test_lean_torch.py (Adam to the bit, the compiler kept out)"),
    ("models.optional_imports", "the import of transformers by PyG, PyG's isinstance module "
     "and torchdiffeq's scipy wrapper", "tests/test_optional_imports.py, "
     "tests/test_ode_adjoint.py, and diff models/pyg_isinstance.py and "
     "models/torchdiffeq_scipy.py against the new versions' modules"),
    ("models.ode.adjoint", "torchdiffeq's private _impl helpers",
     "tests/test_ode_adjoint.py (solutions and gradients are torchdiffeq's to the bit)"),
]


@pytest.mark.parametrize("module, touches, check", PATCHES, ids=[p[0] for p in PATCHES])
def test_each_patch_runs_on_the_versions_it_was_written_for(module, touches, check):
    written_for = importlib.import_module(module).WRITTEN_FOR
    assert written_for, module
    for dist, wanted in written_for.items():
        try:
            installed = version(dist)
        except PackageNotFoundError:
            pytest.skip(f"{dist} is not installed")
        # (the release, not its build: torch 2.13.0+cpu and +cu126 share their Python)
        assert installed.split("+")[0] == wanted, (
            f"{module} patches {touches}; it was written for {dist} {wanted}, and "
            f"{installed} is installed. Run {check}; if they pass, set WRITTEN_FOR to "
            f"{installed}, else fix the patch or drop it.")


def test_every_module_that_patches_a_library_is_listed():
    """A new patch names its versions (WRITTEN_FOR) and is listed above."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = {m for m, _, _ in PATCHES}
    found = set()
    for folder in ("app", "viz", "models"):
        for path in (root / folder).rglob("*.py"):
            if "\nWRITTEN_FOR = " in path.read_text(encoding="utf-8"):
                found.add(".".join(path.relative_to(root).with_suffix("").parts))
    assert found == listed, (found - listed, listed - found)
