"""Polylines in pixels as legend placement reads them: segments clipped to a box and
sampled every few pixels (``densify``)."""

from __future__ import annotations

import numpy as np

#: spacing between a curve's samples, in pixels
STEP_PX = 3.0
#: at most this many samples per curve (a 4096-point curve on a 300-px plot)
MAX_SAMPLES = 20000
#: curves are sampled only this far past the view box's edges (pixels)
CLIP_MARGIN_PX = 8.0


def clip_segments(a: np.ndarray, b: np.ndarray, rect: tuple[float, float, float, float]
          ) -> tuple[np.ndarray, np.ndarray]:
    """The parts of segments a[i]-b[i] (float[n, 2]) inside ``rect`` (x0, y0, x1, y1),
    segments wholly outside dropped (Liang-Barsky, all at once)."""
    d = b - a
    t0, t1 = np.zeros(len(a)), np.ones(len(a))
    keep = np.ones(len(a), bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-d[:, 0], a[:, 0] - rect[0]), (d[:, 0], rect[2] - a[:, 0]),
                     (-d[:, 1], a[:, 1] - rect[1]), (d[:, 1], rect[3] - a[:, 1])):
            r = q / p
            keep &= ~((p == 0) & (q < 0))           # parallel to this edge, outside it
            t0 = np.where(p < 0, np.maximum(t0, r), t0)
            t1 = np.where(p > 0, np.minimum(t1, r), t1)
    keep &= t0 <= t1
    a, d, t0, t1 = a[keep], d[keep], t0[keep, None], t1[keep, None]
    return a + t0 * d, a + t1 * d


def densify(pts: np.ndarray, step: float, pairs: bool = False,
             clip: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """Points every ``step`` pixels along the polyline ``pts`` (segments with a
    non-finite end are gaps, as pyqtgraph draws them), or along each segment of
    ``pairs`` (``connect="pairs"``: points 0-1, 2-3 ...), about ``MAX_SAMPLES`` of
    them: the step grows with the total length (each segment keeps its ends). A trace
    of more segments than that gives its vertices; that many pairs, the ends of every
    k-th pair."""
    if len(pts) < 2:
        return pts
    if pairs:
        m = len(pts) // 2
        a, b = pts[0:2 * m:2], pts[1:2 * m:2]
    else:
        a, b = pts[:-1], pts[1:]
    ok = np.isfinite(a).all(1) & np.isfinite(b).all(1)
    a, b = a[ok], b[ok]
    if not len(a):
        return pts[np.isfinite(pts).all(1)]
    if clip is not None:
        # only what falls inside the box can meet the legend: a view zoomed in drew
        # every curve far past its edges, each sampled MAX_SAMPLES times (1.7 s of one
        # placement in the monkey); the parts inside are segments of their own
        a, b = clip_segments(a, b, clip)
        if not len(a):
            return np.zeros((0, 2))
    ends = b if pairs or clip is not None else b[-1:]
    if not pairs and len(a) >= MAX_SAMPLES:
        return np.concatenate([a, ends])         # a long trace: its own vertices
    if pairs and 2 * len(a) > MAX_SAMPLES:
        every = -(-2 * len(a) // MAX_SAMPLES)    # many edges: the ends of every k-th
        return np.concatenate([a[::every], b[::every]])
    length = np.hypot(*(b - a).T)
    step = max(step, float(length.sum()) / MAX_SAMPLES)
    n = np.clip(np.ceil(length / step).astype(np.int64), 1, 10000)
    seg = np.repeat(np.arange(len(a)), n)
    starts = np.cumsum(n) - n
    t = (np.arange(n.sum()) - np.repeat(starts, n)) / np.repeat(n, n)
    out = a[seg] + (b[seg] - a[seg]) * t[:, None]
    return np.concatenate([out, ends])
