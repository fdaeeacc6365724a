"""The dynamics: f(t, y), a network that is the velocity of the state, and the CNF's
augmented dynamics with the exact trace. Both count their evaluations (``_Counted``).

Shapes:
    ODEFunc: t scalar, y [batch, dim] -> [batch, dim]
    CNF state: (z [batch, 2], Δlogp [batch, 1]) with Δlogp(t) = −∫_0^t tr ∂f/∂z
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError
from models.ode.solver import _Counted

__all__ = ["ODEFunc", "CNFDynamics", "divergence_exact"]


class ODEFunc(_Counted):
    """f(t, y): a small MLP with tanh, the velocity of the state.

    ``time_dependent`` appends t to the input (``[y, t]``); ``cube_input`` feeds ``y**3``
    instead of y (torchdiffeq's ode_demo: the true dynamics are cubic). ``depth`` hidden
    layers of ``hidden`` units. ``init_std``: weights ~ N(0, init_std²) and zero biases
    (the demo's 0.1), else PyTorch's default initialisation.

    Counts its evaluations in ``nfe`` (forward calls) and ``nfe_backward`` (evaluations
    backpropagated through, counted by an identity ``autograd.Function`` on the output);
    raises ``NFELimitExceeded`` when one solve passes ``max_nfe``. ``f(t, y)`` is the same
    function without counting (for drawing the field).

    Shapes:
        t: scalar; y: [batch, dim] -> [batch, dim]
    """

    def __init__(self, dim: int = 2, hidden: int = 64, time_dependent: bool = True,
                 cube_input: bool = False, max_nfe: int | None = None, depth: int = 2,
                 init_std: float | None = None) -> None:
        super().__init__(max_nfe)
        for name, v, lo in (("dim", dim, 1), ("hidden", hidden, 1), ("depth", depth, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise InvalidParameterError(f"{name} must be a whole number ≥ {lo}, got {v!r}.")
        self.dim, self.hidden, self.depth = int(dim), int(hidden), int(depth)
        self.time_dependent, self.cube_input = bool(time_dependent), bool(cube_input)
        layers: list[nn.Module] = [nn.Linear(dim + int(self.time_dependent), hidden), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.Tanh()]
        layers.append(nn.Linear(hidden, dim))
        self.net = nn.Sequential(*layers)
        if init_std is not None:
            for m in self.net.modules():
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, mean=0.0, std=init_std)
                    nn.init.zeros_(m.bias)

    def f(self, t, y: torch.Tensor) -> torch.Tensor:
        """The velocity, uncounted."""
        h = y ** 3 if self.cube_input else y
        if self.time_dependent:
            t = torch.as_tensor(t, dtype=y.dtype, device=y.device)
            h = torch.cat([h, t.reshape(1, 1).expand(*y.shape[:-1], 1)], dim=-1)
        return self.net(h)

    def forward(self, t, y: torch.Tensor) -> torch.Tensor:
        self._count()
        return self._mark(self.f(t, y))

    def extra_repr(self) -> str:
        return (f"dim={self.dim}, hidden={self.hidden}, depth={self.depth}, "
                f"time_dependent={self.time_dependent}, cube_input={self.cube_input}")


def divergence_exact(dz: torch.Tensor, z: torch.Tensor, create_graph: bool) -> torch.Tensor:
    """tr(∂dz/∂z) per row, exactly: one autograd call per coordinate (two in 2D).

    Shapes:
        dz, z: [batch, d] -> [batch]
    """
    div = torch.zeros(dz.shape[0], dtype=dz.dtype, device=dz.device)
    for i in range(dz.shape[1]):
        g = torch.autograd.grad(dz[:, i].sum(), z, create_graph=create_graph,
                                retain_graph=True)[0]
        div = div + g[:, i]
    return div


class CNFDynamics(_Counted):
    """The augmented dynamics of a continuous normalizing flow:
    ``d/dt (z, Δlogp) = (f(t, z), −tr ∂f/∂z)`` with the exact trace.

    The trace's graph is kept (``create_graph``) when gradients are being recorded
    (training, and the adjoint's backward solve), not when evaluating under no_grad.
    """

    def __init__(self, func: ODEFunc) -> None:
        super().__init__(None)
        self.func = func

    def forward(self, t, state: tuple[torch.Tensor, torch.Tensor]):
        z = state[0]
        self._count()
        create_graph = torch.is_grad_enabled()
        with torch.enable_grad():
            if not z.requires_grad:
                z = z.detach().requires_grad_(True)
            dz = self.func.f(t, z)
            div = divergence_exact(dz, z, create_graph)
        if not create_graph:
            dz, div = dz.detach(), div.detach()
        return self._mark(dz), -div.unsqueeze(-1)



def _seeded(seed: int, build):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()
