"""The forward pass step by step: one step's tensor of the trace's ``ForwardSteps`` (the
layer of the chosen attention, its stack, the chosen head), the step the request names."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.tabs.transformer.steps import step_title
from app.tabs.transformer.views.attention import trace_meta
from app.tabs.view import TabView, ViewData
from models.traces import TransformerTrace
from viz.step_view import StepView

translate = QCoreApplication.translate


def resolve_step(steps, key: str) -> str:
    """The step of ``steps`` to show for ``key``: itself, else the same sub-step of the
    other block (e.g. a cross-attention step, now on the encoder), else the first."""
    keys = steps.keys()
    if key in keys:
        return key
    sub = key.partition(".")[2]
    return next((k for k in keys if k.partition(".")[2] == sub), keys[0])


def step_axis_label(step) -> str:
    if step.kind == "ids":
        return translate("TransformerTab", "position")
    if step.col_labels:
        return translate("TransformerTab", "key")
    return translate("TransformerTab", "feature")


class ForwardView(TabView):
    key = "forward"

    def build(self) -> StepView:
        plot = StepView()
        plot.hovered.connect(self.hover)
        return plot

    def title(self) -> str:
        t, ask = self.trace, self.request
        if t is None or t.steps is None:
            return translate("TransformerTab", "One forward pass, step by step")
        stack = (translate("TransformerTab", "encoder") if t.steps.stack == "encoder"
                 else translate("TransformerTab", "decoder"))
        title = translate(
            "TransformerTab", "One forward pass, step by step: {0} layer {1}, head {2}").format(
                stack, t.steps.layer, t.steps.head)
        keys = t.steps.keys()
        if ask is not None and ask.step in keys:   # the step shown, as the step list names it
            title += f" · {keys.index(ask.step) + 1}. " + step_title(ask.step, t.steps.stack)
        return title

    def _step(self):
        t, ask = self.trace, self.request
        steps = t.steps
        return steps.steps[steps.keys().index(resolve_step(steps, ask.step))] \
            if ask is not None else steps.steps[0]

    def draw(self, t: TransformerTrace, ask) -> None:
        if t.steps is None:
            return
        step = self._step()
        shape = "\u00a0×\u00a0".join(map(str, step.shape))     # wraps before it, not inside
        # the step's name is in the panel's title; the plot names the tensor's shape
        self.plot.set_step(step, f"{step.dims} = ({shape})", step_axis_label(step))

    def hover(self, row: int, col: int, value: float) -> None:
        step = self.plot.step
        if row < 0 or step is None:
            self.set_readout("")
            return
        where = step.col_labels[col] if step.col_labels else str(col)
        self.set_readout(f"[{step.row_labels[row]}, {where}]: {value:.4g}")

    def data(self) -> ViewData | None:
        t = self.trace
        if t is None or t.steps is None:
            return None
        steps = t.steps
        step = (steps.get(self.request.step) if self.request is not None else None) \
            or steps.steps[0]
        info = trace_meta(t, self.request) | {
            "stack": steps.stack, "step": step.key,
            "step_title": step_title(step.key, steps.stack),
            "dims": step.dims, "shape": list(step.shape)}
        return ViewData("values", {"values": step.values}, info,
                        row_labels=list(step.row_labels),
                        col_labels=list(step.col_labels) or list(range(step.values.shape[1])))
