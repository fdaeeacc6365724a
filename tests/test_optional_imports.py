"""PyG's optional Hugging Face helpers stay out of the app's process
(models/optional_imports.py), and nobody else is refused anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("transformers", reason="the finder only matters where transformers "
                    "is installed (the dev extra)")


def _fresh(code: str) -> dict:
    """``code`` run in a fresh interpreter; the JSON it prints last."""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_pyg_imported_by_the_app_does_not_pull_in_transformers():
    got = _fresh(
        "import json, sys, models, torch_geometric\n"
        "from torch_geometric.llm.models import llm\n"
        "before = 'transformers' in sys.modules\n"
        "import transformers\n"                      # a test's own import still works
        "print(json.dumps({'before': before, 'fallback': llm.BatchEncoding is not "
        "transformers.BatchEncoding, 'version': transformers.__version__}))")
    assert got["before"] is False
    assert got["fallback"] is True                   # PyG took its path for "not installed"
    assert got["version"]


@pytest.mark.slow
def test_without_the_finder_pyg_does_import_transformers():
    """The reference: what the finder saves is real (this machine has transformers)."""
    got = _fresh("import json, sys, torch_geometric\n"
                 "print(json.dumps({'imported': 'transformers' in sys.modules}))")
    assert got["imported"] is True


def test_other_importers_get_the_real_package_and_installing_twice_is_a_no_op():
    got = _fresh(
        "import json, sys, models\n"
        "from models.optional_imports import install\n"
        "again = install()\n"
        "import transformers.tokenization_utils_base as t\n"
        "n = sum(type(f).__name__ == '_HideFromPyG' for f in sys.meta_path)\n"
        "print(json.dumps({'again': again, 'finders': n, 'has': hasattr(t, 'BatchEncoding')}))")
    assert got == {"again": False, "finders": 1, "has": True}
