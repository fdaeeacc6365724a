"""Looking at a model: its vector field on a plane, and one batch's gradient by direct
backpropagation against the adjoint method (time, memory kept for backward, NFE).

(``solver_steps``, the record of every step of one solve, is in ``models.ode.solver``.)
"""

from __future__ import annotations

import math
import statistics
import time
import weakref
from dataclasses import replace

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError
from models.ode.dynamics import ODEFunc
from models.ode.solver import SolverConfig, _config
from models.traces import AdjointComparison, VectorField

__all__ = ["vector_field", "compare_adjoint"]


@torch.no_grad()
def vector_field(func, extent: tuple[float, float, float, float], n: int = 21,
                 t: float = 0.0, dims: tuple[int, int] = (0, 1), state_dim: int = 2,
                 ) -> VectorField:
    """f(t, ·) on an n × n grid over ``extent`` (x_min, x_max, y_min, y_max) of the plane
    spanned by state coordinates ``dims`` (the others 0), under no_grad, uncounted for an
    ``ODEFunc``. Grid corners included; rows from y_min upwards."""
    x0, x1, y0, y1 = (float(v) for v in extent)
    if not (x1 > x0 and y1 > y0) or n < 2:
        raise InvalidParameterError("The grid needs x_max > x_min, y_max > y_min and n ≥ 2.")
    a, b = dims
    if not (0 <= a < state_dim and 0 <= b < state_dim and a != b):
        raise InvalidParameterError(f"dims must be two different coordinates of the "
                                    f"{state_dim}-dimensional state, got {dims!r}.")
    params = [p for p in func.parameters()] if isinstance(func, nn.Module) else []
    dtype = params[0].dtype if params else torch.float32
    device = params[0].device if params else torch.device("cpu")
    xs = torch.linspace(x0, x1, n, dtype=dtype, device=device)
    ys = torch.linspace(y0, y1, n, dtype=dtype, device=device)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    state = torch.zeros(n * n, state_dim, dtype=dtype, device=device)
    state[:, a], state[:, b] = gx.reshape(-1), gy.reshape(-1)
    tt = torch.tensor(float(t), dtype=dtype, device=device)
    out = func.f(tt, state) if isinstance(func, ODEFunc) else func(tt, state)
    u = out[:, a].reshape(n, n).cpu().numpy()
    v = out[:, b].reshape(n, n).cpu().numpy()
    return VectorField(x=gx.cpu().numpy(), y=gy.cpu().numpy(), u=u, v=v,
                       speed=np.hypot(u, v), t=float(t), extent=(x0, x1, y0, y1),
                       dims=(int(a), int(b)))



# -- the adjoint against direct backpropagation -----------------------------------------------
class _Held:
    """What the pack hook stores instead of a saved tensor (weak-referenceable, so the
    count sees which saved tensors the graph still holds)."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


class _SavedBytes:
    """Bytes of the tensors autograd keeps for backward: while active
    (``saved_tensors_hooks``) every saved tensor is wrapped; ``nbytes`` sums the distinct
    storages of those the graph still holds (transient graphs, e.g. the trace's inside an
    adjoint's no-grad forward, are gone by then), leaving out the parameters."""

    def __init__(self, exclude) -> None:
        self.exclude = {p.untyped_storage().data_ptr() for p in exclude}
        self.held: list[weakref.ref] = []

    def _pack(self, t: torch.Tensor) -> _Held:
        # detached: a saved output holding its own grad_fn would be a reference cycle in
        # C++ that is never freed (autograd restores the grad_fn on unpacking)
        h = _Held(t.detach())
        self.held.append(weakref.ref(h))
        return h

    @staticmethod
    def _unpack(h: _Held) -> torch.Tensor:
        return h.tensor

    def __enter__(self):
        self._ctx = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ctx.__exit__(*exc)

    @property
    def nbytes(self) -> int:
        storages: dict[int, int] = {}
        for ref in self.held:
            h = ref()
            if h is None:
                continue
            try:
                s = h.tensor.untyped_storage()
                ptr = s.data_ptr()
                if ptr not in self.exclude:
                    storages[ptr] = s.nbytes()
            except (RuntimeError, NotImplementedError):
                continue
        return int(sum(storages.values()))


def compare_adjoint(session, repeats: int = 3, solver: SolverConfig | None = None,
                    ) -> AdjointComparison:
    """Loss and gradient of one fixed batch from the current weights, by backpropagating
    through the solver and by the adjoint method (the current solver settings, or
    ``solver``): median wall time of ``repeats`` forward + backward passes, the bytes
    autograd keeps for backward, NFE each way and the gradients' difference. The
    weights and the optimizer are not touched."""
    repeats = max(1, int(repeats))
    with session.lock:
        base = replace(session.solver) if solver is None else _config(solver)
        batch = session._fixed_batch()
        params = [p for p in session.model.parameters() if p.requires_grad]
        dyn = session.dynamics
        cuda = session.device.type == "cuda"
        session.model.train()
        out = {}
        for adjoint in (False, True):
            cfg = replace(base, adjoint=adjoint)
            seconds, peak = [], math.nan
            for _ in range(repeats):
                dyn.reset_counts()
                if cuda:
                    torch.cuda.synchronize(session.device)
                    torch.cuda.reset_peak_memory_stats(session.device)
                    mem0 = torch.cuda.memory_allocated(session.device)
                t0 = time.perf_counter()
                with _SavedBytes(params) as saved:
                    loss = session._loss(batch, cfg)
                kept = saved.nbytes
                nfe_f = dyn.nfe
                dyn.start_solve()
                grads = torch.autograd.grad(loss, params, allow_unused=True)
                if cuda:
                    torch.cuda.synchronize(session.device)
                    peak = float(torch.cuda.max_memory_allocated(session.device) - mem0)
                seconds.append(time.perf_counter() - t0)
                nfe_b = dyn.nfe_backward
            flat = torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                              for p, g in zip(params, grads, strict=True)]).detach()
            out[adjoint] = (statistics.median(seconds), kept, nfe_f, nfe_b,
                            flat, float(loss.detach()), peak)
        d, a = out[False], out[True]
        scale = float(d[4].abs().max())
        diff = float((a[4] - d[4]).abs().max()) / max(scale, 1e-30)
        return AdjointComparison(
            seconds_direct=d[0], seconds_adjoint=a[0], saved_bytes_direct=d[1],
            saved_bytes_adjoint=a[1], nfe_forward_direct=d[2], nfe_backward_direct=d[3],
            nfe_forward_adjoint=a[2], nfe_backward_adjoint=a[3], grad_rel_diff=diff,
            loss_direct=d[5], loss_adjoint=a[5], cuda_peak_direct=d[6],
            cuda_peak_adjoint=a[6], method=base.method, rtol=float(base.rtol),
            atol=float(base.atol))
