"""The positional encoding, checked against references written here, not against itself.

- the formula of "Attention Is All You Need" (section 3.5), in numpy float64;
- the Annotated Transformer's module: a buffer ``pe`` of shape (1, max_len, d_model),
  ``forward`` adds ``pe[:, :seq_len]`` then applies dropout;
- the identities the explorer shows: ``PE PE^T`` is symmetric with diagonal d/2, and
  ``M_k PE[pos] = PE[pos + k]`` with ``M_k`` orthogonal.
"""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
import time
from dataclasses import FrozenInstanceError
from pathlib import Path

import numpy as np
import pytest
import torch

from models.devices import available_devices, resolve_device
from models.errors import DeviceUnavailableError, InvalidParameterError, TrainingDivergedError
from models.traces import OffsetFitTrace, PEGrid, Progress
from models.transformer import (
    MAX_SIMILARITY_POSITIONS,
    PositionalEncoding,
    compute_pe_grid,
    fit_offset_map,
    relative_position_matrix,
    sinusoidal_table,
    token_embeddings,
)

ROOT = Path(__file__).resolve().parent.parent


def reference_table(max_len: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d))."""
    pe = np.empty((max_len, d_model), np.float64)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe


# -- sinusoidal_table ----------------------------------------------------------------------


@pytest.mark.parametrize(("max_len", "d_model", "base"), [
    (1, 2, 10000.0), (50, 16, 10000.0), (64, 6, 100.0), (30, 32, 2.5), (500, 128, 10000.0)])
def test_table_matches_the_paper_formula(max_len, d_model, base):
    table = sinusoidal_table(max_len, d_model, base)

    assert table.dtype == torch.float32
    assert tuple(table.shape) == (max_len, d_model)
    np.testing.assert_allclose(table.numpy(), reference_table(max_len, d_model, base),
                               rtol=0, atol=1e-6)


def test_table_stays_accurate_at_long_positions():
    # float32 angles would be ~1e-4 off near position 5000; the table must not be
    max_len, d_model = 5000, 8
    table = sinusoidal_table(max_len, d_model).numpy()
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    freq = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    np.testing.assert_allclose(table[:, 0::2], np.sin(pos * freq), rtol=0, atol=1e-6)
    np.testing.assert_allclose(table[:, 1::2], np.cos(pos * freq), rtol=0, atol=1e-6)


def test_row_zero_is_sin0_cos0_and_dimension_zero_has_period_two_pi():
    table = sinusoidal_table(40, 10).numpy()
    np.testing.assert_array_equal(table[0, 0::2], 0.0)
    np.testing.assert_array_equal(table[0, 1::2], 1.0)
    np.testing.assert_allclose(table[:, 0], np.sin(np.arange(40)), atol=1e-6)


# -- PositionalEncoding (the Annotated Transformer's module) --------------------------------


def test_module_registers_pe_as_a_buffer_of_shape_1_maxlen_dmodel():
    module = PositionalEncoding(d_model=12, dropout=0.1, max_len=30)

    buffers = dict(module.named_buffers())
    assert set(buffers) == {"pe"}
    assert tuple(buffers["pe"].shape) == (1, 30, 12)
    assert "pe" in module.state_dict()
    assert list(module.parameters()) == []
    np.testing.assert_allclose(buffers["pe"][0].numpy(), reference_table(30, 12),
                               rtol=0, atol=1e-6)


def test_eval_forward_is_exactly_x_plus_pe():
    torch.manual_seed(0)
    module = PositionalEncoding(d_model=16, dropout=0.5, max_len=40).eval()
    x = torch.randn(3, 25, 16)

    out = module(x)

    assert out.shape == x.shape
    assert torch.equal(out, x + module.pe[:, :25])


def test_eval_forward_broadcasts_the_same_positions_over_the_batch():
    module = PositionalEncoding(d_model=8, dropout=0.0, max_len=20).eval()
    out = module(torch.zeros(4, 20, 8))
    for b in range(4):
        np.testing.assert_allclose(out[b].numpy(), reference_table(20, 8), atol=1e-6)


def test_train_forward_applies_dropout_to_the_sum():
    p = 0.3
    torch.manual_seed(1234)
    module = PositionalEncoding(d_model=64, dropout=p, max_len=100).train()
    x = torch.full((8, 60, 64), 3.0)  # x + pe lies in [2, 4], never 0
    expected = x + module.pe[:, :60]

    out = module(x)

    dropped = out == 0
    assert abs(dropped.float().mean().item() - p) < 0.02
    kept = ~dropped
    torch.testing.assert_close(out[kept], expected[kept] / (1 - p), rtol=1e-6, atol=1e-6)


def test_module_moves_its_buffer_with_to():
    module = PositionalEncoding(d_model=8, max_len=10).to(torch.float64)
    assert module.pe.dtype == torch.float64


def test_forward_longer_than_max_len_is_refused_naming_max_len():
    module = PositionalEncoding(d_model=8, max_len=10)
    with pytest.raises(InvalidParameterError, match="max_len"):
        module(torch.zeros(1, 11, 8))


# -- similarity and the relative-position map ----------------------------------------------


def test_similarity_is_symmetric_with_diagonal_d_model_over_two():
    grid = compute_pe_grid(d_model=32, max_len=80, offset=3)

    sim = grid.similarity.astype(np.float64)
    assert sim.shape == (80, 80)
    np.testing.assert_allclose(sim, sim.T, rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.diag(sim), 16.0, rtol=0, atol=1e-4)
    ref = reference_table(80, 32)
    np.testing.assert_allclose(sim, ref @ ref.T, rtol=0, atol=1e-4)


@pytest.mark.parametrize(("d_model", "base", "offset"), [
    (2, 10000.0, 1), (16, 10000.0, 4), (64, 100.0, 7), (128, 10000.0, 50), (10, 3.0, 99)])
def test_offset_matrix_maps_every_position_k_steps_ahead(d_model, base, offset):
    max_len = 200
    m = relative_position_matrix(d_model, offset, base).numpy().astype(np.float64)
    pe = reference_table(max_len, d_model, base)

    predicted = pe[: max_len - offset] @ m.T        # row p: M_k PE[p]
    np.testing.assert_allclose(predicted, pe[offset:], rtol=0, atol=1e-5)
    np.testing.assert_allclose(m @ m.T, np.eye(d_model), rtol=0, atol=1e-6)


def test_offset_matrix_for_k_zero_is_the_identity():
    np.testing.assert_array_equal(relative_position_matrix(12, 0).numpy(), np.eye(12))


def test_offset_matrix_is_block_diagonal_rotations():
    m = relative_position_matrix(6, 5, 10000.0).numpy()
    off_block = m.copy()
    for i in range(0, 6, 2):
        off_block[i:i + 2, i:i + 2] = 0
        np.testing.assert_allclose(np.linalg.det(m[i:i + 2, i:i + 2]), 1.0, atol=1e-6)
    np.testing.assert_array_equal(off_block, 0)


@pytest.mark.parametrize(("d_model", "max_len", "base", "offset"), [
    (16, 64, 10000.0, 1), (64, 300, 100.0, 7), (128, 1000, 10000.0, 250),
    (64, 4096, 10000.0, 4)])
def test_grid_offset_error_is_tiny_at_every_position(d_model, max_len, base, offset):
    grid = compute_pe_grid(d_model=d_model, max_len=max_len, base=base, offset=offset)

    assert grid.offset_error.shape == (max_len - offset,)
    assert grid.offset_max_error < 1e-5
    m = grid.offset_matrix.astype(np.float64)
    pe = grid.pe.astype(np.float64)
    np.testing.assert_allclose(pe[:-offset] @ m.T, pe[offset:], rtol=0, atol=1e-5)


def test_long_table_samples_similarity_at_an_even_stride():
    max_len = 2500
    grid = compute_pe_grid(d_model=16, max_len=max_len, offset=4)

    pos = grid.sim_positions
    assert pos.dtype == np.int64
    assert 1 < len(pos) <= MAX_SIMILARITY_POSITIONS
    steps = np.diff(pos)
    assert steps.min() == steps.max() > 1
    assert pos[0] == 0 and pos[-1] + steps[0] >= max_len
    assert grid.similarity.shape == (len(pos), len(pos))
    sub = grid.pe[pos].astype(np.float64)
    np.testing.assert_allclose(grid.similarity, sub @ sub.T, rtol=0, atol=1e-4)
    assert grid.pe.shape == (max_len, 16)  # the table itself is not sampled


@pytest.mark.parametrize("max_len", [1, 7, MAX_SIMILARITY_POSITIONS])
def test_short_table_uses_every_position_for_similarity(max_len):
    grid = compute_pe_grid(d_model=8, max_len=max_len, offset=0, sentence="a")
    np.testing.assert_array_equal(grid.sim_positions, np.arange(max_len))


# -- compute_pe_grid: the rest of the trace -------------------------------------------------


def test_grid_tables_curves_and_tokens_agree_with_the_reference():
    grid = compute_pe_grid(d_model=16, max_len=50, base=1000.0, offset=2,
                           curve_dims=(0, 3, 15, 16, -1), sentence="the cat sat on the mat")

    ref = reference_table(50, 16, 1000.0)
    np.testing.assert_allclose(grid.pe, ref, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(grid.curve_dims, [0, 3, 15])  # out-of-range dims dropped
    np.testing.assert_array_equal(grid.curves, grid.pe[:, [0, 3, 15]].T)
    assert grid.tokens == ("the", "cat", "sat", "on", "the", "mat")
    np.testing.assert_array_equal(grid.token_pe, grid.pe[:6])
    expected_emb = token_embeddings(grid.tokens, 16, "normal").numpy() * 4.0  # sqrt(16)
    np.testing.assert_allclose(grid.token_embedding, expected_emb, rtol=1e-6, atol=1e-6)
    # eval mode: the module's output is exactly embedding + PE
    np.testing.assert_allclose(grid.token_sum, grid.token_embedding + grid.token_pe,
                               rtol=0, atol=1e-6)
    assert (grid.d_model, grid.max_len, grid.base, grid.offset) == (16, 50, 1000.0, 2)
    assert grid.device == "cpu"


def test_grid_with_no_valid_curve_dims_has_an_empty_curves_array():
    grid = compute_pe_grid(d_model=8, max_len=10, offset=1, curve_dims=(99,))
    assert grid.curves.shape == (0, 10)


def test_empty_sentence_becomes_one_placeholder_token():
    grid = compute_pe_grid(d_model=8, max_len=10, offset=1, sentence="   ")
    assert len(grid.tokens) == 1
    assert grid.token_sum.shape == (1, 8)


# -- invalid parameters ---------------------------------------------------------------------


INVALID = [
    ("odd d_model", lambda: sinusoidal_table(10, 7), "d_model"),
    ("zero d_model", lambda: sinusoidal_table(10, 0), "d_model"),
    ("negative d_model", lambda: sinusoidal_table(10, -4), "d_model"),
    ("zero max_len", lambda: sinusoidal_table(0, 8), "max_len"),
    ("base one", lambda: sinusoidal_table(10, 8, base=1.0), "base"),
    ("base below one", lambda: sinusoidal_table(10, 8, base=0.5), "base"),
    ("base zero", lambda: sinusoidal_table(10, 8, base=0.0), "base"),
    ("base nan", lambda: sinusoidal_table(10, 8, base=float("nan")), "base"),
    ("base inf", lambda: sinusoidal_table(10, 8, base=float("inf")), "base"),
    ("module odd d_model", lambda: PositionalEncoding(9, max_len=10), "d_model"),
    ("module zero max_len", lambda: PositionalEncoding(8, max_len=0), "max_len"),
    ("module base nan", lambda: PositionalEncoding(8, max_len=5, base=float("nan")), "base"),
    ("matrix odd d_model", lambda: relative_position_matrix(5, 1), "d_model"),
    ("grid odd d_model", lambda: compute_pe_grid(d_model=7, max_len=10, offset=1), "d_model"),
    ("grid zero max_len", lambda: compute_pe_grid(d_model=8, max_len=0, offset=0), "max_len"),
    ("grid base one", lambda: compute_pe_grid(d_model=8, max_len=10, offset=1, base=1.0),
     "base"),
    ("grid offset = max_len", lambda: compute_pe_grid(d_model=8, max_len=10, offset=10),
     "offset"),
    ("grid negative offset", lambda: compute_pe_grid(d_model=8, max_len=10, offset=-1),
     "offset"),
    ("grid sentence too long",
     lambda: compute_pe_grid(d_model=8, max_len=3, offset=1, sentence="a b c d"), "max_len"),
    ("grid unknown init",
     lambda: compute_pe_grid(d_model=8, max_len=10, offset=1, embedding_init="xavier"),
     "initialisation"),
    ("embeddings unknown init", lambda: token_embeddings(["a"], 8, "uniform"), "uniform"),
    ("fit offset zero", lambda: next(fit_offset_map(d_model=8, max_len=16, offset=0)),
     "offset"),
    ("fit offset = max_len", lambda: next(fit_offset_map(d_model=8, max_len=16, offset=16)),
     "offset"),
    ("fit odd d_model", lambda: next(fit_offset_map(d_model=5, max_len=16, offset=2)),
     "d_model"),
]


@pytest.mark.parametrize(("make", "word"), [pytest.param(m, w, id=i) for i, m, w in INVALID])
def test_invalid_parameter_is_refused_with_a_message_naming_it(make, word):
    with pytest.raises(InvalidParameterError) as info:
        make()
    assert word in str(info.value)
    assert isinstance(info.value, ValueError)  # callers that catch ValueError still work


@pytest.mark.parametrize("base", [1.0, float("nan")])
def test_offset_matrix_refuses_the_bases_the_table_refuses(base):
    # Regression: relative_position_matrix once returned NaNs for base=nan without a word.
    with pytest.raises(InvalidParameterError, match="base"):
        relative_position_matrix(8, 3, base=base)


# -- token_embeddings -----------------------------------------------------------------------


@pytest.mark.parametrize(("init", "d_model", "expected_std"), [
    ("normal", 256, 1.0), ("scaled", 256, 256 ** -0.5), ("scaled", 64, 64 ** -0.5)])
def test_embedding_init_has_the_documented_scale(init, d_model, expected_std):
    tokens = [f"tok{i}" for i in range(200)]

    emb = token_embeddings(tokens, d_model, init, seed=5)

    assert emb.dtype == torch.float32
    assert tuple(emb.shape) == (200, d_model)
    std = emb.std().item()
    assert abs(std / expected_std - 1) < 0.03
    assert abs(emb.mean().item()) < 0.05 * expected_std
    if init == "scaled":  # sqrt(d) * E has unit scale, like the encoding
        assert abs((emb * math.sqrt(d_model)).std().item() - 1) < 0.03


def test_same_token_gets_the_same_embedding_row():
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    emb = token_embeddings(tokens, 16, "normal").numpy()

    np.testing.assert_array_equal(emb[0], emb[4])
    distinct = emb[[0, 1, 2, 3, 5]]
    assert len(np.unique(distinct, axis=0)) == 5


def test_embeddings_are_deterministic_for_a_seed_and_differ_between_seeds():
    tokens = ["a", "b", "c"]
    first = token_embeddings(tokens, 8, "scaled", seed=3)
    torch.manual_seed(999)  # the global generator must not matter
    torch.randn(10)
    second = token_embeddings(tokens, 8, "scaled", seed=3)
    other = token_embeddings(tokens, 8, "scaled", seed=4)

    assert torch.equal(first, second)
    assert not torch.allclose(first, other)


def test_embedding_of_a_token_does_not_depend_on_sentence_order():
    one = token_embeddings(["cat", "dog"], 8, "normal")
    two = token_embeddings(["dog", "cat"], 8, "normal")
    assert torch.equal(one[0], two[1])


# -- fit_offset_map -------------------------------------------------------------------------


SMALL_FIT = {"d_model": 8, "max_len": 64, "offset": 3, "lr": 3e-2, "steps": 400,
             "report_every": 5}


@pytest.fixture(scope="module")
def small_fit_reports() -> list[Progress]:
    return list(fit_offset_map(**SMALL_FIT))


def test_fit_is_a_generator_of_progress():
    gen = fit_offset_map(**{**SMALL_FIT, "steps": 10})
    assert inspect.isgenerator(gen)
    first = next(gen)
    assert isinstance(first, Progress) and first.step == 5
    gen.close()


def test_fit_reports_every_few_steps_up_to_the_total(small_fit_reports):
    steps = [p.step for p in small_fit_reports]
    assert steps == list(range(5, 401, 5))
    assert all(p.total == 400 for p in small_fit_reports)
    fractions = [p.fraction for p in small_fit_reports]
    assert fractions == sorted(fractions)
    assert fractions[0] == pytest.approx(5 / 400)
    assert fractions[-1] == 1.0


def test_fit_history_has_one_loss_per_step(small_fit_reports):
    for p in small_fit_reports:
        assert p.history.shape == (p.step,)
        assert p.history.dtype == np.float32
        assert p.history[-1] == pytest.approx(p.loss, rel=1e-6)
    final = small_fit_reports[-1].history
    np.testing.assert_array_equal(small_fit_reports[10].history, final[:55])


def test_fit_learns_the_offset_map(small_fit_reports):
    first, last = small_fit_reports[0], small_fit_reports[-1]

    # W starts at 0, so the first loss is mean(PE^2) = 1/2
    assert last.history[0] == pytest.approx(0.5, rel=1e-5)
    assert last.loss < last.history[0] / 100
    assert last.metrics["max_prediction_error"] < 0.1
    assert last.metrics["max_prediction_error"] < first.metrics["max_prediction_error"] / 5
    trace = last.trace
    assert isinstance(trace, OffsetFitTrace)
    assert trace.offset == 3
    np.testing.assert_allclose(trace.analytic, relative_position_matrix(8, 3).numpy())
    assert last.metrics["max_abs_diff"] == pytest.approx(trace.max_abs_difference, rel=1e-6)
    # the fast pairs of dimensions are pinned down: there W is close to M_k
    np.testing.assert_allclose(trace.learned[:2, :2], trace.analytic[:2, :2], atol=0.05)


def test_fit_learned_matrix_in_a_report_does_not_change_afterwards():
    # Regression: each report's `learned` was a view of the live weight on the CPU.
    gen = fit_offset_map(**{**SMALL_FIT, "steps": 40})
    first = next(gen)
    snapshot = first.trace.learned.copy()

    for _ in gen:
        pass

    np.testing.assert_array_equal(first.trace.learned, snapshot)


def test_fit_is_deterministic_for_a_seed():
    a = [p.loss for p in fit_offset_map(**{**SMALL_FIT, "steps": 30}, seed=7)]
    b = [p.loss for p in fit_offset_map(**{**SMALL_FIT, "steps": 30}, seed=7)]
    assert a == b


def test_fit_can_be_stopped_early_by_breaking_out():
    gen = fit_offset_map(**SMALL_FIT)
    seen = []
    for progress in gen:
        seen.append(progress.step)
        if progress.step >= 15:
            break
    gen.close()
    assert seen == [5, 10, 15]
    with pytest.raises(StopIteration):
        next(gen)


def test_fit_with_infinite_learning_rate_raises_training_diverged():
    with pytest.raises(TrainingDivergedError) as info:
        for _ in fit_offset_map(d_model=8, max_len=64, offset=3, lr=float("inf"), steps=50):
            pass
    assert "learning rate" in str(info.value)
    assert isinstance(info.value, FloatingPointError)


def test_fit_raises_training_diverged_when_the_loss_turns_nan(monkeypatch):
    real_mean = torch.mean
    calls = {"n": 0}

    def nan_on_third_step(t, *args, **kwargs):
        calls["n"] += 1
        out = real_mean(t, *args, **kwargs)
        return out * float("nan") if calls["n"] == 3 else out

    monkeypatch.setattr(torch, "mean", nan_on_third_step)
    reports = []
    with pytest.raises(TrainingDivergedError, match="step 3"):
        for p in fit_offset_map(d_model=8, max_len=64, offset=3, steps=10, report_every=1):
            reports.append(p.step)
    assert reports == [1, 2]


# -- traces ---------------------------------------------------------------------------------


def _grid_from(arrays: dict) -> PEGrid:
    return PEGrid(d_model=4, max_len=3, base=10000.0, offset=1, device="cpu",
                  tokens=("a",), embedding_init="normal", **arrays)


def test_pe_grid_freezes_arrays_c_contiguous_float32_read_only():
    f64_fortran = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4))
    arrays = {
        "pe": f64_fortran, "curve_dims": np.array([0, 1], np.int64),
        "curves": f64_fortran.T[:2], "sim_positions": np.arange(3),
        "similarity": np.eye(3)[:, ::-1], "offset_matrix": np.eye(4),
        "offset_error": np.zeros(2), "token_embedding": np.ones((1, 4)),
        "token_pe": np.ones((1, 4)), "token_sum": np.ones((1, 4)), "token_rms": np.ones((3, 1)),
    }

    grid = _grid_from(arrays)

    for name, value in grid.arrays().items():
        assert value.flags.c_contiguous, name
        assert not value.flags.writeable, name
        if name in ("curve_dims", "sim_positions"):
            assert value.dtype.kind == "i", name
        else:
            assert value.dtype == np.float32, name
        with pytest.raises(ValueError):
            value[(0,) * value.ndim] = 1
    np.testing.assert_array_equal(grid.pe, f64_fortran)
    np.testing.assert_array_equal(grid.similarity, np.eye(3)[:, ::-1])
    assert set(grid.arrays()) == set(arrays)
    with pytest.raises(FrozenInstanceError):
        grid.d_model = 8  # type: ignore[misc]


def test_computed_grid_is_frozen():
    grid = compute_pe_grid(d_model=8, max_len=20, offset=2)
    for name, value in grid.arrays().items():
        assert value.flags.c_contiguous and not value.flags.writeable, name
    with pytest.raises(ValueError):
        grid.pe[0, 0] = 5.0


def test_progress_freezes_its_history_and_reports_its_fraction():
    history = np.array([0.9, 0.0, 0.7, 0.0, 0.5])[::2]  # float64, not contiguous
    progress = Progress(step=3, total=12, loss=0.5, history=history)
    assert progress.history.dtype == np.float32
    np.testing.assert_allclose(progress.history, [0.9, 0.7, 0.5], rtol=1e-6)
    assert progress.history.flags.c_contiguous and not progress.history.flags.writeable
    assert progress.fraction == 0.25
    assert Progress(step=20, total=12, loss=0.0).fraction == 1.0
    assert Progress(step=0, total=0, loss=0.0).fraction == 0.0
    with pytest.raises(FrozenInstanceError):
        progress.step = 4  # type: ignore[misc]


# -- devices --------------------------------------------------------------------------------


def test_available_devices_lists_the_cpu_first():
    devices = available_devices()
    assert devices[0].name == "cpu"
    assert "cpu" in devices[0].label
    assert len({d.name for d in devices}) == len(devices)
    assert resolve_device("cpu") == torch.device("cpu")


@pytest.mark.parametrize("name", ["cuda:7", "mps", "tpu", "", "cuda:-1"])
def test_absent_or_bogus_device_raises_device_unavailable(name):
    if name in {d.name for d in available_devices()}:
        pytest.skip(f"this machine has {name}")
    with pytest.raises(DeviceUnavailableError) as info:
        resolve_device(name)
    message = str(info.value)
    assert f"'{name}'" in message
    assert "not available" in message
    assert "cpu" in message  # says what is available instead
    assert isinstance(info.value, RuntimeError)


def test_every_listed_device_resolves_and_holds_a_tensor():
    for dev in available_devices():
        device = resolve_device(dev.name)
        assert torch.ones(2, device=device).sum().item() == 2.0


# -- import boundaries ----------------------------------------------------------------------


@pytest.mark.parametrize("modules", [
    "models", "models.traces", "models.errors", "viz.heatmap, viz.plots, viz.figure, viz.tour_panel"])
def test_importing_does_not_load_torch(modules):
    code = (f"import sys; import {modules}; "
            "print('torch' in sys.modules, 'torch_geometric' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]


def test_the_tabs_fit_reports_at_most_25_times_a_second_and_always_its_last_step():
    """Each report carries a copy of W that the job runner always delivers and the tab
    draws: a small model reported ~600 times a second and the window stalled 3.4 s
    (the monkey, seed 20250). The tab's fit keeps them ``REPORT_INTERVAL_S`` apart."""
    from models.transformer.options import PositionalRequest
    from models.transformer.positional_probe import REPORT_INTERVAL_S, offset_fit

    ask = PositionalRequest.from_values({"d_model": 2, "max_len": 100, "offset": 4})
    times, steps = [], []
    t0 = time.perf_counter()
    for p in offset_fit(ask, 600):
        times.append(time.perf_counter() - t0)
        steps.append(p.step)
    took = times[-1]
    assert steps[-1] == 600
    assert len(steps) <= took / REPORT_INTERVAL_S + 2, (len(steps), took)
    gaps = np.diff(times[:-1])        # the last one comes whatever the time
    assert (gaps >= REPORT_INTERVAL_S * 0.9).all(), gaps.min()
    # unthrottled, the same fit reports every 5 steps
    assert len(list(fit_offset_map(d_model=2, max_len=100, offset=4, steps=600))) == 120
