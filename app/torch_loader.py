"""Loads torch and PyG off the GUI thread, so the window paints before they are ready
(``models.devices.warm_up`` does the loading; this module runs it in a thread)."""

from __future__ import annotations

import contextlib
import os
import threading
import traceback

from PySide6.QtCore import QObject, Signal


def cpu_threads_for_background() -> int:
    """Leave the GUI a core."""
    return max(1, (os.cpu_count() or 2) - 1)


def load_torch() -> dict:
    """Import everything the tabs need; returns versions and devices (runs in a thread)."""
    from models.devices import warm_up

    return warm_up(cpu_threads_for_background())


class TorchLoader(QObject):
    """Signals: ready(dict), failed(object, str)."""

    ready = Signal(object)
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        # daemon: a window closed during the import must not wait for it
        self._thread = threading.Thread(target=self._run, name="torch-loader", daemon=True)
        self._thread.start()

    def started(self) -> bool:
        return self._thread is not None

    def load_here(self) -> dict:
        """Synchronous variant (headless export)."""
        return load_torch()

    def _run(self) -> None:
        try:
            info = load_torch()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            with contextlib.suppress(RuntimeError):
                self.failed.emit(exc, traceback.format_exc())
            return
        with contextlib.suppress(RuntimeError):   # the window may already be gone
            self.ready.emit(info)
