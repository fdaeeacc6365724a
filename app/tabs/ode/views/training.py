"""The views of the solver and the training: the steps one solve took (it sees the tab's
``ODEResult``), the function evaluations per training step, the loss and the adjoint
comparison (they see a ``SessionShown``: the shown model's records, its solver switches
and its comparison)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.ode.views.common import ODEView, bytes_text, solve_note, solver_label
from app.tabs.view import ViewData
from models.ode.options import ADAPTIVE
from models.traces.ode import ODEResult
from viz.ode_view import LabelledBarsPlot, StepsPlot, TimelinePlot

translate = QCoreApplication.translate


@dataclass(frozen=True)
class SessionShown:
    """The shown model's training so far, read once (``history()``: copies cut to one
    length without the lock): ``exists`` is False before the model is made."""

    exists: bool = False
    task: str = ""
    step: int = 0
    solver: object = None                     # the session's SolverConfig
    history: dict = field(default_factory=dict)
    has_nfe: bool = False                     # a training step has recorded its NFE
    has_losses: bool = False
    entropy: float = math.nan                 # the CNF's floor
    metric_name: str = ""
    last_metric: float = math.nan
    switches: tuple = ()                      # (step, solver label) from that step on
    comparison: dict | None = None            # {"result", "step", "solver"}

    @classmethod
    def of(cls, session, comparison: dict | None = None, switches=()) -> SessionShown:
        if session is None:
            return cls(comparison=comparison, switches=tuple(switches))
        has_nfe, has_losses = bool(session.nfe_forward), bool(session.losses)
        return cls(True, session.task, session.step, session.solver,
                   session.history() if has_nfe or has_losses else {}, has_nfe, has_losses,
                   getattr(session, "entropy", math.nan) if session.task == "cnf" else
                   math.nan, getattr(session, "metric_name", ""),
                   getattr(session, "last_metric", math.nan) if has_losses else math.nan,
                   tuple(switches), comparison)

    def untrained_step(self) -> tuple[float, int, int] | None:
        """(loss, NFE forward, NFE backward) of one training step of the untrained model,
        from the adjoint comparison that runs by itself when a model is first shown (the
        same batch loss and solves as a training step, with the session's own method);
        None until it is there or once the model has trained."""
        done = self.comparison
        if not self.exists or done is None or done["step"] != 0 or self.has_losses:
            return None
        r = done["result"]
        if self.solver.adjoint:
            return r.loss_adjoint, r.nfe_forward_adjoint, r.nfe_backward_adjoint
        return r.loss_direct, r.nfe_forward_direct, r.nfe_backward_direct


def _step_zero_range(plot, top: float) -> None:
    """A lone step-0 point on the axes training will fill: steps 0 … 100 and values from
    0 (autoranged, one point sat mid-plot on a −0.5 … 0.5 axis)."""
    plot.plotItem.setXRange(0, 100, padding=0.02)
    plot.plotItem.setYRange(0, 1.25 * top if np.isfinite(top) and top > 0 else 1.0,
                            padding=0.02)


class StepsView(ODEView):
    key = "steps"

    def build(self) -> StepsPlot:
        return StepsPlot()

    def title(self) -> str:
        return translate("ODETab", "Adaptive solver steps")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("ODETab", "t"),
                                  translate("ODETab", "step size |dt|"))

    def draw(self, r: ODEResult, request) -> None:
        steps, plot = r.steps, self.plot
        if steps is None:
            plot.set_steps([], [], [], [], (translate("ODETab", "accepted"), ""))
            plot.set_hint(translate("ODETab", "The solver could not finish this solve."))
            self.say(*solve_note(r.steps_error))
            return
        plot.set_hint("")
        adaptive = steps.method in ADAPTIVE
        plot.set_steps(
            steps.accepted_t, np.abs(steps.accepted_dt), steps.rejected_t,
            np.abs(steps.rejected_dt),
            (translate("ODETab", "accepted step"),
             translate("ODETab", "rejected step") if adaptive else ""))
        if adaptive:
            self.say(translate(
                "ODETab", "{0}: {1} accepted, {2} rejected · NFE {3}").format(
                steps.method, steps.n_accepted, steps.n_rejected, steps.nfe),
                translate("ODETab", "{0}: {1} accepted and {2} rejected steps in one solve "
                          "of the current model over [{3:g}, {4:g}]; NFE {5}").format(
                steps.method, steps.n_accepted, steps.n_rejected, steps.t0, steps.t1,
                steps.nfe))
        else:
            self.say(translate(
                "ODETab", "{0}: every step is accepted: {1} · NFE {2}").format(
                steps.method, steps.n_accepted, steps.nfe),
                translate("ODETab", "{0} steps on a fixed grid: every step is accepted ({1} "
                          "steps of at most {2:g} over [{3:g}, {4:g}]); NFE {5}").format(
                steps.method, steps.n_accepted, float(np.abs(steps.accepted_dt).max()),
                steps.t0, steps.t1, steps.nfe))

    def data(self) -> ViewData | None:
        r = self.trace
        if r is None or r.steps is None:
            return None
        s = r.steps
        acc = np.stack([s.accepted_t, s.accepted_dt], 1)
        return ViewData("accepted", {"accepted": acc,
                                     "rejected": np.stack([s.rejected_t, s.rejected_dt], 1)},
                        {"method": s.method, "nfe": s.nfe, "t0": s.t0, "t1": s.t1,
                         "rejected": s.n_rejected},
                        col_labels=["t", "dt"])


class NFEView(ODEView):
    key = "nfe"

    def build(self) -> TimelinePlot:
        return TimelinePlot(legend="top-left")

    def title(self) -> str:
        return translate("ODETab", "Function evaluations per step")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("ODETab", "training step"),
                                  translate("ODETab", "evaluations of f"))

    def draw(self, s: SessionShown, request) -> None:
        plot = self.plot
        first = s.untrained_step()
        if s.exists and not s.has_nfe and first is not None:
            _, fwd, bwd = first       # the untrained model's step, honestly, not a blank box
            plot.set_hint("")
            plot.set_markers([], [])
            plot.set_curves([np.zeros(1, np.float32)] * 2,
                            [np.array([fwd], np.float32), np.array([bwd], np.float32)],
                            [translate("ODETab", "forward"),
                             translate("ODETab", "backward (adjoint: its solve)")
                             if s.solver.adjoint else translate("ODETab", "backward")],
                            symbols=["o", "s"])
            _step_zero_range(plot, max(fwd, bwd))
            self.say(translate("ODETab", "untrained, step 0: {0} fwd, {1} bwd · {2}; "
                               "press “Train”").format(fwd, bwd, solver_label(s.solver)))
            return
        if not s.exists or not s.has_nfe:
            plot.set_curves([], [], [])
            plot.set_markers([], [])
            plot.set_hint(translate("ODETab", "Press “Train” to see\nthe evaluations "
                                    "of f\nin every training step."))
            cfg = s.solver if s.exists else None
            self.say(translate("ODETab", "solver: {0}").format(solver_label(cfg))
                     if cfg is not None else "")
            return
        plot.set_hint("")
        h = s.history
        fwd = h["nfe_forward"].astype(np.float32)
        bwd = h["nfe_backward"].astype(np.float32)
        steps = np.arange(1, len(fwd) + 1, dtype=np.float32)
        cfg = s.solver
        plot.set_curves(steps, np.stack([fwd, bwd]),
                        [translate("ODETab", "forward"),
                         translate("ODETab", "backward (adjoint: its solve)")
                         if cfg.adjoint else translate("ODETab", "backward")])
        marks = [m for m in s.switches if m[0] <= len(fwd)]
        plot.set_markers([m[0] + 0.5 for m in marks[1:]], [m[1] for m in marks[1:]])
        self.say(translate("ODETab", "step {0}: {1} fwd, {2} bwd · {3}").format(
            len(fwd), int(fwd[-1]), int(bwd[-1]),
            cfg.method + (translate("ODETab", " +adj") if cfg.adjoint else "")),
            translate("ODETab", "step {0}: NFE forward {1}, backward {2} · solver: {3}").format(
                len(fwd), int(fwd[-1]), int(bwd[-1]), solver_label(cfg)))

    def data(self) -> ViewData | None:
        s = self.trace
        if s is None or not s.exists or not s.has_nfe:
            return None
        h = s.history
        table = np.stack([h["nfe_forward"], h["nfe_backward"]], 1)
        return ViewData("nfe", {"nfe": table.astype(np.float32)},
                        {"solvers": "; ".join(f"from step {step + 1}: {label}"
                                              for step, label in s.switches)},
                        row_labels=list(range(1, len(table) + 1)),
                        col_labels=["nfe_forward", "nfe_backward"])


class LossView(ODEView):
    key = "loss"

    def build(self) -> TimelinePlot:
        return TimelinePlot()

    def title(self) -> str:
        return translate("ODETab", "Training loss")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("ODETab", "training step"),
                                  translate("ODETab", "loss"))
        self.plot.plotItem.getAxis("left").enableAutoSIPrefix(False)

    def draw(self, s: SessionShown, request) -> None:
        plot = self.plot
        first = s.untrained_step()
        if first is not None and np.isfinite(first[0]):
            xs, ys = [np.zeros(1, np.float32)], [np.array([first[0]], np.float32)]
            names, symbols = [translate("ODETab", "batch loss")], ["o"]
            if s.task == "cnf" and np.isfinite(s.entropy):
                xs.append(np.array([0, 100], np.float32))
                ys.append(np.full(2, s.entropy, np.float32))
                names.append(translate("ODETab", "entropy floor"))
                symbols.append(None)
            plot.set_hint("")
            plot.set_curves(xs, ys, names, symbols=symbols, colours=[0, 2][:len(xs)])
            _step_zero_range(plot, max(float(np.nanmax(y)) for y in ys))
            self.say(translate("ODETab", "untrained, step 0: loss {0:.4f}; press "
                               "“Train” to fit the model").format(first[0]))
            return
        if not s.exists or not s.has_losses:
            plot.set_curves([], [], [])
            plot.set_hint(translate("ODETab", "Press “Train” to fit the model."))
            self.say("")
            return
        plot.set_hint("")
        losses = s.history["loss"]
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        window = min(25, len(losses))
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid").astype(np.float32)
        xs, ys = [steps, steps[window - 1:]], [losses, smooth]
        names = [translate("ODETab", "batch loss"), translate("ODETab", "running mean")]
        task = s.task
        if task == "cnf" and np.isfinite(s.entropy):
            xs.append(np.array([1, len(losses)], np.float32))
            ys.append(np.full(2, s.entropy, np.float32))
            names.append(translate("ODETab", "entropy floor"))
        plot.set_curves(xs, ys, names)
        metric = s.last_metric
        if task == "spiral":
            short = translate("ODETab", "L1 {0:.3f}").format(metric)
            m = translate("ODETab", "whole trajectory from y0: mean L1 {0:.3f}").format(metric)
        elif task == "classify":
            short = translate("ODETab", "accuracy {0:.1%}").format(metric)
            m = translate("ODETab", "held-out accuracy {0:.1%}").format(metric)
        else:
            short = translate("ODETab", "floor {0:.3f}").format(s.entropy)
            m = translate("ODETab", "NLL {0:.3f} nats, floor {1:.3f}").format(metric,
                                                                             s.entropy)
        self.say(translate("ODETab", "step {0}: {1:.4f} · {2}").format(
            len(losses), float(smooth[-1]), short),
            translate("ODETab", "step {0}: loss {1:.4f} (running mean) · {2}").format(
                len(losses), float(smooth[-1]), m))

    def data(self) -> ViewData | None:
        s = self.trace
        if s is None or not s.exists or not s.has_losses:
            return None
        h = s.history
        return ViewData("loss", {"loss": h["loss"], "step_seconds": h["step_seconds"]},
                        {"task": s.task, "metric": s.metric_name,
                         "last_metric": s.last_metric},
                        row_labels=list(range(1, len(h["loss"]) + 1)),
                        col_labels=["loss"])


class AdjointView(ODEView):
    key = "adjoint"

    def build(self) -> LabelledBarsPlot:
        return LabelledBarsPlot()

    def title(self) -> str:
        return translate("ODETab", "Adjoint method against direct backpropagation")

    def label(self) -> None:
        self.plot.set_axis_labels("", translate("ODETab", "relative (the larger = 1)"))

    def draw(self, s: SessionShown, request) -> None:
        c, plot = s.comparison, self.plot
        if c is None:
            plot.clear_bars()
            plot.set_hint(translate("ODETab", "Press “Compare adjoint on/off”"))
            self.say("")
            return
        a = c["result"]
        plot.set_hint("")
        # time, memory kept for backward, evaluations in the backward pass (the forward
        # solve is the same both ways: its NFE goes to the tooltip)
        values = np.array([[a.seconds_direct * 1e3, a.saved_bytes_direct,
                            a.nfe_backward_direct],
                           [a.seconds_adjoint * 1e3, a.saved_bytes_adjoint,
                            a.nfe_backward_adjoint]], np.float64)
        top = np.maximum(values.max(0), 1e-30)
        labels = [[translate("ODETab", "{0:.0f} ms").format(row[0]) if row[0] >= 10 else
                   translate("ODETab", "{0:.1f} ms").format(row[0]), bytes_text(row[1]),
                   f"{row[2]:.0f}"] for row in values]
        plot.set_bars(
            [translate("ODETab", "time"), translate("ODETab", "memory"),
             translate("ODETab", "NFE bwd")],
            (values / top).astype(np.float32),
            [translate("ODETab", "direct"), translate("ODETab", "adjoint")], labels)
        short = translate("ODETab", "Δgrad {0:.1e} · step {1}").format(a.grad_rel_diff,
                                                                        c["step"])
        if s.exists and s.step != c["step"]:
            # trained since: the bars are of an earlier model (compared again once no job
            # runs)
            short = translate("ODETab", "Δgrad {0:.1e} of step {1}; the model is at step "
                              "{2}, compared again when training stops").format(
                a.grad_rel_diff, c["step"], s.step)
        text = translate(
            "ODETab", "relative gradient difference max|Δg|/max|g| = {0:.1e} · memory: "
            "tensors kept for the backward pass · NFE forward {1} and {2} · {3} · step {4}"
        ).format(a.grad_rel_diff, a.nfe_forward_direct, a.nfe_forward_adjoint, c["solver"],
                 c["step"])
        if np.isfinite(a.cuda_peak_direct):
            text += translate("ODETab", " · CUDA peak {0:.1f} MB against {1:.1f} MB").format(
                a.cuda_peak_direct / 2 ** 20, a.cuda_peak_adjoint / 2 ** 20)
        self.say(short, text)

    def data(self) -> ViewData | None:
        c = self.trace.comparison if self.trace is not None else None
        if c is None:
            return None
        a = c["result"]
        table = np.array([[a.seconds_direct, a.saved_bytes_direct, a.nfe_forward_direct,
                           a.nfe_backward_direct, a.loss_direct],
                          [a.seconds_adjoint, a.saved_bytes_adjoint, a.nfe_forward_adjoint,
                           a.nfe_backward_adjoint, a.loss_adjoint]], np.float64)
        return ViewData("comparison", {"comparison": table},
                        {"grad_rel_diff": a.grad_rel_diff, "solver": c["solver"],
                         "step": c["step"], "cuda_peak_direct": a.cuda_peak_direct,
                         "cuda_peak_adjoint": a.cuda_peak_adjoint},
                        row_labels=["direct", "adjoint"],
                        col_labels=["seconds", "saved_bytes", "nfe_forward", "nfe_backward",
                                    "loss"])
