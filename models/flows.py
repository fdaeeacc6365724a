"""Normalizing flows: RealNVP, NICE, MAF and IAF on 2D points, with traces of every layer.

A flow is an invertible map ``f`` from data x to a latent z with a simple base density
N(0, I). The change of variables gives the exact log-likelihood

    log p(x) = log N(f(x); 0, I) + Σ_l log|det ∂f_l/∂(input of layer l)|,

so training maximises it directly, and sampling runs the inverse on N(0, I) draws.

* **Coupling layers** (RealNVP affine, NICE additive): a binary mask keeps some
  coordinates; the others are scaled and shifted by functions of the kept ones:
  ``y = m⊙x + (1−m)⊙(x·exp(s(m⊙x)) + t(m⊙x))``. Triangular Jacobian, log-det Σ s.
  Both directions cost one network pass.
* **Autoregressive layers** (MADE masks): every coordinate is shifted/scaled by functions
  of the coordinates before it. MAF parametrises data → latent (fast density, sampling
  needs d sequential passes); IAF parametrises latent → data (fast sampling, density
  needs d passes).
* **ActNorm** (per-coordinate affine, data-initialised) and **permutations**.

Every layer is at the same time an ``nn.Module`` (its parameters reach the optimiser)
and a ``torch.distributions.Transform`` in the data → latent direction, so
``TransformedDistribution(base, [l.inv for l in reversed(flow.layers)])`` is the same
density as ``Flow.log_prob``.

Shapes:
    x, z: [n, d]; log-dets: [n]; FlowTrace.points: [L+1, n, d]
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import nn
from torch.distributions import Independent, Normal, Transform, constraints

from models import checkpoint, densities
from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import FlowDensity, FlowTrace, Progress

__all__ = ["FLOW_KINDS", "FlowLayer", "CouplingLayer", "MADE", "MAFLayer", "IAFLayer",
           "ActNorm", "Permute", "Flow", "build_realnvp", "build_nice", "build_maf",
           "build_iaf", "build_flow", "grid_lines", "density_grid", "FlowSession"]

FLOW_KINDS = ("realnvp", "nice", "maf", "iaf")
#: attribute set on a layer's output tensor holding (layer id, weakref to the input,
#: log-scale) so ``log_abs_det_jacobian`` does not rerun the network
_CACHE_ATTR = "_archscope_flow_cache"


# -- the layer base ------------------------------------------------------------------------------
class FlowLayer(nn.Module, Transform):
    """An ``nn.Module`` that is also a bijective ``Transform`` (data → latent).

    ``nn.Module`` comes first in the MRO, so ``layer(x)`` is ``Module.__call__`` →
    ``forward`` → ``Transform.__call__`` (with its x → y cache when ``cache_size=1``);
    parameters, ``to``, ``state_dict`` are the Module's. ``Transform.__eq__`` is identity
    and would make the class unhashable, so ``__hash__`` is restored (Modules must hash).

    The log-det cache: ``_call``/``_inverse`` attach ``(id(self), weakref(input), log_scale)``
    to the tensor they return. ``log_abs_det_jacobian(x, y)`` uses it only when it was
    attached by this layer to exactly this pair, else recomputes. The cached tensor is part
    of the same autograd graph, so gradients are identical either way, and the cache lives
    exactly as long as the output tensor does.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True
    sign = 1
    __hash__ = nn.Module.__hash__
    #: the coordinate passed unchanged (-1: none) and the one changed (-1: every one)
    masked_index = -1
    transformed_index = -1
    label = "layer"

    def __init__(self, cache_size: int = 0) -> None:
        nn.Module.__init__(self)
        Transform.__init__(self, cache_size=cache_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return Transform.__call__(self, x)

    def inverse(self, y: torch.Tensor) -> torch.Tensor:
        return self._inv_call(y)

    def __getstate__(self):
        state = nn.Module.__getstate__(self)
        state["_inv"] = None
        if "_cached_x_y" in state:
            state["_cached_x_y"] = (None, None)
        return state

    def _tag(self, out: torch.Tensor, other: torch.Tensor, log_scale: torch.Tensor) -> None:
        setattr(out, _CACHE_ATTR, (id(self), weakref.ref(other), log_scale))

    def _cached(self, out: torch.Tensor, other: torch.Tensor) -> torch.Tensor | None:
        tag = getattr(out, _CACHE_ATTR, None)
        if tag is not None and tag[0] == id(self) and tag[1]() is other:
            return tag[2]
        return None

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The per-coordinate log|∂y/∂x| ([n, d]), recomputed."""
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        log_scale = self._cached(y, x)
        if log_scale is None:
            log_scale = self._cached(x, y)
        if log_scale is None:
            log_scale = self._log_scale(x, y)
        return log_scale.sum(-1)


def _mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                        nn.ReLU(), nn.Linear(hidden, n_out))
    nn.init.zeros_(net[-1].weight)   # every layer starts as the identity
    nn.init.zeros_(net[-1].bias)
    return net


class CouplingLayer(FlowLayer):
    """RealNVP affine (or NICE additive) coupling; ``mask[i] = 1`` keeps coordinate i.

    ``s = scale · tanh(raw_s)`` with a learned per-coordinate ``scale`` (initially 1):
    bounded log-scales keep exp(s) from overflowing early in training.
    """

    def __init__(self, input_dim: int, hidden_dim: int, mask: Sequence[int] | torch.Tensor,
                 additive: bool = False, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        mask = torch.as_tensor(mask, dtype=torch.float32).reshape(-1)
        if mask.numel() != input_dim or not bool(((mask == 0) | (mask == 1)).all()):
            raise InvalidParameterError(f"The mask must be {input_dim} zeros and ones.")
        self.register_buffer("mask", mask)
        self.additive = additive
        self.net = _mlp(input_dim, hidden_dim, input_dim if additive else 2 * input_dim)
        self.scale = nn.Parameter(torch.ones(input_dim))
        self.label = "additive coupling" if additive else "affine coupling"
        kept, changed = mask.nonzero().flatten(), (1 - mask).nonzero().flatten()
        self.masked_index = int(kept[0]) if len(kept) == 1 else -1
        self.transformed_index = int(changed[0]) if len(changed) == 1 else -1

    def _st(self, kept: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(kept)
        free = 1 - self.mask
        if self.additive:
            return torch.zeros_like(kept), out * free
        raw_s, t = out.chunk(2, dim=-1)
        return self.scale * torch.tanh(raw_s) * free, t * free

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        s, t = self._st(x * self.mask)
        y = x * torch.exp(s) + t     # s = t = 0 on the kept coordinates
        self._tag(y, x, s)
        return y

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        s, t = self._st(y * self.mask)
        x = (y - t) * torch.exp(-s)
        self._tag(x, y, s)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self._st(x * self.mask)[0]


class MaskedLinear(nn.Linear):
    def __init__(self, n_in: int, n_out: int, mask: torch.Tensor) -> None:
        super().__init__(n_in, n_out)
        self.register_buffer("mask", mask.float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.weight * self.mask, self.bias)


class MADE(nn.Module):
    """Masked autoencoder: outputs (mu, raw log-scale) for coordinate i depend only on
    coordinates < i (degrees: inputs 1..d, hidden units cycle 1..d-1, outputs i > hidden)."""

    def __init__(self, input_dim: int, hidden_dim: int) -> None:
        super().__init__()
        d = input_dim
        deg_in = torch.arange(1, d + 1)
        deg_h = torch.arange(hidden_dim) % max(1, d - 1) + 1
        self.net = nn.Sequential(
            MaskedLinear(d, hidden_dim, deg_h[:, None] >= deg_in[None]), nn.ReLU(),
            MaskedLinear(hidden_dim, hidden_dim, deg_h[:, None] >= deg_h[None]), nn.ReLU(),
            MaskedLinear(hidden_dim, 2 * d, (deg_in.repeat(2)[:, None] > deg_h[None])))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, raw = self.net(x).chunk(2, dim=-1)
        return mu, torch.tanh(raw)


class _AutoregressiveLayer(FlowLayer):
    """What MAF and IAF share: a MADE giving μ_i and α_i of the coordinates before i,
    with a learned factor on α (bounded by MADE's tanh). They differ only in which
    direction takes one pass and which takes d."""

    def __init__(self, input_dim: int, hidden_dim: int, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.made = MADE(input_dim, hidden_dim)
        self.scale = nn.Parameter(torch.ones(input_dim))

    def _params(self, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, a = self.made(v)
        return mu, self.scale * a


class MAFLayer(_AutoregressiveLayer):
    """Masked autoregressive flow, data → latent in one pass:
    ``z_i = (x_i − μ_i(x_<i)) · exp(−α_i(x_<i))``; the inverse needs d passes."""

    label = "MAF"

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        mu, alpha = self._params(x)
        z = (x - mu) * torch.exp(-alpha)
        self._tag(z, x, -alpha)
        return z

    def _inverse(self, z: torch.Tensor) -> torch.Tensor:
        x = torch.zeros_like(z)
        for _ in range(z.shape[-1]):   # pass k fixes coordinate k (its inputs are final)
            mu, alpha = self._params(x)
            x = z * torch.exp(alpha) + mu
        self._tag(x, z, -alpha)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -self._params(x)[1]


class IAFLayer(_AutoregressiveLayer):
    """Inverse autoregressive flow, latent → data in one pass:
    ``x_i = z_i · exp(α_i(z_<i)) + μ_i(z_<i)``; the density (data → latent) needs d passes."""

    label = "IAF"

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros_like(x)
        for _ in range(x.shape[-1]):
            mu, alpha = self._params(z)
            z = (x - mu) * torch.exp(-alpha)
        self._tag(z, x, -alpha)
        return z

    def _inverse(self, z: torch.Tensor) -> torch.Tensor:
        mu, alpha = self._params(z)
        x = z * torch.exp(alpha) + mu
        self._tag(x, z, -alpha)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -self._params(y)[1]


class ActNorm(FlowLayer):
    """``y = (x − b) · exp(−s)`` per coordinate; on the first training batch b and s are
    set to the batch's mean and log std (so y starts standardised)."""

    label = "ActNorm"

    def __init__(self, input_dim: int, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.bias = nn.Parameter(torch.zeros(input_dim))
        self.log_std = nn.Parameter(torch.zeros(input_dim))
        self.register_buffer("initialized", torch.tensor(False))

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        if self.training and not bool(self.initialized) and x.dim() == 2 and len(x) > 1:
            with torch.no_grad():
                self.bias.copy_(x.mean(0))
                self.log_std.copy_(torch.log(x.std(0) + 1e-6))
                self.initialized.fill_(True)
        return (x - self.bias) * torch.exp(-self.log_std)

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        return y * torch.exp(self.log_std) + self.bias

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (-self.log_std).expand_as(x)


class Permute(FlowLayer):
    """A fixed permutation of the coordinates (reversal by default); log-det 0."""

    label = "permute"

    def __init__(self, input_dim: int, perm: Sequence[int] | None = None) -> None:
        super().__init__(0)
        perm = torch.arange(input_dim - 1, -1, -1) if perm is None else torch.as_tensor(perm)
        self.register_buffer("perm", perm.long())
        self.register_buffer("inv_perm", torch.argsort(self.perm))

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        return x[..., self.perm]

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        return y[..., self.inv_perm]

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)


# -- the flow ------------------------------------------------------------------------------------
class Flow(nn.Module):
    """Layers applied in order data → latent, over the base density N(0, I)."""

    def __init__(self, layers: Sequence[FlowLayer], input_dim: int = 2, kind: str = "") -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.input_dim, self.kind = input_dim, kind
        self.register_buffer("base_loc", torch.zeros(input_dim))
        self.register_buffer("base_scale", torch.ones(input_dim))

    @property
    def base(self) -> Independent:
        # no argument validation: a non-finite z must reach the divergence check, not raise
        return Independent(Normal(self.base_loc, self.base_scale, validate_args=False), 1,
                           validate_args=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x → (z, Σ log|det ∂z/∂x|) per point."""
        logdet = x.new_zeros(x.shape[:-1])
        for layer in self.layers:
            y = layer(x)
            logdet = logdet + layer.log_abs_det_jacobian(x, y)
            x = y
        return x, logdet

    def inverse(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """z → (x, Σ log|det ∂x/∂z|) per point."""
        logdet = z.new_zeros(z.shape[:-1])
        for layer in reversed(self.layers):
            x = layer.inverse(z)
            logdet = logdet - layer.log_abs_det_jacobian(x, z)
            z = x
        return z, logdet

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        z, logdet = self(x)
        return self.base.log_prob(z) + logdet

    @torch.no_grad()
    def sample(self, n: int, seed: int | None = None) -> torch.Tensor:
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        z = torch.randn(n, self.input_dim, generator=gen).to(self.base_loc.device)
        return self.inverse(z)[0]

    @torch.no_grad()
    def trace(self, x: torch.Tensor | np.ndarray) -> FlowTrace:
        """Every intermediate point set from data x to latent z."""
        x = torch.as_tensor(np.array(x, np.float32) if isinstance(x, np.ndarray) else x,
                            device=self.base_loc.device, dtype=torch.float32)
        points, logdets = [x], []
        for layer in self.layers:
            y = layer(x)
            logdets.append(layer.log_abs_det_jacobian(x, y))
            points.append(y)
            x = y
        return self._trace(points, logdets, list(self.layers), "forward")

    @torch.no_grad()
    def trace_inverse(self, z: torch.Tensor | np.ndarray) -> FlowTrace:
        """Every intermediate point set from latent z to data x (layers in reverse)."""
        z = torch.as_tensor(np.array(z, np.float32) if isinstance(z, np.ndarray) else z,
                            device=self.base_loc.device, dtype=torch.float32)
        points, logdets = [z], []
        layers = list(reversed(self.layers))
        for layer in layers:
            x = layer.inverse(z)
            logdets.append(-layer.log_abs_det_jacobian(x, z))
            points.append(x)
            z = x
        return self._trace(points, logdets, layers, "inverse")

    @staticmethod
    def _trace(points, logdets, layers, direction: str) -> FlowTrace:
        n = points[0].shape[0]
        lp = (torch.stack(logdets).cpu().numpy() if logdets else np.zeros((0, n)))
        return FlowTrace(points=torch.stack(points).cpu().numpy(),
                         logdet=lp.mean(1) if n else np.zeros(len(logdets)),
                         logdet_points=lp,
                         masked=np.array([lay.masked_index for lay in layers], np.int64),
                         transformed=np.array([lay.transformed_index for lay in layers],
                                              np.int64),
                         layer_names=tuple(lay.label for lay in layers), direction=direction)

    @torch.no_grad()
    def grid_trace(self, lines: np.ndarray, direction: str = "forward") -> np.ndarray:
        """Polylines float[m, d] (NaN rows break the lines) through every layer:
        float32[L+1, m, d], NaN rows kept NaN."""
        lines = np.asarray(lines, np.float32)
        ok = np.isfinite(lines).all(1)
        out = np.full((len(self.layers) + 1,) + lines.shape, np.nan, np.float32)
        if ok.any():
            pts = torch.as_tensor(np.array(lines[ok]), device=self.base_loc.device)
            tr = self.trace(pts) if direction == "forward" else self.trace_inverse(pts)
            out[:, ok] = tr.points
        return out


def grid_lines(extent: tuple[float, float, float, float], n_lines: int = 11,
               points_per_line: int = 60) -> np.ndarray:
    """Horizontal and vertical lines over extent (x0, x1, y0, y1) as one float32[m, 2]
    polyline array, lines separated by NaN rows (the format of ``grid_trace``)."""
    x0, x1, y0, y1 = extent
    t = np.linspace(0, 1, points_per_line, dtype=np.float32)
    gap = np.full((1, 2), np.nan, np.float32)
    parts = []
    for v in np.linspace(0, 1, n_lines, dtype=np.float32):
        parts += [np.stack([x0 + (x1 - x0) * t, np.full_like(t, y0 + (y1 - y0) * v)], 1), gap,
                  np.stack([np.full_like(t, x0 + (x1 - x0) * v), y0 + (y1 - y0) * t], 1), gap]
    return np.concatenate(parts[:-1]).astype(np.float32)


# -- builders ------------------------------------------------------------------------------------
def _check(input_dim: int, hidden_dim: int, num_flows: int) -> None:
    for name, v, lo in (("input_dim", input_dim, 2), ("hidden_dim", hidden_dim, 1),
                        ("num_flows", num_flows, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidParameterError(f"{name} must be a whole number ≥ {lo}, got {v!r}.")


def _coupling_flow(kind: str, input_dim: int, hidden_dim: int, num_flows: int, actnorm: bool,
                   additive: bool) -> Flow:
    _check(input_dim, hidden_dim, num_flows)
    layers: list[FlowLayer] = []
    half = torch.arange(input_dim) < input_dim // 2
    for i in range(num_flows):
        if actnorm:
            layers.append(ActNorm(input_dim))
        mask = half if i % 2 == 0 else ~half   # alternate which half is kept
        layers.append(CouplingLayer(input_dim, hidden_dim, mask.int(), additive=additive))
    if additive:
        layers.append(ActNorm(input_dim))   # NICE's final diagonal scaling
    return Flow(layers, input_dim, kind)


def build_realnvp(input_dim: int = 2, hidden_dim: int = 64, num_flows: int = 8,
                  actnorm: bool = False) -> Flow:
    return _coupling_flow("realnvp", input_dim, hidden_dim, num_flows, actnorm, False)


def build_nice(input_dim: int = 2, hidden_dim: int = 64, num_flows: int = 8,
               actnorm: bool = False) -> Flow:
    return _coupling_flow("nice", input_dim, hidden_dim, num_flows, actnorm, True)


def _autoregressive_flow(kind: str, layer_type, input_dim: int, hidden_dim: int,
                         num_flows: int, actnorm: bool) -> Flow:
    _check(input_dim, hidden_dim, num_flows)
    layers: list[FlowLayer] = []
    for i in range(num_flows):
        if actnorm:
            layers.append(ActNorm(input_dim))
        layers.append(layer_type(input_dim, hidden_dim))
        if i < num_flows - 1:
            layers.append(Permute(input_dim))   # each coordinate gets to condition the other
    return Flow(layers, input_dim, kind)


def build_maf(input_dim: int = 2, hidden_dim: int = 64, num_flows: int = 8,
              actnorm: bool = False) -> Flow:
    return _autoregressive_flow("maf", MAFLayer, input_dim, hidden_dim, num_flows, actnorm)


def build_iaf(input_dim: int = 2, hidden_dim: int = 64, num_flows: int = 8,
              actnorm: bool = False) -> Flow:
    return _autoregressive_flow("iaf", IAFLayer, input_dim, hidden_dim, num_flows, actnorm)


def build_flow(kind: str, **kw) -> Flow:
    builders = {"realnvp": build_realnvp, "nice": build_nice, "maf": build_maf,
                "iaf": build_iaf}
    if kind not in builders:
        raise InvalidParameterError(f"Unknown flow '{kind}' (choose {', '.join(FLOW_KINDS)}).")
    return builders[kind](**kw)


@torch.no_grad()
def density_grid(flow: Flow, extent: tuple[float, float, float, float] = (-4, 4, -4, 4),
                 resolution: int = 128, n_samples: int = 1000, seed: int = 0) -> FlowDensity:
    """exp log p at the cell centres of a resolution × resolution grid, and samples."""
    x0, x1, y0, y1 = (float(v) for v in extent)
    if not (x1 > x0 and y1 > y0) or resolution < 2:
        raise InvalidParameterError("The grid needs x_max > x_min, y_max > y_min and ≥ 2 cells.")
    dx, dy = (x1 - x0) / resolution, (y1 - y0) / resolution
    # 1. cell centres, rows from y_min upwards
    xs = torch.linspace(x0 + dx / 2, x1 - dx / 2, resolution)
    ys = torch.linspace(y0 + dy / 2, y1 - dy / 2, resolution)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    pts = torch.stack([gx.reshape(-1), gy.reshape(-1)], 1).to(flow.base_loc.device)
    # 2. log p in chunks (evaluation mode: ActNorm must not re-initialise)
    was_training = flow.training
    flow.eval()
    try:
        logp = torch.cat([flow.log_prob(c) for c in pts.split(16384)])
        samples = flow.sample(n_samples, seed=seed)
    finally:
        flow.train(was_training)
    dens = torch.exp(logp).reshape(resolution, resolution).cpu().double()
    return FlowDensity(density=dens.float().numpy(), extent=(x0, x1, y0, y1),
                       samples=samples.cpu().numpy(), mass=float(dens.sum() * dx * dy))


# -- training ------------------------------------------------------------------------------------
class FlowSession:
    """A flow, its Adam optimiser and its data: ``train`` yields ``Progress`` and can stop
    (the consumer stops iterating) and resume.

    The data is a density of ``models.densities`` (a fresh pool of 100,000 points) or the
    user's ``points``; batches are drawn from it with a seeded generator. ``entropy`` is the
    NLL floor (the density's differential entropy; for user points the k-NN estimate on up
    to 10,000 of them).

    Divergence: before every step the current weights (and optimiser state) are the last
    good ones once they produced a finite loss and finite gradients; they are copied then
    (a few tens of thousands of floats). On a non-finite loss or gradient the layers are run
    one at a time on the batch to name the first whose output is non-finite, the last good
    weights are restored, and ``TrainingDivergedError`` is raised.
    """

    def __init__(self, kind: str = "realnvp", data: str = "two_moons",
                 points: np.ndarray | None = None, device: str | torch.device = "cpu",
                 seed: int = 0, lr: float = 1e-3, batch_size: int = 256, hidden_dim: int = 64,
                 num_flows: int = 8, actnorm: bool = False, clip_grad: float | None = None,
                 ) -> None:
        self.kind, self.device = kind, torch.device(device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.flow = build_flow(kind, hidden_dim=hidden_dim, num_flows=num_flows,
                                   actnorm=actnorm).to(self.device)
        self.optimizer = torch.optim.Adam(self.flow.parameters(), lr=lr)
        if points is not None:
            pool = np.asarray(points, np.float32)
            if pool.ndim != 2 or pool.shape[1] != 2 or len(pool) < 2:
                raise InvalidParameterError("Custom points must be an array of at least 2 rows"
                                            " of (x, y).")
            self.data = "custom"
            self.entropy = densities.knn_entropy(pool[:10_000]) if len(pool) > 10 else math.nan
        else:
            pool = densities.sample(data, 100_000, seed=seed + 1)
            self.data, self.entropy = data, densities.differential_entropy(data)
        self.pool = torch.as_tensor(pool)
        self.lr, self.batch_size, self.clip_grad, self.step = lr, batch_size, clip_grad, 0
        self.losses: list[float] = []
        self.gen = torch.Generator().manual_seed(seed)
        self.lock = threading.Lock()
        self.good_step = 0
        self.good_state = self._snapshot()

    def _snapshot(self) -> dict:
        return checkpoint.snapshot(self.flow, self.optimizer)

    def _restore(self) -> None:
        checkpoint.restore(self.flow, self.optimizer, self.good_state)
        self.step = self.good_step
        del self.losses[self.good_step:]

    def to(self, device: str | torch.device) -> FlowSession:
        dev = torch.device(device)
        with self.lock:
            self.flow.to(dev)
            checkpoint.move_optimizer_state(self.optimizer, dev)
            self.device = dev
        return self

    def batch(self) -> torch.Tensor:
        idx = torch.randint(0, len(self.pool), (self.batch_size,), generator=self.gen)
        return self.pool[idx].to(self.device)

    @torch.no_grad()
    def first_bad_layer(self, x: torch.Tensor) -> str:
        """'layer i (label)' for the first layer whose output or log-det is non-finite."""
        for i, layer in enumerate(self.flow.layers):
            if not all(torch.isfinite(p).all() for p in layer.parameters()):
                return f"layer {i + 1} ({layer.label}, its weights)"
            y = layer(x)
            if not (torch.isfinite(y).all() and
                    torch.isfinite(layer.log_abs_det_jacobian(x, y)).all()):
                return f"layer {i + 1} ({layer.label})"
            x = y
        return "no single layer (the loss or its gradient overflowed)"

    def _diverged(self, x: torch.Tensor, what: str) -> TrainingDivergedError:
        where, step = self.first_bad_layer(x), self.step + 1
        self._restore()
        return TrainingDivergedError(
            f"Training diverged: {what} at step {step}; the first non-finite output "
            f"came from {where}. The weights of step {self.good_step} were restored. Try a "
            f"smaller learning rate (now {self.lr:g}), gradient clipping, or more tightly "
            "bounded scales.")

    def train(self, steps: int, eval_every: int = 50) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each (the whole NLL
        curve every ``eval_every`` steps and at the end)."""
        t0, start = time.perf_counter(), self.step
        params = list(self.flow.parameters())
        for _ in range(steps):
            with self.lock:
                # in the step's lock: a display computed meanwhile switches to eval mode
                # under the same lock, so it never sees (or causes) a half-switched flow
                self.flow.train()
                x = self.batch()
                # 1. loss: mean negative log-likelihood, nats per point
                loss = -self.flow.log_prob(x).mean()
                value = loss.detach().item()
                if not math.isfinite(value):
                    raise self._diverged(x, f"the loss became {value}")
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                # 2. gradient norm (clipped if asked): non-finite if any gradient is
                norm = torch.nn.utils.clip_grad_norm_(params, self.clip_grad or math.inf)
                if not torch.isfinite(norm):
                    raise self._diverged(x, "a gradient became non-finite")
                # 3. these weights gave a finite loss and gradient: they are the good ones
                self.good_state, self.good_step = self._snapshot(), self.step
                self.optimizer.step()
                self.step += 1
            self.losses.append(value)
            last = self.step - start == steps
            elapsed = time.perf_counter() - t0
            yield Progress(step=self.step, total=start + steps, loss=value,
                           metrics={"nll": value, "entropy": self.entropy,
                                    "seconds": elapsed,
                                    "steps_per_s": (self.step - start) / max(elapsed, 1e-9)},
                           history=np.asarray(self.losses, np.float32)
                           if self.step % eval_every == 0 or last else np.zeros(0, np.float32))
