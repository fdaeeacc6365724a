"""Seeded 2D toy densities (the FFJORD toy set) and their differential entropies (the
user's own point files: ``models.flows.points``).

A normalizing flow trained by maximum likelihood minimises the negative log-likelihood
``E_p[-log q(x)] = H(p) + KL(p || q)``, so the entropy ``H(p)`` of the data is a floor
that no model can beat: the gap between the training NLL and ``differential_entropy``
is the KL divergence still left.

Densities (``sample(name, n, seed)``, float32[n, 2], same seed → same points):

* ``two_moons``: scikit-learn's ``make_moons`` at its **raw scale, not standardised**:
  the upper moon ``(cos t, sin t)`` and the lower ``(1 - cos t, 0.5 - sin t)``,
  ``t ~ U[0, π]``, half the points each, plus isotropic Gaussian noise of std ``noise``
  (0.05 by default). scikit-learn spaces ``t`` evenly; here it is drawn uniformly,
  which is the same distribution.
* ``circles``: scikit-learn's ``make_circles(factor=0.5, noise=0.08) * 3`` (radii 3 and
  1.5, noise std 0.24 after the scaling; angles uniform).
* ``8gaussians``: eight Gaussians (std 0.5) at radius 4, divided by 1.414.
* ``checkerboard``: uniform on 8 of the 16 squares of side 2 in [-4, 4]².
* ``two_spirals``: two interleaved spirals (540°), divided by 3, noise std 0.1.
* ``pinwheel``: five arms (radial std 0.3, tangential std 0.1, rate 0.25), times 2.
* ``rings``: four circles of radii 3, 2.25, 1.5, 0.75, noise std 0.08.
* ``swiss_roll``: ``(t cos t, t sin t) + N(0, 1)``, ``t ~ U[1.5π, 4.5π]``, divided by 5.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from models.errors import InvalidParameterError
from models.flows.options import DENSITIES

__all__ = ["DENSITIES", "MAX_POINTS", "sample", "differential_entropy", "knn_entropy", "mixture_entropy",
           "target_density", "histogram_density"]

#: the most points ``points.load_points_csv`` accepts (and ``sample`` draws ten times that)
MAX_POINTS = 1_000_000
#: samples of ``differential_entropy``'s Monte Carlo and k-NN estimates, and the k
ENTROPY_MC = 20_000
ENTROPY_KNN = 10_000
ENTROPY_K = 4


# -- the densities ---------------------------------------------------------------------------------
def _halves(n: int) -> tuple[int, int]:
    return n // 2, n - n // 2


def _two_moons(rng: np.random.Generator, n: int, noise: float) -> np.ndarray:
    n_out, n_in = _halves(n)
    t_out, t_in = rng.uniform(0, math.pi, n_out), rng.uniform(0, math.pi, n_in)
    outer = np.stack([np.cos(t_out), np.sin(t_out)], 1)
    inner = np.stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)], 1)
    x = np.concatenate([outer, inner])
    return x + rng.normal(0, noise, x.shape)


def _circles(rng: np.random.Generator, n: int) -> np.ndarray:
    n_out, n_in = _halves(n)
    a = rng.uniform(0, 2 * math.pi, n)
    r = np.concatenate([np.ones(n_out), np.full(n_in, 0.5)])
    x = np.stack([r * np.cos(a), r * np.sin(a)], 1)
    return (x + rng.normal(0, 0.08, x.shape)) * 3


def _eight_gaussians(rng: np.random.Generator, n: int) -> np.ndarray:
    s = 1 / math.sqrt(2)
    centres = 4.0 * np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (s, s), (s, -s), (-s, s),
                              (-s, -s)])
    which = rng.integers(0, 8, n)
    return (rng.normal(0, 0.5, (n, 2)) + centres[which]) / 1.414


def _checkerboard(rng: np.random.Generator, n: int) -> np.ndarray:
    x1 = rng.uniform(0, 1, n) * 4 - 2
    x2 = rng.uniform(0, 1, n) - rng.integers(0, 2, n) * 2
    x2 = x2 + np.floor(x1) % 2
    return np.stack([x1, x2], 1) * 2


def _two_spirals(rng: np.random.Generator, n: int) -> np.ndarray:
    n1, n2 = _halves(n)
    t = np.sqrt(rng.uniform(0, 1, (n1 + n2, 1))) * 540 * (2 * math.pi) / 360
    d = np.hstack([-np.cos(t) * t + rng.uniform(0, 1, (n1 + n2, 1)) * 0.5,
                   np.sin(t) * t + rng.uniform(0, 1, (n1 + n2, 1)) * 0.5])
    d[n1:] *= -1
    return d / 3 + rng.normal(0, 0.1, d.shape)


def _pinwheel(rng: np.random.Generator, n: int) -> np.ndarray:
    radial_std, tangential_std, classes, rate = 0.3, 0.1, 5, 0.25
    rads = np.linspace(0, 2 * math.pi, classes, endpoint=False)
    f = rng.normal(0, 1, (n, 2)) * np.array([radial_std, tangential_std])
    f[:, 0] += 1.0
    angles = rads[rng.integers(0, classes, n)] + rate * np.exp(f[:, 0])
    c, s = np.cos(angles), np.sin(angles)
    # row vector times [[c, -s], [s, c]], as FFJORD's einsum
    return 2 * np.stack([f[:, 0] * c + f[:, 1] * s, -f[:, 0] * s + f[:, 1] * c], 1)


def _rings(rng: np.random.Generator, n: int) -> np.ndarray:
    r = np.array([1.0, 0.75, 0.5, 0.25])[np.arange(n) % 4] * 3
    a = rng.uniform(0, 2 * math.pi, n)
    x = np.stack([r * np.cos(a), r * np.sin(a)], 1)
    return x + rng.normal(0, 0.08, x.shape)


def _swiss_roll(rng: np.random.Generator, n: int) -> np.ndarray:
    t = 1.5 * math.pi * (1 + 2 * rng.uniform(0, 1, n))
    x = np.stack([t * np.cos(t), t * np.sin(t)], 1)
    return (x + rng.normal(0, 1.0, x.shape)) / 5


def sample(name: str, n: int, seed: int = 0, noise: float = 0.05) -> np.ndarray:
    """``n`` points of density ``name`` as float32[n, 2]; the same seed gives the same
    points. ``noise`` is the two-moons noise std (the other densities fix theirs)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidParameterError(f"The number of points must be a whole number ≥ 0, got {n!r}.")
    if n > MAX_POINTS * 10:
        raise InvalidParameterError(f"At most {MAX_POINTS * 10} points can be drawn, got {n}.")
    rng = np.random.default_rng(seed)
    n = int(n)
    makers = {"circles": _circles, "8gaussians": _eight_gaussians,
              "checkerboard": _checkerboard, "two_spirals": _two_spirals,
              "pinwheel": _pinwheel, "rings": _rings, "swiss_roll": _swiss_roll}
    if name == "two_moons":
        if not (math.isfinite(noise) and noise >= 0):
            raise InvalidParameterError(f"The noise must be a number ≥ 0, got {noise!r}.")
        x = _two_moons(rng, n, noise)
    elif name in makers:
        x = makers[name](rng, n)
    else:
        raise InvalidParameterError(f"Unknown density '{name}' (choose {', '.join(DENSITIES)}).")
    # shuffled, so any prefix is a fair sample (the makers build the groups in order)
    return np.ascontiguousarray(x[rng.permutation(n)], dtype=np.float32).reshape(n, 2)


# -- entropy ---------------------------------------------------------------------------------------
def knn_entropy(points: np.ndarray, k: int = ENTROPY_K, chunk: int = 2048) -> float:
    """Kozachenko–Leonenko estimate of the differential entropy (nats) of the density
    behind ``points`` (float[n, d]):

        H ≈ ψ(n) − ψ(k) + log V_d + (d / n) Σ_i log ε_i

    with ε_i the distance from point i to its k-th nearest neighbour and V_d the volume
    of the unit d-ball. Exact neighbours, by brute force in chunks (O(n²) time, O(chunk·n)
    memory). Duplicate points (ε = 0) are dropped from the sum.
    """
    x = torch.as_tensor(np.asarray(points, dtype=np.float32))
    n, d = x.shape
    if n <= k:
        raise InvalidParameterError(f"The entropy estimate needs more than {k} points, got {n}.")
    logs = []
    for start in range(0, n, chunk):
        dist = torch.cdist(x[start:start + chunk], x)
        # k + 1 smallest: the point itself is its own nearest neighbour, at distance 0
        eps = dist.topk(k + 1, dim=1, largest=False).values[:, k]
        logs.append(torch.log(eps[eps > 0]))
    log_eps = torch.cat(logs)
    log_vd = (d / 2) * math.log(math.pi) - math.lgamma(d / 2 + 1)
    return float(torch.special.digamma(torch.tensor(float(log_eps.numel())))
                 - torch.special.digamma(torch.tensor(float(k)))
                 + log_vd + d * log_eps.mean())


def _curve_nodes(name: str) -> tuple[np.ndarray, float]:
    """Quadrature nodes (equal weights) of the noise-free shape, and the noise std, of the
    densities that are "a curve or points + isotropic Gaussian noise" (node spacing well
    below the noise std, so the quadrature error is negligible)."""
    if name == "two_moons":
        t = (np.arange(600) + 0.5) * math.pi / 600
        c = np.concatenate([np.stack([np.cos(t), np.sin(t)], 1),
                            np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)])
        return c, 0.05
    if name == "8gaussians":
        s = 1 / math.sqrt(2)
        c = 4.0 * np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (s, s), (s, -s), (-s, s),
                            (-s, -s)])
        return c / 1.414, 0.5 / 1.414
    a = (np.arange(1000) + 0.5) * 2 * math.pi / 1000
    ring = np.stack([np.cos(a), np.sin(a)], 1)
    if name == "circles":
        return np.concatenate([ring * 3, ring * 1.5]), 0.24
    if name == "rings":
        return np.concatenate([ring * 3 * r for r in (1.0, 0.75, 0.5, 0.25)]), 0.08
    if name == "swiss_roll":
        t = 1.5 * math.pi * (1 + 2 * (np.arange(2000) + 0.5) / 2000)
        return np.stack([t * np.cos(t), t * np.sin(t)], 1) / 5, 0.2
    raise KeyError(name)


def mixture_entropy(centres: np.ndarray, sigma: float, points: np.ndarray,
                    chunk: int = 1024) -> tuple[float, float]:
    """Monte Carlo ``-mean log p(points)`` for ``p`` the equal-weight mixture of
    N(centre, sigma² I): the entropy estimate and its standard error (nats)."""
    c = torch.as_tensor(centres, dtype=torch.float64)
    x = torch.as_tensor(np.asarray(points), dtype=torch.float64)
    d = x.shape[1]
    out = []
    for start in range(0, len(x), chunk):
        sq = torch.cdist(x[start:start + chunk], c).square()
        out.append(torch.logsumexp(-sq / (2 * sigma ** 2), 1))
    log_p = (torch.cat(out) - math.log(len(c)) - d / 2 * math.log(2 * math.pi * sigma ** 2))
    return float(-log_p.mean()), float(log_p.std() / math.sqrt(len(log_p)))


#: ``computed_differential_entropy`` of each built-in density, worked out once here (it
#: is seeded, so always the same; tests/test_densities.py recomputes every value). Up to
#: 2.4 s each ('rings': 20,000 samples against 4,000 mixture nodes), and a tab builds its
#: session on the GUI thread, so the window froze while it was computed.
ENTROPIES = {
    "two_moons": 0.28968966467243534,
    "circles": 3.263704029848251,
    "8gaussians": 2.8222557550010148,
    "checkerboard": 3.4657359027997265,
    "two_spirals": 2.591494083404541,
    "pinwheel": 2.3108510971069336,
    "rings": 2.617771270773561,
    "swiss_roll": 2.658083171538481,
}


def differential_entropy(name: str) -> float:
    """The differential entropy of density ``name`` in nats (``ENTROPIES``, which
    ``computed_differential_entropy`` works out)."""
    if name not in DENSITIES:
        raise InvalidParameterError(f"Unknown density '{name}' (choose {', '.join(DENSITIES)}).")
    return ENTROPIES[name] if name in ENTROPIES else computed_differential_entropy(name)


@functools.cache
def computed_differential_entropy(name: str) -> float:
    """The differential entropy of density ``name`` in nats, computed once and cached.

    Methods, by density:

    * ``checkerboard``: uniform on a support of area 32, so ``H = log 32 ≈ 3.466`` exactly.
    * ``two_moons``, ``circles``, ``rings``, ``swiss_roll``, ``8gaussians`` (a curve or
      points plus isotropic Gaussian noise): the density is a Gaussian mixture over
      quadrature nodes of the curve, evaluated exactly, and ``H = -E log p`` is averaged
      over ``ENTROPY_MC`` = 20,000 samples (seed 12345): standard error ≈ 0.005–0.01 nats.
      two_moons (noise 0.05) ≈ 0.29 (the issue's value); 8gaussians ≈ 2.84 (analytic for
      well-separated Gaussians: log 8 + log(2πe·0.125) ≈ 2.838).
    * ``two_spirals``, ``pinwheel``: ``knn_entropy`` (Kozachenko–Leonenko, k = 4) on
      ``ENTROPY_KNN`` = 10,000 samples: about ±0.03 nats (spread over seeds plus bias).
    """
    if name == "checkerboard":
        return math.log(32.0)
    if name not in DENSITIES:
        raise InvalidParameterError(f"Unknown density '{name}' (choose {', '.join(DENSITIES)}).")
    if name in ("two_spirals", "pinwheel"):
        return knn_entropy(sample(name, ENTROPY_KNN, seed=12345))
    centres, sigma = _curve_nodes(name)
    return mixture_entropy(centres, sigma, sample(name, ENTROPY_MC, seed=12345))[0]


# -- the target density on a grid -------------------------------------------------------------
def _cell_centres(extent: tuple[float, float, float, float], resolution: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """x and y of the cell centres of a resolution × resolution grid over ``extent``
    (rows from y_min upwards), as ``models.flows.flow.density_grid`` lays them out."""
    x0, x1, y0, y1 = (float(v) for v in extent)
    dx, dy = (x1 - x0) / resolution, (y1 - y0) / resolution
    xs = x0 + dx * (np.arange(resolution) + 0.5)
    ys = y0 + dy * (np.arange(resolution) + 0.5)
    return xs, ys


def _checkerboard_density(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """``_checkerboard``'s density: 1/32 on its 8 squares of side 2, 0 elsewhere. Before
    the final ×2, x1 ∈ [-2, 2) and x2 lies in [m − 2, m − 1) ∪ [m, m + 1) with
    m = floor(x1) mod 2."""
    a, c = gx / 2, gy / 2
    m = np.mod(np.floor(a), 2)
    rel = np.floor(c) - m
    inside = (a >= -2) & (a < 2) & ((rel == 0) | (rel == -2))
    return np.where(inside, 1.0 / 32.0, 0.0)


@functools.lru_cache(maxsize=32)
def _target_grid(name: str, extent: tuple[float, float, float, float], resolution: int
                 ) -> np.ndarray | None:
    xs, ys = _cell_centres(extent, resolution)
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    if name == "checkerboard":
        return _checkerboard_density(gx, gy).astype(np.float32)
    try:
        centres, sigma = _curve_nodes(name)
    except KeyError:
        return None
    pts = torch.as_tensor(np.stack([gx.ravel(), gy.ravel()], 1), dtype=torch.float32)
    c = torch.as_tensor(centres, dtype=torch.float32)
    norm = 1.0 / (len(centres) * 2 * math.pi * sigma ** 2)
    out = torch.cat([torch.exp(-torch.cdist(chunk, c).square() / (2 * sigma ** 2)).sum(1)
                     for chunk in pts.split(2048)]) * norm
    return out.reshape(resolution, resolution).numpy().astype(np.float32)


def target_density(name: str, extent: tuple[float, float, float, float],
                   resolution: int) -> np.ndarray | None:
    """The true density p(x) of ``name`` at the cell centres of a resolution × resolution
    grid over ``extent`` = (x_min, x_max, y_min, y_max) (float32[h, w], row 0 at y_min),
    or None where it has no closed form here (``two_spirals``, ``pinwheel``: use
    ``histogram_density`` of a sample).

    ``checkerboard`` is exact (1/32 on its squares); the curve-plus-noise densities
    (``two_moons``, ``circles``, ``rings``, ``swiss_roll``, ``8gaussians``) are the
    Gaussian mixtures over quadrature nodes that ``differential_entropy`` integrates,
    so the floor and this picture are of the same density. Cached per grid.
    """
    if name not in DENSITIES:
        raise InvalidParameterError(f"Unknown density '{name}' (choose {', '.join(DENSITIES)}).")
    grid = _target_grid(name, tuple(float(v) for v in extent), int(resolution))
    return None if grid is None else grid.copy()


def histogram_density(points: np.ndarray, extent: tuple[float, float, float, float],
                      bins: int | None = None) -> np.ndarray:
    """A normalised 2D histogram of ``points`` over ``extent``: the fraction of the
    points in each cell divided by the cell's area, so it estimates p(x) and sums (times
    the cell area) to the fraction of points inside the extent. ``bins`` per side
    default to about √(n / 10), between 12 and 128 (10 points a cell on average over a
    square holding them all). Returns float32[bins, bins], row 0 at y_min."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    pts = pts[np.isfinite(pts).all(1)]
    n = len(pts)
    if bins is None:
        bins = int(np.clip(round(math.sqrt(max(n, 1) / 10)), 12, 128))
    x0, x1, y0, y1 = (float(v) for v in extent)
    counts, _, _ = np.histogram2d(pts[:, 1], pts[:, 0], bins=bins, range=[[y0, y1], [x0, x1]])
    area = (x1 - x0) * (y1 - y0) / bins ** 2
    return (counts / (max(n, 1) * area)).astype(np.float32)
