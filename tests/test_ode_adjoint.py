"""ArchScope's adjoint method (models/ode/adjoint.py) against torchdiffeq's
``odeint_adjoint``, the reference: the same solution, the same gradients to the bit and
the same evaluations each way; and why it exists (torchdiffeq's imports sympy)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torchdiffeq import odeint_adjoint as torchdiffeq_adjoint

from models.ode.adjoint import odeint_adjoint
from models.ode.dynamics import CNFDynamics, ODEFunc

ROOT = Path(__file__).resolve().parent.parent

#: (f, y0, t, solver settings, whether t takes a gradient); f and y0 from seed 1
CASES = {
    "spiral, dopri5": (lambda: ODEFunc(2, 16, cube_input=True),
                       lambda: torch.tensor([[2.0, 0.0]]), torch.linspace(0, 1, 5),
                       {"rtol": 1e-6, "atol": 1e-8, "method": "dopri5"}, False),
    "rk4 grid, t with a gradient": (lambda: ODEFunc(2, 16, time_dependent=True),
                                    lambda: torch.randn(8, 2), torch.linspace(0, 1, 3),
                                    {"method": "rk4", "options": {"step_size": 0.1}}, True),
    "decreasing times": (lambda: ODEFunc(2, 16, time_dependent=True),
                         lambda: torch.randn(8, 2), torch.linspace(1, 0, 4),
                         {"rtol": 1e-5, "atol": 1e-6, "method": "dopri5"}, False),
    "decreasing times, t with a gradient": (lambda: ODEFunc(2, 16, time_dependent=True),
                                            lambda: torch.randn(8, 2), torch.linspace(1, 0, 4),
                                            {"rtol": 1e-5, "atol": 1e-6}, True),
    "bosh3, float64, t with a gradient": (
        lambda: ODEFunc(2, 16).double(), lambda: torch.randn(4, 2, dtype=torch.float64),
        torch.linspace(0, 2, 6, dtype=torch.float64),
        {"rtol": 1e-9, "atol": 1e-10, "method": "bosh3"}, True),
    "euler, default tolerances": (lambda: ODEFunc(3, 8), lambda: torch.randn(5, 3),
                                  torch.linspace(0, 0.5, 3),
                                  {"method": "euler", "options": {"step_size": 0.05}}, False),
}


def _run(adjoint, make_f, make_y0, t, settings, t_grad):
    torch.manual_seed(1)
    f = make_f()
    y0 = make_y0().requires_grad_()
    t = t.clone().requires_grad_(t_grad)
    y = adjoint(f, y0, t, adjoint_params=tuple(f.parameters()), **settings)
    forward_nfe = f.nfe
    inputs = (*f.parameters(), y0, *((t,) if t_grad else ()))
    grads = torch.autograd.grad((y ** 2).sum() + y[-1].sin().sum(), inputs)
    return y, grads, (forward_nfe, f.nfe, f.nfe_backward)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.slow
def test_solution_gradients_and_evaluations_are_torchdiffeqs_to_the_bit(case):
    y, grads, nfe = _run(odeint_adjoint, *CASES[case])
    y_ref, grads_ref, nfe_ref = _run(torchdiffeq_adjoint, *CASES[case])
    assert torch.equal(y, y_ref)
    assert len(grads) == len(grads_ref)
    assert all(torch.equal(g, r) for g, r in zip(grads, grads_ref, strict=True))
    assert nfe == nfe_ref and nfe[2] > 0            # the backward solve did run


def test_a_tuple_state_the_cnf_is_torchdiffeqs_to_the_bit():
    """The CNF's (z, Δlogp) state, with the exact trace's double backward."""
    def run(adjoint):
        torch.manual_seed(1)
        f = CNFDynamics(ODEFunc(2, 16, time_dependent=True))
        x = torch.randn(16, 2)
        z, dlogp = adjoint(f, (x, torch.zeros(16, 1)), torch.tensor([0.0, 1.0]),
                           adjoint_params=tuple(f.parameters()), rtol=1e-5, atol=1e-6)
        loss = 0.5 * (z[-1] ** 2).sum() + dlogp[-1].sum()
        return (z, dlogp), torch.autograd.grad(loss, tuple(f.parameters())), (f.nfe,
                                                                               f.nfe_backward)

    (z, dlogp), grads, nfe = run(odeint_adjoint)
    (z_ref, dlogp_ref), grads_ref, nfe_ref = run(torchdiffeq_adjoint)
    assert torch.equal(z, z_ref) and torch.equal(dlogp, dlogp_ref)
    assert all(torch.equal(g, r) for g, r in zip(grads, grads_ref, strict=True))
    assert nfe == nfe_ref


def test_parameters_without_a_gradient_are_left_out_as_in_torchdiffeq():
    torch.manual_seed(1)
    f = ODEFunc(2, 8)
    frozen = next(f.parameters())
    frozen.requires_grad_(False)
    y0 = torch.randn(3, 2, requires_grad=True)
    t = torch.linspace(0, 1, 3)
    y = odeint_adjoint(f, y0, t, adjoint_params=tuple(f.parameters()), method="rk4",
                       options={"step_size": 0.1})
    y.sum().backward()
    assert frozen.grad is None
    assert all(p.grad is not None for p in f.parameters() if p.requires_grad)
    assert y0.grad is not None and torch.isfinite(y0.grad).all()


def _fresh(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_backpropagating_by_the_adjoint_does_not_import_sympy_where_torchdiffeqs_does():
    """The reason for models/ode/adjoint.py: in a fresh process, a backward pass through
    it leaves sympy out; the same through torchdiffeq's brings it in."""
    got = _fresh("""
        import json, sys
        import torch
        from torchdiffeq import odeint_adjoint as theirs
        from models.ode.adjoint import odeint_adjoint as ours
        from models.ode.dynamics import ODEFunc
        seen = {}
        for name, adjoint in (("ours", ours), ("torchdiffeq", theirs)):
            f = ODEFunc(2, 8)
            y = adjoint(f, torch.randn(4, 2), torch.linspace(0, 1, 3),
                        adjoint_params=tuple(f.parameters()))
            y.sum().backward()
            seen[name] = "sympy" in sys.modules
        print(json.dumps(seen))
    """)
    assert got == {"ours": False, "torchdiffeq": True}


# -- scipy stays out of the ODE tab ---------------------------------------------------------------
def test_the_shipped_spiral_is_scipys_and_a_bad_file_is_integrated_again(tmp_path, monkeypatch):
    """``resources/ode/spiral.npy`` is what scipy's DOP853 gives for the tab's spiral
    (regenerate it with ``resources/ode/make_spiral.py`` if this fails after a scipy
    update); a missing or wrong file is integrated again."""
    import numpy as np

    from models.ode import spiral

    t, y = spiral._integrated(*spiral.SHIPPED)
    shipped = spiral._shipped()
    assert shipped is not None, "resources/ode/spiral.npy is missing or not the spiral"
    np.testing.assert_allclose(shipped, y, rtol=0, atol=1e-12)
    spiral._true_spiral.cache_clear()
    try:
        t_shipped, y_shipped = spiral.true_spiral()
        np.testing.assert_array_equal(t_shipped, t)
        np.testing.assert_array_equal(y_shipped, shipped)
        for content in (b"not numpy", b"", None):
            bad = tmp_path / "spiral.npy"
            if content is None:
                np.save(bad, np.zeros((10, 2)))              # the wrong shape
            else:
                bad.write_bytes(content)
            monkeypatch.setattr(spiral, "SHIPPED_FILE", bad)
            spiral._true_spiral.cache_clear()
            np.testing.assert_array_equal(spiral.true_spiral()[1], y)
        monkeypatch.setattr(spiral, "SHIPPED_FILE", tmp_path / "missing.npy")
        spiral._true_spiral.cache_clear()
        np.testing.assert_array_equal(spiral.true_spiral()[1], y)
    finally:
        spiral._true_spiral.cache_clear()


@pytest.mark.slow
def test_the_ode_sessions_leave_scipy_out_and_torchdiffeqs_scipy_solver_still_works():
    """In a fresh process, the ODE tab's three sessions train, compare and draw without
    importing scipy; torchdiffeq's "scipy_solver" (ArchScope's deferring copy of its
    module, models/torchdiffeq_scipy.py) gives what torchdiffeq's own gives."""
    solve = """
        import torch, torchdiffeq
        f = lambda t, y: torch.stack([y[1], -y[0] - 0.1 * y[1]])
        y = torchdiffeq.odeint(f, torch.tensor([1.0, 0.0], dtype=torch.float64),
                               torch.linspace(0, 3, 5, dtype=torch.float64),
                               method="scipy_solver", options={"solver": "LSODA"},
                               rtol=1e-8, atol=1e-9)
    """
    got = _fresh("""
        import json, sys
        import models
        from models.ode.spiral import SpiralSession
        from models.ode.classify import ClassifierSession
        from models.ode.cnf import CNFSession
        from models.ode.probe import ode_result
        for task, s in (("spiral", SpiralSession(batch_size=8)),
                        ("classify", ClassifierSession()), ("cnf", CNFSession(batch_size=16))):
            for _ in s.train(2):
                pass
            ode_result(s, task, [], ("first",))          # what the tab draws first
        SpiralSession(batch_size=8).compare_adjoint(repeats=1)
        import inspect, pickle
        import torchdiffeq._impl.scipy_wrapper as wrapper
        S = wrapper.ScipyWrapperODESolver
        probed = not hasattr(S, "__wrapped__") and inspect.isclass(S)   # a probe only
        before = "scipy" in sys.modules
    """ + solve + """
        solver = S(func=f, y0=torch.zeros(2, dtype=torch.float64), rtol=1e-3, atol=1e-3)
        try:
            type("Mine", (S,), {})()
            subclassed = True
        except TypeError:
            subclassed = False
        print(json.dumps({"scipy_before": before, "scipy_after": "scipy" in sys.modules,
                          "probed": probed, "y": y.tolist(),
                          "isinstance": isinstance(solver, S) and issubclass(type(solver), S),
                          "callbacks": sorted(S.valid_callbacks()),
                          "module_names": callable(wrapper.convert_func_to_numpy),
                          "pickled": pickle.loads(pickle.dumps(type(solver))) is type(solver),
                          "subclassed": subclassed}))
    """)
    reference = _fresh("""
        import json
    """ + solve + """
        from torchdiffeq._impl.scipy_wrapper import ScipyWrapperODESolver as S
        print(json.dumps({"y": y.tolist(), "callbacks": sorted(S.valid_callbacks())}))
    """)
    assert got["scipy_before"] is False and got["scipy_after"] is True
    assert got["probed"] is True
    assert got["y"] == reference["y"]
    assert got["isinstance"] and got["module_names"] and got["pickled"]
    assert got["callbacks"] == reference["callbacks"]
    assert got["subclassed"] is False          # refused with a pointer to torchdiffeq's
