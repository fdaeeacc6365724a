"""The normalizing-flow tab's background computation, returning one frozen trace.

It runs in a worker thread while training may run in another: it takes the session's
lock, so it never sees half-updated weights (nor a flow half switched to eval mode).
"""

from __future__ import annotations

import numpy as np
import torch

from models.flows import densities
from models.flows.flow import density_grid, grid_lines
from models.flows.options import CUSTOM
from models.flows.session import FlowSession
from models.traces import FlowResult

__all__ = ["flow_result"]


def flow_result(session: FlowSession, p: dict, custom: np.ndarray | None) -> FlowResult:
    """The trace of ``p["points"]`` points through the flow, the grid through the same
    layers, and the density on a grid around the data. Any thread (under the lock)."""
    rng = np.random.default_rng(p["seed"])
    n = p["points"]
    if p["density"] == CUSTOM and custom is not None:
        data = custom[rng.choice(len(custom), size=min(n, len(custom)), replace=False)]
    else:
        data = densities.sample(p["density"], n, seed=p["seed"])
    lo, hi = np.percentile(data, [0.5, 99.5], axis=0)
    pad = 0.25 * (hi - lo) + 1e-3
    extent = (float(lo[0] - pad[0]), float(hi[0] + pad[0]),
              float(lo[1] - pad[1]), float(hi[1] + pad[1]))
    with session.lock:
        flow = session.flow
        was_training = flow.training
        if was_training:            # eval mode: ActNorm must not re-initialise on these points
            flow.eval()
        try:
            if p["direction"] == "forward":
                trace = flow.trace(data)
                lines = grid_lines(extent, 11, 60)
            else:
                gen = torch.Generator().manual_seed(p["seed"])
                trace = flow.trace_inverse(torch.randn(n, 2, generator=gen))
                lines = grid_lines((-3, 3, -3, 3), 11, 60)
            grid = flow.grid_trace(lines, p["direction"]) if p["grid"] else None
            density = density_grid(flow, extent, resolution=96, n_samples=1000,
                                   seed=p["seed"])
        finally:
            if was_training:
                flow.train()
    return FlowResult(trace=trace, grid=grid, density=density, entropy=session.entropy)
