"""Efficient attention against references nobody here wrote where possible: hand-written
masks, numpy's matrix_power, PyTorch's own ``scaled_dot_product_attention`` and
``MultiheadAttention``, and explicit O(n²) versions of the linear-cost formulas.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from torch.nn import functional as tnf

from models import efficient_attention as ea
from models.efficient_attention import (
    approximation_trace,
    banded_attention,
    banded_weights,
    bigbird_mask,
    build_mask,
    causal_mask,
    combine_masks,
    convention_trace,
    density,
    dilated_window_mask,
    exact_attention,
    fit_linformer_projections,
    global_token_mask,
    implied_attention,
    linear_attention,
    linformer_attention,
    linformer_projection,
    local_window_mask,
    mask_trace,
    padding_keep,
    performer_attention,
    performer_error_sweep,
    performer_features,
    random_mask,
    random_projection,
    random_qkv,
    reach,
    relative_error,
    row_tv_distance,
    scale_sweep,
    strided_mask,
    union_masks,
)
from models.errors import InvalidParameterError
from models.transformer import scaled_dot_product_attention

TOL = 1e-5


def grid(text: str) -> torch.Tensor:
    """A hand-written 0/1 matrix, one row per line."""
    return torch.tensor([[c == "1" for c in line.split()] for line in text.strip().splitlines()])


def qkv64(n: int, d: int, scale: float = 1.0, seed: int = 0, batch: int = 1, heads: int = 1):
    return tuple(t.double() for t in random_qkv(n, d, scale, seed, batch, heads))


# -- masks ---------------------------------------------------------------------------------------
def test_local_window_by_hand():
    expected = grid("""
        1 1 0 0 0 0 0 0
        1 1 1 0 0 0 0 0
        0 1 1 1 0 0 0 0
        0 0 1 1 1 0 0 0
        0 0 0 1 1 1 0 0
        0 0 0 0 1 1 1 0
        0 0 0 0 0 1 1 1
        0 0 0 0 0 0 1 1""")
    mask = local_window_mask(8, 2)
    assert mask.dtype == torch.bool and mask.shape == (8, 8)
    assert torch.equal(mask, expected)
    assert torch.equal(local_window_mask(8, 3), expected)      # odd w: w//2 each side


def test_dilated_window_by_hand():
    expected = grid("""
        1 0 1 0 0 0 0 0
        0 1 0 1 0 0 0 0
        1 0 1 0 1 0 0 0
        0 1 0 1 0 1 0 0
        0 0 1 0 1 0 1 0
        0 0 0 1 0 1 0 1
        0 0 0 0 1 0 1 0
        0 0 0 0 0 1 0 1""")
    assert torch.equal(dilated_window_mask(8, 2, 2), expected)
    assert torch.equal(dilated_window_mask(8, 4, 1), local_window_mask(8, 4))


def test_strided_by_hand():
    expected = grid("""
        1 0 0 1 0 0 1 0
        0 1 0 0 1 0 0 1
        0 0 1 0 0 1 0 0
        1 0 0 1 0 0 1 0
        0 1 0 0 1 0 0 1
        0 0 1 0 0 1 0 0
        1 0 0 1 0 0 1 0
        0 1 0 0 1 0 0 1""")
    assert torch.equal(strided_mask(8, 3), expected)
    # the Sparse Transformer's pair: strided OR local, made causal
    sparse = build_mask("strided", 8, stride=3, w=2, causal=True)
    assert torch.equal(sparse, (expected | local_window_mask(8, 2)) & causal_mask(8))


def test_global_and_longformer_by_hand():
    glob = grid("""
        1 1 1 1 1 1 1 1
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0
        1 0 0 0 0 0 0 0""")
    longformer = grid("""
        1 1 1 1 1 1 1 1
        1 1 1 0 0 0 0 0
        1 1 1 1 0 0 0 0
        1 0 1 1 1 0 0 0
        1 0 0 1 1 1 0 0
        1 0 0 0 1 1 1 0
        1 0 0 0 0 1 1 1
        1 0 0 0 0 0 1 1""")
    assert torch.equal(global_token_mask(8, [0]), glob)
    assert torch.equal(build_mask("global", 8, indices=[0]), glob)
    assert torch.equal(build_mask("longformer", 8, w=2, indices=[0]), longformer)


def test_global_tokens_symmetric_and_counted():
    n, idx = 10, [1, 5, 9]
    mask = global_token_mask(n, idx)
    assert torch.equal(mask, mask.T)
    assert mask[idx].all() and mask[:, idx].all()
    assert int(mask.sum()) == n * n - (n - len(idx)) ** 2
    with pytest.raises(InvalidParameterError):
        global_token_mask(n, [10])


def test_random_mask_exact_count_and_seeded():
    mask = random_mask(20, 5, seed=3)
    assert (mask.sum(-1) == 5).all()
    assert torch.equal(mask, random_mask(20, 5, seed=3))
    assert not torch.equal(mask, random_mask(20, 5, seed=4))
    assert random_mask(6, 6).all() and not random_mask(6, 0).any()
    with pytest.raises(InvalidParameterError):
        random_mask(6, 7)


@pytest.mark.parametrize("random_blocks", [0, 1, 2, 20])
def test_bigbird_block_counts(random_blocks):
    n, block, window, glob = 32, 4, 3, 1
    nb = n // block
    mask = bigbird_mask(n, block, window, glob, random_blocks, seed=1)
    blocks = mask.reshape(nb, block, nb, block)
    # every block is all True or all False
    assert (blocks.all(-1).all(1) == blocks.any(-1).any(1)).all()
    level = blocks.any(-1).any(1)
    assert level[:glob].all() and level[:, :glob].all()          # global rows and columns
    for row in range(glob, nb):
        fixed = {j for j in range(nb) if abs(j - row) <= window // 2} | set(range(glob))
        expected = len(fixed) + min(random_blocks, nb - len(fixed))
        assert int(level[row].sum()) == expected
        assert all(level[row, j] for j in fixed)
    assert torch.equal(mask, bigbird_mask(n, block, window, glob, random_blocks, seed=1))


def test_bigbird_rejects_bad_sizes():
    with pytest.raises(InvalidParameterError, match="divisible"):
        bigbird_mask(30, 4)
    with pytest.raises(InvalidParameterError, match="odd"):
        bigbird_mask(32, 4, window_blocks=2)


def test_build_mask_rejects_unknowns():
    with pytest.raises(InvalidParameterError):
        build_mask("butterfly", 8)
    with pytest.raises(InvalidParameterError):
        build_mask("local", 8, stride=2)
    with pytest.raises(InvalidParameterError):
        local_window_mask(8, -1)


def test_density_formulas():
    n, w = 16, 4
    half = w // 2
    mask = local_window_mask(n, w)
    # interior rows see w + 1 keys; the 2·half edge rows lose 1..half keys each
    assert (mask[half:n - half].sum(-1) == w + 1).all()
    assert density(mask) == pytest.approx((n * (2 * half + 1) - half * (half + 1)) / n**2)
    g = 3
    assert density(global_token_mask(n, range(g))) == pytest.approx(1 - (n - g) ** 2 / n**2)
    assert density(causal_mask(n)) == pytest.approx((n + 1) / (2 * n))
    assert density(np.ones((4, 4), bool)) == 1.0


@pytest.mark.parametrize("kind", ea.MASK_KINDS)
def test_causality_survives_composition(kind):
    n = 16
    mask = build_mask(kind, n, causal=True)
    assert not mask.triu(1).any()
    assert torch.equal(mask, combine_masks(build_mask(kind, n), causal_mask(n)))
    padded = build_mask(kind, n, causal=True, length=10)
    assert not padded[:, 10:].any() and torch.equal(padded, mask & padding_keep(n, 10))


def test_combine_and_union():
    a, b = local_window_mask(8, 2), global_token_mask(8, [0])
    assert torch.equal(combine_masks(a, None, b.numpy()), a & b)
    assert torch.equal(union_masks(None, a, b), a | b)
    assert combine_masks(None) is None and union_masks() is None


@pytest.mark.parametrize("layers", [1, 2, 3, 5])
def test_reach_of_a_window_grows_by_w_over_2(layers):
    n, w = 40, 4
    got = reach(local_window_mask(n, w), layers)
    i = torch.arange(n)
    assert torch.equal(got, (i[:, None] - i[None, :]).abs() <= layers * w // 2)


def test_reach_matches_matrix_power():
    mask = random_mask(24, 2, seed=5).numpy()
    step = (mask | np.eye(24, dtype=bool)).astype(np.int64)
    for layers in (1, 2, 3):
        expected = np.linalg.matrix_power(step, layers) > 0
        assert np.array_equal(reach(mask, layers).numpy(), expected)
    assert torch.equal(reach(mask, 0), torch.eye(24, dtype=torch.bool))


# -- banded attention ----------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "w"), [(8, 2), (16, 4), (17, 5), (10, 0), (9, 8), (6, 20), (33, 64)])
def test_banded_equals_dense_masked(n, w):
    q, k, v = random_qkv(n, 8, 1.5, seed=n + w, batch=2, heads=3)
    mask = local_window_mask(n, w)
    dense, weights = scaled_dot_product_attention(q, k, v, mask)
    out = banded_attention(q, k, v, w)
    assert out.shape == (2, 3, n, 8)
    torch.testing.assert_close(out, dense, atol=TOL, rtol=0)
    torch.testing.assert_close(out, tnf.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                               atol=TOL, rtol=0)
    torch.testing.assert_close(implied_attention("banded", q, k, w=w), weights, atol=TOL, rtol=0)


def test_banded_is_linear_in_memory():
    n, d, w = 16384, 16, 64
    q, k, v = random_qkv(n, d, seed=1)
    assert banded_weights(q, k, w).shape == (1, 1, n, w + 1)    # the scores: n × band
    start = time.perf_counter()
    out = banded_attention(q, k, v, w)
    assert time.perf_counter() - start < 30       # a dense n × n float32 would be 1 GiB
    rows = torch.arange(0, n, 997)
    mask = (rows[:, None] - torch.arange(n)).abs() <= w // 2     # those rows of the window
    ref, _ = scaled_dot_product_attention(q[:, :, rows], k, v, mask)
    torch.testing.assert_close(out[:, :, rows], ref, atol=TOL, rtol=0)


# -- Performer -----------------------------------------------------------------------------------
def test_random_projection_shapes_and_orthogonality():
    iid = random_projection(40, 16, orthogonal=False, seed=2)
    ortho = random_projection(40, 16, orthogonal=True, seed=2)
    assert iid.shape == ortho.shape == (40, 16)
    for block in (ortho[:16], ortho[16:32]):
        gram = (block @ block.T).double()
        off = gram - torch.diag(gram.diag())
        assert off.abs().max() < 1e-4 * gram.diag().max()
    assert torch.equal(ortho, random_projection(40, 16, True, seed=2))
    # row norms ~ chi(16): mean sqrt(2)·Γ(8.5)/Γ(8) ≈ 3.94
    norms = random_projection(4096, 16, True, seed=0).norm(dim=-1)
    chi_mean = math.sqrt(2) * math.exp(math.lgamma(8.5) - math.lgamma(8))
    assert float(norms.mean()) == pytest.approx(chi_mean, rel=0.02)


def test_performer_error_falls_with_features():
    q, k, v = random_qkv(64, 16, 0.5, seed=0)
    mean, std = performer_error_sweep(q, k, v, [16, 256], seeds=8)
    assert mean.shape == std.shape == (2, 2) and mean.dtype == np.float32
    assert (mean[:, 1] < mean[:, 0]).all()


def test_orthogonal_beats_iid_on_average():
    q, k, v = random_qkv(64, 16, 0.5, seed=0)
    mean, _ = performer_error_sweep(q, k, v, [16, 32, 64], seeds=8,
                                    kinds=("orthogonal", "i.i.d."))
    assert mean[0].mean() < mean[1].mean()
    assert mean[0, 0] < mean[1, 0]


def test_performer_error_grows_with_scale():
    errors = scale_sweep("performer", [0.25, 0.5, 1.0], n=64, d=16, seed=0, num_features=64,
                         seeds=3)
    assert errors.shape == (2, 3)
    assert (np.diff(errors, axis=1) > 0).all()


@pytest.mark.parametrize("kind", ["positive", "trig"])
def test_causal_performer_equals_explicit_masked(kind):
    n = 150                                     # more than one chunk of positions
    q, k, v = qkv64(n, 8, 0.5, seed=3, batch=2, heads=2)
    proj = random_projection(32, 8, seed=1, dtype=torch.float64)
    s = 8 ** -0.25
    phi_q = performer_features(q * s, proj, kind, is_query=True, stabilize=False)
    phi_k = performer_features(k * s, proj, kind, is_query=False, stabilize=False)
    a = (phi_q @ phi_k.transpose(-2, -1)) * causal_mask(n)
    expected = (a / a.sum(-1, keepdim=True)) @ v
    got = performer_attention(q, k, v, 32, causal=True, kind=kind, projection=proj)
    torch.testing.assert_close(got, expected, atol=TOL, rtol=TOL)
    full = (phi_q @ phi_k.transpose(-2, -1))
    torch.testing.assert_close(performer_attention(q, k, v, 32, kind=kind, projection=proj),
                               (full / full.sum(-1, keepdim=True)) @ v, atol=TOL, rtol=TOL)


def test_causal_performer_chunks_agree(monkeypatch):
    q, k, v = random_qkv(50, 8, 0.5, seed=2, batch=2, heads=2)
    whole = performer_attention(q, k, v, 16, causal=True)
    monkeypatch.setattr(ea.linear, "CAUSAL_CHUNK", 7)       # read by _kernel_attention
    torch.testing.assert_close(performer_attention(q, k, v, 16, causal=True), whole,
                               atol=TOL, rtol=0)


def test_trig_features_give_negative_weights_positive_never():
    q, k, _ = random_qkv(64, 16, 1.0, seed=0)
    trig = implied_attention("performer", q, k, num_features=16, kind="trig")
    pos = implied_attention("performer", q, k, num_features=16, kind="positive")
    assert (trig < 0).any() and (pos >= 0).all()
    ones = torch.ones(1, 1, 64)
    torch.testing.assert_close(trig.sum(-1), ones, atol=1e-4, rtol=0)
    torch.testing.assert_close(pos.sum(-1), ones, atol=1e-5, rtol=0)


def test_implied_performer_is_what_it_computes():
    q, k, v = random_qkv(32, 8, 1.0, seed=4)
    for causal in (False, True):
        a = implied_attention("performer", q, k, num_features=24, seed=7, causal=causal)
        out = performer_attention(q, k, v, 24, seed=7, causal=causal)
        torch.testing.assert_close(a @ v, out, atol=TOL, rtol=TOL)


@pytest.mark.parametrize("kind", ["positive", "trig"])
def test_stabiliser_does_not_change_the_result(kind):
    q, k, v = qkv64(32, 8, 0.3, seed=5)
    proj = random_projection(16, 8, seed=0, dtype=torch.float64)
    s = 8 ** -0.25
    outs = []
    for stabilize in (True, False):
        phi_q = performer_features(q * s, proj, kind, True, stabilize)
        phi_k = performer_features(k * s, proj, kind, False, stabilize)
        a = phi_q @ phi_k.transpose(-2, -1)
        outs.append((a / a.sum(-1, keepdim=True)) @ v)
    assert not torch.allclose(performer_features(k * s, proj, kind, False, True),
                              performer_features(k * s, proj, kind, False, False))
    torch.testing.assert_close(outs[0], outs[1], atol=1e-10, rtol=1e-8)


def test_stabiliser_rescues_large_norms():
    q, k, _ = random_qkv(16, 16, 10.0, seed=0)
    proj = random_projection(16, 16, seed=0)
    raw = performer_features(k * 0.5, proj, is_query=False, stabilize=False)
    stable = performer_features(k * 0.5, proj, is_query=False, stabilize=True)
    assert (raw.sum(-1) == 0).any()                      # exp underflows for whole rows
    assert torch.isfinite(stable).all() and float(stable.max()) == pytest.approx(0.25)


# -- Linformer and linear attention --------------------------------------------------------------
def test_linformer_identity_is_exact():
    q, k, v = random_qkv(24, 8, 1.0, seed=0, batch=2, heads=2)
    eye = linformer_projection(24, 24, "identity")
    out = linformer_attention(q, k, v, eye, eye)
    torch.testing.assert_close(out, tnf.scaled_dot_product_attention(q, k, v), atol=TOL, rtol=0)
    torch.testing.assert_close(out, exact_attention(q, k, v)[0], atol=TOL, rtol=0)
    with pytest.raises(InvalidParameterError):
        linformer_projection(24, 8, "identity")


def test_linformer_projections():
    mean = linformer_projection(10, 3, "mean")
    assert mean.shape == (3, 10)
    torch.testing.assert_close(mean.sum(-1), torch.ones(3))
    assert ((mean > 0).sum(-1) == torch.tensor([3, 3, 4])).all()
    assert ((mean > 0).sum(0) == 1).all()                    # segments cover each position once
    rand = linformer_projection(4000, 16, "random", seed=1)
    assert float(rand.var()) == pytest.approx(1 / 16, rel=0.05)
    with pytest.raises(InvalidParameterError):
        linformer_projection(4, 8, "mean")


def test_learned_linformer_beats_its_mean_pooling_start():
    q, k, v = random_qkv(64, 16, 1.0, seed=0)
    exact, _ = exact_attention(q, k, v)
    start = linformer_projection(64, 16, "mean")
    e, f = fit_linformer_projections(q, k, v, 16, steps=100)
    before = relative_error(linformer_attention(q, k, v, start, start), exact)
    after = relative_error(linformer_attention(q, k, v, e, f), exact)
    assert after < 0.8 * before


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_equals_explicit(causal):
    q, k, v = qkv64(20, 8, 1.0, seed=1, batch=2, heads=2)
    a = (tnf.elu(q) + 1) @ (tnf.elu(k) + 1).transpose(-2, -1)
    if causal:
        a = a.tril()
    expected = (a / a.sum(-1, keepdim=True)) @ v
    torch.testing.assert_close(linear_attention(q, k, v, causal), expected, atol=TOL, rtol=TOL)
    torch.testing.assert_close(implied_attention("linear", q, k, causal=causal),
                               a / a.sum(-1, keepdim=True), atol=TOL, rtol=TOL)


# -- implied matrices and errors -----------------------------------------------------------------
def test_implied_rows_sum_to_one():
    q, k, _ = random_qkv(16, 8, 1.0, seed=2)
    mean = linformer_projection(16, 4, "mean")
    rand = linformer_projection(16, 4, "random")
    for method, params in [("performer", {}), ("linear", {}), ("banded", {"w": 4}),
                           ("linformer", {"E": mean, "F": mean}), ("exact", {}),
                           ("sparse", {"mask": random_mask(16, 3)})]:
        a = implied_attention(method, q, k, **params)
        assert a.shape == (1, 1, 16, 16)
        torch.testing.assert_close(a.sum(-1), torch.ones(1, 1, 16), atol=1e-5, rtol=0)
    # random Linformer projections: the matrix applied to V is no average
    a = implied_attention("linformer", q, k, E=rand, F=rand)
    assert (a.sum(-1) - 1).abs().max() > 0.1


def test_errors_by_hand():
    a = torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    e = torch.tensor([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    torch.testing.assert_close(row_tv_distance(a, e), torch.tensor([0.5, 0.0]))
    assert relative_error(torch.tensor([3.0, 4.0]), torch.tensor([0.0, 5.0])) == pytest.approx(
        math.sqrt(10) / 5)


# -- conventions ---------------------------------------------------------------------------------
def _convention_case():
    q, k, v = random_qkv(12, 8, 1.0, seed=0, batch=2, heads=2)
    mask = random_mask(12, 5, seed=1)
    mask[[2, 7]] = False                                           # two fully masked rows
    return mask, q, k, v


def test_three_apis_agree_on_rows_with_keys():
    mask, q, k, v = _convention_case()
    trace = convention_trace(mask, q, k, v)
    assert trace.weights.shape == (3, 12, 12) and trace.weights.dtype == np.float32
    assert trace.max_diff.dtype == np.float32 and trace.nan_rows.dtype == np.int64
    assert (trace.max_diff < TOL).all()
    live = mask.any(-1).numpy()
    for i in (1, 2):
        np.testing.assert_allclose(trace.weights[i][live], trace.weights[0][live], atol=TOL)
    assert len(trace.api_names) == len(trace.conversions) == 3


def test_fully_masked_rows_per_api():
    """torch 2.13 on CPU: F.scaled_dot_product_attention gives zeros for a row with no key
    (as the course's function does), nn.MultiheadAttention with need_weights=True NaN."""
    mask, q, k, v = _convention_case()
    trace = convention_trace(mask, q, k, v)
    assert trace.nan_rows.tolist() == [0, 0, 2]
    assert (trace.weights[0][[2, 7]] == 0).all()
    assert (trace.weights[1][[2, 7]] == 0).all()
    assert np.isnan(trace.weights[2][[2, 7]]).all()
    assert not np.isnan(np.delete(trace.weights[2], [2, 7], axis=0)).any()


def test_flipped_masks_give_large_differences():
    mask, q, k, v = _convention_case()
    trace = convention_trace(mask, q, k, v)
    assert (trace.flipped_diff > 0.1).all()


# -- traces --------------------------------------------------------------------------------------
def test_mask_trace_local():
    trace = mask_trace("local", 64, layers=3, max_layers=6, w=4)
    mask = local_window_mask(64, 4)
    assert trace.mask.dtype == bool and trace.reach.dtype == bool
    assert np.array_equal(trace.mask, mask.numpy())
    assert trace.density == pytest.approx(density(mask))
    assert np.array_equal(trace.reach, reach(mask, 3).numpy())
    for name in ("reach_fraction", "field", "field_theory"):
        arr = getattr(trace, name)
        assert arr.shape == (6,) and arr.dtype == np.float32
    np.testing.assert_array_equal(trace.field, [5, 9, 13, 17, 21, 25])
    np.testing.assert_array_equal(trace.field, trace.field_theory)
    assert (np.diff(trace.reach_fraction) > 0).all()
    assert trace.params == {"w": 4, "causal": False, "length": None}


def test_mask_trace_dilated_and_bigbird():
    dil = mask_trace("dilated", 64, w=4, dilation=2)
    np.testing.assert_array_equal(dil.field_theory[:3], [9, 17, 25])   # the span …
    np.testing.assert_array_equal(dil.field[:3], [5, 9, 13])           # … with holes
    causal = mask_trace("local", 64, w=4, causal=True)
    np.testing.assert_array_equal(causal.field, causal.field_theory)      # one side
    np.testing.assert_array_equal(causal.field[:3], [3, 5, 7])
    big = mask_trace("bigbird", 64, layers=2)
    assert np.isnan(big.field_theory).all()
    assert big.field[1] == 64                                          # via the global block
    assert big.params["block"] == 4 and big.density == pytest.approx(density(big.mask))


@pytest.mark.parametrize("method", ea.APPROX_METHODS)
def test_approximation_trace_shapes(method):
    n, d = 32, 8
    q, k, v = random_qkv(n, d, 1.0, seed=0)
    trace = approximation_trace(method, q, k, v, num_features=16, k_len=8, window=4,
                                sweep_seeds=2)
    assert trace.exact.shape == trace.implied.shape == (n, n)
    assert trace.row_tv.shape == (n,)
    curves = len(trace.sweep_names)
    assert trace.sweep_error.shape == trace.sweep_std.shape == (curves, trace.sweep_x.size)
    assert trace.scale_error.shape == (curves, trace.scale_x.size)
    for name in ("exact", "implied", "row_tv", "sweep_x", "sweep_error", "scale_error"):
        assert getattr(trace, name).dtype == np.float32
    assert np.isfinite(trace.sweep_error).all() and trace.output_error >= 0
    if method == "performer":
        np.testing.assert_array_equal(trace.sweep_x, [8, 16, 32, 64])   # up to 4·max(d, m)
        assert trace.sweep_names == ("orthogonal", "i.i.d.") and trace.negative == 0
    if method == "banded":
        assert trace.sweep_error[0, -1] < TOL                # a window covering everything
    if method == "linformer":
        assert trace.sweep_x[-1] == n and trace.sweep_error[1, -1] < TOL   # mean pooling, k = n
    if method != "linformer":                                # random Linformer: no average
        np.testing.assert_allclose(trace.implied.sum(-1), 1, atol=1e-5)


def test_approximation_trace_trig_and_rejects_causal_linformer():
    q, k, v = random_qkv(32, 8, 1.0, seed=0)
    trace = approximation_trace("performer", q, k, v, num_features=16, kind="trig",
                                sweep_seeds=1)
    assert trace.negative > 0
    with pytest.raises(InvalidParameterError):
        approximation_trace("linformer", q, k, v, causal=True)


def test_orthogonal_features_are_unbiased_and_isotropic():
    """E[φ(x)·φ(y)] = exp(x·y) for orthogonal features too (with QR's sign fixed; without
    it the first direction always had a non-positive first coordinate)."""
    from models.efficient_attention import performer_features, random_projection

    d, draws = 4, 3000
    x = torch.tensor([[0.6, -0.3, 0.2, 0.5]], dtype=torch.float64)
    y = torch.tensor([[0.4, 0.5, -0.1, 0.3]], dtype=torch.float64)
    first = []
    estimates = []
    for seed in range(draws):
        w = random_projection(d, d, orthogonal=True, seed=seed, dtype=torch.float64)
        first.append(float(w[0, 0]))
        fx = performer_features(x, w, "positive", is_query=True, stabilize=False)
        fy = performer_features(y, w, "positive", is_query=False, stabilize=False)
        estimates.append(float((fx * fy).sum()))
    target = math.exp(float((x * y).sum()))
    assert abs(np.mean(estimates) / target - 1) < 0.03
    assert abs(np.mean(np.sign(first))) < 0.1          # directions point both ways
