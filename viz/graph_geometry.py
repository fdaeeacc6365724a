"""The numbers behind the graph canvas, without Qt: value bins and edge segments.

``viz.graph_view.GraphCanvas`` draws what these return; they take and give numpy
arrays only, so they are tested and timed without a window.

Shapes:
    pos: float[n, 2]; edges: int[E, 2] (source, target), PyG's ``edge_index.T``.
"""

from __future__ import annotations

import numpy as np

ARROW_PX = 9.0                   # arrowhead length in pixels
LOOP_SEGMENTS = 14


def blend_white(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    """``rgb`` moved the fraction ``f`` of the way to white (a faded edge's colour)."""
    return tuple(int(round(v + (255 - v) * f)) for v in rgb)   # type: ignore[return-value]


def value_levels(values: np.ndarray, levels: tuple[float, float] | None) -> tuple[float, float]:
    """``levels``, or the finite range of ``values``; never an empty range."""
    if levels is not None:
        lo, hi = float(levels[0]), float(levels[1])
    else:
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if not hi > lo:
        hi = lo + 1.0
    return lo, hi


def bin_values(values: np.ndarray, levels: tuple[float, float], n_bins: int) -> np.ndarray:
    """Bin index 0 … n_bins−1 of each value in [lo, hi] (clipped); NaN → n_bins."""
    lo, hi = levels
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        b = np.floor((v - lo) / (hi - lo) * n_bins)
    b = np.clip(np.nan_to_num(b, nan=0.0), 0, n_bins - 1).astype(np.int64)
    b[~np.isfinite(v)] = n_bins
    return b


def stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for small whole keys (bins, groups): taken as
    int16 where they fit, which numpy sorts by radix (0.3 ms for 50,000 keys against
    1.8 ms as int64), the same order."""
    keys = np.asarray(keys)
    if keys.size and keys.dtype.kind in "iu" and keys.min() >= 0 and keys.max() < 2 ** 15:
        keys = keys.astype(np.int16)
    return np.argsort(keys, kind="stable")


def bin_range(b: int, levels: tuple[float, float], n_bins: int) -> tuple[float, float]:
    """The value range [lo, hi] of bin ``b`` (the first and last bins take the outliers)."""
    lo, hi = levels
    step = (hi - lo) / n_bins
    return lo + b * step, lo + (b + 1) * step


def edge_geometry(pos: np.ndarray, edges: np.ndarray, *, directed: bool, half: bool,
                  px: float, radius_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Line segments that draw ``edges``: float64[S, 2, 2] (start, end) and the edge
    index of each segment, int64[S].

    An edge s→t is a segment from s (from the midpoint when ``half``) to t; directed
    edges stop at the rim of t (``radius_px`` of t, in pixels of size ``px`` data
    units) and get a triangle arrowhead of 3 more segments. A self-loop is a circle of
    ``LOOP_SEGMENTS`` segments beside its node, on the side away from the centroid.
    """
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if e.shape[0] == 0 or pos.shape[0] == 0:
        return np.zeros((0, 2, 2)), np.zeros(0, np.int64)
    s, t = e[:, 0], e[:, 1]
    loop = s == t
    parts: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    line = np.flatnonzero(~loop)
    if line.size:
        p, q = pos[s[line]], pos[t[line]]
        start = 0.5 * (p + q) if half else p
        end = q
        if directed:
            d = q - p
            length = np.hypot(d[:, 0], d[:, 1])
            ok = length > 0
            u = np.zeros_like(d)
            u[ok] = d[ok] / length[ok, None]
            u[~ok] = (1.0, 0.0)
            span = np.hypot(*(end - start).T)
            back = np.minimum((radius_px[t[line]] + 1.0) * px, 0.5 * span)
            end = q - u * back[:, None]
            head = np.minimum(ARROW_PX * px, 0.5 * np.maximum(span - back, 0.0))
            base = end - u * head[:, None]
            perp = np.stack([-u[:, 1], u[:, 0]], axis=1) * (0.42 * head)[:, None]
            w1, w2 = base + perp, base - perp
            parts += [np.stack([start, end], 1), np.stack([w1, end], 1),
                      np.stack([w2, end], 1), np.stack([w1, w2], 1)]
            owners += [line] * 4
        else:
            parts.append(np.stack([start, end], 1))
            owners.append(line)
    loops = np.flatnonzero(loop)
    if loops.size:
        node = s[loops]
        c0 = np.nanmean(pos, axis=0)
        away = pos[node] - c0
        norm = np.hypot(away[:, 0], away[:, 1])
        away = np.where(norm[:, None] > 0, away / np.where(norm > 0, norm, 1)[:, None],
                        np.array([0.7071, 0.7071]))
        r_node = radius_px[node] * px
        r_loop = (0.8 * radius_px[node] + 4.0) * px
        centre = pos[node] + away * (r_node + 0.55 * r_loop)[:, None]
        ang = np.linspace(0, 2 * np.pi, LOOP_SEGMENTS + 1)
        ring = np.stack([np.cos(ang), np.sin(ang)], 1)                       # [K+1, 2]
        pts = centre[:, None, :] + r_loop[:, None, None] * ring[None]        # [L, K+1, 2]
        seg = np.stack([pts[:, :-1], pts[:, 1:]], axis=2).reshape(-1, 2, 2)
        parts.append(seg)
        owners.append(np.repeat(loops, LOOP_SEGMENTS))
    return np.concatenate(parts), np.concatenate(owners)


def same_values(a, b) -> bool:
    """Two optional arrays (or lists) hold the same values: nothing to redraw."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    nan = a.dtype.kind in "fc" and b.dtype.kind in "fc"      # NaN (no value) equals NaN
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=nan))
