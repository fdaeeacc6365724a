"""Errors reach the user: a dialog with one clear sentence, the details folded away.

``install_excepthooks`` routes uncaught exceptions from any thread to the GUI thread
(through a queued signal) and to stderr; nothing is swallowed silently.
"""

from __future__ import annotations

import sys
import threading
import traceback

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget
from shiboken6 import isValid

from models.errors import ArchScopeError


def describe(error: BaseException) -> str:
    """The sentence the dialog leads with."""
    if isinstance(error, ArchScopeError):
        return str(error)
    if isinstance(error, OSError) and error.strerror:
        where = f" ({error.filename})" if error.filename else ""
        return QCoreApplication.translate("Errors", "The operating system refused: {0}{1}."
                                          ).format(error.strerror, where)
    return QCoreApplication.translate(
        "Errors", "Something went wrong that ArchScope did not expect: {0}: {1}").format(
            type(error).__name__, error)


def show_error(parent: QWidget | None, error: BaseException, details: str | None = None,
               title: str | None = None) -> QMessageBox:
    """Show a non-blocking error dialog; returns it (tests read its text)."""
    box = QMessageBox(parent)
    box.setObjectName("ErrorDialog")
    box.setIcon(QMessageBox.Icon.Warning if isinstance(error, ArchScopeError)
                else QMessageBox.Icon.Critical)
    box.setWindowTitle(title or QCoreApplication.translate("Errors", "ArchScope"))
    box.setText(describe(error))
    if details is None:
        details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setModal(False)
    # gone once answered: a hidden box kept its text and widgets for as long as the window
    # lived (0.2 MB each; hundreds in a long session of refused files)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()
    return box


class _Bridge(QObject):
    raised = Signal(object, str)


class ExceptHooks:
    """Installs ``sys.excepthook`` and ``threading.excepthook``; ``uninstall`` restores."""

    def __init__(self, parent_widget: QWidget | None) -> None:
        self._bridge = _Bridge()
        self._bridge.raised.connect(self._show)
        self._parent = parent_widget
        self._old = (sys.excepthook, threading.excepthook)
        self.dialogs: list[QMessageBox] = []

    def install(self) -> None:
        sys.excepthook = self._hook
        threading.excepthook = lambda args: self._hook(args.exc_type, args.exc_value,
                                                       args.exc_traceback)

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._old

    def _hook(self, exc_type, exc, tb) -> None:
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(details)
        if issubclass(exc_type, KeyboardInterrupt):
            return
        try:
            self._bridge.raised.emit(exc, details)   # queued to the GUI thread if needed
        except RuntimeError:
            pass  # the bridge is gone (shutting down); stderr has the report

    def _show(self, exc, details: str) -> None:
        self.dialogs = [d for d in self.dialogs if isValid(d) and d.isVisible()]
        self.dialogs.append(show_error(self._parent, exc, details))
