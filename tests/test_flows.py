"""Normalizing flows checked against torch's own autograd Jacobians and distributions."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from torch.distributions import TransformedDistribution

from models import flows
from models.errors import TrainingDivergedError
from models.traces import FlowTrace


def _perturb(module: torch.nn.Module, seed: int = 0, scale: float = 0.3) -> None:
    """Random non-zero weights (the builders start every layer at the identity)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(scale * torch.randn(p.shape, generator=gen, dtype=p.dtype))


def _layers(dim: int = 3):
    return {"realnvp": flows.CouplingLayer(dim, 16, [1] + [0] * (dim - 1)),
            "nice": flows.CouplingLayer(dim, 16, [0] + [1] * (dim - 1), additive=True),
            "maf": flows.MAFLayer(dim, 16), "iaf": flows.IAFLayer(dim, 16),
            "actnorm": flows.ActNorm(dim), "permute": flows.Permute(dim)}


@pytest.mark.parametrize("kind", ["realnvp", "nice", "maf", "iaf", "actnorm", "permute"])
def test_log_abs_det_matches_autograd_jacobian(kind):
    layer = _layers()[kind].double().eval()
    _perturb(layer)
    x = torch.randn(6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    ladj = layer.log_abs_det_jacobian(x, layer(x))
    for i in range(len(x)):
        jac = torch.autograd.functional.jacobian(lambda v: layer._call(v[None])[0], x[i])
        assert ladj[i].item() == pytest.approx(torch.linalg.slogdet(jac)[1].item(), abs=1e-9)
        if kind in ("maf", "iaf"):   # autoregressive: triangular Jacobian
            assert torch.allclose(jac, torch.tril(jac))
    # the inverse's log-det is minus the forward's, at the matching pair
    y = layer(x)
    assert torch.allclose(layer.inv.log_abs_det_jacobian(y, layer.inverse(y)), -ladj)


def test_coupling_keeps_masked_coordinate():
    layer = flows.CouplingLayer(2, 8, [0, 1])
    _perturb(layer)
    x = torch.randn(10, 2)
    y = layer(x)
    assert torch.equal(y[:, 1], x[:, 1]) and not torch.allclose(y[:, 0], x[:, 0])
    assert (layer.masked_index, layer.transformed_index) == (1, 0)


@pytest.mark.parametrize("bound", [flows.LOG_SCALE_BOUND, 0.0])
def test_coupling_is_the_textbook_formula_to_the_bit(bound):
    """The coupling's arithmetic, shaped for speed (the bound of the net's whole output,
    the hidden ReLUs in place), is bit for bit the plain RealNVP formula: y = x·exp(s) + t
    with s = scale·B·raw_s/(B + |raw_s|)·(1 − mask) (= scale·raw_s/(1 + |raw_s|/B) on the
    changed coordinates), t = raw_t·(1 − mask), and its inverse; the gradients too. Bound 0 (a session saved before the soft clip) is the old
    s = scale·tanh(raw_s)·(1 − mask), to the bit as well."""
    torch.manual_seed(3)
    layer = flows.CouplingLayer(2, 16, [1, 0])
    for p in layer.parameters():
        torch.nn.init.normal_(p, std=0.7)
    layer.load_state_dict({**layer.state_dict(), "log_scale_bound": torch.tensor(bound)})
    bound = layer._bound            # B as float32 holds it
    x = torch.randn(300, 2, requires_grad=True)
    net = layer.net

    def plain_st(v):
        h = torch.relu(net[0](v * layer.mask))
        h = torch.relu(net[2](h))
        raw_s, raw_t = net[4](h).chunk(2, dim=-1)
        free = 1 - layer.mask
        if not bound:
            return layer.scale * torch.tanh(raw_s) * free, raw_t * free
        return layer.scale * (bound * free) * (raw_s / (torch.abs(raw_s) + bound)), raw_t * free

    s, t = plain_st(x)
    if bound:
        assert s.abs().max() > 2.0      # the weights reach beyond the old ±1 bound
    want = x * torch.exp(s) + t
    got = layer(x)
    assert torch.equal(got, want)
    (gx_want,) = torch.autograd.grad(want.square().sum(), x)
    (gx_got,) = torch.autograd.grad(layer(x).square().sum(), x)
    assert torch.equal(gx_got, gx_want)
    y = got.detach()
    s, t = plain_st(y)
    assert torch.equal(layer.inverse(y), (y - t) * torch.exp(-s))


def test_soft_clip_log_det_matches_autograd_for_large_log_scales():
    """Raw log-scales of 150 and more, where the soft clip is near its bound and tanh's
    derivative would be 0: the layer stays exactly invertible, its log-det is autograd's,
    |s| stays below B (3), and the gradient reaching the net is not 0."""
    layer = flows.CouplingLayer(2, 8, [0, 1]).double()
    with torch.no_grad():
        layer.net[4].weight.normal_(0, 30, generator=torch.Generator().manual_seed(4))
        layer.net[4].bias.fill_(200.0)
    x = torch.randn(40, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    raw_s = layer.net(x * layer.mask).chunk(2, dim=-1)[0][:, 0]
    assert raw_s.abs().min() > 150
    y = layer(x)
    ladj = layer.log_abs_det_jacobian(x, y)
    bound = layer._bound             # B as float32 holds it
    assert bound == pytest.approx(flows.LOG_SCALE_BOUND, rel=1e-7)
    assert ladj.abs().max() < bound and ladj.abs().max() > 0.9 * bound
    assert torch.allclose(ladj, raw_s / (1 + raw_s.abs() / bound), rtol=1e-12, atol=0)
    for i in range(len(x)):
        jac = torch.autograd.functional.jacobian(lambda v: layer._call(v[None])[0], x[i])
        assert ladj[i].item() == pytest.approx(torch.linalg.slogdet(jac)[1].item(), abs=1e-12)
    assert torch.allclose(layer.inverse(y), x, rtol=0, atol=1e-12)
    assert torch.allclose(layer.inv.log_abs_det_jacobian(y, layer.inverse(y)), -ladj)
    ladj.sum().backward()
    assert layer.net[4].bias.grad.abs().max() > 1e-4     # tanh'(150) is 0


def test_soft_clip_is_zukos_form():
    """The clip is zuko's ``MonotonicAffineTransform`` log-scale (there with a minimum slope
    of 1e-3, a bound of log 1000), to 1e-6."""
    zuko = pytest.importorskip("zuko")
    raw = torch.linspace(-1000, 1000, 20001, dtype=torch.float64)
    theirs = zuko.transforms.MonotonicAffineTransform(torch.zeros_like(raw), raw).log_scale
    assert torch.allclose(flows.soft_clip(raw, math.log(1e3)), theirs, rtol=0, atol=1e-6)
    assert flows.soft_clip(raw).abs().max() < flows.LOG_SCALE_BOUND == 3.0


@pytest.mark.parametrize("kind", flows.FLOW_KINDS)
@pytest.mark.parametrize("actnorm", [False, True])
def test_inverse_of_forward(kind, actnorm):
    flow = flows.build_flow(kind, hidden_dim=32, num_flows=4, actnorm=actnorm)
    flow.log_prob(torch.randn(64, 2) * 3 + 1)   # data-dependent ActNorm initialisation
    _perturb(flow, scale=0.1)
    flow.eval()
    x = torch.randn(200, 2, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        z, ld = flow(x)
        back, ld_inv = flow.inverse(z)
    assert (back - x).abs().max() < 1e-5
    assert (ld + ld_inv).abs().max() < 1e-5


@pytest.mark.parametrize("kind", flows.FLOW_KINDS)
def test_transformed_distribution_agrees(kind):
    flow = flows.build_flow(kind, hidden_dim=16, num_flows=3, actnorm=True)
    _perturb(flow, scale=0.2)
    flow.eval()
    dist = TransformedDistribution(flow.base, [layer.inv for layer in reversed(flow.layers)])
    x = torch.randn(50, 2)
    with torch.no_grad():
        assert torch.allclose(dist.log_prob(x), flow.log_prob(x), atol=1e-5)
        assert dist.sample((7,)).shape == (7, 2)


def _pair(cache_size: int):
    torch.manual_seed(0)
    layer = flows.CouplingLayer(2, 16, [1, 0], cache_size=cache_size)
    _perturb(layer)
    return layer


def _grads(layer, x):
    layer.zero_grad()
    y = layer(x)
    y_again = layer(x)   # cached (the same tensor) with cache_size=1, recomputed with 0
    loss = (y ** 2).sum() + (y_again ** 3).sum() + layer.log_abs_det_jacobian(x, y).sum()
    loss = loss + layer.inv.log_abs_det_jacobian(y_again, x).sum()
    loss.backward()
    return [p.grad.clone() for p in layer.parameters()], y is y_again


def test_caching_does_not_change_gradients():
    # seeded: with the global RNG, an unlucky x gave gradients of a few hundred, where
    # float32 sums in another order differ by more than an absolute 1e-6
    x = torch.randn(32, 2, generator=torch.Generator().manual_seed(0))
    g0, same0 = _grads(_pair(0), x)
    g1, same1 = _grads(_pair(1), x)
    assert not same0 and same1
    for a, b in zip(g0, g1, strict=True):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_cache_size_semantics_and_no_recompute():
    x = torch.randn(8, 2)
    layer = _pair(0)
    calls = []
    layer.net.register_forward_hook(lambda *a: calls.append(1))
    y = layer(x)
    ladj = layer.log_abs_det_jacobian(x, y)
    assert len(calls) == 1   # the log-det came from the cache on y
    fresh = y.detach().clone()   # an untagged tensor: recomputed, same value
    assert torch.allclose(layer.log_abs_det_jacobian(x, fresh), ladj)
    assert len(calls) == 2
    # cache_size 0: new weights are seen at once; cache_size 1 returns the cached y
    _perturb(layer, seed=5)
    assert not torch.allclose(layer(x), y)
    cached = _pair(1)
    y1 = cached(x)
    _perturb(cached, seed=5)
    assert cached(x) is y1
    assert cached.inverse(y1) is x


def test_trace_and_grid():
    flow = flows.build_realnvp(hidden_dim=16, num_flows=4)
    _perturb(flow, scale=0.2)
    x = torch.randn(30, 2)
    tr = flow.trace(x)
    assert isinstance(tr, FlowTrace) and tr.direction == "forward"
    assert tr.points.shape == (5, 30, 2) and tr.logdet_points.shape == (4, 30)
    np.testing.assert_allclose(tr.points[0], x.numpy())
    with torch.no_grad():
        z, ld = flow(x)
    np.testing.assert_allclose(tr.points[-1], z.numpy(), atol=1e-6)
    np.testing.assert_allclose(tr.logdet_points.sum(0), ld.numpy(), atol=1e-5)
    np.testing.assert_allclose(tr.logdet, tr.logdet_points.mean(1), atol=1e-6)
    assert tr.masked.tolist() == [0, 1, 0, 1] and tr.transformed.tolist() == [1, 0, 1, 0]
    for i in range(4):   # the masked coordinate passes unchanged
        np.testing.assert_array_equal(tr.points[i + 1, :, tr.masked[i]],
                                      tr.points[i, :, tr.masked[i]])
    inv = flow.trace_inverse(tr.points[-1])
    assert inv.direction == "inverse"
    np.testing.assert_allclose(inv.points[::-1], tr.points, atol=1e-5)
    lines = flows.grid_lines((-2, 2, -2, 2), n_lines=3, points_per_line=5)
    g = flow.grid_trace(lines)
    assert g.shape == (5,) + lines.shape
    assert np.array_equal(np.isnan(g[-1]), np.isnan(lines))
    assert flows.build_maf(num_flows=2).trace(x).masked.tolist() == [-1, -1, -1]


def test_chunked_passes_equal_one_pass(monkeypatch):
    """sample, trace and trace_inverse take CHUNK_ROWS rows at a time; the result is the
    one pass over all rows (every layer acts row by row, ActNorm included once set)."""
    from models.flows import flow as flow_module

    flow = flows.build_realnvp(hidden_dim=16, num_flows=3, actnorm=True)
    _perturb(flow, scale=0.2)
    flow.eval()
    x = torch.randn(1000, 2, generator=torch.Generator().manual_seed(3))
    whole = (flow.sample(1000, seed=5), flow.trace(x), flow.trace_inverse(x))
    monkeypatch.setattr(flow_module, "CHUNK_ROWS", 97)     # 11 parts, the last of 30 rows
    parts = (flow.sample(1000, seed=5), flow.trace(x), flow.trace_inverse(x))
    torch.testing.assert_close(parts[0], whole[0])
    for a, b in zip(parts[1:], whole[1:], strict=True):
        np.testing.assert_allclose(a.points, b.points, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a.logdet_points, b.logdet_points, rtol=1e-6, atol=1e-6)
    assert flow.trace(x[:0]).points.shape == (7, 0, 2)
    assert flow.sample(0).shape == (0, 2)


@pytest.fixture(scope="module")
def trained():
    session = flows.FlowSession("realnvp", "two_moons", seed=0, lr=1e-3, batch_size=256)
    t0 = time.perf_counter()
    reports = list(session.train(400))
    return session, reports, time.perf_counter() - t0


def test_training_lowers_nll_above_entropy_floor(trained):
    session, reports, _ = trained
    assert len(reports) == 400 and reports[-1].step == 400
    assert reports[-1].history.shape == (400,)
    assert {"nll", "entropy", "steps_per_s"} <= set(reports[-1].metrics)
    start, end = np.mean(session.losses[:10]), np.mean(session.losses[-50:])
    assert start > 2.0 and end < start - 1.5
    # held-out NLL: an estimate of H(p) + KL ≥ H(p)
    from models.flows.densities import sample
    held = torch.as_tensor(sample("two_moons", 20_000, seed=99))
    with torch.no_grad():
        session.flow.eval()
        nll = -session.flow.log_prob(held).mean().item()
    assert session.entropy - 0.05 < nll < 1.2


def test_density_integrates_to_one(trained):
    session, _, _ = trained
    grid = flows.density_grid(session.flow, (-4, 5, -4, 4), 256, n_samples=500)
    assert grid.density.shape == (256, 256) and grid.samples.shape == (500, 2)
    assert grid.mass == pytest.approx(1.0, abs=0.01)
    untrained = flows.build_flow("maf", num_flows=2)
    assert flows.density_grid(untrained, (-7, 7, -7, 7), 200).mass == pytest.approx(1, abs=0.01)


def test_sample_is_seeded():
    flow = flows.build_iaf(num_flows=2)
    _perturb(flow, scale=0.2)
    assert torch.equal(flow.sample(20, seed=1), flow.sample(20, seed=1))
    assert flow.sample(20, seed=1).shape == (20, 2)


def _state(session):
    return {k: v.clone() for k, v in session.flow.state_dict().items()}


def _train_recording(session, steps: int, states: dict) -> None:
    """Train, recording the weights the session has at each step (``states[step]``)."""
    states.setdefault(session.step, _state(session))
    for _ in session.train(steps):
        states[session.step] = _state(session)


def test_nan_weights_raise_and_restore():
    session = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64)
    states: dict = {}
    _train_recording(session, 12, states)
    with torch.no_grad():
        session.flow.layers[2].net[0].weight[0, 0] = math.nan
    with pytest.raises(TrainingDivergedError, match=r"layer 3 \(affine coupling.*learning rate"):
        _train_recording(session, 5, states)
    after = _state(session)
    assert all(torch.isfinite(v.float()).all() for v in after.values())
    # the last rollback point (taken every snapshot_every = 10 good steps): step 10
    assert session.step == session.good_step == len(session.losses) == 10
    for k, v in states[10].items():
        assert torch.equal(after[k], v)
    list(session.train(2))   # and training goes on from there


def test_huge_learning_rate_raises_and_restores():
    session = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64, lr=1e30)
    states: dict = {}
    with pytest.raises(TrainingDivergedError, match=r"layer \d+ .*learning rate"):
        _train_recording(session, 50, states)
    after = _state(session)
    assert all(torch.isfinite(v.float()).all() for v in after.values())
    assert session.step == session.good_step == len(session.losses)
    for k, v in states[session.good_step].items():
        assert torch.equal(after[k], v)


def test_one_step_rollback_names_the_step_restored():
    session = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64)
    session.snapshot_every = 1
    states: dict = {}
    _train_recording(session, 3, states)
    with torch.no_grad():
        session.flow.layers[0].net[0].weight[0, 0] = math.inf
    with pytest.raises(TrainingDivergedError,
                       match=r"at step 4; .*layer 1 \(affine coupling, its weights\)\. "
                             r"The weights of step 2 were restored"):
        _train_recording(session, 2, states)
    # step 3's weights never gave a checked loss: the last ones that did are step 2's
    assert session.step == session.good_step == 2 and len(session.losses) == 2
    after = _state(session)
    for k, v in states[2].items():
        assert torch.equal(after[k], v)


def test_flow_result_is_one_frozen_trace_and_keeps_the_training_mode():
    from dataclasses import replace

    from models.flows.options import FlowRequest
    from models.flows.probe import flow_result
    from models.traces import FlowResult

    session = flows.FlowSession("realnvp", num_flows=2, hidden_dim=8, batch_size=32)
    list(session.train(2))
    assert session.flow.training
    p = FlowRequest(density="two_moons", points=300, seed=1, direction="forward", grid=True)
    r = flow_result(session, p, None)
    assert isinstance(r, FlowResult) and session.flow.training
    assert r.trace.points.shape == (3, 300, 2) and r.grid.shape[:1] == (3,)
    from models.flows.probe import RESOLUTION

    side = RESOLUTION
    assert r.density.density.shape == (side, side) and r.entropy == session.entropy
    assert not r.grid.flags.writeable
    custom = np.random.default_rng(0).normal(size=(50, 2)).astype(np.float32)
    inv = flow_result(session, replace(p, density="custom", direction="inverse", grid=False),
                      custom)
    assert inv.trace.direction == "inverse" and inv.grid is None
    assert inv.trace.points.shape == (3, 300, 2)   # n latent draws, whatever the data
    np.testing.assert_allclose(r.trace.points[0],
                               flows.densities.sample("two_moons", 300, seed=1))


def test_a_flow_request_is_checked_once_against_the_ranges_the_controls_show():
    """One place for each number's default and limits: the tab's controls are built from
    ``RANGES``, the builders take their defaults, and a request outside them is refused
    with its name (the layer count was 1..32 in the form and only ≥ 1 in the models)."""
    import inspect

    from app.tabs.flows.params import MODEL_PARAMS, VIEW_PARAMS
    from models.errors import InvalidParameterError
    from models.flows.options import RANGES, FlowRequest

    shown = {p.key: p for p in (*MODEL_PARAMS, *VIEW_PARAMS)}
    for key, r in RANGES.items():
        assert (shown[key].default, shown[key].minimum, shown[key].maximum) == \
            (r.default, r.minimum, r.maximum), key
    ask = FlowRequest()
    for key in ("layers", "hidden", "lr", "batch", "clip", "points", "seed"):
        assert getattr(ask, key) == RANGES[key].default, key
    from models.flows.flow import build_realnvp

    assert inspect.signature(flows.FlowSession).parameters["num_flows"].default == \
        RANGES["layers"].default == inspect.signature(build_realnvp).parameters[
            "num_flows"].default
    for bad, named in ((dict(layers=33), "layers"), (dict(layers=0), "layers"),
                       (dict(hidden=2.5), "hidden"), (dict(lr=float("nan")), "lr"),
                       (dict(model="glow"), "model"), (dict(direction="up"), "direction"),
                       (dict(points="many"), "points")):
        with pytest.raises(InvalidParameterError, match=named):
            FlowRequest(**bad)
    assert FlowRequest.from_values({"layers": 4, "speed": 2.0}).layers == 4   # view keys left


def _old_layout(session) -> tuple[dict, dict]:
    """The session saved as before issue 36: coupling layers with s = scale·tanh(raw_s)
    (bound 0, the formula to the bit) and no ``log_scale_bound`` in the file."""
    tensors, meta = session.save_state()
    return {k: v for k, v in tensors.items() if not k.endswith(".log_scale_bound")}, meta


def test_a_session_saved_before_the_soft_clip_opens_as_it_was_trained():
    """A file without ``log_scale_bound`` (saved before issue 36, same parameters) keeps
    the tanh its weights were trained with: the same log p to the bit, and training goes
    on exactly as the old session's would."""
    old = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64, seed=1)
    for layer in old.flow.layers:
        layer.load_state_dict({**layer.state_dict(), "log_scale_bound": torch.tensor(0.0)})
    list(old.train(30))
    tensors, meta = _old_layout(old)
    assert not any("log_scale_bound" in k for k in tensors)
    new = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64, seed=1)
    new.load_state(tensors, meta, "old.archscope")
    assert all(layer._bound == 0 for layer in new.flow.layers)
    x = torch.randn(100, 2, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(new.flow.log_prob(x), old.flow.log_prob(x))
    list(old.train(5))
    list(new.train(5))
    assert new.losses == old.losses
    # saved again, the file names its bound 0: it still opens with the tanh
    again = flows.FlowSession("realnvp", num_flows=4, hidden_dim=16, batch_size=64, seed=1)
    again.load_state(*new.save_state())
    assert all(layer._bound == 0 for layer in again.flow.layers)


def test_a_new_session_keeps_its_soft_clip_and_a_bad_bound_is_refused():
    from models.errors import SessionFileError

    session = flows.FlowSession("realnvp", num_flows=2, hidden_dim=8, batch_size=32)
    list(session.train(3))
    tensors, meta = session.save_state()
    assert float(tensors["model0.layers.0.log_scale_bound"]) == pytest.approx(
        flows.LOG_SCALE_BOUND)
    other = flows.FlowSession("realnvp", num_flows=2, hidden_dim=8, batch_size=32, seed=4)
    before = _state(other)
    for bad, words in ((-1.0, r"log_scale_bound is -1; the bound .* is ≥ 0"),
                       (math.nan, "log_scale_bound holds NaN"),
                       (math.inf, "log_scale_bound holds NaN or infinite")):
        with pytest.raises(SessionFileError, match=words):
            other.load_state({**tensors, "model0.layers.1.log_scale_bound": torch.tensor(bad)},
                             meta, "bad.archscope")
        assert all(torch.equal(v, before[k]) for k, v in _state(other).items())
    other.load_state(tensors, meta)
    assert all(layer._bound == pytest.approx(flows.LOG_SCALE_BOUND, rel=1e-7)
               for layer in other.flow.layers)
    torch.testing.assert_close(other.flow.log_prob(torch.ones(3, 2)),
                               session.flow.log_prob(torch.ones(3, 2)), rtol=0, atol=0)
    with pytest.raises(Exception, match="log-scale bound must be ≥ 0"):
        other.flow.layers[0].load_state_dict({**other.flow.layers[0].state_dict(),
                                              "log_scale_bound": torch.tensor(-2.0)})


@pytest.mark.slow
def test_realnvp_reaches_a_lower_nll_than_with_the_tanh_bound():
    """The tab's defaults, 2,000 steps, seed 0 (``benchmarks/bench_flow_nll.py``): the
    soft clip's held-out NLL 0.342 nats, the old scale·tanh bound's 0.452 (floor 0.290).
    Fails if the layer's arithmetic silently goes back to the old bound."""
    from models.flows.densities import sample

    session = flows.FlowSession("realnvp", "two_moons", seed=0)
    for _ in session.train(2000):
        pass
    held = torch.as_tensor(sample("two_moons", 20_000, seed=123))
    with torch.no_grad():
        session.flow.eval()
        nll = -session.flow.log_prob(held).mean().item()
    assert session.entropy < nll < 0.40
