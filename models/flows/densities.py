"""Seeded 2D toy densities (the FFJORD toy set), their differential entropies, and a
loader for the user's own point files.

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

import csv
import functools
import io
import math
import re
from array import array
from pathlib import Path

import numpy as np
import torch

from models import gcpause
from models.errors import InvalidParameterError
from models.flows.options import DENSITIES
from models.reading import (
    TICK_EVERY,
    LoadWatch,
    data_lines_at_least,
    iter_lines,
    read_bytes,
)

__all__ = ["DENSITIES", "MAX_POINTS", "sample", "differential_entropy", "knn_entropy", "mixture_entropy",
           "target_density", "histogram_density", "load_points_csv", "MIN_POINTS",
           "spread_problem", "standardise", "check_points", "point_statistics"]

#: the most points ``load_points_csv`` accepts
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


# -- the user's points -----------------------------------------------------------------------------
_SPLIT = re.compile(r"[,;\s]+")
#: the fewest points ``load_points_csv`` accepts: as many as the Flows tab asks to be
#: drawn. A flow of a few thousand weights fits a handful of points exactly (its NLL
#: falls without a floor) and their k-NN entropy estimate is meaningless.
MIN_POINTS = 50
#: the largest float32: the flow computes in float32, where 1e39 becomes infinity
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: below this standard deviation (in the data's units) points have no spread to learn
MIN_SPREAD = 1e-6
#: points whose spread across their main direction is below this fraction of the spread
#: along it lie on a line
MIN_SPREAD_RATIO = 1e-5
#: the largest file of points read (a million points of 40 digits each fit 5 times over)
MAX_POINTS_FILE_BYTES = 256 << 20
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig"))


def _read_text(path: Path, watch: LoadWatch) -> str:
    """The file's text: UTF-8, or UTF-16/32 with a byte-order mark. A file over
    ``MAX_POINTS_FILE_BYTES``, or (in UTF-8, without quotes) with more lines of data than
    ``MAX_POINTS`` and a header, is refused before a line is parsed."""
    try:
        data = read_bytes(path, MAX_POINTS_FILE_BYTES, watch)
    except OSError as exc:
        raise InvalidParameterError(
            f"{path.name}: cannot read the file ({exc.strerror or exc}).") from exc
    if len(data) > MAX_POINTS_FILE_BYTES:
        raise InvalidParameterError(
            f"{path.name}: the file is over {MAX_POINTS_FILE_BYTES >> 20} MB; ArchScope "
            f"reads up to {MAX_POINTS:,} points, which fit in far less.")
    codec = next((c for bom, c in _BOMS if data.startswith(bom)), "utf-8")
    if codec.startswith("utf-8") and b'"' not in data:
        lines = data_lines_at_least(data, comments=b"#")
        if lines > MAX_POINTS + 1:
            raise InvalidParameterError(
                f"{path.name}: more than {MAX_POINTS:,} points ({lines:,} lines of "
                "points).")
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(
            f"{path.name}: not {codec.upper().replace('-SIG', '')} text (byte {exc.start}); "
            "save the points as UTF-8.") from exc


def _plain_records(text: str):
    """(line number, cells) of a file without quotes: ``#`` comments, any separators."""
    for number, raw in enumerate(iter_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line, [c for c in _SPLIT.split(line) if c]


def _quoted_records(name: str, text: str):
    """(first line, cells) of an RFC 4180 file: quoted fields, which may hold the
    separator or a line break; the separator is the first of , ; tab on a data line
    (outside quotes); ``#`` starts a comment, as in a plain file. A quote that is never
    closed (an odd number of quotes) is named by the line of the record it opens."""
    unquoted = re.sub(r'"(?:[^"]|"")*"', '""', text[:65536])   # separators outside quotes
    first = next((ln for ln in unquoted.splitlines() if ln.strip() and
                  not ln.lstrip().startswith("#")), "")
    delimiter = next((d for d in ",;\t" if d in first), " ")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                        skipinitialspace=True)
    start, held = 1, None
    for row in reader:
        cut = next((k for k, c in enumerate(row) if "#" in c), None)
        if cut is not None:             # a comment: from its '#' to the end of the record
            row = [*row[:cut], row[cut].split("#", 1)[0]]
        cells = [c.strip() for c in row if c.strip()]
        if cells:
            if held is not None:
                yield held
            held = (start, delimiter.join(" ".join(c.split()) for c in row), cells)
        start = reader.line_num + 1
    if held is not None and text.count('"') % 2 and _unclosed(text, held[0], delimiter):
        # the last record swallowed the rest of the file into the unclosed field
        raise InvalidParameterError(
            f"{name}, line {held[0]}: a quoted field opens here and is never closed (a "
            "quote is missing).")
    if held is not None:
        yield held


def _unclosed(text: str, line: int, delimiter: str) -> bool:
    """Whether the record from ``line`` on ends inside a quoted field (the csv module
    reads such a record to the end of the file without a word)."""
    rest = "".join(text.splitlines(keepends=True)[line - 1:])
    try:
        for _ in csv.reader(io.StringIO(rest, newline=""), delimiter=delimiter, strict=True,
                            skipinitialspace=True):
            pass
    except csv.Error as exc:
        return "end of data" in str(exc)
    return False


def load_points_csv(path: str | Path, progress=None, cancelled=None) -> np.ndarray:
    """2D points from a text file, as float32[n, 2].

    One point per line, the first two columns used (more are ignored); columns separated
    by commas, semicolons or whitespace; ``#`` starts a comment; blank lines are skipped;
    a first non-comment line that is not numeric is taken as a header. A file with
    double quotes is read as RFC 4180 CSV (a quoted field may hold a separator or a line
    break; a line number is where the record starts). UTF-8, or UTF-16/32 with a
    byte-order mark. Raises ``InvalidParameterError`` naming the file (and the line) for
    an unreadable file, a malformed line, fewer than 2 columns, NaN or infinity, a value
    beyond float32 (``FLOAT32_MAX``: it would become infinity in the model), fewer than
    ``MIN_POINTS`` or more than ``MAX_POINTS`` points (a file with far more lines than
    that before a line is parsed).

    ``progress(fraction)`` is called now and then from 0 to 1 (the bytes read, then the
    lines parsed); once ``cancelled()`` is True, ``LoadCancelled`` is raised at the next
    check (see ``models.reading``).
    """
    path = Path(path)
    watch = LoadWatch(path.name, progress, cancelled)
    text = _read_text(path, watch.span(0.0, 0.1))
    with gcpause.paused():     # no collection walks the million rows being made
        return _points_from_text(path.name, text, watch.span(0.1, 1.0))


def _points_from_text(name: str, text: str, parsing: LoadWatch) -> np.ndarray:
    """The points of ``text`` (see ``load_points_csv``), gathered in an ``array`` of
    doubles: made into numpy at once, where a list of a million tuples would hold the
    interpreter for a second."""
    records = _quoted_records(name, text) if '"' in text else _plain_records(text)
    total = text.count("\n") + 1
    values = array("d")
    seen_data = False
    next_tick = 0
    for number, line, cells in records:
        if number >= next_tick:
            next_tick = number + TICK_EVERY
            parsing.tick(number / total)
        if len(cells) < 2:
            raise InvalidParameterError(
                f"{name}, line {number}: expected 2 columns (x and y), found {len(cells)}.")
        try:
            x, y = float(cells[0]), float(cells[1])
        except ValueError:
            if not seen_data:   # a header
                seen_data = True
                continue
            raise InvalidParameterError(
                f"{name}, line {number}: '{line[:40]}' is not two numbers.") from None
        seen_data = True
        if not (math.isfinite(x) and math.isfinite(y)):
            raise InvalidParameterError(
                f"{name}, line {number}: NaN or infinity is not a point.")
        if abs(x) > FLOAT32_MAX or abs(y) > FLOAT32_MAX:
            raise InvalidParameterError(
                f"{name}, line {number}: {max(x, y, key=abs):g} is beyond float32's "
                f"range (±{FLOAT32_MAX:.3g}), in which the flow computes: it would become "
                "infinity. Rescale the points.")
        values.append(x)
        values.append(y)
        if len(values) > 2 * MAX_POINTS:
            raise InvalidParameterError(
                f"{name}: more than {MAX_POINTS:,} points (line {number}).")
    count = len(values) // 2
    if not count:
        raise InvalidParameterError(f"{name}: the file holds no points.")
    if count < MIN_POINTS:
        raise InvalidParameterError(
            f"{name}: only {count} point{'s' if count > 1 else ''}; a flow needs "
            f"at least {MIN_POINTS} to learn a density from (with fewer it just memorises "
            "them).")
    out = np.frombuffer(values, dtype=np.float64).astype(np.float32).reshape(-1, 2)
    parsing.tick(1.0)
    return out


def point_statistics(points: np.ndarray) -> tuple[str | None, float]:
    """What a ``FlowSession`` judges user points by: ``(spread_problem, entropy)``, the
    entropy the k-NN estimate on up to 10,000 of them (NaN when there is a problem). Its
    second costs a second for a large file: worth computing once per point set, in the
    background, and handing to every session trained on them (``statistics=``)."""
    pool = np.asarray(points, np.float32)
    problem = spread_problem(pool)
    return problem, (math.nan if problem else knn_entropy(pool[:10_000]))


def check_points(points) -> np.ndarray:
    """The user's points (from a file, drawn, or kept in a session file) as C-contiguous
    float32[n, 2], or ``InvalidParameterError`` saying what is wrong: not real numbers,
    not n rows of (x, y), fewer than ``MIN_POINTS`` or more than ``MAX_POINTS`` rows, a
    NaN, an infinity or a value beyond float32's range (the flow computes in float32)."""
    arr = np.asarray(points)
    if arr.dtype.kind not in "fiu":
        raise InvalidParameterError(f"Custom points must be real numbers, got {arr.dtype}.")
    if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) < MIN_POINTS:
        raise InvalidParameterError(
            f"Custom points must be an array of at least {MIN_POINTS} rows of (x, y), got "
            f"shape {arr.shape}.")
    if len(arr) > MAX_POINTS:
        raise InvalidParameterError(f"Custom points: at most {MAX_POINTS:,} rows, got "
                                    f"{len(arr):,}.")
    with np.errstate(over="ignore", invalid="ignore"):
        pool = np.ascontiguousarray(arr, dtype=np.float32)
    if not np.isfinite(pool).all():
        raise InvalidParameterError("Custom points must be finite in float32 (no NaN, no "
                                    "infinity, nothing beyond ±3.4e38).")
    return pool


def spread_problem(points: np.ndarray) -> str | None:
    """Why a density cannot be learnt from ``points`` (float[n, 2]), or None: all points
    the same, almost no spread (standard deviation below ``MIN_SPREAD``), or on a line
    (spread across below ``MIN_SPREAD_RATIO`` of the spread along). A density concentrated
    on no area has no upper bound, so a flow's NLL on such data falls without limit."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    pts = pts[np.isfinite(pts).all(1)]
    if len(pts) < 2:
        return None
    centred = pts - pts.mean(0)
    scale = float(np.abs(centred).max())        # so squares of 1e200 do not overflow
    if scale > 0:
        unit = centred / scale
        spreads = scale * np.sqrt(np.clip(np.linalg.eigvalsh(unit.T @ unit / len(pts)), 0,
                                          None))
    else:
        spreads = np.zeros(2)
    low, high = float(spreads[0]), float(spreads[1])
    unbounded = ("A density with no spread is unbounded: the NLL would fall without limit "
                 "and mean nothing.")
    if high == 0:
        x, y = pts[0]
        return (f"All {len(pts)} points are the same point ({x:g}, {y:g}). {unbounded} "
                "Use points that spread out.")
    if high < MIN_SPREAD:
        return (f"The points have almost no spread (standard deviation {high:.3g}). "
                f"{unbounded} Standardise the data (subtract the mean, divide by the "
                "standard deviation of each coordinate).")
    if low < MIN_SPREAD_RATIO * high:
        return (f"The points lie on a line (spread {low:.3g} across it, {high:.3g} along "
                f"it). {unbounded} Use points that spread in both directions.")
    return None


def standardise(points: np.ndarray) -> np.ndarray:
    """``points`` (float[n, 2]) moved to mean 0 and scaled to standard deviation 1 in
    each coordinate (computed in float64; float32[n, 2] out), as the Flows tab offers for
    data at a scale the flow cannot train on (1e30, 1e-30). A coordinate with no spread
    at all is only centred."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    centred = pts - pts.mean(0)
    std = centred.std(0)
    return np.ascontiguousarray(centred / np.where(std > 0, std, 1.0), dtype=np.float32)
