"""The meta-learning tab's curve views: the evaluation's MSE after 0 … 10 adaptation
steps with 95 % bands (it sees an ``EvalShown``) and the meta-training curves (a
``LossShown``): small frozen records the tab makes of its evaluation and its session."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.meta.views.common import displayable, log_headroom, method_labels, smooth
from app.tabs.view import TabView, ViewData
from models.meta.options import AMPLITUDE, EVAL_TASKS, METHODS, MetaRequest
from models.traces.meta import MetaEvalTrace
from viz.ode_view import TimelinePlot
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


def zero_predictor_mse() -> float:
    """The query MSE of predicting y = 0 for every task: E[A²·sin²(x − φ)] = E[A²] / 2
    (φ ~ U[0, π] makes the sine's square average ½ whatever x), with A ~ U[a, b]:
    E[A²] = (a² + ab + b²) / 3."""
    a, b = AMPLITUDE
    return (a * a + a * b + b * b) / 6.0


@dataclass(frozen=True)
class EvalShown:
    """The evaluation shown (None before one) and the meta-step the session is at (None
    without a session): an evaluation of an earlier step says so."""

    evaluation: MetaEvalTrace | None
    session_step: int | None = None


@dataclass(frozen=True)
class LossShown:
    """The meta-training so far: the meta-step, each method's loss per step and the
    options it trains with (for Export data)."""

    step: int = 0
    methods: tuple[str, ...] = ()
    losses: tuple[np.ndarray, ...] = ()
    options: dict = field(default_factory=dict)

    @classmethod
    def of(cls, session) -> LossShown:
        """Of a ``MetaSession`` (or None: nothing trained)."""
        if session is None:
            return cls()
        methods = tuple(session.methods)
        return cls(session.step, methods,
                   tuple(np.asarray(session.losses[m], np.float32) for m in methods),
                   {"k": session.k, "inner_lr": session.inner_lr,
                    "inner_steps": session.inner_steps, "meta_batch": session.meta_batch,
                    "meta_lr": session.meta_lr})


class MSEView(TabView):
    key = "mse"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_y=True)

    def title(self) -> str:
        return translate("MetaTab", "MSE vs adaptation steps ({0} test tasks, 95% CI)").format(
            EVAL_TASKS)

    def label(self) -> None:
        self.plot.set_axis_labels(translate("MetaTab", "adaptation steps"),
                                  translate("MetaTab", "MSE on the whole curve"))

    def draw(self, shown: EvalShown, ask: MetaRequest) -> None:
        """The MSE after 0 … 10 steps of every shown method with its 95 % band, up to the
        first step where the inner loop diverged (or a hint while there is no
        evaluation)."""
        e, plot = shown.evaluation, self.plot
        if e is None:
            plot.set_curves([], [], [])
            plot.set_bands([], [], [])
            plot.set_hint(translate(
                "MetaTab", "Press “Evaluate on {0} tasks”:\neach method adapts "
                "to {0} new tasks from K points.").format(EVAL_TASKS))
            self.set_readout("")
            return
        plot.set_hint("")
        labels = method_labels()
        names = [m for m in ask.shown_methods if m in e.methods]
        idx = [e.methods.index(m) for m in names]
        x = np.arange(e.steps + 1, dtype=np.float32)
        colours = [METHODS.index(m) for m in names]
        s1, s10 = min(1, e.steps), e.steps
        mse, lows, highs, xs, text = [], [], [], [], []
        diverged = translate("MetaTab", "diverged")
        for m, i in zip(names, idx, strict=True):
            y = displayable(e.mse[i], e.mse[:, 0])
            mse.append(y)
            # the band up to the first step where the inner loop diverged
            n = int(np.argmin(np.isfinite(y))) if not np.isfinite(y).all() else len(y)
            xs.append(x[:n])
            lows.append((e.mse[i] - e.ci95[i])[:n])
            highs.append((e.mse[i] + e.ci95[i])[:n])
            a, b = (f"{v:.3f}" if np.isfinite(v) else diverged for v in (y[s1], y[s10]))
            text.append(f"{labels[m]}: {a} → {b}")
        # the read-out is narrow: each method's MSE after 1 and 10 steps is in its legend
        plot.set_curves(x, mse, text, ["o"] * len(idx), colours=colours)
        plot.set_bands(xs, lows, highs, colours=colours)
        # the bands' whole height (their lows were cut off), a little room for the legend
        log_headroom(plot, mse + lows + highs, 0.2)
        text = translate(
            "MetaTab", "legend: MSE after 1 → {0} steps · K = {1}, A ≤ {2:g}").format(
                s10, e.k, e.amp_max)
        if shown.session_step is not None and e.step != shown.session_step:
            text += " " + translate("MetaTab", "· at step {0}").format(e.step)
        elif e.step == 0:
            text += " " + translate("MetaTab", "· untrained")
        self.set_readout(text)

    def data(self) -> ViewData | None:
        e = self.trace.evaluation if self.trace is not None else None
        if e is None:
            return None
        table = np.concatenate([e.mse.T, e.ci95.T], 1)
        return ViewData("mse", {"mse": table, "mse_mean": e.mse, "ci95": e.ci95},
                        {"n_tasks": e.n_tasks, "k": e.k, "amp_max": e.amp_max,
                         "meta_step": e.step, "methods": list(e.methods)},
                        row_labels=list(range(e.steps + 1)),
                        col_labels=[f"mse_{m}" for m in e.methods]
                        + [f"ci95_{m}" for m in e.methods])


class LossView(TabView):
    key = "loss"

    def build(self) -> TimelinePlot:
        return TimelinePlot(log_y=True)

    def title(self) -> str:
        return translate("MetaTab", "Meta-training: query MSE after the inner loop")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("MetaTab", "meta-step"),
                                  translate("MetaTab", "query MSE"))

    def draw(self, shown: LossShown, ask: MetaRequest) -> None:
        """Every shown method's meta-training loss (a running mean), or before any the
        loss of not learning at all, the line to get under."""
        plot = self.plot
        if shown.step == 0:
            zero = zero_predictor_mse()
            plot.set_hint("")
            plot.set_curves(np.array([0, 100], np.float32), np.full((1, 2), zero, np.float32),
                            [translate("MetaTab", "predicting 0: MSE {0:.2f}").format(zero)],
                            colours=[len(METHODS)])
            self.set_readout(translate(
                "MetaTab", "Untrained. Press “Meta-train” to train the four methods on one "
                "stream of sinusoid tasks."))
            return
        plot.set_hint("")
        labels = method_labels()
        names = [m for m in ask.shown_methods if m in shown.methods]
        curves = [shown.losses[shown.methods.index(m)] for m in names]
        n = min((len(c) for c in curves), default=0)
        if n == 0:
            plot.set_curves([], [], [])
            self.set_readout("")
            return
        window = max(1, min(50, n // 10))
        x = np.arange(1, n + 1, dtype=np.float32)
        ys = [smooth(c[:n], window) for c in curves]
        plot.set_curves(x, ys, [f"{labels[m]} {y[-1]:.3f}" for m, y in
                                zip(names, ys, strict=True)],
                        colours=[METHODS.index(m) for m in names])
        log_headroom(plot, ys)
        self.set_readout(translate(
            "MetaTab", "step {0} · running mean over {1} steps").format(n, window))

    def data(self) -> ViewData | None:
        s = self.trace
        if s is None or s.step == 0:
            return None
        n = min(len(c) for c in s.losses)
        table = np.asarray([c[:n] for c in s.losses], np.float32).T
        return ViewData("loss", {"loss": table}, {"methods": list(s.methods), **s.options},
                        row_labels=list(range(1, n + 1)), col_labels=list(s.methods))
