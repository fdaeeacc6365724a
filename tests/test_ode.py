"""Neural ODEs checked against references nobody here wrote: the matrix exponential,
finite differences, torch's autograd Jacobian, torchdiffeq's own solves, and the
step-count formulas of the Runge–Kutta tableaus."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from models import ode
from models.errors import DeviceUnavailableError, InvalidParameterError, TrainingDivergedError
from models.ode.dynamics import _seeded
from models.traces import (
    AdjointComparison,
    ClassifierTrace,
    CNFTrace,
    SolverSteps,
    SpiralTrace,
    VectorField,
)

A_LIN = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=torch.float64)


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


class Linear(nn.Module):
    """dy/dt = A y (column vectors; rows of y are points)."""

    def __init__(self, a: torch.Tensor) -> None:
        super().__init__()
        self.a = nn.Parameter(a.clone())

    def forward(self, t, y):
        return y @ self.a.T


def _state(model: nn.Module) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _adam(optimizer: torch.optim.Optimizer) -> dict:
    """Adam's moments and step counts, flattened to name → tensor."""
    return {f"{i}.{k}": torch.as_tensor(v).clone()
            for i, st in optimizer.state_dict()["state"].items() for k, v in st.items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -- solvers against the matrix exponential ------------------------------------------------------
@pytest.mark.parametrize("method,cfg,tol", [
    ("dopri5", {"rtol": 1e-9, "atol": 1e-11}, 1e-7),
    ("bosh3", {"rtol": 1e-7, "atol": 1e-9}, 1e-4),
    ("rk4", {"step_size": 0.01}, 1e-7),
    ("midpoint", {"step_size": 0.01}, 1e-3),
    ("euler", {"step_size": 0.001}, 2e-2),
])
def test_odesolve_linear_matches_matrix_exp(method, cfg, tol):
    y0 = torch.tensor([[1.0, 0.0], [0.3, -0.7], [-1.2, 0.4]], dtype=torch.float64)
    t = torch.linspace(0.0, 2.0, 5, dtype=torch.float64)
    with torch.no_grad():
        y = ode.odesolve(Linear(A_LIN), y0, t, ode.SolverConfig(method=method, **cfg))
    for k, tk in enumerate(t):
        expected = y0 @ torch.linalg.matrix_exp(tk * A_LIN).T
        assert torch.allclose(y[k], expected, atol=tol, rtol=0), (method, float(tk))


def test_adjoint_gradient_equals_direct_and_finite_differences():
    t = torch.tensor([0.0, 0.4, 1.0], dtype=torch.float64)
    y0 = torch.tensor([[1.0, 0.5], [-0.3, 0.8]], dtype=torch.float64)
    weights = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)

    def loss_of(model, start, adjoint):
        cfg = ode.SolverConfig(rtol=1e-10, atol=1e-12, adjoint=adjoint)
        y = ode.odesolve(model, start, t, cfg)
        return (weights[:, None, None] * y ** 2).sum()

    def exact_loss(a, start):   # the same loss through the matrix exponential
        ys = torch.stack([start @ torch.linalg.matrix_exp(tk * a).T for tk in t])
        return (weights[:, None, None] * ys ** 2).sum()

    grads = {}
    for adjoint in (False, True):
        model = Linear(A_LIN)
        start = y0.clone().requires_grad_(True)
        loss = loss_of(model, start, adjoint)
        grads[adjoint] = torch.autograd.grad(loss, (model.a, start))
    for g_direct, g_adj in zip(grads[False], grads[True], strict=True):
        assert (g_adj - g_direct).abs().max() / g_direct.abs().max() < 1e-4
    # central finite differences of the exact loss, on every entry of A and of y0
    eps = 1e-6
    fd_a, fd_y = torch.zeros(2, 2, dtype=torch.float64), torch.zeros(2, 2, dtype=torch.float64)
    for i in range(2):
        for j in range(2):
            e = torch.zeros(2, 2, dtype=torch.float64)
            e[i, j] = eps
            fd_a[i, j] = (exact_loss(A_LIN + e, y0) - exact_loss(A_LIN - e, y0)) / (2 * eps)
            fd_y[i, j] = (exact_loss(A_LIN, y0 + e) - exact_loss(A_LIN, y0 - e)) / (2 * eps)
    for adjoint in (False, True):
        assert torch.allclose(grads[adjoint][0], fd_a, rtol=1e-6, atol=1e-6)
        assert torch.allclose(grads[adjoint][1], fd_y, rtol=1e-6, atol=1e-6)
    # and the parameter gradient of a nonlinear ODEFunc, adjoint against direct
    func = _seeded(3, lambda: ode.ODEFunc(2, 16)).double()
    g = {}
    for adjoint in (False, True):
        loss = loss_of(func, y0, adjoint)
        g[adjoint] = torch.cat([p.reshape(-1) for p in torch.autograd.grad(
            loss, list(func.parameters()))])
    assert (g[True] - g[False]).abs().max() / g[False].abs().max() < 1e-4


# -- the spiral -----------------------------------------------------------------------------------
def test_trivial_spiral_errors_and_true_spiral():
    t, y = ode.true_spiral()
    assert t.shape == (1000,) and y.shape == (1000, 2)
    assert t[0] == 0.0 and t[-1] == pytest.approx(25.0)
    assert np.array_equal(y[0], [2.0, 0.0])
    errors = ode.trivial_spiral_errors()
    assert errors["constant_y0"] == pytest.approx(1.257, abs=1e-3)
    assert errors["zero"] == pytest.approx(0.530, abs=1e-3)
    # the definition: mean over every point and coordinate (not the per-point sum)
    assert ode.l1_error(np.zeros_like(y), y) == pytest.approx(np.abs(y).mean())
    # the spiral solves y' = (y**3) @ A (row vectors): compare with torchdiffeq's dopri5
    # (what ode_demo.py uses; the spiral itself comes from scipy's DOP853)
    from torchdiffeq import odeint
    a = torch.tensor(ode.SPIRAL_A, dtype=torch.float64)
    with torch.no_grad():
        ref = odeint(lambda _t, v: (v ** 3) @ a, torch.tensor([[2.0, 0.0]], dtype=torch.float64),
                     torch.from_numpy(t), rtol=1e-9, atol=1e-9, method="dopri5")[:, 0]
    assert np.abs(ref.numpy() - y).max() < 1e-6


# -- solver diagnostics ---------------------------------------------------------------------------
class Stiff(nn.Module):
    """y' = −50 (y − cos t): stiff for an explicit solver at a tight tolerance."""

    def forward(self, t, y):
        return -50.0 * (y - torch.cos(t))


def _check_tiling(steps: SolverSteps, t0: float, t1: float) -> None:
    ts, dts = steps.accepted_t.astype(np.float64), steps.accepted_dt.astype(np.float64)
    assert ts[0] == pytest.approx(t0, abs=1e-6)
    assert np.allclose(ts[1:], ts[:-1] + dts[:-1], rtol=1e-5, atol=1e-6)   # contiguous
    sign = 1.0 if t1 > t0 else -1.0
    assert np.all(sign * dts > 0)
    end = ts[-1] + dts[-1]
    assert sign * (t1 - ts[-1]) > 0 and sign * (end - t1) >= -1e-5   # covers t1


@pytest.mark.parametrize("method", ["dopri5", "bosh3"])
def test_solver_steps_adaptive(method):
    func = _seeded(0, lambda: ode.ODEFunc(2, 16))
    y0 = torch.tensor([[1.0, -0.5], [0.2, 0.3]])
    cfg = ode.SolverConfig(method=method, rtol=1e-5, atol=1e-6)
    steps = ode.solver_steps(func, y0, 0.0, 3.0, cfg)
    _check_tiling(steps, 0.0, 3.0)
    per = ode.EVALS_PER_STEP[method]
    assert steps.nfe == 2 + per * (steps.n_accepted + steps.n_rejected)
    # the same count as a plain torchdiffeq solve of the same function and tolerances
    from torchdiffeq import odeint
    func.reset_counts()
    with torch.no_grad():
        odeint(func, y0, torch.tensor([0.0, 3.0]), rtol=1e-5, atol=1e-6, method=method)
    assert func.nfe == steps.nfe
    # backwards in time: the steps run from 3 down to 0
    back = ode.solver_steps(func, y0, 3.0, 0.0, cfg)
    _check_tiling(back, 3.0, 0.0)


def test_solver_steps_rejections_on_a_stiff_problem():
    y0 = torch.zeros(1, 1, dtype=torch.float64)
    steps = ode.solver_steps(Stiff(), y0, 0.0, 2.0, ode.SolverConfig(rtol=1e-6, atol=1e-8))
    assert steps.n_rejected > 0 and steps.n_accepted > 10
    _check_tiling(steps, 0.0, 2.0)
    assert steps.nfe == 2 + 6 * (steps.n_accepted + steps.n_rejected)


@pytest.mark.parametrize("method", ["rk4", "midpoint", "euler"])
def test_solver_steps_fixed_grid(method):
    func = _seeded(0, lambda: ode.ODEFunc(2, 8))
    steps = ode.solver_steps(func, torch.ones(3, 2), 0.0, 1.0,
                             ode.SolverConfig(method=method, step_size=0.1))
    assert steps.n_accepted == 10 and steps.n_rejected == 0
    assert np.allclose(steps.accepted_dt, 0.1, atol=1e-6)
    _check_tiling(steps, 0.0, 1.0)
    assert steps.nfe == 10 * ode.EVALS_PER_STEP[method]


def test_nfe_counters_forward_and_backward():
    func = _seeded(1, lambda: ode.ODEFunc(2, 16))
    y0 = torch.randn(8, 2, generator=torch.Generator().manual_seed(0))
    t = torch.tensor([0.0, 1.0])
    calls = [0]

    def plain(tt, y):   # an independent counter: a closure around the same function
        calls[0] += 1
        return func.f(tt, y)

    from torchdiffeq import odeint
    with torch.no_grad():
        odeint(plain, y0, t, rtol=1e-4, atol=1e-5)
    for adjoint in (False, True):
        func.reset_counts()
        y = ode.odesolve(func, y0, t, ode.SolverConfig(rtol=1e-4, atol=1e-5, adjoint=adjoint))
        assert func.nfe == calls[0]
        forward = func.nfe
        y[-1].square().sum().backward()
        assert func.nfe_backward > 0
        if adjoint:   # every step of the adjoint's solve evaluates f once and backprops it once
            assert func.nfe - forward == func.nfe_backward
        else:         # backprop through the forward evaluations that reached the output
            assert 0 < func.nfe_backward <= forward and func.nfe == forward


def test_nfe_limit_aborts_a_solve():
    func = ode.ODEFunc(2, 8)
    with pytest.raises(ode.NFELimitExceeded, match="more than 7 evaluations"):
        ode.odesolve(func, torch.ones(2, 2), torch.tensor([0.0, 1.0]),
                     ode.SolverConfig(method="rk4", step_size=0.1, max_nfe=7))


def test_vector_field_matches_f():
    func = _seeded(2, lambda: ode.ODEFunc(3, 8))
    vf = ode.vector_field(func, (-1.0, 2.0, -3.0, 1.0), n=5, t=0.5, dims=(0, 2), state_dim=3)
    assert isinstance(vf, VectorField) and vf.u.shape == (5, 5) and vf.x.shape == (5, 5)
    assert vf.x[0, 0] == -1.0 and vf.x[0, -1] == 2.0 and vf.y[0, 0] == -3.0 and vf.y[-1, 0] == 1.0
    y = torch.tensor([[float(vf.x[3, 1]), 0.0, float(vf.y[3, 1])]])
    expected = func.f(torch.tensor(0.5), y).detach()[0]
    assert vf.u[3, 1] == pytest.approx(float(expected[0]), abs=1e-6)
    assert vf.v[3, 1] == pytest.approx(float(expected[2]), abs=1e-6)
    assert func.nfe == 0   # drawing does not count as solving


# -- the CNF --------------------------------------------------------------------------------------
def test_cnf_exact_trace_matches_autograd_jacobian():
    func = _seeded(0, lambda: ode.ODEFunc(2, 16)).double()
    dyn = ode.CNFDynamics(func)
    z = torch.randn(5, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    t = torch.tensor(0.3, dtype=torch.float64)
    with torch.no_grad():
        dz, dlogp = dyn(t, (z, torch.zeros(5, 1, dtype=torch.float64)))
    assert torch.allclose(dz, func.f(t, z))
    for i in range(5):
        jac = torch.autograd.functional.jacobian(lambda v: func.f(t, v[None])[0], z[i])
        assert float(-dlogp[i, 0]) == pytest.approx(float(torch.trace(jac)), abs=1e-12)


def test_cnf_log_prob_is_the_change_of_variables_of_the_solve():
    session = ode.CNFSession(hidden=16, batch_size=64, seed=0)
    session.model.double()
    tight = ode.SolverConfig(rtol=1e-9, atol=1e-9)
    x = torch.tensor([[0.0, 0.5], [1.0, -0.2]], dtype=torch.float64)
    logp = session.log_prob(x, solver=tight)
    t = torch.tensor([0.0, session.t1], dtype=torch.float64)

    def flow_map(v):   # the whole solve data -> base, no trace involved
        return ode.odesolve(session.func, v[None], t, tight)[-1, 0]

    for i in range(len(x)):
        z = flow_map(x[i])
        jac = torch.autograd.functional.jacobian(flow_map, x[i])
        brute = (-0.5 * z.square().sum() - math.log(2 * math.pi)
                 + torch.linalg.slogdet(jac)[1]).detach()
        assert float(logp[i]) == pytest.approx(brute.item(), abs=1e-6)


def test_cnf_trace_density_integrates_to_one_and_shapes():
    session = ode.CNFSession(hidden=16, batch_size=64, seed=0)
    with torch.no_grad():   # a random flow that moves the mass visibly
        session.func.net[-1].weight.mul_(4.0)
    tr = session.trace(n_times=3, n_samples=50, grid=48, extent=(-5.0, 5.0, -5.0, 5.0))
    assert isinstance(tr, CNFTrace)
    assert tr.times.shape == (3,) and tr.times[0] == session.t1 and tr.times[-1] == 0.0
    assert tr.samples.shape == (3, 50, 2) and tr.density.shape == (3, 48, 48)
    assert tr.mass.shape == (3,)
    assert np.all(np.abs(tr.mass - 1.0) < 0.05), tr.mass
    assert tr.entropy == pytest.approx(0.29, abs=0.03)
    assert math.isfinite(tr.nll)
    # the base draws sit at t1; the flow moved them by the time they reach the data
    assert np.abs(tr.samples[-1] - tr.samples[0]).mean() > 0.05
    assert tr.samples.dtype == np.float32 and not tr.samples.flags.writeable


# -- sessions ---------------------------------------------------------------------------------------
def _spiral(**kw) -> ode.SpiralSession:
    return ode.SpiralSession(batch_size=8, **kw)


def test_spiral_trains_and_traces():
    session = _spiral()
    progress = list(session.train(3, eval_every=2))
    assert [p.step for p in progress] == [1, 2, 3]
    for key in ("loss", "nfe_forward", "nfe_backward", "seconds", "steps_per_s",
                "step_seconds", "error_l1"):
        assert key in progress[-1].metrics
    assert progress[-1].history.shape == (3,) and progress[0].history.shape == (0,)
    assert len(session.losses) == len(session.nfe_forward) == len(session.step_seconds) == 3
    tr = session.trace()
    assert isinstance(tr, SpiralTrace)
    assert tr.t.shape == (1000,) and tr.fitted.shape == tr.true.shape == tr.observed.shape
    assert tr.true.shape == (1000, 2) and tr.nfe > 0 and tr.step == 3
    assert tr.trivial["constant_y0"] == pytest.approx(1.257, abs=1e-3)
    assert tr.error_l1 == pytest.approx(np.abs(tr.fitted - tr.true).mean(), rel=1e-5)
    assert np.allclose(tr.fitted[0], tr.true[0])
    steps = session.solver_steps()
    _check_tiling(steps, 0.0, 25.0)
    assert session.vector_field(n=7).u.shape == (7, 7)
    assert session.to("cpu") is session and session.device.type == "cpu"


def test_set_solver_mid_run_and_invalid_values():
    session = _spiral()
    gen = session.train(2)
    next(gen)
    assert (session.nfe_forward[-1] - 2) % 6 == 0   # dopri5: 2 + 6 per attempt
    session.set_solver(method="rk4", step_size=0.05)
    next(gen)
    # the window of 10 observations spans 9 · 25/999 s: 5 steps of 0.05, 4 evaluations each
    assert session.nfe_forward[-1] == 20
    for bad in ({"method": "rk45"}, {"rtol": -1.0}, {"atol": float("nan")},
                {"step_size": 0.0}, {"max_nfe": 0}, {"adjoint": "yes"}, {"tolerance": 1e-3}):
        with pytest.raises(InvalidParameterError):
            session.set_solver(**bad)
    assert session.solver.method == "rk4" and session.solver.step_size == 0.05
    with pytest.raises(InvalidParameterError):
        session.set_lr(-1.0)
    with pytest.raises(InvalidParameterError):
        ode.SpiralSession(solver=ode.SolverConfig(method="heun"))


def _diverge(session: ode.ODESession, provoke, undo, kind: str, hint: str) -> None:
    # the weights and Adam's state after every step (index k: after k steps), past the
    # first rollback point after the start (``snapshot_every`` good steps)
    saved, adam = [_state(session.model)], [_adam(session.optimizer)]
    trained = session.snapshot_every + 2
    for _ in session.train(trained):
        saved.append(_state(session.model))
        adam.append(_adam(session.optimizer))
    provoke(session)
    with pytest.raises(TrainingDivergedError) as info:
        for _ in session.train(5):
            pass
    msg = str(info.value)
    assert session.last_instability == kind
    n = session.good_step
    # back to the last rollback point: on the snapshot schedule, at most snapshot_every
    # steps before the last step trained
    assert n % session.snapshot_every == 0 and 0 < n <= trained
    assert trained - n <= session.snapshot_every
    assert f"weights of step {n} were restored" in msg and hint in msg
    assert session.step == n and len(session.losses) == n == len(session.nfe_forward)
    # bit for bit the weights after step n (Adam's state too: it trains on)
    assert _same(_state(session.model), saved[n])
    assert _same(_adam(session.optimizer), adam[n])
    undo(session)
    assert len(list(session.train(1))) == 1 and session.step == n + 1


@pytest.mark.parametrize("snapshot_every", [1, 10])
def test_instability_nfe_limit_restores_weights(snapshot_every):
    session = _spiral()
    session.snapshot_every = snapshot_every       # 1: back exactly to the step before
    _diverge(session, lambda s: s.set_solver(max_nfe=10), lambda s: s.set_solver(max_nfe=5000),
             "nfe", "Raise the cap")


def test_instability_underflow_restores_weights():
    def provoke(s):   # an absurd learning rate: f becomes enormous, dopri5's step vanishes
        s.set_lr(1e30)

    _diverge(_spiral(), provoke, lambda s: s.set_lr(1e-3), "underflow",
             "fixed-step solver such as rk4")


def test_instability_nan_restores_weights():
    def provoke(s):
        s.set_lr(1e30)

    session = _spiral(solver=ode.SolverConfig(method="rk4"))
    _diverge(session, provoke, lambda s: s.set_lr(1e-3), "nan", "smaller learning rate")


def test_compare_adjoint_on_the_spiral():
    session = _spiral()
    before = _state(session.model)
    cmp = session.compare_adjoint(repeats=1, solver=ode.SolverConfig(rtol=1e-6, atol=1e-8))
    assert isinstance(cmp, AdjointComparison)
    assert cmp.grad_rel_diff < 1e-3
    assert 0 <= cmp.saved_bytes_adjoint < cmp.saved_bytes_direct
    assert cmp.nfe_forward_direct == cmp.nfe_forward_adjoint > 0
    assert cmp.nfe_backward_direct > 0 and cmp.nfe_backward_adjoint > 0
    assert cmp.loss_direct == pytest.approx(cmp.loss_adjoint, rel=1e-5)
    assert math.isnan(cmp.cuda_peak_direct)
    assert _same(_state(session.model), before)


def test_cnf_session_trains_with_adjoint_and_compares():
    session = ode.CNFSession(hidden=16, batch_size=64, seed=0,
                             solver=ode.SolverConfig(adjoint=True))
    progress = list(session.train(2))
    assert progress[-1].metrics["nll"] == progress[-1].loss
    assert progress[-1].metrics["nfe_backward"] > 0
    cmp = session.compare_adjoint(repeats=1)
    assert cmp.saved_bytes_adjoint < cmp.saved_bytes_direct / 10
    assert cmp.grad_rel_diff < 0.05


def test_classifier_trace_shapes():
    session = ode.ClassifierSession("moons", augment=1, hidden=8, batch_size=64,
                                    solver=ode.SolverConfig(method="rk4", step_size=0.25))
    progress = list(session.train(2))
    assert 0.0 <= progress[-1].metrics["accuracy"] <= 1.0
    tr = session.trace(n_points=20, n_times=5, grid=10)
    assert isinstance(tr, ClassifierTrace)
    assert tr.prob.shape == (10, 10) and tr.points.shape == (20, 2)
    assert tr.labels.shape == (20,) and tr.labels.dtype == np.int64
    assert tr.paths.shape == (5, 20, 2) and tr.times.shape == (5,)
    assert np.allclose(tr.paths[0], tr.points) and tr.augment == 1
    assert np.all((tr.prob >= 0) & (tr.prob <= 1))
    assert session.vector_field(n=4).u.shape == (4, 4)


def test_augmentation_separates_circles_faster():
    """A flow of the plane cannot take the inner circle out of the outer one; with one
    extra dimension it lifts it out. After the same modest budget the augmented model is
    (nearly) perfect and the plain one is not."""
    acc = {}
    for augment in (0, 1):
        session = ode.ClassifierSession("circles", augment=augment, seed=0,
                                        solver=ode.SolverConfig(method="rk4", step_size=0.25))
        acc[augment] = list(session.train(80))[-1].metrics["accuracy"]
    assert acc[1] > 0.98 and acc[1] > acc[0] + 0.03, acc


def test_devices():
    if not torch.cuda.is_available():
        with pytest.raises(DeviceUnavailableError):
            ode.SpiralSession(device="cuda")
        with pytest.raises(DeviceUnavailableError):
            _spiral().to("cuda")
    with pytest.raises(DeviceUnavailableError):
        ode.CNFSession(device="no-such-device")


def test_rollback_keeps_a_learning_rate_set_after_the_snapshot():
    """Restoring the last good state puts back weights and Adam's moments, not the old
    learning rate: lowering it after a blow-up is what a user does next."""
    from models import checkpoint

    session = _spiral()
    list(session.train(2))
    good, moments = checkpoint.snapshot(session.model, session.optimizer), _adam(
        session.optimizer)
    weights = _state(session.model)
    list(session.train(2))
    session.set_lr(1e-5)
    checkpoint.restore(session.model, session.optimizer, good)
    assert session.optimizer.param_groups[0]["lr"] == 1e-5 == session.lr
    assert _same(_state(session.model), weights) and _same(_adam(session.optimizer), moments)


def test_cnf_trace_when_t1_is_not_a_float32_number():
    """t1 = 0.7 rounds down in float32: the first density (at t1 itself) is the base."""
    session = ode.CNFSession(t1=0.7, hidden=8, batch_size=64)
    trace = session.trace(n_times=3, n_samples=50, grid=12)
    assert trace.density.shape == (3, 12, 12) and np.isfinite(trace.density).all()
    assert np.isclose(trace.times[0], 0.7) and trace.times[-1] == 0.0


def test_gc_pauses_are_counted_across_users():
    """Two users pausing automatic collection (the ODE tab's workers, the profiler's
    measurement): it comes back only when the last one releases, and stays off if it was
    off before the first."""
    import gc

    from models import gcpause

    assert gc.isenabled() and gcpause.holds() == 0
    try:
        gcpause.hold()
        with gcpause.paused():
            assert not gc.isenabled() and gcpause.holds() == 2
        assert not gc.isenabled()                 # the first user still holds it
        gcpause.release()
        assert gc.isenabled()
        gcpause.release()                         # an extra release changes nothing
        assert gc.isenabled() and gcpause.holds() == 0
        gc.disable()
        with gcpause.paused():
            pass
        assert not gc.isenabled()                 # off before: stays off
    finally:
        gc.enable()


def test_a_collection_blocked_by_steps_runs_before_the_next_step_only():
    """The window's collector (a hold of its own) finds a worker inside a step: it does
    not collect, and the worker's next step waits until it has. A hold that does not
    yield (an export, a file being parsed) blocks the collection without making the
    steps wait for it."""
    import threading
    import time

    from models import gcpause

    gcpause.hold()                                # the window collector's own
    try:
        inside, go, order = threading.Event(), threading.Event(), []

        def worker():
            with gcpause.paused(yield_to_collection=True):
                inside.set()
                go.wait(5)
            with gcpause.paused(yield_to_collection=True):    # waits for the collection
                order.append(time.perf_counter())

        thread = threading.Thread(target=worker)
        thread.start()
        assert inside.wait(5)
        assert not gcpause.collect(0)             # a step is on: not now, but wanted
        go.set()
        time.sleep(0.15)
        assert order == []                        # the next step waits ...
        collected = time.perf_counter()
        assert gcpause.collect(0)                 # ... until it has been collected
        thread.join(5)
        assert order and order[0] >= collected
        # an export's hold: no collection, and no step waits for one
        gcpause.hold()
        assert not gcpause.collect(0)
        took = []

        def step():
            t0 = time.perf_counter()
            with gcpause.paused(yield_to_collection=True):
                took.append(time.perf_counter() - t0)

        thread = threading.Thread(target=step)
        thread.start()
        thread.join(5)
        assert took and took[0] < 0.3, took       # not the half second of a wait
        gcpause.release()
        assert gcpause.holds() == 1
    finally:
        gcpause.release()
        gcpause.withdraw()


def test_probe_returns_one_frozen_trace_and_says_what_failed():
    """The tab's background computation: one ODEResult (frozen arrays), and a model that
    cannot be solved within the settings gives a note and the field, not an exception."""
    from models.ode.options import FIELD_GRID, SPIRAL_STARTS
    from models.ode.probe import ode_result
    from models.traces.ode import ODEResult

    session = _spiral()
    key = ("spiral", "", 50, 0)
    r = ode_result(session, "spiral", [(0.5, 0.5)], key)
    assert isinstance(r, ODEResult) and isinstance(r.trace, SpiralTrace) and r.key == key
    assert r.paths.shape == (len(SPIRAL_STARTS), len(r.times), 2)
    assert not r.paths.flags.writeable and r.paths.dtype == np.float32
    np.testing.assert_allclose(r.paths[:, 0], SPIRAL_STARTS, atol=1e-6)
    assert r.fields.u.shape == (1, FIELD_GRID ** 2)           # f(y) does not depend on t
    assert isinstance(r.steps, SolverSteps) and r.display_error == ""
    assert r.user.paths.shape[0] == 1 and r.user_error == ""
    np.testing.assert_allclose(r.user.paths[0, 0], [0.5, 0.5], atol=1e-6)
    session.set_solver(max_nfe=10)
    bad = ode_result(session, "spiral", [], key)
    assert bad.trace is None and "more than 10 evaluations" in bad.display_error
    assert bad.steps is None and "more than 10 evaluations" in bad.steps_error
    assert bad.fields.u.shape == (1, FIELD_GRID ** 2) and bad.paths.shape[0] == 0
