"""What the meta-learning tab's views share: the methods' names in the current language
and the helpers that keep a diverged curve and the legend out of the way."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate


def method_labels() -> dict[str, str]:
    return {"maml": translate("MetaTab", "MAML"),
            "fomaml": translate("MetaTab", "first-order MAML"),
            "reptile": translate("MetaTab", "Reptile"),
            "pretrained": translate("MetaTab", "pretrained")}


def short_labels() -> dict[str, str]:
    """For the one-line read-outs."""
    return {"maml": "MAML", "fomaml": "FOMAML", "reptile": "Reptile",
            "pretrained": translate("MetaTab", "pretrained")}


def displayable(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` as float32 with NaN where the inner loop diverged: not finite, or over
    10 times the largest finite ``reference`` (the MSE before adapting: adapting that made
    things ten times worse has left the basin)."""
    ref = reference[np.isfinite(reference)]
    limit = 10.0 * float(ref.max()) if ref.size else 1e6
    out = np.asarray(values, dtype=np.float64).copy()
    out[~np.isfinite(out) | (np.abs(out) > limit)] = np.nan
    return out.astype(np.float32)


def log_headroom(plot, ys, fraction: float = 0.6) -> None:
    """A log-y range over the finite positive values of ``ys`` with ``fraction`` of the
    span free above them, where the legend sits (top right) without hiding a curve."""
    v = np.concatenate([np.asarray(y, np.float64).ravel() for y in ys]) if ys else np.zeros(0)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return
    lo, hi = np.log10(v.min()), np.log10(v.max())
    if hi - lo < 0.3:           # a narrow spread: centred in the least span shown
        lo, hi = (lo + hi) / 2 - 0.15, (lo + hi) / 2 + 0.15
    span = hi - lo
    bottom, top = lo - 0.05 * span, hi + fraction * span
    # a power of ten right at an edge gets no room for its label (and the 2·10ⁿ, 5·10ⁿ
    # labels are left out when two powers lie in the range): keep them clear of the edges
    if abs(top - round(top)) < 0.05 * span:
        top = round(top) + 0.08 * span
    if abs(bottom - round(bottom)) < 0.05 * span:
        bottom = round(bottom) - 0.08 * span
    plot.plotItem.setYRange(bottom, top, padding=0)


def smooth(values: np.ndarray, window: int) -> np.ndarray:
    """Running mean over ``window`` values (the first ones over what there is)."""
    if len(values) == 0:
        return values
    c = np.cumsum(np.insert(values.astype(np.float64), 0, 0.0))
    n = np.minimum(np.arange(1, len(values) + 1), window)
    return ((c[1:] - c[np.arange(1, len(values) + 1) - n]) / n).astype(np.float32)
