"""Drawing the meta-learning tab's views from what it holds: the adapted curves of the test
task, the evaluation's MSE with bands, the meta-training curves and the prototypical
network's two planes. Each function takes the tab and only draws (no model is run).

Texts are translated in the tab's context ("MetaTab"), as when these were its methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from models.meta.options import AMPLITUDE, EVAL_TASKS, METHODS

if TYPE_CHECKING:
    from app.tabs.meta.tab import MetaTab


def _displayable(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` as float32 with NaN where the inner loop diverged: not finite, or over
    10 times the largest finite ``reference`` (the MSE before adapting: adapting that made
    things ten times worse has left the basin)."""
    ref = reference[np.isfinite(reference)]
    limit = 10.0 * float(ref.max()) if ref.size else 1e6
    out = np.asarray(values, dtype=np.float64).copy()
    out[~np.isfinite(out) | (np.abs(out) > limit)] = np.nan
    return out.astype(np.float32)


def _log_headroom(plot, ys, fraction: float = 0.6) -> None:
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


def _smooth(values: np.ndarray, window: int) -> np.ndarray:
    """Running mean over ``window`` values (the first ones over what there is)."""
    if len(values) == 0:
        return values
    c = np.cumsum(np.insert(values.astype(np.float64), 0, 0.0))
    n = np.minimum(np.arange(1, len(values) + 1), window)
    return ((c[1:] - c[np.arange(1, len(values) + 1) - n]) / n).astype(np.float32)


# -- the adaptation view ---------------------------------------------------------------------
def draw_adaptation(tab: MetaTab) -> None:
    """The test task's true curve, its support points and every shown method's prediction
    after the number of steps the slider shows (earlier steps faint)."""
    s = tab.steps_slider.value()
    tab.steps_label.setText(QCoreApplication.translate(
        "MetaTab", "after {0} gradient step(s)").format(s))
    r = tab.result
    if r is None:
        return
    task, trace = r.task, r.adapt
    shown = tab.shown_methods()
    labels = tab.method_labels()
    idx = [trace.methods.index(m) for m in shown if m in trace.methods]
    names = [trace.methods[i] for i in idx]
    truth = task.y_grid
    support = np.stack([trace.x_support, trace.y_support], 1)
    preds = _displayable(trace.predictions[idx], np.array([1e5], np.float32))
    tab.adapt_plot.show_adaptation(
        trace.x_grid, truth, preds, names,
        [METHODS.index(m) for m in names], [labels[m] for m in names], s,
        tab.task_form.values()["trail"], support,
        QCoreApplication.translate("MetaTab", "true function A·sin(x − φ)"),
        QCoreApplication.translate("MetaTab", "{0} support points").format(len(support)))
    err = ((trace.predictions[:, s] - truth[None]) ** 2).mean(1)
    short = tab.short_labels()
    parts = [f"{short[m]} {err[trace.methods.index(m)]:.3f}" for m in names]
    tab.view("adapt").panel.set_readout(QCoreApplication.translate(
        "MetaTab", "A = {0:.2f}, φ = {1:.2f} · MSE after {2} step(s): {3}").format(
            task.amplitude, task.phase, s, " · ".join(parts)))


# -- evaluation over 600 tasks ---------------------------------------------------------------
def draw_evaluation(tab: MetaTab) -> None:
    """The MSE after 0 … 10 steps of every shown method with its 95 % band, up to the first
    step where the inner loop diverged (or a hint while there is no evaluation)."""
    e = tab.eval_result
    panel = tab.view("mse").panel
    if e is None:
        tab.mse_plot.set_curves([], [], [])
        tab.mse_plot.set_bands([], [], [])
        tab.mse_plot.set_hint(QCoreApplication.translate(
            "MetaTab", "Press “Evaluate on {0} tasks”:\neach method adapts "
            "to {0} new tasks from K points.").format(EVAL_TASKS))
        panel.set_readout("")
        return
    tab.mse_plot.set_hint("")
    labels = tab.method_labels()
    names = [m for m in tab.shown_methods() if m in e.methods]
    idx = [e.methods.index(m) for m in names]
    x = np.arange(e.steps + 1, dtype=np.float32)
    colours = [METHODS.index(m) for m in names]
    s1, s10 = min(1, e.steps), e.steps
    mse, lows, highs, xs, text = [], [], [], [], []
    diverged = QCoreApplication.translate("MetaTab", "diverged")
    for m, i in zip(names, idx, strict=True):
        y = _displayable(e.mse[i], e.mse[:, 0])
        mse.append(y)
        # the band up to the first step where the inner loop diverged
        n = int(np.argmin(np.isfinite(y))) if not np.isfinite(y).all() else len(y)
        xs.append(x[:n])
        lows.append((e.mse[i] - e.ci95[i])[:n])
        highs.append((e.mse[i] + e.ci95[i])[:n])
        a, b = (f"{v:.3f}" if np.isfinite(v) else diverged for v in (y[s1], y[s10]))
        text.append(f"{labels[m]}: {a} → {b}")
    # the read-out is narrow: each method's MSE after 1 and 10 steps is in its legend
    tab.mse_plot.set_curves(x, mse, text, ["o"] * len(idx), colours=colours)
    tab.mse_plot.set_bands(xs, lows, highs, colours=colours)
    # the bands' whole height (their lows were cut off), a little room for the legend
    _log_headroom(tab.mse_plot, mse + lows + highs, 0.2)
    text = QCoreApplication.translate(
        "MetaTab", "legend: MSE after 1 → {0} steps · K = {1}, A ≤ {2:g}").format(
            s10, e.k, e.amp_max)
    if tab.session is not None and e.step != tab.session.step:
        text += " " + QCoreApplication.translate("MetaTab", "· at step {0}").format(e.step)
    elif e.step == 0:
        text += " " + QCoreApplication.translate("MetaTab", "· untrained")
    panel.set_readout(text)


# -- the training curves ---------------------------------------------------------------------
def zero_predictor_mse() -> float:
    """The query MSE of predicting y = 0 for every task: E[A²·sin²(x − φ)] = E[A²] / 2
    (φ ~ U[0, π] makes the sine's square average ½ whatever x), with A ~ U[a, b]:
    E[A²] = (a² + ab + b²) / 3."""
    a, b = AMPLITUDE
    return (a * a + a * b + b * b) / 6.0


def draw_losses(tab: MetaTab) -> None:
    """Every shown method's meta-training loss (a running mean), or a hint before any."""
    s = tab.session
    panel = tab.view("loss").panel
    if s is None or s.step == 0:
        # before any meta-step: the loss of not learning at all, the line to get under
        zero = zero_predictor_mse()
        tab.loss_plot.set_hint("")
        tab.loss_plot.set_curves(np.array([0, 100], np.float32),
                                 np.full((1, 2), zero, np.float32),
                                 [QCoreApplication.translate(
                                     "MetaTab", "predicting 0: MSE {0:.2f}").format(zero)],
                                 colours=[len(METHODS)])
        panel.set_readout(QCoreApplication.translate(
            "MetaTab", "Untrained. Press “Meta-train” to train the four methods on one "
            "stream of sinusoid tasks."))
        return
    tab.loss_plot.set_hint("")
    labels = tab.method_labels()
    names = [m for m in tab.shown_methods() if m in s.methods]
    curves = [np.asarray(s.losses[m], np.float32) for m in names]
    n = min((len(c) for c in curves), default=0)
    if n == 0:
        tab.loss_plot.set_curves([], [], [])
        panel.set_readout("")
        return
    window = max(1, min(50, n // 10))
    x = np.arange(1, n + 1, dtype=np.float32)
    ys = [_smooth(c[:n], window) for c in curves]
    tab.loss_plot.set_curves(x, ys, [f"{labels[m]} {y[-1]:.3f}" for m, y in
                                     zip(names, ys, strict=True)],
                             colours=[METHODS.index(m) for m in names])
    _log_headroom(tab.loss_plot, ys)
    panel.set_readout(QCoreApplication.translate(
        "MetaTab", "step {0} · running mean over {1} steps").format(n, window))


# -- prototypical networks -------------------------------------------------------------------
def draw_episode(tab: MetaTab) -> None:
    """The episode in the input plane (learned or baseline regions) and in the embedding."""
    r = tab.result
    if r is None or r.episode is None:
        return
    e = r.episode
    baseline = tab.params()["input_regions"] == "baseline"
    if baseline:
        d = ((e.query_x[:, None, :] - e.baseline_prototypes[None]) ** 2).sum(-1)
        wrong_in = d.argmin(1) != e.query_y
        tab.input_plane.show_episode(e.regions_baseline, e.extent_input, e.support_x,
                                     e.support_y, e.query_x, e.query_y, wrong_in,
                                     e.baseline_prototypes)
    else:
        wrong_in = e.query_pred != e.query_y
        tab.input_plane.show_episode(e.regions_input, e.extent_input, e.support_x,
                                     e.support_y, e.query_x, e.query_y, wrong_in)
    tab.embed_plane.show_episode(e.regions_embedding, e.extent_embedding, e.support_emb,
                                 e.support_y, e.query_emb, e.query_y,
                                 e.query_pred != e.query_y, e.prototypes)
    tab.view("proto_input").panel.set_readout(QCoreApplication.translate(
        "MetaTab", "query accuracy: learned {0:.0%} · input baseline {1:.0%}").format(
            e.accuracy, e.baseline_accuracy))
    tab.view("proto_embedding").panel.set_readout(QCoreApplication.translate(
        "MetaTab", "● support  ○ query  ★ prototype  ✕ wrong"))
