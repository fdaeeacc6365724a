"""Normalizing flows: RealNVP, NICE, MAF and IAF on 2D points, with traces of every layer.

A flow is an invertible map ``f`` from data x to a latent z with a simple base density
N(0, I). The change of variables gives the exact log-likelihood

    log p(x) = log N(f(x); 0, I) + Σ_l log|det ∂f_l/∂(input of layer l)|,

so training maximises it directly, and sampling runs the inverse on N(0, I) draws.
The layers (coupling, autoregressive, ActNorm, permutation) are in
``models.flows.layers``; here are the flow that chains them, its builders, the
deformed grid and the density on a grid.

Shapes:
    x, z: [n, d]; log-dets: [n]; FlowTrace.points: [L+1, n, d]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.distributions import Independent, Normal

from models.errors import InvalidParameterError
from models.flows.layers import ActNorm, CouplingLayer, FlowLayer, IAFLayer, MAFLayer, Permute
from models.flows.options import FLOW_KINDS, RANGES
from models.traces import FlowDensity, FlowTrace

__all__ = ["FLOW_KINDS", "Flow", "build_realnvp", "build_nice", "build_maf", "build_iaf",
           "build_flow", "grid_lines", "density_grid"]


#: rows a no-grad pass takes at a time: a 4,096 × 64 hidden activation (1 MB) stays in the
#: cache, and 20,000 samples in five parts take half the time of one 5 MB pass
#: (``benchmarks/bench_peers.py --rows flow_sample``)
CHUNK_ROWS = 4096


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
        parts = []
        for part in z.split(CHUNK_ROWS):        # every layer acts row by row
            for layer in reversed(self.layers):     # the points only: no log-determinants
                part = layer.inverse(part)
            parts.append(part)
        return torch.cat(parts) if len(parts) != 1 else parts[0]

    @torch.no_grad()
    def trace(self, x: torch.Tensor | np.ndarray) -> FlowTrace:
        """Every intermediate point set from data x to latent z."""
        return self._walk(x, list(self.layers), "forward")

    @torch.no_grad()
    def trace_inverse(self, z: torch.Tensor | np.ndarray) -> FlowTrace:
        """Every intermediate point set from latent z to data x (layers in reverse)."""
        return self._walk(z, list(reversed(self.layers)), "inverse")

    def _walk(self, v, layers: list[FlowLayer], direction: str) -> FlowTrace:
        v = torch.as_tensor(np.array(v, np.float32) if isinstance(v, np.ndarray) else v,
                            device=self.base_loc.device, dtype=torch.float32)
        points: list[list[torch.Tensor]] = [[] for _ in range(len(layers) + 1)]
        logdets: list[list[torch.Tensor]] = [[] for _ in layers]
        for part in v.split(CHUNK_ROWS):         # an empty v is one empty part
            points[0].append(part)
            for i, layer in enumerate(layers):
                if direction == "forward":
                    out = layer(part)
                    logdets[i].append(layer.log_abs_det_jacobian(part, out))
                else:
                    out = layer.inverse(part)
                    logdets[i].append(-layer.log_abs_det_jacobian(out, part))
                points[i + 1].append(out)
                part = out
        return self._trace([torch.cat(p) for p in points], [torch.cat(d) for d in logdets],
                           layers, direction)

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
#: the builders' defaults: the tab's (``models.flows.options.RANGES``)
NUM_FLOWS, HIDDEN = int(RANGES["layers"].default), int(RANGES["hidden"].default)


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


def build_realnvp(input_dim: int = 2, hidden_dim: int = HIDDEN, num_flows: int = NUM_FLOWS,
                  actnorm: bool = False) -> Flow:
    return _coupling_flow("realnvp", input_dim, hidden_dim, num_flows, actnorm, False)


def build_nice(input_dim: int = 2, hidden_dim: int = HIDDEN, num_flows: int = NUM_FLOWS,
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


def build_maf(input_dim: int = 2, hidden_dim: int = HIDDEN, num_flows: int = NUM_FLOWS,
              actnorm: bool = False) -> Flow:
    return _autoregressive_flow("maf", MAFLayer, input_dim, hidden_dim, num_flows, actnorm)


def build_iaf(input_dim: int = 2, hidden_dim: int = HIDDEN, num_flows: int = NUM_FLOWS,
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
        logp = torch.cat([flow.log_prob(c) for c in pts.split(CHUNK_ROWS)])
        samples = flow.sample(n_samples, seed=seed)
    finally:
        flow.train(was_training)
    dens = torch.exp(logp).reshape(resolution, resolution).cpu().double()
    return FlowDensity(density=dens.float().numpy(), extent=(x0, x1, y0, y1),
                       samples=samples.cpu().numpy(), mass=float(dens.sum() * dx * dy))
