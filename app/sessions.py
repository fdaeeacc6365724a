"""Saving and opening session files (``.archscope``) for one tab or the whole window.

The format and its checks are ``models.sessionfile``'s; what a tab puts in a session is
the tab's (``BaseTab.session_state`` / ``open_session_state``). Here: the window's part.

* Saving collects every tab's state on the GUI thread (a copy of each session's weights,
  taken under its lock between two training steps, so training may go on) and writes
  the file atomically: a temporary file in the same folder, renamed over the old one
  only when complete, so a failed or cancelled save leaves the previous file as it was.
  File → Save session… writes in the background, as the export bar's job.
* Opening reads and checks the whole file first; nothing in the window changes until
  the file is accepted. Each tab then takes its part; if a tab refuses its part (weights
  that do not fit the model its settings build), every tab opened so far goes back to
  the state it had, and the message says why.
* A session saved on another device opens on this one: weights come back on the CPU and
  are copied into models on the device chosen in the window; the note says so.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QTimer

from app import export
from models.errors import ArchScopeError, SessionFileError

SUFFIX = ".archscope"
EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "sessions"


def app_version() -> str:
    try:
        from importlib.metadata import version

        return version("archscope")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "0.1.0"


def collect(tabs, current: str | None, device: str):
    """A ``SessionDocument`` of ``tabs`` (their state now)."""
    from models.sessionfile import SessionDocument

    return SessionDocument(
        tabs={tab.key: tab.session_state() for tab in tabs}, current=current,
        app_version=app_version(), saved_on=device,
        saved_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))


def session_path(path: str | os.PathLike) -> Path:
    """``path`` with the session suffix."""
    path = Path(path).expanduser()
    return path if path.suffix.lower() == SUFFIX else path.with_name(path.name + SUFFIX)


def write(path: Path, doc, report=None, cancelled=None, committing=None) -> Path:
    """Write ``doc`` to ``path`` atomically (any thread); ``report(fraction)`` between the
    archive's members, ``cancelled()`` checked there (``ExportCancelled``: the previous
    file stays as it was). ``committing()`` is called last, before the rename: it raises
    ``ExportCancelled`` if a Cancel came first, and after it a Cancel changes nothing."""
    from models.sessionfile import write_session

    def step(done: int, total: int) -> None:
        if cancelled is not None and cancelled():
            raise export.ExportCancelled()
        if report is not None:
            report(done / total)

    def write_all(tmp: str) -> None:
        try:
            write_session(tmp, doc, step)
        except SessionFileError as exc:     # named by the temporary file: by the user's
            raise export.ExportError(str(exc).replace(Path(tmp).name, path.name)) from exc
        step(1, 1)
        if committing is not None:
            committing()

    return export.atomic_write(path, write_all)


def save(path: str | os.PathLike, tabs, current: str | None, device: str) -> Path:
    """Write the session of ``tabs`` to ``path`` atomically; returns the path written."""
    return write(session_path(path), collect(tabs, current, device))


def read(path: str | os.PathLike, known_tabs: tuple[str, ...]):
    """The checked ``SessionDocument`` at ``path`` (``SessionFileError`` if refused)."""
    from models.sessionfile import read_session

    return read_session(path, known_tabs)


def apply(doc, tabs_by_key: dict, name: str, device: str) -> list[str]:
    """Open ``doc`` into the tabs; all or nothing (see the module docstring). Returns
    the notes to show (a session saved on another device)."""
    before: dict[str, object] = {}
    try:
        for key, state in doc.tabs.items():
            tab = tabs_by_key[key]
            before[key] = tab.session_state()
            tab.open_session_state(state, name)
    except Exception as exc:
        for key, state in before.items():
            try:
                tabs_by_key[key].open_session_state(state, name)
            except Exception:  # noqa: BLE001 - best effort: the error below is the news
                pass
        if isinstance(exc, ArchScopeError):
            raise
        raise SessionFileError(f"{name}: cannot be opened ({type(exc).__name__}: "
                               f"{exc}).") from exc
    notes = []
    if doc.saved_on and doc.saved_on.split(":")[0] != device.split(":")[0]:
        notes.append(QCoreApplication.translate(
            "Sessions", "Saved on {0}, opened here on {1}.").format(doc.saved_on, device))
    return notes


def examples() -> list[Path]:
    """The example sessions shipped in resources/sessions/, by name."""
    return sorted(EXAMPLES.glob(f"*{SUFFIX}")) if EXAMPLES.is_dir() else []


def example_title(path: Path) -> str:
    """The menu text of an example session (its file name if it has no title here)."""
    titles = {
        "transformer-reverse": QCoreApplication.translate(
            "Sessions", "Transformer trained to reverse digits"),
        "realnvp-two-moons": QCoreApplication.translate(
            "Sessions", "RealNVP flow trained on two moons"),
        "gcn-karate": QCoreApplication.translate(
            "Sessions", "GCN trained on Zachary's karate club"),
    }
    return titles.get(path.stem, path.stem.replace("-", " "))


class SessionActions:
    """File → Open session… / Save session… / Save all tabs as a session…, and
    Help → Examples, mixed into ``MainWindow`` (which has ``tabs``, ``specs``, ``tab(key)``,
    ``show_tab(key)``, ``settings``, ``current_tab()``, ``report_error`` and
    ``torchReady``)."""

    def _build_session_actions(self, menu_file, menu_help) -> None:
        from PySide6.QtGui import QAction, QKeySequence
        from PySide6.QtWidgets import QMenu

        self.act_open_session = QAction(self, shortcut=QKeySequence("Ctrl+Shift+O"))
        self.act_open_session.triggered.connect(self.open_session_dialog)
        self.act_save_session = QAction(self, shortcut=QKeySequence.StandardKey.Save)
        self.act_save_session.triggered.connect(lambda: self.save_session_dialog(False))
        self.act_save_all = QAction(self, shortcut=QKeySequence("Ctrl+Shift+S"))
        self.act_save_all.triggered.connect(lambda: self.save_session_dialog(True))
        # after Open / Export, before the separator above Quit
        actions = menu_file.actions()
        before = actions[actions.index(self.act_quit) - 1] if self.act_quit in actions else None
        session_actions = [self.act_open_session, self.act_save_session, self.act_save_all]
        menu_file.insertActions(before, session_actions)
        menu_file.insertSeparator(self.act_open_session)
        self.menu_examples = QMenu(self)
        menu_help.insertMenu(menu_help.actions()[0] if menu_help.actions() else None,
                             self.menu_examples)
        self.example_actions = []
        for path in examples():
            act = QAction(self)
            act.setData(str(path))
            act.triggered.connect(lambda _=False, p=str(path): self.start_open_session(p))
            self.menu_examples.addAction(act)
            self.example_actions.append(act)
        self.menu_examples.setEnabled(bool(self.example_actions))
        self._pending_session: str | None = None
        self._opening: tuple | None = None     # (path, tabs still to build) on its way

    def _retranslate_session_actions(self) -> None:
        self.act_open_session.setText(QCoreApplication.translate("Sessions", "Open &session…"))
        self.act_save_session.setText(
            QCoreApplication.translate("Sessions", "&Save session of this tab…"))
        self.act_save_all.setText(
            QCoreApplication.translate("Sessions", "Save session of &all tabs…"))
        self.menu_examples.setTitle(QCoreApplication.translate("Sessions", "&Examples"))
        for act in self.example_actions:
            act.setText(example_title(Path(act.data())))

    def _session_filter(self) -> str:
        return QCoreApplication.translate("Sessions", "ArchScope sessions (*.archscope)")

    # -- saving ----------------------------------------------------------------------------
    def save_session(self, path: str, all_tabs: bool = False) -> str:
        """Save the current tab (or every tab) to ``path``; returns the path written."""
        tab = self.current_tab()
        tabs = self._session_tabs(tab, all_tabs)
        written = save(path, tabs, tab.key, self.device_name)
        self.statusBar().showMessage(self._saved_text(str(written), tabs, all_tabs), 8000)
        return str(written)

    def _session_tabs(self, tab, all_tabs: bool) -> list:
        """The tabs a session holds: the one, or every tab opened so far. A tab never
        opened shows its defaults and holds nothing to keep; building the nine of a
        fresh window to save them held the GUI thread 6-8 s."""
        return self.built_tabs() if all_tabs else [tab]

    def _saved_text(self, written: str, tabs: list, all_tabs: bool) -> str:
        if all_tabs and len(tabs) < len(self.specs):
            return QCoreApplication.translate(
                "Sessions", "Saved the session {0} ({1} tabs opened so far)").format(
                    written, len(tabs))
        return QCoreApplication.translate("Sessions", "Saved the session {0}").format(written)

    def save_session_dialog(self, all_tabs: bool = False) -> None:
        from PySide6.QtWidgets import QFileDialog

        from app import data_export

        try:
            data_export.refuse_if_exporting(self)      # before asking for a file
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)
            return
        tab = self.current_tab()
        default = f"{self.settings.last_dir('session')}/{'archscope' if all_tabs else tab.key}"
        path, _ = QFileDialog.getSaveFileName(
            self, QCoreApplication.translate("Sessions", "Save session"), default + SUFFIX,
            self._session_filter())
        if not path:
            return
        try:
            self.start_session_save(path, all_tabs)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)

    def start_session_save(self, path: str, all_tabs: bool = False, key: str | None = None):
        """Save the current tab (or the tab ``key``, or every tab) to ``path`` in the
        background, with
        progress and Cancel in the export bar (a large graph's session took 4 s to
        deflate on the GUI thread). The state is collected now, on the GUI thread, with
        the arrays copied: what the file holds is the window as it was at this moment.
        Raises (nothing started) while an export runs."""
        from app import data_export

        data_export.refuse_if_exporting(self)
        tab = self.current_tab() if key is None else self.tab(key)
        target = session_path(path)
        tabs = self._session_tabs(tab, all_tabs)
        doc = collect(tabs, tab.key, self.device_name)
        for state in doc.tabs.values():
            state.arrays = {k: np.array(v, copy=True) for k, v in state.arrays.items()}

        def saved(written: str) -> None:
            self.settings.set_last_dir("session", written)
            self.statusBar().showMessage(self._saved_text(written, tabs, all_tabs), 8000)

        def work(report, cancelled, committing) -> str:
            return str(write(target, doc, report, cancelled, committing))

        return data_export.start_write(self, str(target), work, saved)

    # -- opening ---------------------------------------------------------------------------
    def open_session_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getOpenFileName(
            self, QCoreApplication.translate("Sessions", "Open session"),
            self.settings.last_dir("session"),
            self._session_filter())
        if path:
            self.start_open_session(path)

    def open_session(self, path: str) -> bool:
        """Open the session at ``path`` now, in this turn of the event loop: every tab it
        holds takes its state, the tab it was saved from comes to the front. A refused
        file changes nothing and says why. Before PyTorch has loaded, the file is opened
        as soon as it has (False is returned then). The menus use ``start_open_session``."""
        if self._wait_for_torch(path):
            return False
        try:
            doc = read(path, tuple(spec.key for spec in self.specs))
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)
            return False
        return self._apply_opened(doc, path)

    def start_open_session(self, path: str) -> None:
        """File → Open session…, Help → Examples and a session chosen in File → Open…:
        the file is read and checked, then the tabs it holds that were never opened are
        built (or brought to the window's language), one per turn of the event loop, and
        the session is applied in one last turn, all or nothing. A File → Open session of
        an all-tab session held the GUI thread 1.3-2.2 s at once, half of it building and
        retranslating tabs. ``sessionOpened(path, ok)`` says how it ended; a later
        Open session replaces one still on its way (that one then ends unopened)."""
        if self._wait_for_torch(path):
            return
        self._abandon_opening()
        try:
            doc = read(path, tuple(spec.key for spec in self.specs))
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)
            self.sessionOpened.emit(str(path), False)
            return
        language = self.translations.language
        waiting = [key for key in doc.tabs
                   if getattr(self.built_tab(key), "_pages_language", None) != language]
        self._opening = (path, waiting)

        def step(opening=self._opening) -> None:
            if self._opening is not opening:       # replaced by a later Open session
                return
            if waiting:
                self.tab(waiting.pop(0))           # built, or retranslated, now
                QTimer.singleShot(0, self, step)
                return
            self._opening = None
            self.sessionOpened.emit(str(path), self._apply_opened(doc, path))

        step()

    def _abandon_opening(self) -> None:
        opening, self._opening = self._opening, None
        if opening is not None:
            self.sessionOpened.emit(str(opening[0]), False)

    def _wait_for_torch(self, path: str) -> bool:
        """True (and the file opens once PyTorch has loaded) if it has not yet."""
        if self.torch_is_ready:
            return False
        if self._pending_session is None:
            self.torchReady.connect(self._open_pending_session)
        self._pending_session = path
        self.statusBar().showMessage(
            QCoreApplication.translate("Sessions", "Opening {0} once PyTorch has loaded…")
            .format(Path(path).name))
        return True

    def _apply_opened(self, doc, path: str) -> bool:
        """Build what is missing of the tabs ``doc`` holds, open it into them (all or
        nothing), bring its tab to the front and say so."""
        name = Path(path).name
        try:
            # only the tabs the session holds are built (those not opened yet, now)
            tabs_by_key = {key: self.tab(key) for key in doc.tabs}
            notes = apply(doc, tabs_by_key, name, self.device_name)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)
            return False
        if doc.current in {spec.key for spec in self.specs}:
            self.show_tab(doc.current)
        if not str(path).startswith(str(EXAMPLES)):
            self.settings.set_last_dir("session", path)
        message = QCoreApplication.translate("Sessions", "Opened the session {0}").format(name)
        self.statusBar().showMessage(" ".join([message, *notes]), 10000)
        return True

    def _open_pending_session(self) -> None:
        self.torchReady.disconnect(self._open_pending_session)
        path, self._pending_session = self._pending_session, None
        if path:
            self.start_open_session(path)
