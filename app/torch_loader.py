"""Loads torch and PyG off the GUI thread, so the window paints before they are ready.

The first ``torch.optim`` optimizer lazily imports ``torch._dynamo`` (about 0.9 s of
GIL-held import); it is triggered here, at start-up, so it never freezes the GUI in
the middle of a training job.
"""

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
    import torch

    torch.set_num_threads(cpu_threads_for_background())
    import torch.optim

    torch.optim.Adam([torch.zeros(1, requires_grad=True)])  # pulls in torch._dynamo now
    import models.transformer.model  # noqa: F401
    import models.transformer.positional_probe  # noqa: F401
    from models.devices import available_devices, versions

    return {"versions": versions(), "devices": available_devices()}


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
