"""The efficient-attention tab's views as data (File → Export data…): each function takes
the tab and returns the ``ViewData`` of one view, or None while it shows nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData

if TYPE_CHECKING:
    from app.tabs.efficient.tab import EfficientTab


def pattern(tab: EfficientTab) -> ViewData | None:
    m = getattr(tab.result, "mask", None)
    return None if m is None else ViewData(
        "mask", {"mask": m.mask.astype(np.int8), "reach": m.reach.astype(np.int8)},
        {"pattern": m.kind, "n": m.n, "density": m.density, **m.params},
        row_labels=list(range(m.n)), col_labels=list(range(m.n)))


def field(tab: EfficientTab) -> ViewData | None:
    m = getattr(tab.result, "mask", None)
    return None if m is None else ViewData(
        "field", {"field": m.field, "field_theory": m.field_theory,
                  "reach_fraction": m.reach_fraction}, {"pattern": m.kind, "n": m.n},
        row_labels=list(range(1, len(m.field) + 1)), col_labels=["keys reached"])


def conventions(tab: EfficientTab) -> ViewData | None:
    c = getattr(tab.result, "conventions", None)
    return None if c is None else ViewData(
        "weights", {"weights": c.weights.reshape(-1, c.weights.shape[-1]),
                    "max_diff": c.max_diff, "flipped_diff": c.flipped_diff},
        {"apis": list(c.api_names), "conversions": list(c.conversions),
         "nan_rows": c.nan_rows.tolist()},
        row_labels=[f"{a}:{i}" for a in c.api_names for i in range(c.weights.shape[1])],
        col_labels=list(range(c.weights.shape[2])))


def matrices(tab: EfficientTab) -> ViewData | None:
    a = getattr(tab.result, "approx", None)
    return None if a is None else ViewData(
        "implied", {"implied": a.implied, "exact": a.exact, "row_tv": a.row_tv},
        {"method": a.method, "output_error": a.output_error, **a.params},
        row_labels=list(range(a.exact.shape[0])), col_labels=list(range(a.exact.shape[1])))


def error(tab: EfficientTab) -> ViewData | None:
    a = getattr(tab.result, "approx", None)
    return None if a is None else ViewData(
        "error", {"error": a.sweep_error, "std": a.sweep_std, "x": a.sweep_x},
        {"method": a.method, "curves": list(a.sweep_names)},
        row_labels=list(a.sweep_names), col_labels=a.sweep_x.tolist())


def scale(tab: EfficientTab) -> ViewData | None:
    a = getattr(tab.result, "approx", None)
    return None if a is None else ViewData(
        "error", {"error": a.scale_error, "scale": a.scale_x},
        {"method": a.method, "curves": list(a.sweep_names)},
        row_labels=list(a.sweep_names), col_labels=a.scale_x.tolist())


def theory(tab: EfficientTab) -> ViewData | None:
    th = getattr(tab.result, "theory", None)
    if th is None:
        return None
    return ViewData("flops", {"flops": th.flops, "memory_floats": th.memory, "n": th.n},
                    {"methods": list(th.methods)}, row_labels=list(th.methods),
                    col_labels=th.n.tolist())


def measurements(tab: EfficientTab) -> ViewData | None:
    t = tab.cost
    if t is None:
        return None
    table = np.stack([t.measured_n.astype(np.float64), t.measured_method,
                      t.seconds, t.peak_bytes], axis=1)
    return ViewData("measurements", {"measurements": table},
                    {"device": t.device, "d": t.d, "methods": list(t.methods),
                     "status": list(t.status), **t.params},
                    row_labels=[t.methods[i] for i in t.measured_method],
                    col_labels=["n", "method", "seconds", "peak_bytes"])
