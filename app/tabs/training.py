"""What every tab that trains shares: Train/Stop, progress, status line, error note, device.

A training tab runs named background jobs ("train", and for some tabs "compare",
"proto", ...) one at a time in its ``JobRunner``. The plumbing is here, as in Orange's
``ConcurrentWidgetMixin``; the tab keeps only what is its own:

* ``make_job(name)`` returns the generator factory for a job (typically
  ``partial(session.train, 1_000_000)``), or ``None`` when there is nothing to run;
* ``job_text(name, progress)`` is the bottom bar's line while it runs;
* ``on_job_progress`` / ``on_job_stopped`` redraw what the job changed;
* ``training_sessions()`` lists the sessions that follow a device change;
* ``trained_steps()`` and ``status_text()`` word the Train button and the status line.

A job that belongs to a panel of its own (a study with its form, button and view) is
registered in ``job_panels`` {name: panel} instead; the panel has ``make_job(device)``,
``job_text(progress)``, ``on_progress(progress)`` and ``update_button(torch_ready)``, and
its bar fills with the job's ``Progress.fraction``.

What the base does for every job:

* ``toggle_job(name)`` stops a running job (a click on the button of the job that runs
  just stops it), clears the error note and starts the job; a refusal from ``models/``
  (``ArchScopeError``) goes to the error note instead;
* a failure shows its message in the error note (a divergence's message says which
  weights were restored) and, through ``BaseTab``, in the error dialog;
* when a job ends, the bottom bar is cleared (or shows ``job_done_text``), so no
  "step 515" and half bar stay behind a stopped job; the buttons follow;
* a device change stops the job and moves every session there (a device this machine
  lacks is said in the error note, and nothing is lost).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, MutableMapping

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QPushButton

from app.jobs import Failure
from app.tabs.base import BaseTab, TabContext
from app.tabs.kept import Kept
from models.errors import ArchScopeError
from viz.theme import error_style


class TrainingTab(BaseTab):
    """A ``BaseTab`` with training jobs (see the module docstring)."""

    #: the job the Train button starts and stops
    train_job = "train"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.running_job = ""              # the job that runs now ("" when none)
        self.job_panels: dict[str, object] = {}     # jobs of panels (module docstring)
        self._last_done: tuple[str, bool, bool] | None = None   # for the bottom line
        self.job_failed = False            # the running job ended in a failure
        self.train_button = QPushButton()
        self.train_button.setObjectName("TrainButton")
        self.train_button.clicked.connect(self.toggle_training)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.error_note = QLabel()
        self.error_note.setWordWrap(True)
        self.error_note.setStyleSheet(error_style())
        self.jobs.progressed.connect(self._job_progressed)
        self.jobs.failed.connect(self._job_failed)
        self.jobs.stopped.connect(self._job_stopped)

    def add_training_controls(self, layout=None) -> None:
        """Put the Train button, the status line and the error note in ``layout`` (the
        controls column by default), where the tab wants them."""
        layout = self.controls_layout if layout is None else layout
        for w in (self.train_button, self.status, self.error_note):
            layout.addWidget(w)

    # -- jobs ---------------------------------------------------------------------------------
    def running(self) -> str:
        """The name of the job that runs, or ""."""
        return self.running_job if self.jobs.is_running() else ""

    def stop_jobs(self) -> bool:
        """Stop the running job, if any; True if one was stopped."""
        if self.jobs.is_running():
            self.jobs.stop()
            return True
        return False

    def toggle_job(self, name: str = "train") -> None:
        """Start job ``name``, or stop it if it is the one running (another running job
        is stopped first)."""
        was = self.running()
        if self.stop_jobs() and was == name:
            return
        if not self.torch_ready:
            return
        self.error_note.setText("")
        try:
            make = self.job_maker(name)
        except ArchScopeError as exc:
            self.error_note.setText(str(exc))
            return
        if make is None:
            self.update_buttons()
            return
        self.running_job, self.job_failed = name, False
        self.jobs.start(make)
        self.update_buttons()

    def toggle_training(self) -> None:
        self.toggle_job(self.train_job)

    def job_maker(self, name: str) -> Callable[[], Iterator] | None:
        """``make_job(name)``, or the panel's own for a job of ``job_panels``."""
        panel = self.job_panels.get(name)
        return self.make_job(name) if panel is None else panel.make_job(self.ctx.device())

    def deliver_progress(self, name: str, progress) -> None:
        """A report of job ``name`` to what draws it (its panel, or ``on_job_progress``)."""
        panel = self.job_panels.get(name)
        if panel is None:
            self.on_job_progress(name, progress)
        else:
            panel.on_progress(progress)

    def _job_progressed(self, progress) -> None:
        name, panel = self.running_job, self.job_panels.get(self.running_job)
        if panel is not None:
            text, fraction = panel.job_text(progress), progress.fraction
        else:
            text, fraction = self.job_text(name, progress), self.job_fraction(name, progress)
        if text:
            self.job_bar.show_progress(fraction, text)
        self.deliver_progress(name, progress)

    def _job_failed(self, failure: Failure) -> None:
        self.job_failed = True
        self.error_note.setText(str(failure.error))

    def _job_stopped(self, completed: bool) -> None:
        name, failed = self.running_job, self.job_failed
        self.running_job, self.job_failed = "", False
        self._last_done = (name, completed, failed)
        self.job_bar.show_progress(0.0, self.job_done_text(name, completed, failed))
        self.update_buttons()
        self.on_job_stopped(name, completed, failed)

    # -- the models kept per setting ------------------------------------------------------------
    def keep_sessions(self, limit: int, shown: Callable[[], Hashable],
                      training: Callable[[], Hashable | None] = lambda: None,
                      forget: Iterable[MutableMapping] = ()) -> Kept:
        """The dict of this tab's models per setting, bounded (``app.tabs.kept``): at most
        ``limit``, never the one ``shown()`` or the one ``training()`` trains, untrained
        ones first (they are rebuilt the same from their seed). ``forget``: dicts keyed
        alike whose entry goes with a model (its history, its marks). A trained model
        let go is said in the status bar."""
        forget = list(forget)

        def dropped(key, session, trained: bool) -> None:
            for other in forget:
                other.pop(key, None)
            if trained:
                self.ctx.status(QCoreApplication.translate(
                    "TrainingTab", "To keep memory bounded, the model {0} ({1} steps trained) "
                    "was let go: this tab keeps its {2} most recently used models."
                ).format(" · ".join(str(k) for k in key), getattr(session, "step", 0), limit))

        return Kept(limit, pinned=lambda: {shown(), training()},
                    precious=lambda s: getattr(s, "step", 0) > 0, dropped=dropped)

    # -- device and lifecycle ----------------------------------------------------------------
    def on_device_changed(self, name: str) -> None:
        if self.stop_jobs():
            self.ctx.status(QCoreApplication.translate(
                "BaseTab", "The job was stopped: the device changed to {0}.").format(name))
        for session in self.training_sessions():
            try:
                session.to(name)
            except ArchScopeError as exc:
                self.error_note.setText(str(exc))
        super().on_device_changed(name)

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        self.update_buttons()

    def update_buttons(self) -> None:
        """Word and enable the Train button, and the status line."""
        steps = self.trained_steps()
        if self.running() == self.train_job:
            text = QCoreApplication.translate("TrainingTab", "Stop")
        elif steps:
            text = QCoreApplication.translate("TrainingTab", "Resume training")
        else:
            text = QCoreApplication.translate("TrainingTab", "Train")
        self.train_button.setText(text)
        self.train_button.setEnabled(self.torch_ready)
        self.status.setText(self.status_text())
        for panel in self.job_panels.values():
            panel.update_button(self.torch_ready)

    def job_button_text(self, job: str, idle: str) -> str:
        """"Stop" on the button of the job that runs, ``idle`` on the others."""
        if self.running() == job:
            return QCoreApplication.translate("TrainingTab", "Stop")
        return idle

    def retranslate(self) -> None:
        super().retranslate()
        self.update_buttons()
        # the bottom line was written in the old language: write it again in the new one
        if not self.running_job:
            self.job_bar.show_progress(0.0, self.job_done_text(*self._last_done)
                                       if self._last_done else "")

    # -- what a tab fills in ------------------------------------------------------------------
    def make_job(self, name: str) -> Callable[[], Iterator] | None:
        raise NotImplementedError

    def headless_job(self, view_key: str) -> str:
        """The job ``archscope export --train N`` runs for the view ``view_key``: a
        study's view its panel's job, any other the Train button's."""
        for name, panel in self.job_panels.items():
            if view_key and view_key == getattr(getattr(panel, "view", None), "key", None):
                return name
        return self.train_job

    def job_text(self, name: str, progress) -> str:
        """The bottom bar's line for a ``Progress`` of job ``name``."""
        return ""

    def job_fraction(self, name: str, progress) -> float:
        """How far the bar is filled (0 for jobs that train until stopped)."""
        return 0.0

    def job_done_text(self, name: str, completed: bool, failed: bool) -> str:
        """The bottom bar's line once job ``name`` has ended ("" clears it)."""
        return ""

    def on_job_progress(self, name: str, progress) -> None:
        """Redraw what a report of job ``name`` changed (throttled to ~25 Hz)."""

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        """Redraw once job ``name`` has ended (restored weights after a divergence too)."""
        self.request_update()

    def training_sessions(self) -> Iterable:
        """The sessions moved to a newly chosen device."""
        return ()

    def current_session(self):
        """The session the tab shows now (None if it has not been made yet)."""
        return None

    # -- session files ----------------------------------------------------------------------
    def saved_sessions(self) -> dict[str, object]:
        """The training sessions a session file keeps, by name: the one on screen."""
        session = self.current_session()
        return {"main": session} if session is not None else {}

    def session_named(self, name: str):
        """The session ``name`` of ``saved_sessions`` for the settings now, made if it
        does not exist yet (weights are then loaded into it)."""
        from models.errors import SessionFileError

        if name != "main":
            raise SessionFileError(f"the {self.key} tab has no training session {name!r}.")
        return self.session()

    def session_state(self):
        state = super().session_state()
        metas = {}
        for name, session in self.saved_sessions().items():
            tensors, meta = session.save_state()
            state.tensors.update({f"{name}/{k}": v for k, v in tensors.items()})
            metas[name] = meta
        state.data["sessions"] = metas
        return state

    def open_session_state(self, state, name: str) -> None:
        from models.errors import SessionFileError

        self.stop_jobs()
        self.restore_session_inputs(state.data, state.arrays, name)
        self._apply_session_params(state.params, name)
        sessions = state.data.get("sessions", {})
        if not isinstance(sessions, dict):
            raise SessionFileError(f"{name}: the {self.key} tab's sessions are malformed.")
        for session_name, meta in sessions.items():
            if not isinstance(meta, dict):
                raise SessionFileError(f"{name}: the session {session_name!r} is malformed.")
            prefix = f"{session_name}/"
            tensors = {k[len(prefix):]: v for k, v in state.tensors.items()
                       if k.startswith(prefix)}
            self.session_named(session_name).load_state(tensors, meta, name)
        self.error_note.setText("")
        self.after_session_opened()

    def after_session_opened(self) -> None:
        """Redraw everything a session's weights and records show (curves too)."""
        self.update_buttons()
        self.request_update()

    def trained_steps(self) -> int:
        """Steps the shown session has trained (words the button "Resume training")."""
        return getattr(self.current_session(), "step", 0)

    def status_text(self) -> str:
        steps = self.trained_steps()
        return QCoreApplication.translate("TrainingTab", "{0} steps trained").format(
            steps) if steps else ""
