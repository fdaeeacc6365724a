"""The flow's density as the course's code builds it ("as the course writes it" in the
flows tab).

The chapter composes its coupling layers with
``TransformedDistribution(base_dist, transforms)``. A ``TransformedDistribution`` reads
its transforms as the *sampling* direction, base → data: ``sample`` applies them to base
draws and ``log_prob(x)`` undoes them in reverse order. The chapter's layers (ours too)
map data → latent (``_call``: x → z), so its ``flow_dist.log_prob`` is the density of
f(z), z ~ N(0, I), not that of the flow trained by maximum likelihood, f⁻¹(z). The same
layers give the trained model's density when each is inverted and their order reversed:
``TransformedDistribution(base, [t.inv for t in reversed(transforms)])``.

Shapes: x [n, 2]; log-probabilities [n].
"""

from __future__ import annotations

import torch
from torch.distributions import TransformedDistribution

from models.flows.flow import CHUNK_ROWS, Flow
from models.traces import FlowCourse, FlowDensity

__all__ = ["course_distribution", "model_distribution", "course_comparison"]


def course_distribution(flow: Flow) -> TransformedDistribution:
    """The chapter's ``TransformedDistribution(base_dist, transforms)`` over the flow's
    own layers, in the order the flow applies them to data."""
    return TransformedDistribution(flow.base, list(flow.layers), validate_args=False)


def model_distribution(flow: Flow) -> TransformedDistribution:
    """The trained model's density as a ``TransformedDistribution``: each layer inverted,
    in reverse order (equal to ``flow.log_prob``)."""
    return TransformedDistribution(flow.base, [t.inv for t in reversed(flow.layers)],
                                   validate_args=False)


def _log_prob(dist: TransformedDistribution, x: torch.Tensor) -> torch.Tensor:
    return torch.cat([dist.log_prob(c) for c in x.split(CHUNK_ROWS)])


@torch.no_grad()
def course_comparison(flow: Flow, data: torch.Tensor,
                      extent: tuple[float, float, float, float], resolution: int = 128,
                      n_samples: int = 1000, seed: int = 0) -> FlowCourse:
    """log p of ``data`` under the course's distribution, the trained model's and the
    fixed composition, and the course's density on a grid with its samples. The flow
    must be in evaluation mode (ActNorm must not re-initialise on these points)."""
    dev = flow.base_loc.device
    x = torch.as_tensor(data, dtype=torch.float32).to(dev)
    course, fixed = course_distribution(flow), model_distribution(flow)
    # 1. log p of the data three ways: ours, the chapter's, the chapter's layers inverted
    ours = torch.cat([flow.log_prob(c) for c in x.split(CHUNK_ROWS)]).double()
    theirs = _log_prob(course, x).double()
    inverted = _log_prob(fixed, x).double()
    # 2. the chapter's density on the grid, and what its sample() draws
    x0, x1, y0, y1 = (float(v) for v in extent)
    dx, dy = (x1 - x0) / resolution, (y1 - y0) / resolution
    xs = torch.linspace(x0 + dx / 2, x1 - dx / 2, resolution)
    ys = torch.linspace(y0 + dy / 2, y1 - dy / 2, resolution)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    pts = torch.stack([gx.reshape(-1), gy.reshape(-1)], 1).to(dev)
    dens = torch.exp(_log_prob(course, pts)).reshape(resolution, resolution).cpu().double()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        samples = course.sample(torch.Size([n_samples]))
    delta = theirs - ours
    return FlowCourse(
        log_p_ours=float(ours.mean()), log_p_course=float(theirs.mean()),
        mean_abs_delta=float(delta.abs().mean()), mean_delta=float(delta.mean()),
        inverted_delta=float((inverted - ours).abs().max()),
        density=FlowDensity(density=dens.float().numpy(), extent=(x0, x1, y0, y1),
                            samples=samples.cpu().numpy(),
                            mass=float(dens.sum() * dx * dy)))
