"""The efficient-attention tab: sparse patterns and how far they reach, Performer /
Linformer / linear attention against exact attention, one mask through three APIs, and
the O(N²) against O(N) cost, in theory and measured on the chosen device."""

from __future__ import annotations

from functools import partial

import numpy as np
from PySide6.QtWidgets import QLabel, QPushButton

from app.tabs.base import TabContext, View
from app.tabs.efficient import data as view_data
from app.tabs.efficient import state as session_state
from app.tabs.training import TrainingTab
from models.efficient_attention.options import (
    APPROX_METHODS,
    FEATURE_KINDS,
    MASK_KINDS,
    PROJECTIONS,
)
from models.traces import ApproxTrace, ConventionTrace, CostTrace, MaskTrace, Progress
from models.traces.efficient import EfficientTrace
from viz.attention import HeadGrid
from viz.controls import Param, ParamForm
from viz.panel import ViewPanel
from viz.plots import CurvesPlot
from viz.theme import error_style, muted_style

PATTERN_PARAMS = (
    Param("pattern", "choice", "longformer", choices=MASK_KINDS),
    Param("n", "int", 64, 8, 1024),
    Param("window", "int", 8, 1, 512),
    Param("dilation", "int", 2, 1, 16),
    Param("stride", "int", 8, 1, 256),
    Param("global_tokens", "text", "0"),
    Param("random_keys", "int", 3, 0, 64),
    Param("block", "int", 8, 1, 64),
    Param("window_blocks", "int", 3, 1, 15, step=2),
    Param("global_blocks", "int", 1, 0, 8),
    Param("random_blocks", "int", 1, 0, 8),
    Param("causal", "bool", False),
    Param("length", "int", 0, 0, 1024),
    Param("layers", "int", 2, 1, 16),
    Param("blocked_row", "bool", True),
    Param("course", "bool", False),    # the course tile as the chapter writes it (-1e9)
)
#: the three APIs of the conventions panel, short enough for a tile's title ("course"
#: is translated: see ``_api_short``)
API_SHORT = ("course", "F.sdpa", "nn.MHA")
CONVERSIONS = ("mask (1 = attend)", "attn_mask=mask (True = take part)",
               "attn_mask=~mask (True = blocked)")
#: the quick measurement made the first time the tab is shown: small N, short budget
QUICK_NS = (256, 512, 1024)
QUICK_BUDGET_S = 0.1
#: which pattern parameters matter for each pattern (the others are hidden)
PATTERN_USES = {
    "local": {"window"}, "dilated": {"window", "dilation"}, "strided": {"stride"},
    "global": {"global_tokens"}, "random": {"random_keys"},
    "bigbird": {"block", "window_blocks", "global_blocks", "random_blocks"},
    "longformer": {"window", "global_tokens"}}
APPROX_PARAMS = (
    Param("method", "choice", "performer", choices=APPROX_METHODS),
    Param("source", "choice", "random", choices=("random", "transformer")),
    Param("seq_len", "int", 64, 8, 512),
    Param("d", "int", 16, 2, 128),
    Param("scale", "float", 0.5, 0.05, 4.0, step=0.25),
    Param("features", "int", 64, 1, 1024),
    Param("orthogonal", "bool", True),
    Param("feature_kind", "choice", "positive", choices=FEATURE_KINDS),
    Param("approx_causal", "bool", False),
    Param("k_len", "int", 32, 1, 512),
    Param("projection", "choice", "random", choices=PROJECTIONS),
    Param("approx_window", "int", 16, 1, 512),
    Param("seed", "int", 0, 0, 99999),
)
METHOD_USES = {"performer": {"features", "orthogonal", "feature_kind", "approx_causal"},
               "linformer": {"k_len", "projection"}, "linear": {"approx_causal"},
               "banded": {"approx_window"}}
COST_PARAMS = (
    Param("max_n", "choice", "4096", choices=("1024", "2048", "4096", "8192", "16384")),
    Param("cost_d", "int", 64, 8, 256),
    Param("cost_w", "int", 256, 1, 4096),
    Param("cost_m", "int", 256, 1, 4096),
    Param("cost_k", "int", 256, 1, 4096),
    Param("time_budget", "float", 1.0, 0.05, 60.0, step=0.5),
    Param("memory_budget_mb", "int", 2048, 16, 65536, step=256),
)
PARTS = {"mask": {p.key for p in PATTERN_PARAMS} | {"seed"},   # random / BigBird use it
         "approx": {p.key for p in APPROX_PARAMS},
         "theory": {p.key for p in COST_PARAMS}}


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
        self.source_note = QLabel()
        self.source_note.setWordWrap(True)
        self.source_note.setStyleSheet(muted_style())
        self.pattern_error, self.approx_error = QLabel(), QLabel()
        for label in (self.pattern_error, self.approx_error):
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
                       self.measure_button, self.cost_note, self.error_note):
            lay.addWidget(widget)
        lay.addStretch(1)
        for form in (self.pattern_form, self.approx_form, self.cost_form):
            form.changed.connect(self._on_change)
        self._build_views()
        self._on_change()
        self.retranslate()

    # -- views -----------------------------------------------------------------------
    def _build_views(self) -> None:
        self.pattern_view = HeadGrid()
        self.field_plot = CurvesPlot(legend="bottom-right")
        self.conventions_view = HeadGrid()
        self.matrices_view = HeadGrid()
        self.error_plot = CurvesPlot(log_x=True, log_y=True)
        self.scale_plot = CurvesPlot(log_y=True)
        self.theory_plot = CurvesPlot(log_x=True, log_y=True, legend="top-left")
        self.time_plot = CurvesPlot(log_x=True, log_y=True, legend="top-left")
        self.memory_plot = CurvesPlot(log_x=True, log_y=True, legend="top-left")
        views = (
            ("pattern", self.pattern_view, view_data.pattern, 0, 0),
            ("field", self.field_plot, view_data.field, 0, 1),
            ("conventions", self.conventions_view, view_data.conventions, 0, 2),
            ("matrices", self.matrices_view, view_data.matrices, 1, 0),
            ("error", self.error_plot, view_data.error, 1, 1),
            ("scale", self.scale_plot, view_data.scale, 1, 2),
            ("theory", self.theory_plot, view_data.theory, 2, 0),
            ("time", self.time_plot, view_data.measurements, 2, 1),
            ("memory", self.memory_plot, view_data.measurements, 2, 2),
        )
        for key, widget, data, row, col in views:
            self.add_view(View(key, partial(self._title, key), ViewPanel(widget),
                               partial(data, self)), row, col)
        for r in range(3):
            self.grid.setRowStretch(r, 1)
            self.grid.setColumnStretch(r, 1)
        self.pattern_view.hovered.connect(self._hover_pattern)
        self.matrices_view.hovered.connect(self._hover_matrices)
        self.conventions_view.hovered.connect(self._hover_conventions)

    def _title(self, key: str) -> str:
        m, a = getattr(self.result, "mask", None), getattr(self.result, "approx", None)
        if key == "pattern" and m is not None:
            return self.tr("Sparse pattern: {0}, N = {1}, density {2:.1%}").format(
                self._pattern_name(m.kind), m.n, m.density)
        if key == "matrices" and a is not None:
            return self.tr("Exact softmax attention and {0} (relative output error {1:.3g})"
                       ).format(self._method_name(a.method), a.output_error)
        return {"pattern": self.tr("Sparse pattern"),
                "field": self.tr("Receptive field over layers"),
                "conventions": self.tr("One mask, three APIs"),
                "matrices": self.tr("Exact and approximate attention"),
                "error": self.tr("Error against exact attention"),
                "scale": self.tr("Error against the q/k scale"),
                "theory": self.tr("Cost in theory (one head)"),
                "time": self.tr("Measured time"),
                "memory": self.tr("Measured peak memory")}[key]

    @property
    def trace(self) -> EfficientTrace | None:
        """What is drawn (pattern, approximation, APIs, theory), None before the first."""
        return self.result

    # -- parameters ---------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.pattern_form.values(), **self.approx_form.values(),
                **self.cost_form.values()}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(self.params()) | {"measure"}
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        problems = []
        for form in (self.pattern_form, self.approx_form, self.cost_form):
            problems += form.set_values(state)
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if state.get("measure") and not self.jobs.is_running():
            self.toggle_job("measure")
        self._on_change()

    @staticmethod
    def _cost_key(p: dict) -> tuple:
        return tuple(p[x.key] for x in COST_PARAMS)

    def _on_change(self) -> None:
        p = self.params()
        if (self.cost is not None and not self.jobs.is_running()
                and self._cost_key(p) != getattr(self, "_cost_params", None)):
            self.cost = None          # measured for other settings: not shown as these
        self.pattern_form.set_visible_rows(
            {"pattern", "n", "causal", "length", "layers", "blocked_row", "course"}
            | PATTERN_USES[p["pattern"]])
        self.approx_form.set_visible_rows(
            {"method", "source", "seq_len", "d", "scale", "seed"} | METHOD_USES[p["method"]])
        self.schedule_update()

    def showEvent(self, event) -> None:  # noqa: N802
        """Back from the Transformer tab: its head may have changed (the cache key holds
        the q/k/v themselves, so nothing is recomputed if it did not)."""
        super().showEvent(event)
        if self.params()["source"] == "transformer":
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
    def _source_qkv(self, p: dict):
        """q/k/v of the Transformer tab's chosen head (numpy, [n, d_k] each), or None."""
        if p["source"] != "transformer":
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

        p = self.params()
        source = session_state.source(self, p, self._source_qkv(p))  # maybe as saved
        wanted = {}           # the settings of each part (only changed parts are redone)
        for part, keys in PARTS.items():
            wanted[part] = {k: p[k] for k in sorted(keys)}
            if part == "approx":
                wanted[part]["source_data"] = None if source is None else tuple(
                    a.tobytes() for a in source)
        return partial(efficient_trace, p, source, wanted, self.result)

    def show_trace(self, result: EfficientTrace | None) -> None:
        if result is None:
            return
        self.result = result
        self.pattern_error.setText(result.errors.get("mask", ""))
        self.approx_error.setText(result.errors.get("approx", ""))
        if result.mask is not None:
            self._draw_pattern(result.mask, result.conventions)
        if result.approx is not None:
            self._draw_approx(result.approx)
        if result.theory is not None:
            self._draw_cost()
        for v in self.views:
            v.panel.set_title(v.title())

    def _draw_pattern(self, m: MaskTrace, c: ConventionTrace) -> None:
        labels = [str(i) for i in range(m.n)]
        self.pattern_view.set_heads(
            np.stack([m.mask, m.reach]).astype(np.float32), labels, labels,
            [self.tr("mask (yellow = may attend)"),
             self.tr("reachable after {0} layers").format(m.layers)], cols=2)
        layers = np.arange(1, len(m.field) + 1, dtype=np.float32)
        xs, ys, names = [layers], [m.field], [self.tr("keys reached by the middle query")]
        if np.isfinite(m.field_theory).any():
            xs.append(layers)
            ys.append(m.field_theory)
            names.append(self.tr("span ℓ·w + 1 (dilated: ℓ·d·w + 1)"))
        xs.append(layers)
        ys.append(m.reach_fraction * m.n)
        names.append(self.tr("pairs connected / N"))
        self.field_plot.set_curves(xs, ys, names, symbols=["o", None, None])
        names = self._api_short()
        if c.as_written:
            names[0] = self.tr("course, −1e9")
        titles = [f"{name}<br>" + self.tr("Δ {0:.0e}<br>NaN: {1}").format(diff, nan)
                  for name, diff, nan in zip(names, c.max_diff, c.nan_rows, strict=True)]
        self.conventions_view.set_heads(c.weights, labels, labels, titles, cols=3,
                                        ticks=False)
        self._conventions_note = self.tr("; ").join(
            self.tr("{0}: {1}").format(name, conv) for name, conv in
            zip(self._api_short(), self._conversions(c), strict=True)
        ) + self.tr("; ") + self.tr("opposite polarity: Δ {0}").format(
            " / ".join(f"{x:.2g}" for x in c.flipped_diff))
        if c.as_written:      # the chapter's -1e9 against our -inf and zeros
            self._conventions_note = self.tr(
                "Course's −1e9: rows {1} get 1/{2} per key (ours 0), max |Δweight| {0:.3f}"
            ).format(c.course_delta, ", ".join(map(str, c.course_rows)) or "–",
                     c.mask.shape[1]) + self.tr("; ") + self._conventions_note
        self.view("conventions").panel.set_readout(self._conventions_note)

    def _draw_approx(self, a: ApproxTrace) -> None:
        n = a.exact.shape[0]
        labels = [str(i) for i in range(n)]
        # weights of a long sequence are small: colour up to the largest exact weight
        top = float(max(a.exact.max(), 1e-6))
        self.matrices_view.set_heads(np.stack([a.exact, a.implied]), labels, labels,
                                     [self.tr("exact softmax"), self.tr("implied by {0}").format(
                                         self._method_name(a.method).split(" (")[0]
                                         .split("（")[0])], cols=2,
                                     ticks=n <= 40, levels=(0.0, top))
        xs = [a.sweep_x] * len(a.sweep_names)
        curves = {"orthogonal": self.tr("orthogonal features"),
                  "i.i.d.": self.tr("i.i.d. features"), "random": self.tr("random projection"),
                  "mean": self.tr("mean pooling"), "elu+1": self.tr("φ = elu + 1"),
                  "banded": self.tr("banded window")}
        names = [curves.get(c, c) for c in a.sweep_names]
        self.error_plot.set_curves(xs, list(np.maximum(a.sweep_error, 1e-8)), names,
                                   symbols=["o"] * len(names))
        self.scale_plot.set_curves([a.scale_x] * len(names),
                                   list(np.maximum(a.scale_error, 1e-8)), names,
                                   symbols=["o"] * len(names))
        x_name = {"performer": self.tr("random features m"),
                  "linformer": self.tr("projected length k")}.get(a.method, self.tr("window w"))
        self.error_plot.set_axis_labels(x_name, self.tr("relative error"))
        self.scale_plot.set_axis_labels(self.tr("q/k scale"), self.tr("relative error"))
        neg = (self.tr("{0:.1%} of the implied weights are negative").format(a.negative)
               if a.negative > 0 else "")
        self.view("matrices").panel.set_readout(neg)

    def _draw_cost(self) -> None:
        from models.efficient_attention import theory_crossover

        th = getattr(self.result, "theory", None)
        if th is not None:
            names = [self._method_name(m) for m in th.methods]
            self.theory_plot.set_curves([th.n] * len(th.methods), list(th.flops), names)
            p = self.params()
            self.theory_plot.set_hint("")
            self.view("theory").panel.set_readout(self.tr(
                "Performer is cheaper than exact attention from N = 2m = {0:g} (FLOPs)"
            ).format(theory_crossover(p["cost_m"])))
        t = self.cost
        if t is None:
            for plot in (self.time_plot, self.memory_plot):
                plot.set_curves([], [], [])
                plot.set_hint(self.tr("Press “Measure time and memory”\nto time each method\non this device."))
            for key in ("time", "memory"):
                self.view(key).panel.set_readout("")
            return
        note = self.tr("A quick first measurement (N ≤ {0}, {1:g} s budget); press “Measure "
                       "time and memory” for more.").format(max(QUICK_NS), QUICK_BUDGET_S) \
            if self.cost_is_quick else self.tr("Measured on {0}.").format(t.device)
        note = session_state.cost_note(self) or note    # one opened from a session
        for key in ("time", "memory"):
            self.view(key).panel.set_readout(note)
        xs, ts, ms, labels = [], [], [], []
        for i, name in enumerate(t.methods):
            rows = (t.measured_method == i) & np.isfinite(t.seconds)
            if rows.any():
                xs.append(t.measured_n[rows].astype(np.float32))
                ts.append(t.seconds[rows])
                ms.append(np.maximum(t.peak_bytes[rows], 1.0))
                labels.append(self._method_name(name))
        for plot, ys in ((self.time_plot, ts), (self.memory_plot, ms)):
            plot.set_hint("")
            plot.set_curves(xs, ys, labels, symbols=["o"] * len(xs))

    # -- cost job ("measure") ------------------------------------------------------------
    def make_job(self, name: str):
        if name not in ("measure", "quick"):   # the tab's one job, and its quick first run
            return None
        from models.efficient_attention import measure_costs

        p = self.params()
        ns = tuple(2 ** i for i in range(8, int(np.log2(int(p["max_n"]))) + 1))
        budget = p["time_budget"]
        if name == "quick":
            ns, budget = tuple(n for n in QUICK_NS if n <= max(ns)) or ns[:1], QUICK_BUDGET_S
        self.cost, self.cost_is_quick = None, name == "quick"
        self._cost_params = self._cost_key(p)
        return partial(measure_costs, ns, p["cost_d"], p["cost_w"], p["cost_m"],
                       p["cost_k"], device=self.ctx.device(), time_budget_s=budget,
                       memory_budget_bytes=p["memory_budget_mb"] * 2 ** 20)

    def job_text(self, name: str, progress: Progress) -> str:
        t = progress.trace            # worded here: the message is the model's English
        if t is None or not len(t.measured_n):
            return progress.message
        return self.tr("Measuring: {0} at N = {1}").format(
            self._method_name(t.methods[int(t.measured_method[-1])]), int(t.measured_n[-1]))

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

    # -- hover ---------------------------------------------------------------------------
    def _hover_pattern(self, tile: int, row: int, col: int, value: float) -> None:
        text = "" if tile < 0 else self.tr("query {0} → key {1}: {2}").format(
            row, col, self.tr("yes") if value >= 0.5 else self.tr("no"))
        self.view("pattern").panel.set_readout(text)

    def _hover_matrices(self, tile: int, row: int, col: int, value: float) -> None:
        a = getattr(self.result, "approx", None)
        if tile < 0 or a is None:
            self.view("matrices").panel.set_readout("")
            return
        self.view("matrices").panel.set_readout(self.tr(
            "query {0} → key {1}: exact {2:.4f}, approximate {3:.4f}; row TV distance {4:.3f}"
        ).format(row, col, a.exact[row, col], a.implied[row, col], a.row_tv[row]))

    def _hover_conventions(self, tile: int, row: int, col: int, value: float) -> None:
        c = getattr(self.result, "conventions", None)
        if tile < 0 or c is None:
            self.view("conventions").panel.set_readout(getattr(self, "_conventions_note", ""))
            return
        self.view("conventions").panel.set_readout(self.tr("{0} ({1}): [{2}, {3}] = {4:.4f}")
                                                   .format(self._api_short()[tile],
                                                           self._conversions(c)[tile], row,
                                                           col, value))

    # -- translations -------------------------------------------------------------------------
    def _pattern_name(self, kind: str) -> str:
        return dict(zip(MASK_KINDS, self._pattern_texts(), strict=True)).get(kind, kind)

    def _pattern_texts(self) -> list[str]:
        return [self.tr("local window"), self.tr("dilated window"), self.tr("strided"),
                self.tr("global tokens"), self.tr("random"), self.tr("BigBird blocks"),
                self.tr("Longformer (window + global)")]

    def _api_short(self) -> list[str]:
        """The three APIs' tile titles: the course's function, F.sdpa, nn.MHA."""
        return [self.tr("course"), *API_SHORT[1:]]

    def _conversions(self, c: ConventionTrace) -> list[str]:
        """How each API is handed the mask (worded in English by the trace)."""
        words = [self.tr("mask (1 = attend)"), self.tr("attn_mask=mask (True = take part)"),
                 self.tr("attn_mask=~mask (True = blocked)")]
        return [dict(zip(CONVERSIONS, words, strict=True)).get(x, x) for x in c.conversions]

    def _method_name(self, method: str) -> str:
        return {"performer": self.tr("Performer (FAVOR+)"), "linformer": self.tr("Linformer"),
                "linear": self.tr("linear attention (elu + 1)"), "banded": self.tr("banded (local)"),
                "naive": self.tr("exact, naive"), "sdpa": self.tr("exact, SDPA"),
                "xformers": self.tr("xformers")}.get(method, method)

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
            {"pattern": self._pattern_texts()})
        self.approx_form.setTitle(self.tr("Approximation"))
        self.approx_form.set_texts(
            {"method": self.tr("Method"), "source": self.tr("q, k, v"), "seq_len": self.tr("Length N"),
             "d": self.tr("Head size d"), "scale": self.tr("q/k scale"),
             "features": self.tr("Random features m"), "orthogonal": self.tr("Orthogonal features"),
             "feature_kind": self.tr("Features"), "approx_causal": self.tr("Causal"),
             "k_len": self.tr("Projected length k"), "projection": self.tr("Projection"),
             "approx_window": self.tr("Window w"), "seed": self.tr("Seed")},
            {"method": [self._method_name(m) for m in APPROX_METHODS],
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
        for plot, (x, y) in (
                (self.field_plot, (self.tr("layers ℓ"), self.tr("keys"))),
                (self.theory_plot, (self.tr("sequence length N"), self.tr("FLOPs"))),
                (self.time_plot, (self.tr("sequence length N"), self.tr("s per call"))),
                (self.memory_plot, (self.tr("sequence length N"), self.tr("peak bytes")))):
            plot.set_axis_labels(x, y)
        super().retranslate()
        self._write_cost_note()
        if self.result is not None:
            self.show_trace(self.result)
        for v in self.views:
            v.panel.set_title(v.title())

