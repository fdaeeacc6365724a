"""The Transformer's size and block controls (issue 35): pre-norm and GELU blocks against
PyTorch's own ``norm_first`` layers and stacks, the configuration's checks, and the size
study (a variant trained beside the baseline from one seed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from models.errors import InvalidParameterError
from models.transformer import (
    Transformer,
)
from models.transformer.seq2seq import ModelConfig
from tests.test_transformer_reference import (
    FF,
    D,
    H,
    _copy_decoder_layer,
    _copy_encoder_layer,
    _no_fast_path,  # noqa: F401 - the autouse fixture: PyTorch's slow path, seed 0
    _randomise,
    assert_equals_torch_transformer,
)


def test_a_pre_norm_gelu_transformer_equals_torch_transformer_with_its_final_norms():
    """Pre-norm stacks end in a LayerNorm each, as ``nn.Transformer``'s encoder and
    decoder norms do: the whole model, weights copied, equals PyTorch's."""
    ours = Transformer(2, 3, D, H, FF, input_vocab_size=20, target_vocab_size=17,
                       max_seq_len=50, activation="gelu", norm_first=True).eval()
    _randomise(ours)
    with torch.no_grad():                         # the final norms away from (1, 0) too
        for norm in (ours.encoder_norm, ours.decoder_norm):
            norm.weight.add_(0.1 * torch.randn(D))
            norm.bias.add_(0.1 * torch.randn(D))
    ref = nn.Transformer(D, H, 2, 3, FF, batch_first=True, activation="gelu",
                         norm_first=True).eval()
    for o, r in zip(ours.encoder_layers, ref.encoder.layers, strict=True):
        _copy_encoder_layer(o, r)
    for o, r in zip(ours.decoder_layers, ref.decoder.layers, strict=True):
        _copy_decoder_layer(o, r)
    ref.encoder.norm.load_state_dict(ours.encoder_norm.state_dict())
    ref.decoder.norm.load_state_dict(ours.decoder_norm.state_dict())
    assert_equals_torch_transformer(ours, ref)


def test_a_post_norm_model_has_no_final_norm_weights():
    """The paper's post-norm model keeps its state dict: no weight is added for the
    pre-norm option (old model and session files still load)."""
    post = ModelConfig().build(_task())
    assert not any("encoder_norm" in k or "decoder_norm" in k for k in post.state_dict())
    pre = ModelConfig(norm_first=True).build(_task())
    assert {"encoder_norm.weight", "decoder_norm.bias"} <= set(pre.state_dict())


def _task():
    from models.transformer.tasks import TaskConfig

    return TaskConfig()


@pytest.mark.parametrize("arch", ["encoder-decoder", "encoder-only", "decoder-only"])
def test_every_architecture_builds_with_gelu_and_pre_norm(arch):
    model = ModelConfig(architecture=arch, activation="gelu", norm_first=True).build(_task())
    acts = {type(m).__name__ for m in model.modules()}
    assert "GELU" in acts and "ReLU" not in acts
    layers = [m for m in model.modules() if hasattr(m, "norm_first")]
    assert layers and all(m.norm_first for m in layers)


@pytest.mark.parametrize(("field", "value"), [("activation", "swish"), ("activation", None),
                                              ("norm_first", "yes"), ("norm_first", 1)])
def test_a_block_option_outside_its_choices_is_refused(field, value):
    with pytest.raises(InvalidParameterError, match=field):
        ModelConfig(**{field: value})


# -- the size study --------------------------------------------------------------------------------
def _study(steps: int = 20, **sizes):
    from models.transformer.options import TransformerRequest
    from models.transformer.sizes import size_study

    torch.set_num_threads(1)
    variant = TransformerRequest(**sizes).size_values
    reports = list(size_study(_task(), "encoder-decoder", variant, steps))
    return reports, reports[-1].trace


def test_a_variant_sized_as_the_baseline_trains_to_the_same_bits():
    """One seed for weights, batches and held-out set: with nothing changed the two curves
    are equal to the last bit, so what differs in a study is the knob's doing."""
    reports, s = _study(20)
    assert [r.step for r in reports] == [10, 20] and s.step == s.total == 20
    assert s.losses.shape == s.token_accuracy.shape == (2, 20)
    np.testing.assert_array_equal(s.losses[0], s.losses[1])
    np.testing.assert_array_equal(s.evals[:, 1], s.evals[:, 2])
    assert s.params[0] == s.params[1]
    assert s.evals[-1, 0] == 20 and (s.ms_per_step > 0).all()


def test_a_variant_s_weights_are_those_of_the_model_it_builds():
    """Heads split d_model, they add no weight; layers and d_ff do. The counts are those of
    PyTorch's own nn.Transformer of the same sizes, plus the embeddings and the head."""
    from models.transformer.sizes import weight_count

    _, s = _study(10, size_heads=1, size_layers=3, size_d_ff=96)
    ref = nn.Transformer(64, 1, 3, 3, 96, batch_first=True)
    ref.encoder.norm, ref.decoder.norm = nn.Identity(), nn.Identity()   # post-norm: none
    vocab = _task().vocab_size
    extra = 2 * vocab * 64 + 64 * vocab + vocab      # two embeddings, the output layer
    assert s.params[1] == weight_count(ref) + extra
    _, same = _study(10, size_heads=1)
    assert same.params[0] == same.params[1]          # 1 head or 4: the same weights
    assert not np.array_equal(same.losses[0], same.losses[1])


def test_the_study_as_initialised_is_the_trained_study_s_starting_point():
    """Before "Train both" the view shows both models at step 0: the same weights as
    the study trains (one seed), and the loss its first batch gives them."""
    from models.transformer.options import TransformerRequest
    from models.transformer.sizes import initial_study

    variant = TransformerRequest(size_layers=1, size_norm="pre").size_values
    first = initial_study(_task(), "encoder-decoder", variant, 10)
    assert first.step == 0 and first.losses.shape == (2, 1) and first.evals.shape == (0, 3)
    _, trained = _study(10, size_layers=1, size_norm="pre")
    assert first.params == trained.params
    # the loss at step 1 is computed before the update, in train mode: with no dropout
    # it is the loss as initialised on that same first batch
    np.testing.assert_allclose(first.losses[:, 0], trained.losses[:, 0], rtol=1e-5)
    assert initial_study(_task(), "encoder-decoder", variant, 10) is first    # cached


def test_a_dropout_variant_gives_the_same_curves_whatever_ran_before():
    """Dropout draws from a stream of the study's own, seeded: the global generator's
    state before the study does not change a single loss."""
    torch.manual_seed(1)
    _, a = _study(10, size_dropout=0.3)
    torch.manual_seed(2)
    torch.rand(1000)
    _, b = _study(10, size_dropout=0.3)
    np.testing.assert_array_equal(a.losses, b.losses)
    assert not np.array_equal(a.losses[0], a.losses[1])


def test_a_pre_norm_variant_has_the_final_norms_and_its_own_curve():
    _, s = _study(10, size_norm="pre", size_activation="gelu")
    assert s.variant["norm_first"] and s.variant["activation"] == "gelu"
    assert s.params[1] == s.params[0] + 2 * 2 * 64   # two final LayerNorms (γ and β)
    assert not np.array_equal(s.losses[0], s.losses[1])


@pytest.mark.parametrize(("sizes", "word"), [({"size_d_model": 30, "size_heads": 4}, "size_d_model"),
                                             ({"size_d_model": 9}, "size_d_model"),
                                             ({"size_layers": 7}, "size_layers"),
                                             ({"size_dropout": 0.9}, "size_dropout"),
                                             ({"size_norm": "middle"}, "size_norm")])
def test_a_variant_outside_its_limits_is_refused_naming_the_field(sizes, word):
    from models.transformer.options import TransformerRequest

    with pytest.raises(InvalidParameterError, match=word):
        TransformerRequest(**sizes)


# -- the tab's Sizes page, and headless ----------------------------------------------------------
def test_the_sizes_page_trains_both_and_keeps_the_study_with_its_settings(qtbot, window):
    from PySide6.QtCore import Qt

    from tests.windows import open_tab

    tab = open_tab(qtbot, window, "transformer")
    tab.apply_state({"size_steps": 20, "size_norm": "pre", "size_heads": 2}, strict=True)
    tab.highlight("sizes")                                  # the tour's way to the page
    assert tab.bottom_tabs.currentIndex() == 2 and tab.sizes.form.isVisible()
    # before "Train both": both models as initialised, a point each at step 0
    qtbot.waitUntil(lambda: "as initialised" in tab.sizes.view.title(), timeout=30_000)
    first = tab.sizes.view.data()
    assert first.row_labels == [0] and first.meta["variant"]["num_heads"] == 2
    assert first.meta["evals"] == []                  # nothing decoded before training
    qtbot.mouseClick(tab.sizes.button, Qt.MouseButton.LeftButton)
    assert tab.running() == "sizes" and tab.sizes.button.text() == "Stop"
    qtbot.waitUntil(lambda: not tab.running(), timeout=120_000)
    x, curves = tab.sizes.view.plot.curves(0)
    assert len(x) == 20 and [len(c.y) for c in curves] == [20, 20]
    data = tab.sizes.view.data()
    assert data.arrays["curves"].shape == (20, 4)
    assert data.meta["variant"]["norm_first"] and data.meta["variant"]["num_heads"] == 2
    assert "20 of 20" in tab.sizes.view.title()
    assert "Model sizes: 2 heads, pre-norm (dashed)" in tab.sizes.view.title()
    assert "baseline: 2 + 2 layers, d_model 64, 4 heads, d_ff 128, ReLU, post-norm" in \
        tab.sizes.view.panel.readout.full_text()
    tab.apply_state({"size_layers": 3})                # another variant: as initialised
    qtbot.waitUntil(lambda: "3 + 3 layers" in tab.sizes.view.title()
                    and "as initialised" in tab.sizes.view.title(), timeout=30_000)
    tab.apply_state({"size_layers": 2})                # back: the trained study comes back
    qtbot.waitUntil(lambda: "20 of 20" in tab.sizes.view.title(), timeout=5000)


def test_a_size_study_exports_headless(tmp_path):
    from tests.test_cli import _run

    out = tmp_path / "sizes.csv"
    proc = _run(["export", "transformer.sizes", "--set", "size_steps=20", "--set",
                 "size_layers=1", "--set", "size_activation=gelu", "--train", "20",
                 "--out", str(out)], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len([r for r in rows if r and r[0].isdigit()]) == 20, rows[:5]
    bad = _run(["export", "transformer.sizes", "--set", "size_d_model=30", "--out",
                str(tmp_path / "x.csv")], tmp_path)
    assert bad.returncode != 0 and "size_d_model" in bad.stderr
    assert "Traceback" not in bad.stderr



def test_heads_and_d_model_stay_a_valid_pair_as_they_are_set(qtbot, window):
    """Spin boxes take any number in range; 64 over 3 heads is refused by the request
    the tab builds on every change. d_model is snapped to a multiple of lcm(2, heads)."""
    from tests.windows import open_tab

    tab = open_tab(qtbot, window, "transformer")
    heads = tab.sizes.form.widgets["size_heads"]
    d_model = tab.sizes.form.widgets["size_d_model"]
    heads.setValue(3)                      # as a click on the arrow would
    assert d_model.value() == 66 and d_model.singleStep() == 6
    assert tab.request().size_values["d_model"] == 66
    d_model.setValue(100)
    assert d_model.value() == 102
    heads.setValue(16)
    assert d_model.value() == 96 and tab.request().size_heads == 16
    d_model.setValue(9)
    assert d_model.value() == 16                     # the smallest multiple of 16 in range
    heads.setValue(4)
    d_model.setValue(64)
    assert tab.request().size_values == {**tab.request().size_values, "d_model": 64,
                                         "num_heads": 4}
