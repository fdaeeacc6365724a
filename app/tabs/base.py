"""What every topic tab shares: layout, views, job bar, tour panel, device, export data.

A tab controller owns its widgets (from ``viz/``), asks ``models/`` for traces in a
background worker and hands them to the widgets. Subclasses fill in ``build``,
``compute_fn`` / ``show_trace`` and ``apply_state``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.jobs import ComputeRunner, Failure, JobRunner
from app.settings import Settings
from app.tabs.view import TabView, View, ViewData  # noqa: F401 - ViewData for the tabs
from app.tours import TourError, TourStep, load_tour
from viz.legend import release_anchors
from viz.tour_panel import TourPanel, TourStepText


@dataclass
class TabContext:
    settings: Settings
    device: Callable[[], str]
    language: Callable[[], str]
    report_error: Callable[[BaseException, str | None], None]
    status: Callable[[str], None]
    #: another tab by key (None if there is none): a tab may read what another shows,
    #: e.g. the efficient-attention tab takes q/k/v from the Transformer tab's head
    peer: Callable[[str], object | None] = lambda key: None
    #: save the tab of this key as a session at a path in the background, as File → Save
    #: session… does (the window's export bar; raises while an export runs); None for a
    #: tab outside a window, which saves on the spot
    save_session: Callable[[str, str], object] | None = None


class JobBar(QWidget):
    """Progress bar, a line of figures and a Stop button for the tab's job.

    With ``cancel=True`` (the bar of a file being opened) the button reads Cancel and the
    bar shows only while its job runs."""

    def __init__(self, runner: JobRunner, parent=None, cancel: bool = False) -> None:
        super().__init__(parent)
        self.runner = runner
        self.cancel = cancel
        self.label = QLabel(self)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumWidth(260)
        self.stop_button = QPushButton(self)
        self.stop_button.setObjectName("CancelButton" if cancel else "StopButton")
        self.stop_button.clicked.connect(runner.stop)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.stop_button)
        runner.started.connect(lambda: self._set_running(True))
        # first in line: the tab's own handler may then put a "done" line in
        runner.stopped.connect(lambda _done: self._set_running(False))
        self._set_running(False)
        self.retranslate()

    def retranslate(self) -> None:
        self.stop_button.setText(QCoreApplication.translate("JobBar", "Cancel") if self.cancel
                                 else QCoreApplication.translate("JobBar", "Stop"))

    def _set_running(self, running: bool) -> None:
        self.stop_button.setEnabled(running)
        if self.cancel:
            self.setVisible(running)
        # a job that ends, stops or fails leaves no half bar and no "step 515" behind
        self.bar.setValue(0)
        if not running:
            self.label.clear()

    def show_progress(self, fraction: float, text: str) -> None:
        self.bar.setValue(int(1000 * fraction))
        self.label.setText(text)


class BaseTab(QWidget):
    """Skeleton: controls and tour on the left, a grid of views, a job bar below."""

    key = "base"
    #: a file opened in the background was accepted (its path)
    file_opened = Signal(str)
    #: the tab let go of memory outside a job (the window hands free pages back)
    memory_freed = Signal()

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.views: list[View] = []
        self.active_view: str | None = None
        self.compute = ComputeRunner(self)
        self.jobs = JobRunner(self)
        self.torch_ready = False
        self.last_error: BaseException | None = None

        self.controls = QWidget()
        self.controls_layout = QVBoxLayout(self.controls)
        self.controls_layout.setContentsMargins(4, 4, 4, 4)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        # sideways too: a narrow window or a long translation never cuts a control off
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setWidget(self.controls)
        self.controls_scroll = scroll
        self.tour = TourPanel()
        self.tour.stepChanged.connect(self._on_tour_step)
        self.left = QSplitter(Qt.Orientation.Vertical)
        self.left.addWidget(scroll)
        self.left.addWidget(self.tour)
        self.left.setStretchFactor(0, 3)
        self.left.setStretchFactor(1, 2)
        self.left.setSizes([520, 340])
        self.left.setChildrenCollapsible(False)
        self.left.setMinimumWidth(380)

        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.grid.setSpacing(6)
        # on a small screen the views keep a usable size and the grid scrolls
        grid_scroll = QScrollArea()
        grid_scroll.setWidgetResizable(True)
        grid_scroll.setFrameShape(QFrame.Shape.NoFrame)
        grid_scroll.setWidget(self.grid_host)
        self.grid_scroll = grid_scroll
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.left)
        split.addWidget(grid_scroll)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([390, 1100])
        self.split = split
        self._fitted_width = 0
        self._on_show: dict[object, Callable[[], object]] = {}
        self.job_bar = JobBar(self.jobs)
        # a file being opened (File → Open…): its own runner, so a training goes on
        # meanwhile, and its own bar with Cancel beside the job's, shown while it reads
        self.loads = JobRunner(self)
        self.load_bar = JobBar(self.loads, cancel=True)
        self.load_bar.setObjectName("LoadBar")
        self._opening = ""
        self._open_failed = False
        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.job_bar, 1)
        bottom.addWidget(self.load_bar, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)
        outer.addWidget(split, 1)
        outer.addLayout(bottom)
        self.loads.progressed.connect(self._open_progressed)
        self.loads.returned.connect(self._open_returned)
        self.loads.failed.connect(self._open_failed_with)
        self.loads.stopped.connect(self._open_stopped)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(30)
        self._debounce.timeout.connect(self.request_update)
        self.compute.done.connect(self._on_trace)
        self.compute.failed.connect(self._on_failure)
        self.jobs.failed.connect(self._on_failure)
        try:
            self._tour_steps: list[TourStep] = load_tour(self.key)
        except TourError as exc:
            self._tour_steps = []
            QTimer.singleShot(0, lambda err=exc: ctx.report_error(err, None))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's API
        super().showEvent(event)
        self.fit_controls()
        waiting, self._on_show = self._on_show, {}
        for fn in waiting.values():        # after this turn: the tab paints first (and
            QTimer.singleShot(0, self, fn)  # not at all if the tab is deleted meanwhile)

    def when_shown(self, fn: Callable[[], object], key: object = None) -> None:
        """Run ``fn`` now if the tab is on screen, else the first time it is shown. For
        the extras only this tab's views need (an untrained model's evaluation, a
        comparison): a window closed right after start no longer waits for them, and
        tabs nobody opened cost nothing. A second request with the same ``key`` (default:
        ``fn``) replaces the first."""
        if self.isVisible():
            fn()
        else:
            self._on_show[fn if key is None else key] = fn

    def fit_controls(self) -> None:
        """Widen the left column to what its controls ask for (their texts differ per
        language), up to 40 % of the tab; beyond that it scrolls sideways."""
        bar = self.controls_scroll.verticalScrollBar().sizeHint().width()
        want = max(380, self.controls.sizeHint().width() + bar + 4)
        want = min(want, max(380, int(0.4 * self.width())))
        sizes = self.split.sizes()
        if want == self._fitted_width or len(sizes) != 2 or sum(sizes) <= 0:
            return
        self._fitted_width = want
        self.split.setSizes([want, max(1, sum(sizes) - want)])

    # -- views ---------------------------------------------------------------------
    def add_view(self, view: View | TabView, row: int, col: int, rowspan: int = 1,
                 colspan: int = 1) -> None:
        if isinstance(view, TabView):
            view = view.as_view()
        self.views.append(view)
        self.grid.addWidget(view.panel, row, col, rowspan, colspan)
        view.panel.graphics.viewport().installEventFilter(self)
        view.panel.graphics.viewport().setProperty("archscope_view", view.key)
        if self.active_view is None:
            self.active_view = view.key

    def view(self, key: str) -> View:
        for v in self.views:
            if v.key == key:
                return v
        raise KeyError(key)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.MouseButtonPress:
            key = obj.property("archscope_view")
            if key:
                self.active_view = key
        return False

    def highlight(self, key: str | None) -> None:
        """Frame the view ``key`` (a tour step's) and scroll it into sight: a grid taller
        than the window (the graph tab at 1280 × 800) left the depth view a tour step
        talks of below the fold."""
        for v in self.views:
            v.panel.set_highlighted(v.key == key)
            area = v.panel.parentWidget()
            while v.key == key and area is not None and not isinstance(area, QScrollArea):
                area = area.parentWidget()
            if v.key == key and area is not None:
                area.ensureWidgetVisible(v.panel, 0, 0)
        if key:
            self.active_view = key

    # -- lifecycle -----------------------------------------------------------------
    def on_torch_ready(self) -> None:
        self.torch_ready = True
        self.request_update()

    def on_device_changed(self, name: str) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
            self.ctx.status(QCoreApplication.translate(
                "BaseTab", "The job was stopped: the device changed to {0}.").format(name))
        self.request_update()

    def schedule_update(self) -> None:
        """Recompute soon: at most one request per 30 ms, also while a slider is dragged
        (a restarting debounce timer would draw nothing until the mouse stops)."""
        if not self._debounce.isActive():
            self._debounce.start()

    def request_update(self) -> None:
        self._debounce.stop()
        if self.torch_ready:
            self.compute.request(self.compute_fn())

    def compute_now(self) -> None:
        """Compute synchronously on this thread (headless export, tests)."""
        self._debounce.stop()
        self.compute.invalidate()
        result = self.compute_fn()()
        self._on_trace(result)

    def shutdown(self) -> None:
        self.jobs.stop()
        self.loads.stop()
        self.compute.close()
        self.save_state()
        for v in self.views:         # the window is about to go: no anchor outlives it
            release_anchors(v.panel.graphics.scene())

    # -- tour ----------------------------------------------------------------------
    def retranslate_tour(self) -> None:
        lang = self.ctx.language()
        self.tour.set_labels(QCoreApplication.translate("Tour", "Guided tour"), QCoreApplication.translate("Tour", "Back"), QCoreApplication.translate("Tour", "Next"),
                             QCoreApplication.translate("Tour", "Step {k} of {n}"))
        self.tour.set_steps([TourStepText(s.title_in(lang), s.text_in(lang))
                             for s in self._tour_steps])

    def tour_steps(self) -> list[TourStep]:
        return self._tour_steps

    def _on_tour_step(self, index: int) -> None:
        if 0 <= index < len(self._tour_steps):
            state = dict(self._tour_steps[index].state)
            self.highlight(state.pop("highlight", None))
            self.apply_state(state)

    # -- errors --------------------------------------------------------------------
    def _on_failure(self, failure: Failure) -> None:
        self.last_error = failure.error
        self.ctx.report_error(failure.error, failure.details)

    # -- files (File > Open…) ----------------------------------------------------------
    def file_filter(self) -> str | None:
        """The Open dialog's filter for files this tab reads, or None (Open… disabled)."""
        return None

    def opens_folders(self) -> bool:
        """File → Open… chooses a folder, not a file (a model folder, say)."""
        return False

    def file_reader(self, path: str) -> Callable[[Callable | None, Callable | None], object]:
        """``read(progress, cancelled)``: reads ``path`` on any thread (a loader of
        ``models/``, no Qt) and returns what ``accept_file`` takes. Made on the GUI thread,
        so it may capture the tab's settings (the device, say)."""
        raise NotImplementedError

    def accept_file(self, path: str, loaded: object) -> None:
        """Show what ``file_reader`` read (GUI thread): the tab's data is replaced only
        here, so a file refused or cancelled before leaves everything as it was."""
        raise NotImplementedError

    def open_file(self, path: str) -> None:
        """Read ``path`` and show it, on this thread (scripts and tests). A refused file
        raises (``GraphLoadError``, ``ModelFileError``, ...) and changes nothing."""
        self.accept_file(path, self.file_reader(path)(None, None))

    def start_open(self, path: str) -> None:
        """Read ``path`` in the background (File → Open…): the bar below shows how far,
        with Cancel; the window stays responsive and whatever runs goes on. Accepted, it
        replaces what the tab showed (``file_opened`` then); refused, the error dialog
        says why; cancelled, the status line says nothing changed. Either way the tab
        keeps what it had until the file is accepted."""
        read = self.file_reader(path)
        self.loads.stop()          # a file still being read is cancelled (and says so)
        self._opening, self._open_failed = path, False
        self.loads.start_call(read)
        self._open_progressed(0.0)

    def is_opening(self) -> bool:
        """A file is being read in the background."""
        return self.loads.is_running()

    def _open_progressed(self, fraction: float) -> None:
        name = Path(self._opening).name
        self.load_bar.show_progress(fraction, QCoreApplication.translate(
            "BaseTab", "Opening {0}: {1} %").format(name, int(100 * fraction)))

    def _open_returned(self, loaded: object) -> None:
        path = self._opening
        try:
            self.accept_file(path, loaded)
        except Exception as exc:  # noqa: BLE001 - shown, as a refused file would be
            self._open_failed = True
            self.ctx.report_error(exc, None)
            return
        self.file_opened.emit(path)

    def _open_failed_with(self, failure: Failure) -> None:
        self._open_failed = True
        self.last_error = failure.error
        self.ctx.report_error(failure.error, failure.details)

    def _open_stopped(self, completed: bool) -> None:
        if not completed and not self._open_failed:       # Cancel (or a newer file)
            self.ctx.status(QCoreApplication.translate(
                "BaseTab", "Opening {0} was cancelled; nothing was changed.").format(
                    Path(self._opening).name))

    # -- to implement ----------------------------------------------------------------
    def compute_fn(self) -> Callable[[], object]:
        raise NotImplementedError

    def _on_trace(self, trace) -> None:
        if isinstance(trace, Failure):
            self._on_failure(trace)
        else:
            self.show_trace(trace)

    def show_trace(self, trace) -> None:
        raise NotImplementedError

    def apply_state(self, state: dict, strict: bool = False) -> None:
        """Set controls from ``state``; ``strict`` raises InvalidParameterError for a key
        or value the controls would not take as given (the command line uses it)."""
        raise NotImplementedError

    def retranslate(self) -> None:
        self.job_bar.retranslate()
        self.load_bar.retranslate()
        if self.is_opening():
            self._open_progressed(self.load_bar.bar.value() / 1000)
        self.retranslate_tour()
        if self.isVisible():
            QTimer.singleShot(0, self, self.fit_controls)   # never after the tab is gone

    # -- the parameters remembered between runs (Settings ``tabs/<key>/…``) -------------
    #: ``params()`` keys a tab does not remember (a choice that needs the user's own data)
    not_remembered: tuple[str, ...] = ()

    def _remembered(self) -> tuple[type | None, dict]:
        """The tab's request class and its parameters that are fields of it: what is
        remembered, each checked by the request when it comes back."""
        from dataclasses import fields

        request = getattr(self, "request", None)
        if request is None:
            return None, {}
        cls = type(request())
        names = {f.name for f in fields(cls)} - set(self.not_remembered)
        return cls, {k: v for k, v in self.params().items() if k in names}

    def remembered_problem(self, key: str, request) -> bool:
        """Whether the remembered ``key`` of ``request`` (the request with it and the
        values before it) is one the tab cannot show though the request takes it (a
        typed input its model has no tokens for). Tabs with such texts override this."""
        return False

    def save_state(self) -> None:
        _, params = self._remembered()
        if params:
            self.ctx.settings.set_tab_state(self.key, params)

    def restore_state(self) -> None:
        """The saved parameters, each checked as the models' request checks a value (a
        number, finite, in range; a known choice; a switch) together with those before it;
        a value that fails keeps its default and is rejected for the window's note
        (``Settings.reject``). What passes is applied as the request holds it, so an INI
        file's "64" comes back as 64. A tab that cannot take them keeps its defaults."""
        from models.errors import ArchScopeError

        cls, params = self._remembered()
        saved = self.ctx.settings.tab_state(self.key)
        if cls is None or not saved:
            return
        for key in saved:
            if key not in params:
                self.ctx.settings.reject(f"tabs/{self.key}/{key}")
        ok: dict = {}
        for key in params:                  # in the tab's order: a choice before its text
            if key not in saved:
                continue
            value = saved[key]
            if isinstance(params[key], str) and isinstance(value, list):
                value = ", ".join(map(str, value))   # an INI value with an unquoted comma
            try:
                ask = cls.from_values({**params, **ok, key: value})
                if self.remembered_problem(key, ask):
                    raise ValueError(key)
            except (ArchScopeError, TypeError, ValueError, OverflowError):
                self.ctx.settings.reject(f"tabs/{self.key}/{key}")
                continue
            ok[key] = value
        if not ok:
            return
        ask = cls.from_values({**params, **ok})
        values = {k: getattr(ask, k) for k in ok}
        values.update({k: "" for k, v in values.items() if v is None and
                       isinstance(params[k], str)})    # an empty text the request holds as None
        try:
            self.apply_state(values)
        except ArchScopeError:
            for key in ok:
                self.ctx.settings.reject(f"tabs/{self.key}/{key}")

    # -- session files (File → Save session… / Open session…, app/sessions.py) -----------
    def session_state(self):
        """The tab as a session file keeps it: its controls (``params()``, what
        ``apply_state`` takes back) and the user's own inputs (``session_inputs``)."""
        from models.sessionfile import TabState

        data, arrays = self.session_inputs()
        return TabState(params=dict(self.params()), data=data, arrays=arrays)

    def session_inputs(self) -> tuple[dict, dict]:
        """What the user gave the tab beyond its controls (points drawn, a graph loaded,
        a sentence typed): JSON-able data and numpy arrays."""
        return {}, {}

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        """Put back what ``session_inputs`` saved (before the controls are set);
        ``SessionFileError`` naming the file ``name`` if it is malformed."""

    def open_session_state(self, state, name: str) -> None:
        """Take a tab's part of a session: inputs, then controls (checked strictly: a
        value out of range is refused, not clamped), then a redraw."""
        self.restore_session_inputs(state.data, state.arrays, name)
        self._apply_session_params(state.params, name)
        self.request_update()

    def _apply_session_params(self, params: dict, name: str) -> None:
        from models.errors import InvalidParameterError, SessionFileError

        try:
            self.apply_state(dict(params), strict=True)
        except InvalidParameterError as exc:
            raise SessionFileError(f"{name}: the {self.key} tab's settings cannot be "
                                   f"used: {exc}") from exc
