"""The plane views: the learned vector field with the trajectories animated along t (with
its play button, t slider and Clear button) and the task's own view (the spiral fit,
decision regions, the CNF's density p_t). Both see a ``TimeShown``: the tab's
``ODEResult`` at the time the slider shows, with your own start points."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from app.tabs.ode.views.common import (
    STATE_AXES,
    USER_COLOUR,
    ODEView,
    faded,
    paths_until,
    solve_note,
)
from app.tabs.view import ViewData
from models.ode.options import ODERequest
from models.traces.ode import ODEResult, UserPaths
from viz.panel import ViewPanel
from viz.plane import PlanePlot, class_colour

translate = QCoreApplication.translate
SLIDER_MAX = 1000            # the t slider's positions
PLAY_SECONDS = 4.0           # the whole interval, played


@dataclass(frozen=True)
class TimeShown:
    """The result at time ``t`` (``t_fraction`` of the interval), your trajectories (None
    while they are computed) and your start points for the result's task."""

    result: ODEResult
    t: float
    t_fraction: float
    user: UserPaths | None = None
    starts: tuple = ()


class FieldView(ODEView):
    """Emits ``clicked(x, y)`` (a new start point) and ``moved(i, x, y)`` (one dragged);
    its ``slider`` and ``clear_button`` are controls the tab connects. Its play button
    runs the slider through the interval in ``PLAY_SECONDS`` (backwards for the CNF, whose
    samples flow from the base at t1 back to the data at 0)."""

    key = "field"
    clicked = Signal(float, float)
    moved = Signal(int, float, float)

    def __init__(self, parent=None) -> None:
        self._extent_key = None
        self.backwards = False
        super().__init__(parent)

    def build(self) -> PlanePlot:
        plot = PlanePlot()
        plot.fit_box = True      # the axes end where the computed field does
        plot.clicked.connect(self.clicked)
        plot.moved.connect(self.moved)
        plot.set_movable("user_start")
        return plot

    def make_panel(self, plot: PlanePlot) -> ViewPanel:
        """The plane with its play button and t slider (the panel exports the plane, not
        the controls)."""
        host = QWidget()
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.play_button = QPushButton()
        self.play_button.setObjectName("PlayButton")
        self.play_button.setCheckable(True)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_MAX)
        self.slider.setValue(SLIDER_MAX)
        self.t_label = QLabel()
        self.t_label.setMinimumWidth(120)
        self.clear_button = QPushButton()
        self.timer = QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self._tick)
        self.play_button.toggled.connect(self._play)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.t_label)
        row.addWidget(self.clear_button)
        col.addLayout(row)
        panel = ViewPanel(plot)
        panel.layout().replaceWidget(plot, host)
        col.insertWidget(0, plot, 1)
        return panel

    def title(self) -> str:
        return translate("ODETab", "Vector field and trajectories")

    def label(self) -> None:
        self.play_button.setText(translate("ODETab", "Pause") if self.play_button.isChecked()
                                 else translate("ODETab", "Play"))
        self.clear_button.setText(translate("ODETab", "Clear start points"))
        self.clear_button.setToolTip(translate(
            "ODETab", "Click in the plane to start a trajectory there; drag a square to "
            "move it"))

    # -- the animation ------------------------------------------------------------------
    def set_backwards(self, backwards: bool) -> None:
        self.backwards = backwards
        self.slider.setInvertedAppearance(backwards)

    def _play(self, on: bool) -> None:
        self.play_button.setText(translate("ODETab", "Pause") if on
                                 else translate("ODETab", "Play"))
        if on:
            if self.slider.value() == (0 if self.backwards else SLIDER_MAX):   # at the end
                self.slider.setValue(SLIDER_MAX if self.backwards else 0)
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        step = max(1, int(round(SLIDER_MAX * self.timer.interval() / 1000 / PLAY_SECONDS)))
        value = self.slider.value() + (-step if self.backwards else step)
        if value >= SLIDER_MAX or value <= 0:
            value = min(max(value, 0), SLIDER_MAX)
            self.slider.setValue(value)
            self.play_button.setChecked(False)
            return
        self.slider.setValue(value)

    def draw(self, shown: TimeShown, ask: ODERequest) -> None:
        r, t, plot = shown.result, shown.t, self.plot
        task = r.task
        f = r.fields
        k = int(np.argmin(np.abs(f.times - t)))
        sign = -1.0 if task == "cnf" else 1.0       # CNF: arrows the way samples move
        plot.set_field(f.x, f.y, sign * f.u[k], sign * f.v[k])
        back = task == "cnf"
        shown_paths, now = paths_until(r.paths, r.times, t, back)
        layers = ["user_paths", "user_start", "user_now"]
        if task == "spiral":
            plot.set_lines("true", r.true, colour="#999999", width=1.2,
                           style=Qt.PenStyle.DashLine,
                           legend=translate("ODETab", "true spiral"), z=1)
            plot.set_lines("others", shown_paths[1:], colour="#6b8fb5", width=1.0,
                           legend=translate("ODETab", "other start points"), z=2)
            plot.set_lines("fitted", shown_paths[:1], colour=class_colour(0), width=2.2,
                           legend=translate("ODETab", "learned, from the true y0"), z=3)
            plot.set_points("now", now, colour=class_colour(2), size=8, z=12)
            layers += ["true", "others", "fitted", "now"]
        elif task == "classify":
            labels = r.labels
            for c in (0, 1):
                sel = labels == c
                plot.set_lines(f"paths{c}", shown_paths[sel][:150],
                               colour=faded(class_colour(c)), width=0.8, z=1)
                plot.set_points(f"now{c}", now[sel], colour=class_colour(c), size=6,
                                legend=translate("ODETab", "class {0}").format(c), z=10 + c)
            layers += ["paths0", "paths1", "now0", "now1"]
        else:
            plot.set_lines("paths", shown_paths[:80], colour="#9aa9bd", width=0.8, z=1)
            plot.set_points("now", now, colour="#1f4e99", size=3.5, outline=None,
                            legend=translate("ODETab", "samples"), z=10)
            layers += ["paths", "now"]
        u = shown.user
        if u is not None and u.key == r.key and len(u.paths):
            ushown, unow = paths_until(u.paths, u.times, t, back)
            plot.set_lines("user_paths", ushown, colour=USER_COLOUR, width=2.2,
                           legend=translate("ODETab", "your start points"), z=4)
            plot.set_points("user_start", u.paths[:, 0 if not back else -1],
                            colour="#ffffff", outline=USER_COLOUR, size=9, symbol="s", z=13)
            plot.set_points("user_now", unow, colour=USER_COLOUR, size=8, z=14)
        else:
            starts = np.asarray(shown.starts, np.float64).reshape(-1, 2)
            plot.set_lines("user_paths", np.zeros((0, 2)))
            plot.set_points("user_start", starts, colour="#ffffff", outline=USER_COLOUR,
                            size=9, symbol="s", z=13)
            plot.set_points("user_now", np.zeros((0, 2)))
        plot.keep_layers(layers)
        plot.set_axis_labels(*STATE_AXES[task])
        if r.extent_key != self._extent_key:
            self._extent_key = r.extent_key
            plot.set_extent(r.extent)
        self.say(self._readout(r, t))

    @staticmethod
    def _readout(r: ODEResult, t: float) -> str:
        task = r.task
        if task == "spiral":
            text = translate("ODETab", "t = {0:.2f} · arrows: f(y), the same at every t · "
                             "click to start a trajectory").format(t)
        elif task == "classify":
            aug = r.augment
            text = (translate("ODETab", "t = {0:.2f} · arrows: f(t, h) in the first two "
                              "coordinates, the other {1} at 0").format(t, aug)
                    if aug else
                    translate("ODETab", "t = {0:.2f} · arrows: f(t, h); trajectories never "
                              "cross").format(t))
        else:
            text = translate("ODETab", "t = {0:.2f} · arrows: −f(t, z), the way the samples "
                             "move, from the base (t = 1) to the data (t = 0)").format(t)
        if r.user_error:
            text += " · " + solve_note(r.user_error)[0]
        if r.display_error:
            text = solve_note(r.display_error)[0]
        return text

    def data(self) -> ViewData | None:
        shown = self.trace
        if shown is None:
            return None
        r, t = shown.result, shown.t
        f = r.fields
        k = int(np.argmin(np.abs(f.times - t)))
        sign = -1.0 if r.task == "cnf" else 1.0
        table = np.stack([f.x, f.y, sign * f.u[k], sign * f.v[k]], 1)
        _, now = paths_until(r.paths, r.times, t, r.task == "cnf")
        arrays = {"field": table.astype(np.float32), "positions": now.astype(np.float32),
                  "paths": r.paths, "times": r.times}
        if shown.user is not None and shown.user.key == r.key:
            arrays["your_paths"] = shown.user.paths
        return ViewData("field", arrays,
                        {"task": r.task, "t": t, "t_fraction": shown.t_fraction,
                         "arrows": "-f(t, z)" if r.task == "cnf" else "f(t, y)"},
                        col_labels=["x", "y", "u", "v"])


class TaskView(ODEView):
    key = "task"

    def __init__(self, parent=None) -> None:
        self._extent_key = None
        super().__init__(parent)

    def build(self) -> PlanePlot:
        return PlanePlot()

    def title(self) -> str:
        task = self.request.task if self.request is not None else "spiral"
        return {"spiral": translate("ODETab", "Spiral: the true trajectory, the noisy "
                                    "observations and the fit"),
                "classify": translate("ODETab", "Decision regions and held-out points"),
                "cnf": translate("ODETab", "Density p_t and samples at t")}[task]

    def draw(self, shown: TimeShown, ask: ODERequest) -> None:
        r, t, plot = shown.result, shown.t, self.plot
        task = r.task
        tr = r.trace
        plot.set_axis_labels(*(STATE_AXES["spiral"] if task == "spiral" else ("x₁", "x₂")))
        if tr is None:
            plot.clear_image()
            plot.keep_layers([])
            self.say(*solve_note(r.display_error))
        elif task == "spiral":
            plot.clear_image()
            plot.set_points("observed", tr.observed, colour="#8c8c8c", size=3, outline=None,
                            legend=translate("ODETab", "noisy observations"), z=5)
            plot.set_lines("true", tr.true, colour="#333333", width=1.5,
                           style=Qt.PenStyle.DashLine,
                           legend=translate("ODETab", "true trajectory"), z=6)
            plot.set_lines("fitted", tr.fitted, colour=class_colour(0), width=2.0,
                           legend=translate("ODETab", "learned trajectory"), z=7)
            i = int(np.clip(np.searchsorted(tr.t, t), 0, len(tr.t) - 1))
            plot.set_points("now", np.stack([tr.true[i], tr.fitted[i]]),
                            colour=class_colour(2), size=8, z=12)
            plot.keep_layers(["observed", "true", "fitted", "now"])
            self.say(translate(
                "ODETab", "mean L1 {0:.3f} (trivial: constant y0 {1:.3f}, zero {2:.3f}) · "
                "NFE {3}").format(
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
            self.say(translate("ODETab", "held-out accuracy {0:.1%}").format(tr.accuracy)
                     + note)
        else:
            k = int(np.argmin(np.abs(tr.times - t)))
            plot.set_image(tr.density[k], tr.extent)
            plot.set_colorbar_label(translate("ODETab", "density p_t(x)"))
            _, now = paths_until(r.paths, r.times, t, True)
            plot.set_points("now", now, colour="#ffffff", size=3, outline=None, z=10)
            plot.keep_layers(["now"])
            self.say(translate(
                "ODETab", "p_t at t = {0:.2f} · held-out NLL {1:.3f} nats (floor {2:.3f}) · "
                "mass on the grid {3:.2f}").format(
                    float(tr.times[k]), tr.nll, tr.entropy,
                    float(tr.mass[k]) if tr.mass.size else float("nan")))
        if r.extent_key != self._extent_key:
            self._extent_key = r.extent_key
            plot.set_extent(r.task_extent)

    def data(self) -> ViewData | None:
        shown = self.trace
        r = shown.result if shown is not None else None
        if r is None or r.trace is None:       # nothing solved within the settings
            return None
        tr = r.trace
        if r.task == "spiral":
            table = np.concatenate([tr.t[:, None], tr.true, tr.observed, tr.fitted], 1)
            return ViewData("trajectory", {"trajectory": table},
                            {"error_l1": tr.error_l1, **{f"trivial_{k}": v for k, v in
                                                         tr.trivial.items()}},
                            col_labels=["t", "true_x", "true_y", "observed_x", "observed_y",
                                        "fitted_x", "fitted_y"])
        if r.task == "classify":
            return ViewData("prob", {"prob": tr.prob, "points": tr.points,
                                     "labels": tr.labels, "predictions": tr.predictions},
                            {"extent": list(tr.extent), "accuracy": tr.accuracy,
                             "augment": tr.augment})
        k = int(np.argmin(np.abs(tr.times - shown.t)))
        return ViewData("density", {"density": tr.density[k], "all_densities": tr.density,
                                    "times": tr.times, "samples": tr.samples[-1]},
                        {"extent": list(tr.extent), "t": float(tr.times[k]), "nll": tr.nll,
                         "entropy": tr.entropy})
