"""Loads torch and PyG off the GUI thread, so the window paints before they are ready
(``models.devices.warm_up`` does the loading; this module runs it in a thread)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback

from PySide6.QtCore import QObject, Signal

#: the version whose ``shibokensupport.feature._mod_uses_pyside`` is replaced by
#: ``lighten_pyside_import_check``
#: (``tests/test_patches.py`` fails on another)
WRITTEN_FOR = {"PySide6_Essentials": "6.11.3"}


def cpu_threads_for_background() -> int:
    """Leave the GUI a core."""
    return max(1, (os.cpu_count() or 2) - 1)


def preload_native_libraries() -> bool:
    """Load torch's native libraries without holding the GIL (Linux; call in a thread).

    ``import torch`` opens ``torch/_C*.so`` (and with it libtorch_cpu, about 0.4 s of
    loading and static initialisers) from inside the import machinery, which holds the
    GIL all along: the GUI thread froze for 0.3-0.6 s in the middle of start-up. Opened
    first here through libc's ``dlopen``, called by ctypes with the GIL released, with
    the flags and in the order torch and Python use (``libtorch_global_deps.so`` global,
    then the extension with ``sys.getdlopenflags()``), the import finds them loaded.
    Nothing of torch is imported; False (and nothing done) where this does not apply."""
    import ctypes
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    if not sys.platform.startswith("linux"):
        return False
    try:
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            return False
        root = Path(list(spec.submodule_search_locations)[0])
        ext = next((root / f"_C{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                    if (root / f"_C{suffix}").is_file()), None)
        if ext is None:
            return False
        dlopen = ctypes.CDLL(None).dlopen
        dlopen.restype, dlopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_int]
        deps = root / "lib" / "libtorch_global_deps.so"
        if deps.is_file():
            dlopen(str(deps).encode(), os.RTLD_GLOBAL | os.RTLD_NOW)
        return bool(dlopen(str(ext).encode(), sys.getdlopenflags()))
    except (OSError, AttributeError, ValueError):
        return False


def lighten_pyside_import_check() -> bool:
    """Make PySide's look at every newly imported module cheap (call before importing torch).

    Once ``PySide6.QtCore`` is imported, every later import runs PySide's
    ``shibokensupport.feature._mod_uses_pyside(module)``, which asks whether the module
    may use ``from __feature__ import ...`` by reading its whole source through
    ``inspect.getsource``: tokenized line by line and kept in ``linecache`` for the life
    of the process. Importing torch, ``torch._dynamo`` and PyG after PySide so kept the
    source of 2,400 files (45 M characters): 108 MB of resident memory, and 0.2-0.4 s of
    GIL-held time, measured. The same answer (does the text ``PySide6`` occur in the
    module's source?) comes from the file's bytes, read once and dropped. Modules that are
    not a ``.py`` file on disk keep PySide's own check. True if installed; False (nothing
    changed) where PySide has no such function. Called once, by ``app/__init__``."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or not callable(original):
        return False
    if getattr(original, "lightened", False):
        return True

    def uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py") or not os.path.isfile(path):
            return original(module)
        try:
            with open(path, "rb") as fh:
                return b"PySide6" in fh.read()
        except OSError:
            return False

    uses_pyside.lightened = True
    feature._mod_uses_pyside = uses_pyside
    return True


def load_torch() -> dict:
    """Import everything the tabs need; returns versions and devices (runs in a thread;
    ``app/__init__`` has made PySide's import check light already)."""
    preload_native_libraries()
    from models.devices import warm_up

    info = warm_up(cpu_threads_for_background())
    # the jobs' worker machinery (app/jobs.py imports it on the first job): superqt and
    # qtpy, whose wrapping of QFileDialog makes PySide build its type map, 0.1-0.3 s in
    # all; imported here, not by the first computation on the GUI thread
    import superqt.utils  # noqa: F401

    return info


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


class ModuleImports(QObject):
    """Imports packages in a thread of its own, one set per key (a tab's packages, before
    the tab is built: ``TabPages``). Signal: done(key), on the GUI thread, when the set is
    imported or an import failed (the tab's own import, on the GUI thread, then reports
    the error as it always did)."""

    done = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running: set = set()
        self._ran: set = set()        # keys imported once: never again (one that failed
        self.done.connect(self._running.discard)      # is imported where it is used)

    @staticmethod
    def missing(modules: tuple[str, ...]) -> list[str]:
        return [m for m in modules if m not in sys.modules]

    def start(self, key, modules: tuple[str, ...]) -> bool:
        """Import what of ``modules`` is not imported yet; True while a thread imports
        them for ``key``; False (nothing started) if all are imported or a thread already
        tried for ``key``."""
        if key in self._running:
            return True
        missing = self.missing(modules)
        if not missing or key in self._ran:
            return False
        self._running.add(key)
        self._ran.add(key)
        threading.Thread(target=self._run, args=(key, missing), name=f"imports-{key}",
                         daemon=True).start()
        return True

    def _run(self, key, modules: list[str]) -> None:
        import importlib

        try:
            for name in modules:
                importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - imported again where it is used, and said there
            pass
        finally:
            with contextlib.suppress(RuntimeError):   # the window may already be gone
                self.done.emit(key)
