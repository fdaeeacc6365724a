"""Drawing the neural-ODE tab's views from what it holds: the vector field with the
trajectories animated along t, the task's own view (the spiral fit, decision regions, the
CNF's density p_t), the solver's steps, the NFE timeline, the loss and the adjoint
comparison. Each function takes the tab and only draws (no model is run: the sessions'
records are read through ``history()``, copies cut to one length without the lock).

Texts are translated in the tab's context ("ODETab"), as when these were its methods.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt

from models.ode.options import ADAPTIVE
from models.traces.ode import ODEResult
from viz.plane import class_colour

if TYPE_CHECKING:
    from app.tabs.ode.tab import ODETab

translate = QCoreApplication.translate

USER_COLOUR = "#7b2f9e"      # their trajectories (purple: not a class colour)
#: the plane's axes: the state's two coordinates (the spiral's y, the classifier's h, the
#: CNF's z), symbols the same in every language
STATE_AXES = {"spiral": ("y₁", "y₂"), "classify": ("h₁", "h₂"), "cnf": ("z₁", "z₂")}


# -- the plane: vector field and trajectories ---------------------------------------------------
def draw_field(tab: ODETab, t: float) -> None:
    r = tab.result
    plot = tab.field_plot
    task = r.task
    f = r.fields
    k = int(np.argmin(np.abs(f.times - t)))
    sign = -1.0 if task == "cnf" else 1.0       # CNF: arrows the way samples move
    plot.set_field(f.x, f.y, sign * f.u[k], sign * f.v[k])
    back = task == "cnf"
    paths, times = r.paths, r.times
    shown, now = _paths_until(paths, times, t, back)
    layers = ["user_paths", "user_start", "user_now"]
    if task == "spiral":
        plot.set_lines("true", r.true, colour="#999999", width=1.2, style=Qt.PenStyle.DashLine,
                       legend=translate("ODETab", "true spiral"), z=1)
        plot.set_lines("others", shown[1:], colour="#6b8fb5", width=1.0,
                       legend=translate("ODETab", "other start points"), z=2)
        plot.set_lines("fitted", shown[:1], colour=class_colour(0), width=2.2,
                       legend=translate("ODETab", "learned, from the true y0"), z=3)
        plot.set_points("now", now, colour=class_colour(2), size=8, z=12)
        layers += ["true", "others", "fitted", "now"]
    elif task == "classify":
        labels = r.labels
        for c in (0, 1):
            sel = labels == c
            plot.set_lines(f"paths{c}", shown[sel][:150], colour=_faded(class_colour(c)),
                           width=0.8, z=1)
            plot.set_points(f"now{c}", now[sel], colour=class_colour(c), size=6,
                            legend=translate("ODETab", "class {0}").format(c), z=10 + c)
        layers += ["paths0", "paths1", "now0", "now1"]
    else:
        plot.set_lines("paths", shown[:80], colour="#9aa9bd", width=0.8, z=1)
        plot.set_points("now", now, colour="#1f4e99", size=3.5, outline=None,
                        legend=translate("ODETab", "samples"), z=10)
        layers += ["paths", "now"]
    u = tab.user_paths
    if u is not None and u.key == r.key and len(u.paths):
        ushown, unow = _paths_until(u.paths, u.times, t, back)
        plot.set_lines("user_paths", ushown, colour=USER_COLOUR, width=2.2,
                       legend=translate("ODETab", "your start points"), z=4)
        plot.set_points("user_start", u.paths[:, 0 if not back else -1],
                        colour="#ffffff", outline=USER_COLOUR, size=9, symbol="s", z=13)
        plot.set_points("user_now", unow, colour=USER_COLOUR, size=8, z=14)
    else:
        starts = np.asarray(tab.starts[task], np.float64).reshape(-1, 2)
        plot.set_lines("user_paths", np.zeros((0, 2)))
        plot.set_points("user_start", starts, colour="#ffffff", outline=USER_COLOUR,
                        size=9, symbol="s", z=13)
        plot.set_points("user_now", np.zeros((0, 2)))
    plot.keep_layers(layers)
    state = STATE_AXES[task]
    plot.set_axis_labels(*state)
    if r.extent_key != getattr(tab, "_field_extent_key", None):
        tab._field_extent_key = r.extent_key
        plot.set_extent(r.extent)
    readout(tab, "field", field_readout(tab, t))


def field_readout(tab: ODETab, t: float) -> str:
    r = tab.result
    task = r.task
    if task == "spiral":
        text = translate("ODETab", "t = {0:.2f} · arrows: f(y), the same at every t · click "
                         "to start a trajectory").format(t)
    elif task == "classify":
        aug = r.augment
        text = (translate("ODETab", "t = {0:.2f} · arrows: f(t, h) in the first two "
                          "coordinates, the other {1} at 0").format(t, aug)
                if aug else
                translate("ODETab", "t = {0:.2f} · arrows: f(t, h); trajectories never cross")
                .format(t))
    else:
        text = translate("ODETab", "t = {0:.2f} · arrows: −f(t, z), the way the samples move, "
                         "from the base (t = 1) to the data (t = 0)").format(t)
    if r.user_error:
        text += " · " + solve_note(r.user_error)[0]
    if r.display_error:
        text = solve_note(r.display_error)[0]
    return text


def draw_task(tab: ODETab, t: float) -> None:
    r = tab.result
    plot = tab.task_plot
    task = r.task
    tr = r.trace
    plot.set_axis_labels(*(STATE_AXES["spiral"] if task == "spiral" else ("x₁", "x₂")))
    if tr is None:
        plot.clear_image()
        plot.keep_layers([])
        readout(tab, "task", *solve_note(r.display_error))
    elif task == "spiral":
        plot.clear_image()
        plot.set_points("observed", tr.observed, colour="#8c8c8c", size=3, outline=None,
                        legend=translate("ODETab", "noisy observations"), z=5)
        plot.set_lines("true", tr.true, colour="#333333", width=1.5, style=Qt.PenStyle.DashLine,
                       legend=translate("ODETab", "true trajectory"), z=6)
        plot.set_lines("fitted", tr.fitted, colour=class_colour(0), width=2.0,
                       legend=translate("ODETab", "learned trajectory"), z=7)
        i = int(np.clip(np.searchsorted(tr.t, t), 0, len(tr.t) - 1))
        plot.set_points("now", np.stack([tr.true[i], tr.fitted[i]]),
                        colour=class_colour(2), size=8, z=12)
        plot.keep_layers(["observed", "true", "fitted", "now"])
        readout(tab, "task", translate(
            "ODETab", "mean L1 {0:.3f} (trivial: constant y0 {1:.3f}, zero {2:.3f}) · NFE {3}"
        ).format(
            tr.error_l1, tr.trivial["constant_y0"], tr.trivial["zero"], tr.nfe))
    elif task == "classify":
        plot.set_image((tr.prob > 0.5).astype(np.int64), tr.extent, classes=True)
        for c in (0, 1):
            sel = tr.labels == c
            plot.set_points(f"class{c}", tr.points[sel], colour=class_colour(c), size=6,
                            legend=translate("ODETab", "class {0}").format(c), z=10 + c)
        wrong = tr.predictions != tr.labels if tr.predictions.size else np.zeros(0, bool)
        plot.set_points("wrong", tr.points[wrong], colour="#000000", size=9, symbol="x",
                        outline="#000000", legend=translate("ODETab", "misclassified"),
                        z=13)
        plot.keep_layers(["class0", "class1", "wrong"])
        note = (translate("ODETab", " · {0} augmented dimensions").format(tr.augment)
                if tr.augment else "")
        readout(tab, "task", translate("ODETab", "held-out accuracy {0:.1%}").format(
            tr.accuracy) + note)
    else:
        k = int(np.argmin(np.abs(tr.times - t)))
        plot.set_image(tr.density[k], tr.extent)
        plot.set_colorbar_label(translate("ODETab", "density p_t(x)"))
        _, now = _paths_until(r.paths, r.times, t, True)
        plot.set_points("now", now, colour="#ffffff", size=3, outline=None, z=10)
        plot.keep_layers(["now"])
        readout(tab, "task", translate(
            "ODETab", "p_t at t = {0:.2f} · held-out NLL {1:.3f} nats (floor {2:.3f}) · mass on "
            "the grid {3:.2f}").format(float(tr.times[k]), tr.nll, tr.entropy,
                                       float(tr.mass[k]) if tr.mass.size else float("nan")))
    if r.extent_key != getattr(tab, "_task_extent_key", None):
        tab._task_extent_key = r.extent_key
        plot.set_extent(r.task_extent)


def redraw_steps(tab: ODETab, r: ODEResult) -> None:
    steps = r.steps
    if steps is None:
        tab.steps_plot.set_steps([], [], [], [], (translate("ODETab", "accepted"), ""))
        tab.steps_plot.set_hint(translate("ODETab",
                                          "The solver could not finish this solve."))
        readout(tab, "steps", *solve_note(r.steps_error))
        return
    tab.steps_plot.set_hint("")
    adaptive = steps.method in ADAPTIVE
    tab.steps_plot.set_steps(
        steps.accepted_t, np.abs(steps.accepted_dt), steps.rejected_t,
        np.abs(steps.rejected_dt),
        (translate("ODETab", "accepted step"),
         translate("ODETab", "rejected step") if adaptive else ""))
    if adaptive:
        readout(tab, "steps", translate(
            "ODETab", "{0}: {1} accepted, {2} rejected · NFE {3}").format(
            steps.method, steps.n_accepted, steps.n_rejected, steps.nfe),
            translate("ODETab", "{0}: {1} accepted and {2} rejected steps in one solve of the "
                      "current model over [{3:g}, {4:g}]; NFE {5}").format(
            steps.method, steps.n_accepted, steps.n_rejected, steps.t0, steps.t1,
            steps.nfe))
    else:
        readout(tab, "steps", translate(
            "ODETab", "{0}: every step is accepted: {1} · NFE {2}").format(
            steps.method, steps.n_accepted, steps.nfe),
            translate("ODETab", "{0} steps on a fixed grid: every step is accepted ({1} steps "
                      "of at most {2:g} over [{3:g}, {4:g}]); NFE {5}").format(
            steps.method, steps.n_accepted, float(np.abs(steps.accepted_dt).max()),
            steps.t0, steps.t1, steps.nfe))


def untrained_step(tab: ODETab) -> tuple[float, int, int] | None:
    """(loss, NFE forward, NFE backward) of one training step of the untrained model, from
    the adjoint comparison that runs by itself when a model is first shown (the same
    batch loss and solves as a training step, with the session's own method); None
    until it is there or once the model has trained."""
    key = tab._session_key()
    session, done = tab.sessions.get(key), tab.comparisons.get(key)
    if session is None or done is None or done["step"] != 0 or session.losses:
        return None
    r = done["result"]
    if session.solver.adjoint:
        return r.loss_adjoint, r.nfe_forward_adjoint, r.nfe_backward_adjoint
    return r.loss_direct, r.nfe_forward_direct, r.nfe_backward_direct


def _step_zero_range(plot, top: float) -> None:
    """A lone step-0 point on the axes training will fill: steps 0 … 100 and values from
    0 (autoranged, one point sat mid-plot on a −0.5 … 0.5 axis)."""
    plot.plotItem.setXRange(0, 100, padding=0.02)
    plot.plotItem.setYRange(0, 1.25 * top if np.isfinite(top) and top > 0 else 1.0,
                            padding=0.02)


def redraw_nfe(tab: ODETab) -> None:
    key = tab._session_key()
    session = tab.sessions.get(key)
    first = untrained_step(tab)
    if session is not None and not session.nfe_forward and first is not None:
        _, fwd, bwd = first           # the untrained model's step, honestly, not a blank box
        tab.nfe_plot.set_hint("")
        tab.nfe_plot.set_markers([], [])
        tab.nfe_plot.set_curves([np.zeros(1, np.float32)] * 2,
                                [np.array([fwd], np.float32), np.array([bwd], np.float32)],
                                [translate("ODETab", "forward"),
                                 translate("ODETab", "backward (adjoint: its solve)")
                                 if session.solver.adjoint else translate("ODETab", "backward")],
                                symbols=["o", "s"])
        _step_zero_range(tab.nfe_plot, max(fwd, bwd))
        readout(tab, "nfe", translate("ODETab", "untrained, step 0: {0} fwd, {1} bwd · {2}; "
                                      "press “Train”").format(fwd, bwd,
                                                              solver_label(session.solver)))
        return
    if session is None or not session.nfe_forward:
        tab.nfe_plot.set_curves([], [], [])
        tab.nfe_plot.set_markers([], [])
        tab.nfe_plot.set_hint(translate("ODETab", "Press “Train” to see\nthe evaluations "
                                        "of f\nin every training step."))
        cfg = session.solver if session is not None else None
        readout(tab, "nfe", translate("ODETab", "solver: {0}").format(solver_label(cfg))
                if cfg is not None else "")
        return
    tab.nfe_plot.set_hint("")
    h = session.history()
    fwd = h["nfe_forward"].astype(np.float32)
    bwd = h["nfe_backward"].astype(np.float32)
    steps = np.arange(1, len(fwd) + 1, dtype=np.float32)
    adjoint = session.solver.adjoint
    tab.nfe_plot.set_curves(steps, np.stack([fwd, bwd]),
                            [translate("ODETab", "forward"),
                             translate("ODETab", "backward (adjoint: its solve)")
                             if adjoint else translate("ODETab", "backward")])
    marks = [m for m in tab.switches.get(key, []) if m[0] <= len(fwd)]
    tab.nfe_plot.set_markers([m[0] + 0.5 for m in marks[1:]], [m[1] for m in marks[1:]])
    cfg = session.solver
    readout(tab, "nfe", translate("ODETab", "step {0}: {1} fwd, {2} bwd · {3}").format(
        len(fwd), int(fwd[-1]), int(bwd[-1]),
        cfg.method + (translate("ODETab", " +adj") if cfg.adjoint else "")),
        translate("ODETab", "step {0}: NFE forward {1}, backward {2} · solver: {3}").format(
            len(fwd), int(fwd[-1]), int(bwd[-1]), solver_label(cfg)))


def redraw_loss(tab: ODETab) -> None:
    session = tab.sessions.get(tab._session_key())
    first = untrained_step(tab)
    if first is not None and np.isfinite(first[0]):
        xs, ys = [np.zeros(1, np.float32)], [np.array([first[0]], np.float32)]
        names, symbols = [translate("ODETab", "batch loss")], ["o"]
        if session.task == "cnf" and np.isfinite(session.entropy):
            xs.append(np.array([0, 100], np.float32))
            ys.append(np.full(2, session.entropy, np.float32))
            names.append(translate("ODETab", "entropy floor"))
            symbols.append(None)
        tab.loss_plot.set_hint("")
        tab.loss_plot.set_curves(xs, ys, names, symbols=symbols, colours=[0, 2][:len(xs)])
        _step_zero_range(tab.loss_plot, max(float(np.nanmax(y)) for y in ys))
        readout(tab, "loss", translate("ODETab", "untrained, step 0: loss {0:.4f}; press "
                                       "“Train” to fit the model").format(first[0]))
        return
    if session is None or not session.losses:
        tab.loss_plot.set_curves([], [], [])
        tab.loss_plot.set_hint(translate("ODETab", "Press “Train” to fit the model."))
        readout(tab, "loss", "")
        return
    tab.loss_plot.set_hint("")
    losses = session.history()["loss"]
    steps = np.arange(1, len(losses) + 1, dtype=np.float32)
    window = min(25, len(losses))
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid").astype(np.float32)
    xs, ys = [steps, steps[window - 1:]], [losses, smooth]
    names = [translate("ODETab", "batch loss"), translate("ODETab", "running mean")]
    task = session.task
    if task == "cnf" and np.isfinite(session.entropy):
        xs.append(np.array([1, len(losses)], np.float32))
        ys.append(np.full(2, session.entropy, np.float32))
        names.append(translate("ODETab", "entropy floor"))
    tab.loss_plot.set_curves(xs, ys, names)
    metric = session.last_metric
    if task == "spiral":
        short = translate("ODETab", "L1 {0:.3f}").format(metric)
        m = translate("ODETab", "whole trajectory from y0: mean L1 {0:.3f}").format(metric)
    elif task == "classify":
        short = translate("ODETab", "accuracy {0:.1%}").format(metric)
        m = translate("ODETab", "held-out accuracy {0:.1%}").format(metric)
    else:
        short = translate("ODETab", "floor {0:.3f}").format(session.entropy)
        m = translate("ODETab", "NLL {0:.3f} nats, floor {1:.3f}").format(metric, session.entropy)
    readout(tab, "loss", translate("ODETab", "step {0}: {1:.4f} · {2}").format(
        len(losses), float(smooth[-1]), short),
        translate("ODETab", "step {0}: loss {1:.4f} (running mean) · {2}").format(
            len(losses), float(smooth[-1]), m))


def redraw_adjoint(tab: ODETab) -> None:
    c = tab.comparisons.get(tab._session_key())
    if c is None:
        tab.adjoint_plot.clear_bars()
        tab.adjoint_plot.set_hint(translate("ODETab", "Press “Compare adjoint on/off”"))
        readout(tab, "adjoint", "")
        return
    a = c["result"]
    tab.adjoint_plot.set_hint("")
    # time, memory kept for backward, evaluations in the backward pass (the forward
    # solve is the same both ways: its NFE goes to the tooltip)
    values = np.array([[a.seconds_direct * 1e3, a.saved_bytes_direct, a.nfe_backward_direct],
                       [a.seconds_adjoint * 1e3, a.saved_bytes_adjoint,
                        a.nfe_backward_adjoint]], np.float64)
    top = np.maximum(values.max(0), 1e-30)
    labels = [[translate("ODETab", "{0:.0f} ms").format(row[0]) if row[0] >= 10 else
               translate("ODETab", "{0:.1f} ms").format(row[0]), _bytes(row[1]),
               f"{row[2]:.0f}"] for row in values]
    tab.adjoint_plot.set_bars(
        [translate("ODETab", "time"), translate("ODETab", "memory"),
         translate("ODETab", "NFE bwd")],
        (values / top).astype(np.float32),
        [translate("ODETab", "direct"), translate("ODETab", "adjoint")], labels)
    short = translate("ODETab", "Δgrad {0:.1e} · step {1}").format(a.grad_rel_diff, c["step"])
    session = tab.sessions.get(tab._session_key())
    if session is not None and session.step != c["step"]:
        # trained since: the bars are of an earlier model (compared again once no job runs)
        short = translate("ODETab", "Δgrad {0:.1e} of step {1}; the model is at step {2}, "
                          "compared again when training stops").format(
            a.grad_rel_diff, c["step"], session.step)
    text = translate(
        "ODETab", "relative gradient difference max|Δg|/max|g| = {0:.1e} · memory: tensors "
        "kept for the backward pass · NFE forward {1} and {2} · {3} · step {4}").format(
        a.grad_rel_diff, a.nfe_forward_direct, a.nfe_forward_adjoint, c["solver"],
        c["step"])
    if np.isfinite(a.cuda_peak_direct):
        text += translate("ODETab", " · CUDA peak {0:.1f} MB against {1:.1f} MB").format(
            a.cuda_peak_direct / 2 ** 20, a.cuda_peak_adjoint / 2 ** 20)
    readout(tab, "adjoint", short, text)


def readout(tab: ODETab, key: str, text: str, full: str | None = None) -> None:
    """A short read-out under a view; the whole sentence in its tooltip."""
    panel = tab.view(key).panel
    panel.set_readout(text)
    panel.readout.setToolTip(full if full is not None else text)


def tolerance(value: float) -> str:
    """A tolerance as people write it: 0.05, 1e-3, 2.5e-4 (not 0.001000 or "0.000")."""
    v = float(value)
    if v == 0 or v >= 0.01:
        return f"{v:g}"
    mantissa, exponent = f"{v:.1e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def solve_note(message: str) -> tuple[str, str]:
    """A solver error of ``models.ode`` as a short translated note for a read-out and a
    full one for its tooltip: the NFE cap's message is worded here (the model's English
    sentence ran past the read-out and stayed English in Chinese); others are named as
    such, with the model's words in the tooltip."""
    if not message:
        return "", ""
    cap = re.match(r"The ODE solver needed more than (\d+) evaluations", message)
    if cap:
        n = cap.group(1)
        return (translate("ODETab", "Stopped at the NFE cap ({0}): raise it, loosen the "
                          "tolerances or use rk4.").format(n),
                translate("ODETab", "One solve needed more than {0} evaluations of f and was "
                          "stopped at the cap: the dynamics are stiff or change fast for these "
                          "tolerances. Raise the cap (NFE cap per solve), loosen the "
                          "tolerances, or use a fixed-step solver such as rk4.").format(n))
    return (translate("ODETab", "The solver could not finish: {0}").format(message), message)


def solver_label(cfg, short: bool = False) -> str:
    """"dopri5, rtol 1e-3, atol 1e-4 + adjoint"; short: "dopri5 1e-3/1e-4 +adj"."""
    if short:
        text = (f"{cfg.method} {tolerance(cfg.rtol)}/{tolerance(cfg.atol)}"
                if cfg.method in ADAPTIVE else f"{cfg.method} h={cfg.step_size:g}")
        return text + (translate("ODETab", " +adj") if cfg.adjoint else "")
    text = (translate("ODETab", "{0}, rtol {1}, atol {2}").format(
        cfg.method, tolerance(cfg.rtol), tolerance(cfg.atol))
            if cfg.method in ADAPTIVE else
            translate("ODETab", "{0}, step {1:g}").format(cfg.method, cfg.step_size))
    return text + (translate("ODETab", " + adjoint") if cfg.adjoint else "")


def _faded(colour: str, alpha: int = 90) -> tuple[int, int, int, int]:
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), alpha)


def _paths_until(paths: np.ndarray, times: np.ndarray, t: float, backwards: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The part of each path the animation has run through by time t (from times[0], or
    from times[-1] when ``backwards``), ending at the interpolated position at t; and
    those positions. paths: float[n, T, 2], times ascending float[T]."""
    n = paths.shape[0]
    if n == 0:
        return np.zeros((0, 1, 2), np.float32), np.zeros((0, 2), np.float32)
    t = float(np.clip(t, times[0], times[-1]))
    j = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)) \
        if len(times) > 1 else 0
    if len(times) > 1:
        w = (t - times[j]) / max(times[j + 1] - times[j], 1e-12)
        now = (1 - w) * paths[:, j] + w * paths[:, j + 1]
    else:
        now = paths[:, 0]
    if backwards:
        shown = np.concatenate([now[:, None], paths[:, j + 1:]], 1)
    else:
        shown = np.concatenate([paths[:, :j + 1], now[:, None]], 1)
    return shown, now


def _bytes(n: float) -> str:
    for unit, size in (("MB", 2 ** 20), ("kB", 2 ** 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"

