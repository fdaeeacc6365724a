"""The normalizing-flow tab's background computation, returning one frozen trace.

It runs in a worker thread while training may run in another: it takes the session's
lock, so it never sees half-updated weights (nor a flow half switched to eval mode).
"""

from __future__ import annotations

import numpy as np
import torch

from models.flows import densities
from models.flows.course import course_comparison
from models.flows.flow import CHUNK_ROWS, density_grid, grid_lines
from models.flows.options import CUSTOM, FlowRequest
from models.flows.session import FlowSession
from models.traces import FlowResult

__all__ = ["flow_result"]

#: cells per side of the density grids
RESOLUTION = 160
#: the grid's side as a multiple of the square shown: views up to 2.2 times wider than
#: tall, or taller than wide, are filled (at 1280 x 800 the density panels are about
#: 190 x 100 px)
GRID_REACH = 2.2


def flow_result(session: FlowSession, ask: FlowRequest,
                custom: np.ndarray | None) -> FlowResult:
    """The trace of ``ask.points`` points through the flow, the grid through the same
    layers, and the density on a grid around the data. Any thread (under the lock)."""
    rng = np.random.default_rng(ask.seed)
    n = ask.points
    if ask.density == CUSTOM and custom is not None:
        data = custom[rng.choice(len(custom), size=min(n, len(custom)), replace=False)]
    else:
        data = densities.sample(ask.density, n, seed=ask.seed)
    frame, extent = _frame(data)
    with session.lock:
        flow = session.flow
        was_training = flow.training
        if was_training:            # eval mode: ActNorm must not re-initialise on these points
            flow.eval()
        try:
            if ask.direction == "forward":
                trace = flow.trace(data)
                lines = grid_lines(frame, 11, 60)
            else:
                gen = torch.Generator().manual_seed(ask.seed)
                trace = flow.trace_inverse(torch.randn(n, 2, generator=gen))
                lines = grid_lines((-3, 3, -3, 3), 11, 60)
            grid = flow.grid_trace(lines, ask.direction) if ask.grid else None
            density = density_grid(flow, extent, resolution=RESOLUTION, n_samples=1000,
                                   seed=ask.seed)
            # the chapter's TransformedDistribution(base, layers) of the same layers
            course = course_comparison(flow, data, extent, resolution=RESOLUTION,
                                       seed=ask.seed) if ask.course else None
            nll = _data_nll(flow, data, trace)
        finally:
            if was_training:
                flow.train()
    target, kind = _target(session, ask.density, custom, extent)
    return FlowResult(trace=trace, grid=grid, density=density, entropy=session.entropy,
                      target=target, target_kind=kind, frame=frame, course=course,
                      nll=nll)


@torch.no_grad()
def _data_nll(flow, data: np.ndarray, trace) -> float:
    """The mean NLL (nats) of the data points under ``flow``: −log p(x) = −log N(f(x))
    − log|det ∂f/∂x|. A display option never changes it: a forward trace already holds
    f(x) and the layers' log-determinants of these points; an inverse trace starts from
    latent samples, so the data go through the flow here."""
    if not len(data):
        return float("nan")
    if trace.direction == "forward":
        # (a copy: the trace's arrays are read-only, which torch warns of on stderr)
        z = torch.tensor(trace.points[-1]).to(flow.base_loc.device)
        log_p = flow.base.log_prob(z).double().cpu().numpy() + \
            trace.logdet_points.astype(np.float64).sum(axis=0)
    else:
        x = torch.as_tensor(np.asarray(data, np.float32), device=flow.base_loc.device)
        log_p = torch.cat([flow.log_prob(part) for part in x.split(CHUNK_ROWS)]
                          ).double().cpu().numpy()
    return float(-log_p.mean())


def _frame(data: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The square a density view shows (the data's 0.5 … 99.5 percentile box, padded by
    15 % and made square), and the grid's extent: the same centre, ``GRID_REACH`` times
    the side, so a view wider or taller than square still shows computed values (an
    aspect-locked view used to show white bands beside a grid fitted to the data)."""
    lo, hi = np.percentile(data, [0.5, 99.5], axis=0)
    centre = (lo + hi) / 2
    half = float(max(hi - lo)) * 0.5 * 1.3 + 1e-3
    frame = (float(centre[0] - half), float(centre[0] + half),
             float(centre[1] - half), float(centre[1] + half))
    reach = half * GRID_REACH
    extent = (float(centre[0] - reach), float(centre[0] + reach),
              float(centre[1] - reach), float(centre[1] + reach))
    return frame, extent


def _target(session: FlowSession, name: str, custom: np.ndarray | None,
            extent: tuple[float, ...]) -> tuple[np.ndarray, str]:
    """The data's density on the grid where it has a closed form, else a histogram of
    the data (the session's pool of 100,000 points, or the user's points)."""
    if name != CUSTOM:
        exact = densities.target_density(name, extent, RESOLUTION)
        if exact is not None:
            return exact, "density"
    points = custom if name == CUSTOM and custom is not None else session.pool.numpy()
    return densities.histogram_density(points, extent), "histogram"
