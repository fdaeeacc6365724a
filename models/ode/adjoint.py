"""The adjoint method (Chen et al. 2018, §2): the gradient of a loss on y(t_1) … y(t_T)
without keeping the forward solve for backward.

The forward pass solves dy/dt = f(t, y; θ) under ``no_grad`` and keeps only y at the
output times. Backward solves one ODE from t_T down to t_0, in the augmented state

    y        dy/dt      = f(t, y)                 (y again, backwards in time)
    a        da/dt      = −aᵀ ∂f/∂y               (a = ∂L/∂y, the adjoint)
    a_θ      da_θ/dt    = −aᵀ ∂f/∂θ               (accumulates ∂L/∂θ)
    a_t      da_t/dt    = −aᵀ ∂f/∂t

and at every output time t_i adds ∂L/∂y(t_i) to a. The vector–Jacobian products
aᵀ ∂f/∂(t, y, θ) come from one autograd call per evaluation of f. Memory: one
evaluation's graph at a time, whatever the number of steps.

This is torchdiffeq's ``odeint_adjoint`` step for step: the same solver (torchdiffeq's
``odeint``) on the same augmented state, the same error norm (the state's norm, the
adjoint's and the parameters' mixed norm), so the same steps, evaluations and numbers
(``tests/test_ode_adjoint.py`` compares the two to the bit). One thing differs: the
product. torchdiffeq asks autograd for ``grad(f, (t, y, θ), grad_outputs=−a)``, and for
a ``grad_outputs`` tensor PyTorch checks its shape with
``torch.fx.experimental.symbolic_shapes``, whose import brings sympy: 44 MB of the
window's memory (measured with every tab open), for a shape check. Here the product is
the gradient of the scalar ``Σ f · (−a)``: autograd starts that backward from 1, and
∂/∂f of ``f · (−a)`` is 1 · (−a), exactly the vector torchdiffeq hands in.

Only what ArchScope uses: tensor or tuple states, a fixed-grid or adaptive torchdiffeq
solver with its ``options``, the adjoint solved with the forward's settings, ``t`` with
or without gradient; no events. It reads torchdiffeq's private helpers (``_impl.misc``),
as of the version constraints.txt pins; the tests compare the two on that version.
"""

from __future__ import annotations

import torch
from torchdiffeq import odeint
from torchdiffeq._impl.misc import (
    _all_adjoint_callback_names,
    _all_callback_names,
    _check_inputs,
    _flat_to_shape,
    _mixed_norm,
)
from torchdiffeq._impl.odeint import SOLVERS

__all__ = ["odeint_adjoint"]

#: the version whose private helpers (``_impl.misc``, ``_impl.odeint``) this reads
#: (``tests/test_patches.py`` fails on another)
WRITTEN_FOR = {"torchdiffeq": "0.2.5"}


def odeint_adjoint(func, y0, t: torch.Tensor, *, adjoint_params, rtol: float = 1e-7,
                   atol: float = 1e-9, method: str | None = None,
                   options: dict | None = None):
    """y at every t (``[T, *y0.shape]``, or a tuple for a tuple ``y0``), differentiable in
    ``y0``, ``t`` and ``adjoint_params`` by the adjoint method; the arguments are
    torchdiffeq's ``odeint_adjoint``'s (its adjoint settings are the forward's)."""
    # the backward solve's settings: the caller's, as given (torchdiffeq's defaults)
    adjoint_options = {k: v for k, v in (options or {}).items() if k != "norm"}
    adjoint_solve = (rtol, atol, method, adjoint_options)
    params = tuple(p for p in adjoint_params if p.requires_grad)
    # torchdiffeq's own preparation: a tuple state flattened into one tensor (f wrapped
    # to match), decreasing times made increasing, the state's error norm chosen
    shapes, func, y0, t, rtol, atol, method, options, _event, _decreasing = _check_inputs(
        func, y0, t, rtol, atol, method, options, None, SOLVERS)
    state_norm = options["norm"]

    def adjoint_norm(state):
        t_, y, adj_y, *adj_params = state
        return max(t_.abs(), state_norm(y), state_norm(adj_y), _mixed_norm(adj_params))

    adjoint_options["norm"] = adjoint_norm
    solution = _Adjoint.apply(func, y0, t, (rtol, atol, method, options), adjoint_solve,
                              t.requires_grad, *params)
    return solution if shapes is None else _flat_to_shape(solution, (len(t),), shapes)


class _Adjoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, func, y0, t, solve, adjoint_solve, t_requires_grad, *params):
        ctx.func, ctx.adjoint_solve, ctx.t_requires_grad = func, adjoint_solve, t_requires_grad
        rtol, atol, method, options = solve
        with torch.no_grad():
            y = odeint(func, y0, t, rtol=rtol, atol=atol, method=method, options=options)
        ctx.save_for_backward(t, y, *params)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        func, t_requires_grad = ctx.func, ctx.t_requires_grad
        rtol, atol, method, options = ctx.adjoint_solve
        t, y, *params = ctx.saved_tensors
        params = tuple(params)
        with torch.no_grad():
            # (a_t, y, a, a_θ) at t_T
            state = [torch.zeros((), dtype=y.dtype, device=y.device), y[-1], grad_y[-1],
                     *(torch.zeros_like(p) for p in params)]

            def augmented(s, aug):
                adj_y = aug[2]
                with torch.enable_grad():
                    # as torchdiffeq: ``requires_grad_`` works in place, so s and s_ are
                    # one tensor and ∂f/∂t is taken either way (kept, for its numbers)
                    s_ = s.detach()
                    s = s_.requires_grad_(True)
                    yy = aug[1].detach().requires_grad_(True)
                    f = func(s if t_requires_grad else s_, yy)
                    # views of the inputs keep them in the graph (as torchdiffeq does,
                    # for PyTorch issue 39784: an unused input must come back None)
                    _s = torch.as_strided(s, (), ())  # noqa: F841
                    _y = torch.as_strided(yy, (), ())  # noqa: F841
                    _p = tuple(torch.as_strided(p, (), ()) for p in params)  # noqa: F841
                    # aᵀ ∂f/∂(t, y, θ) with a = −adj_y, as the gradient of a scalar (see
                    # the module's docstring)
                    vjp_t, vjp_y, *vjp_params = torch.autograd.grad(
                        (f * -adj_y).sum(), (s, yy) + params, allow_unused=True,
                        retain_graph=True)
                vjp_t = torch.zeros_like(s) if vjp_t is None else vjp_t
                vjp_y = torch.zeros_like(yy) if vjp_y is None else vjp_y
                vjp_params = [torch.zeros_like(p) if g is None else g
                              for p, g in zip(params, vjp_params, strict=True)]
                return (vjp_t, f, vjp_y, *vjp_params)

            # f's adjoint callbacks are the backward solve's callbacks (torchdiffeq's rule)
            for name, adjoint_name in zip(_all_callback_names, _all_adjoint_callback_names,
                                          strict=True):
                callback = getattr(func, adjoint_name, None)
                if callback is not None:
                    setattr(augmented, name, callback)

            time_vjps = torch.empty(len(t), dtype=t.dtype, device=t.device) \
                if t_requires_grad else None
            for i in range(len(t) - 1, 0, -1):
                if t_requires_grad:        # moving t_i moves y(t_i) by f(t_i, y_i) dt
                    d_t = func(t[i], y[i]).reshape(-1).dot(grad_y[i].reshape(-1))
                    state[0] -= d_t
                    time_vjps[i] = d_t
                state = odeint(augmented, tuple(state), t[i - 1:i + 1].flip(0), rtol=rtol,
                               atol=atol, method=method, options=options)
                state = [s[1] for s in state]          # the values at t_{i-1}
                state[1] = y[i - 1]                    # the forward solve's y there
                state[2] += grad_y[i - 1]              # and the loss's own ∂L/∂y(t_{i-1})
            if t_requires_grad:
                time_vjps[0] = state[0]
        return (None, state[2], time_vjps, None, None, None, *state[3:])
