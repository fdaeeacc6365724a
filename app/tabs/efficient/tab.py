"""The efficient-attention tab: sparse patterns and how far they reach, Performer /
Linformer / linear attention against exact attention, one mask through three APIs, and
the O(N²) against O(N) cost, in theory and measured on the chosen device."""

from __future__ import annotations

from functools import partial

from PySide6.QtWidgets import QLabel, QPushButton

from app.tabs.base import TabContext
from app.tabs.efficient import state as session_state
from app.tabs.efficient.params import (
    APPROX_PARAMS,
    CHUNK_PARAMS,
    COST_PARAMS,
    DEFAULTS,
    METHOD_USES,
    PARTS,
    PATTERN_PARAMS,
    PATTERN_USES,
    QUICK_BUDGET_S,
    QUICK_NS,
)
from app.tabs.efficient.views import (
    ChunkEqualView,
    ChunkMemoryView,
    ConventionsView,
    ErrorView,
    FieldView,
    MatricesView,
    Measured,
    MemoryView,
    OnlineView,
    PatternView,
    ScaleView,
    TheoryView,
    TimeView,
)
from app.tabs.efficient.views.names import method_name, pattern_texts
from app.tabs.training import TrainingTab
from models.efficient_attention.options import APPROX_METHODS, EfficientRequest
from models.traces import CostTrace, Progress
from models.traces.efficient import EfficientTrace
from viz.controls import ParamForm
from viz.theme import error_style, muted_style


class EfficientTab(TrainingTab):
    """Its one job, "measure", times each method (no training: the Train button and the
    status line of ``TrainingTab`` stay out of the layout; its error note is shown)."""

    key = "efficient"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.result: EfficientTrace | None = None
        self.cost: CostTrace | None = None
        self.cost_is_quick = False         # self.cost is the quick first measurement
        self._quick_started = False
        self.pattern_form = ParamForm(PATTERN_PARAMS)
        self.approx_form = ParamForm(APPROX_PARAMS)
        self.cost_form = ParamForm(COST_PARAMS)
        self.chunk_form = ParamForm(CHUNK_PARAMS)
        self.source_note = QLabel()
        self.source_note.setWordWrap(True)
        self.source_note.setStyleSheet(muted_style())
        self.pattern_error, self.approx_error = QLabel(), QLabel()
        self.chunk_error = QLabel()
        for label in (self.pattern_error, self.approx_error, self.chunk_error):
            label.setWordWrap(True)
            label.setStyleSheet(error_style())
        self.measure_button = QPushButton()
        self.measure_button.setObjectName("MeasureButton")
        self.measure_button.clicked.connect(lambda: self.toggle_job("measure"))
        self.cost_note = QLabel()
        self.cost_note.setWordWrap(True)
        lay = self.controls_layout
        for widget in (self.pattern_form, self.pattern_error, self.approx_form,
                       self.source_note, self.approx_error, self.cost_form,
                       self.measure_button, self.cost_note, self.chunk_form,
                       self.chunk_error, self.error_note):
            lay.addWidget(widget)
        lay.addStretch(1)
        for form in self._forms():
            form.changed.connect(self._on_change)
        self._build_views()
        self._on_change()
        self.retranslate()

    def _forms(self) -> tuple[ParamForm, ...]:
        return (self.pattern_form, self.approx_form, self.cost_form, self.chunk_form)

    # -- views -----------------------------------------------------------------------
    def _build_views(self) -> None:
        self.pattern_view, self.field_view = PatternView(self), FieldView(self)
        self.conventions_view, self.matrices_view = ConventionsView(self), MatricesView(self)
        self.error_view, self.scale_view = ErrorView(self), ScaleView(self)
        self.theory_view, self.time_view = TheoryView(self), TimeView(self)
        self.memory_view = MemoryView(self)
        self.chunk_equal_view, self.online_view = ChunkEqualView(self), OnlineView(self)
        self.chunk_memory_view = ChunkMemoryView(self)
        self.tab_views = (self.pattern_view, self.field_view, self.conventions_view,
                          self.matrices_view, self.error_view, self.scale_view,
                          self.theory_view, self.time_view, self.memory_view,
                          self.chunk_equal_view, self.online_view, self.chunk_memory_view)
        for i, view in enumerate(self.tab_views):
            self.add_view(view, i // 3, i % 3)
            view.status.connect(self.ctx.status)
        for r in range(4):           # chunked attention: the fourth row (scrolled to)
            self.grid.setRowStretch(r, 1)
        for c in range(3):
            self.grid.setColumnStretch(c, 1)

    def highlight(self, key: str | None) -> None:
        """The view a tour step names is scrolled into sight (the fourth row, chunked
        attention, is below the fold on most screens)."""
        super().highlight(key)
        if key:
            self.grid_scroll.ensureWidgetVisible(self.view(key).panel, 0, 0)

    @property
    def trace(self) -> EfficientTrace | None:
        """What is drawn (pattern, approximation, APIs, theory), None before the first."""
        return self.result

    # -- parameters ---------------------------------------------------------------------
    def params(self) -> dict:
        return {k: v for form in self._forms() for k, v in form.values().items()}

    def request(self) -> EfficientRequest:
        """The controls as the models' request."""
        return EfficientRequest.from_values(self.params())

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | {"measure"}
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        if strict:            # the values as the request takes them, or why not
            EfficientRequest.from_values({**self.params(), **state})
        problems = []
        for form in self._forms():
            problems += form.set_values(state)
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if state.get("measure") and not self.jobs.is_running():
            self.toggle_job("measure")
        self._on_change()

    def _cost_key(self) -> dict:
        """The settings the measurement shown was made with."""
        return self.request().part("theory")

    def _on_change(self) -> None:
        ask = self.request()
        if (self.cost is not None and not self.jobs.is_running()
                and ask.part("theory") != getattr(self, "_cost_params", None)):
            self.cost = None          # measured for other settings: not shown as these
            self._show_measured()
        self.pattern_form.set_visible_rows(
            {"pattern", "n", "causal", "length", "layers", "blocked_row", "course"}
            | PATTERN_USES[ask.pattern])
        self.approx_form.set_visible_rows(
            {"method", "source", "seq_len", "d", "scale", "seed"} | METHOD_USES[ask.method])
        self.schedule_update()

    def showEvent(self, event) -> None:  # noqa: N802
        """Back from the Transformer tab: its head may have changed (the cache key holds
        the q/k/v themselves, so nothing is recomputed if it did not)."""
        super().showEvent(event)
        if self.request().source == "transformer":
            self.schedule_update()
        self._quick_measure()

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        if self.isVisible():
            self._quick_measure()

    def _quick_measure(self) -> None:
        """First shown, nothing measured: time each method at N ≤ 1024 with a short budget
        in the background (under a second), so the measured panels show this device's
        numbers, not empty axes; "Measure time and memory" measures the full range."""
        if (self._quick_started or not self.torch_ready or self.cost is not None
                or self.jobs.is_running()):
            return
        self._quick_started = True
        self.toggle_job("quick")

    # -- computing ------------------------------------------------------------------------
    def _source_qkv(self, source: str):
        """q/k/v of the Transformer tab's chosen head (numpy, [n, d_k] each), or None
        (``source`` is not "transformer", or that head cannot be used)."""
        if source != "transformer":
            self.source_note.setText("")
            return None
        peer = self.ctx.peer("transformer")
        trace = getattr(peer, "trace", None)
        steps = getattr(trace, "steps", None)
        if steps is None:
            self.source_note.setText(self.tr("The Transformer tab has no model output yet: open "
                                         "it once. Random q/k/v are used meanwhile."))
            return None
        block = "cross" if trace.kind == "cross" else "self"
        qkv = [steps.get(f"{block}.{x}_heads") for x in "qkv"]
        if qkv[0].values.shape[0] != qkv[1].values.shape[0]:
            self.source_note.setText(self.tr(
                "The Transformer tab shows {0} queries against {1} keys (token by token); "
                "these approximations compare square attention. Set its decoding step to "
                "“whole output”. Random q/k/v are used meanwhile.").format(
                    qkv[0].values.shape[0], qkv[1].values.shape[0]))
            return None
        self.source_note.setText(self.tr(
            "q/k/v of the Transformer tab: {0} layer {1}, head {2} ({3} queries, {4} keys, "
            "d_k = {5}).").format(trace.kind, trace.layer, trace.head,
                                  qkv[0].values.shape[0], qkv[1].values.shape[0],
                                  qkv[0].values.shape[1]))
        return tuple(s.values for s in qkv)

    def compute_fn(self):
        from models.efficient_attention import efficient_trace  # torch is loaded by now

        ask = self.request()
        source = session_state.source(self, ask, self._source_qkv(ask.source))  # maybe saved
        wanted = {part: ask.part(part) for part in PARTS}   # only changed parts are redone
        wanted["approx"]["source_data"] = None if source is None else tuple(
            a.tobytes() for a in source)
        return partial(efficient_trace, ask, source, wanted, self.result)

    def show_trace(self, result: EfficientTrace | None) -> None:
        if result is None:
            return
        self.result = result
        self.pattern_error.setText(result.errors.get("mask", ""))
        self.approx_error.setText(result.errors.get("approx", ""))
        self.chunk_error.setText(" ".join(result.errors.get(p, "")
                                          for p in ("chunked", "chunk_memory")).strip())
        ask = self.request()
        if result.mask is not None:
            self.pattern_view.show(result.mask, ask)
            self.field_view.show(result.mask, ask)
            self.conventions_view.show(result.conventions, ask)
        if result.approx is not None:
            for view in (self.matrices_view, self.error_view, self.scale_view):
                view.show(result.approx, ask)
        if result.theory is not None:
            self._draw_cost()
        if result.chunked is not None:
            self.chunk_equal_view.show(result.chunked, ask)
            self.online_view.show(result.chunked, ask)
        if result.chunk_memory is not None:
            self.chunk_memory_view.show(result.chunk_memory, ask)
        for v in self.views:
            v.panel.set_title(v.title())

    def _draw_cost(self) -> None:
        """The theory (as computed last) and the measurement shown."""
        th = getattr(self.result, "theory", None)
        if th is not None:
            self.theory_view.show(th, self.request())
        self._show_measured()

    def _show_measured(self) -> None:
        shown = Measured(self.cost, self.cost_is_quick, session_state.cost_note(self))
        for view in (self.time_view, self.memory_view):
            view.show(shown, None)

    # -- cost job ("measure") ------------------------------------------------------------
    def make_job(self, name: str):
        if name not in ("measure", "quick"):   # the tab's one job, and its quick first run
            return None
        from models.efficient_attention import measure_costs

        ask = self.request()
        ns, budget = ask.measured_ns, ask.time_budget
        if name == "quick":
            ns, budget = tuple(n for n in QUICK_NS if n <= max(ns)) or ns[:1], QUICK_BUDGET_S
        self.cost, self.cost_is_quick = None, name == "quick"
        self._cost_params = ask.part("theory")
        return partial(measure_costs, ns, ask.cost_d, ask.cost_w, ask.cost_m, ask.cost_k,
                       device=self.ctx.device(), time_budget_s=budget,
                       memory_budget_bytes=ask.memory_budget_bytes)

    def job_text(self, name: str, progress: Progress) -> str:
        t = progress.trace            # worded here: the message is the model's English
        if t is None or not len(t.measured_n):
            return progress.message
        return self.tr("Measuring: {0} at N = {1}").format(
            method_name(t.methods[int(t.measured_method[-1])]), int(t.measured_n[-1]))

    def job_fraction(self, name: str, progress: Progress) -> float:
        return progress.step / max(1, progress.total)

    def on_job_progress(self, name: str, progress: Progress) -> None:
        if progress.trace is not None:
            self.cost = progress.trace
            self._draw_cost()
        self._write_cost_note()

    def _write_cost_note(self) -> None:
        """The measured crossover, in the tab's language (rewritten on a switch)."""
        t = self.cost
        if t is None:                     # (and torch not needed before a measurement)
            return
        from models.efficient_attention import measured_crossover, xformers_status

        cross = measured_crossover(t, "performer", "sdpa")
        note = (self.tr("Measured: Performer is faster than SDPA from N = {0}.").format(cross)
                if cross else self.tr("Measured: Performer has not beaten SDPA yet."))
        why = xformers_status(t.device)
        if why:                           # the model's two reasons, worded here
            why = {"xformers is not installed": self.tr("it is not installed"),
                   "xformers' memory_efficient_attention needs a CUDA device": self.tr(
                       "its memory_efficient_attention needs a CUDA device")}.get(why, why)
            note += " " + self.tr("xformers is left out: {0}.").format(why)
        self.cost_note.setText(note)
        # a note grown to two lines gets its height now, not at the next layout pass
        # (up to 0.4 s later while measurements arrive: cut to one line meanwhile)
        self.cost_note.updateGeometry()
        self.controls_layout.activate()

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        """Nothing to recompute: the cost plots followed every report of the job."""

    # session files: what was measured, q/k/v as shown (see ``state``)
    session_inputs = session_state.inputs
    open_session_state = session_state.open_state

    def update_buttons(self) -> None:
        super().update_buttons()
        self.measure_button.setText(self.job_button_text(
            "measure", self.tr("Measure time and memory")))
        self.measure_button.setEnabled(self.torch_ready)

    def retranslate(self) -> None:
        self.pattern_form.setTitle(self.tr("Sparse pattern"))
        self.pattern_form.set_texts(
            {"pattern": self.tr("Pattern"), "n": self.tr("Length N"), "window": self.tr("Window w"),
             "dilation": self.tr("Dilation d"), "stride": self.tr("Stride"),
             "global_tokens": self.tr("Global tokens"), "random_keys": self.tr("Random keys r"),
             "block": self.tr("Block size"), "window_blocks": self.tr("Window blocks"),
             "global_blocks": self.tr("Global blocks"), "random_blocks": self.tr("Random blocks"),
             "causal": self.tr("Causal"), "length": self.tr("Padding from (0 = none)"),
             "layers": self.tr("Layers ℓ"), "blocked_row": self.tr("Block the last query (API test)"),
             "course": self.tr("Course tile as the course writes it (−1e9)")},
            {"pattern": pattern_texts()})
        self.approx_form.setTitle(self.tr("Approximation"))
        self.approx_form.set_texts(
            {"method": self.tr("Method"), "source": self.tr("q, k, v"), "seq_len": self.tr("Length N"),
             "d": self.tr("Head size d"), "scale": self.tr("q/k scale"),
             "features": self.tr("Random features m"), "orthogonal": self.tr("Orthogonal features"),
             "feature_kind": self.tr("Features"), "approx_causal": self.tr("Causal"),
             "k_len": self.tr("Projected length k"), "projection": self.tr("Projection"),
             "approx_window": self.tr("Window w"), "seed": self.tr("Seed")},
            {"method": [method_name(m) for m in APPROX_METHODS],
             "source": [self.tr("random"), self.tr("a head of the Transformer tab")],
             "feature_kind": [self.tr("positive (FAVOR+)"), self.tr("trigonometric")],
             "projection": [self.tr("random"), self.tr("mean pooling"), self.tr("learned"),
                            self.tr("identity")]})
        self.cost_form.setTitle(self.tr("Cost, measured"))
        self.cost_form.set_texts(
            {"max_n": self.tr("Largest N"), "cost_d": self.tr("Head size d"), "cost_w": self.tr("Window w"),
             "cost_m": self.tr("Features m"), "cost_k": self.tr("Projected length k"),
             "time_budget": self.tr("Time budget per call (s)"),
             "memory_budget_mb": self.tr("Memory budget (MiB)")}, {})
        self.chunk_form.setTitle(self.tr("Chunked attention (online softmax)"))
        self.chunk_form.set_texts(
            {"chunk_n": self.tr("Length N"), "chunk": self.tr("Chunk size c"),
             "chunk_row": self.tr("Query row"), "chunk_mask": self.tr("Mask")},
            {"chunk_mask": [self.tr("none"), self.tr("causal"), self.tr("padding (last quarter)")]})
        for view in self.tab_views:
            view.label()
        super().retranslate()
        self._write_cost_note()
        if self.result is not None:
            self.show_trace(self.result)
        for v in self.views:
            v.panel.set_title(v.title())

