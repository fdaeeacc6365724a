"""The shape of the code a newcomer relies on (README, Layout): every tab module and every
topic's options module loads without torch (the window paints before torch has loaded),
the topic faces keep their public names, and no source file grows past about 600 lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ("transformer", "efficient_attention", "graphs", "flows", "ode", "meta", "pretrained",
          "community",
          "generation", "explain")


def test_tabs_and_options_load_without_torch():
    code = (
        "import importlib, sys\n"
        "from app.tabs.catalog import TABS\n"
        "for spec in TABS:\n"
        "    importlib.import_module(spec.factory.split(':')[0])\n"
        f"for topic in {TOPICS!r}:\n"
        "    importlib.import_module(f'models.{topic}.options')\n"
        "    importlib.import_module(f'models.{topic}')\n"
        "bad = [m for m in ('torch', 'torch_geometric') if m in sys.modules]\n"
        "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("module, names", [
    ("models.transformer", ["Transformer", "MultiHeadAttention", "scaled_dot_product_attention",
                            "PositionalEncoding", "create_padding_mask",
                            "create_look_ahead_mask"]),
    ("models.efficient_attention", ["build_mask", "exact_attention"]),
    ("models.graphs", ["load_graph", "GraphDocument", "GraphLoadError", "builtin_graph",
                       "NodeClassificationSession"]),
    ("models.flows", ["FlowSession", "build_flow"]),
    ("models.ode", ["SpiralSession", "odesolve"]),
    ("models.meta", ["MetaSession", "ProtoSession"]),
    ("models.pretrained", ["load_pretrained", "sentence_attention", "neuron_view",
                           "sentence_similarity", "next_tokens", "generate"]),
    ("models.generation", ["train_generator"]),
    ("models.explain", ["explain_node"]),
])
def test_topic_faces_keep_their_public_names(module, names):
    import importlib

    from models.session import TrainingSession

    face = importlib.import_module(module)
    for name in names:
        assert name in face.__all__ and getattr(face, name) is not None, name
        obj = getattr(face, name)
        if name.endswith("Session"):
            assert issubclass(obj, TrainingSession), name


def test_no_source_file_over_about_600_lines():
    long = {str(p.relative_to(ROOT)): n for folder in ("app", "viz", "models")
            for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 650}
    assert not long, long
