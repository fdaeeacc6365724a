"""Test set-up: headless Qt (offscreen) and settings in a temporary folder.

QT_QPA_PLATFORM is set before any QApplication exists (and an X display inherited from
``xvfb-run`` is dropped for it); the real-window screenshot test starts its own Xvfb in
a subprocess.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # Qt's offscreen platform takes GLX from an X server when DISPLAY names one, and
    # under xvfb-run the process then died at exit (SIGSEGV in GL teardown, after every
    # test had passed): the offscreen tests need no X server, so they get none
    os.environ.pop("DISPLAY", None)
    os.environ.pop("WAYLAND_DISPLAY", None)
os.environ.setdefault("PYTHONHASHSEED", "0")
# One thread for torch's intra-op pool, OpenMP and BLAS in the test process and the
# processes it starts, set before torch loads: tests that left torch at its default
# (or forced 2) ran 10-50x slower when anything else ran beside them (issue 34: one test
# 2.2 s -> 150 s; pinned, a 165-test subset took 132-165 s against 262-407 s). A test
# that measures threads sets its own.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: the test process's data limit (RLIMIT_DATA), GiB: a reader that allocates without
#: bound fails its test with a MemoryError instead of swapping the machine (issue 33;
#: ``ARCHSCOPE_TEST_MEMORY_CAP_GB``, 0 for none), far above what a test needs (the
#: 1,000-action monkey peaks near 1 GiB).
MEMORY_CAP_GB = float(os.environ.get("ARCHSCOPE_TEST_MEMORY_CAP_GB", "12"))


def _cap_memory() -> str:
    try:
        import resource
    except ImportError:
        return "no memory cap (no resource module here)"
    if MEMORY_CAP_GB <= 0:
        return "no memory cap (ARCHSCOPE_TEST_MEMORY_CAP_GB=0)"
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = int(MEMORY_CAP_GB * 2**30)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    return f"memory cap: {resource.getrlimit(resource.RLIMIT_DATA)[0] / 2**30:.1f} GiB of data"


_CAP = _cap_memory()


def pytest_report_header(config):
    return _CAP


#: fixtures that open the main window (``window`` here; some modules make their own)
WINDOW_FIXTURES = {"window", "win", "light_window"}


@functools.cache
def _makes_a_window(path: Path) -> bool:
    """Whether a test module builds the main window itself (read once a module)."""
    return "MainWindow(" in path.read_text(encoding="utf-8")


def pytest_collection_modifyitems(config, items):
    """Tiers (``make check`` runs ``-m "not window and not slow"``): ``window`` for a test
    that opens the main window (a fixture of ``WINDOW_FIXTURES``, a module that builds
    one, a real display), ``slow`` where its module or the test says so."""
    for item in items:
        if (WINDOW_FIXTURES & set(item.fixturenames) or item.get_closest_marker("display")
                or _makes_a_window(Path(str(item.fspath)))):
            item.add_marker(pytest.mark.window)


@pytest.fixture(autouse=True)
def _settings_dir(tmp_path, monkeypatch):
    """Every test gets its own settings file; the user's settings are never touched."""
    folder = tmp_path / "settings"
    monkeypatch.setenv("ARCHSCOPE_SETTINGS_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def qapp_args():
    return ["archscope-tests"]


@pytest.fixture(scope="session", autouse=True)
def _theme(qapp):
    """The app's look, as app.main sets it once the application exists (its fonts
    need one)."""
    from viz import theme

    theme.apply()


@pytest.fixture
def window(qtbot, monkeypatch):
    """A main window with torch loaded; its tabs are built when the test asks for them
    (``tests.windows.open_tab``; ``window.tabs`` builds every tab and waits for all their
    first traces, as this fixture once did up front for every test, 6-9 s each).

    Earlier tests' closed windows are freed first, here on the GUI thread: left to the
    automatic collector, that garbage was once collected on a worker thread (training
    allocates a lot) whose deletion of Qt objects deadlocked against the GUI thread's own
    deferred deletions (seen in gdb: QObject::~QObject on both threads)."""
    import gc

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from tests.windows import first_traces_drawn

    every_tab = MainWindow.tabs.fget

    def tabs_with_traces(self):
        fresh = not getattr(self, "_test_traces_drawn", False)
        tabs = every_tab(self)
        if fresh and self.torch_is_ready:   # once per window (a later trace may go on
            # purpose); a window without torch (start_loader=False) draws no trace
            qtbot.waitUntil(lambda: first_traces_drawn(tabs), timeout=60_000)
            self._test_traces_drawn = True
        return tabs

    monkeypatch.setattr(MainWindow, "tabs", property(tabs_with_traces))
    with qtbot.capture_exceptions() as caught:
        gc.collect()
    for _type, error, _tb in caught:
        # earlier tests' pyqtgraph items: the collector may clear a legend label's
        # attributes before Qt, deleting its parent, asks the label its size (pyqtgraph
        # issue 472); not this test's doing, and nothing else is let through
        if not (isinstance(error, AttributeError) and "_sizeHint" in str(error)):
            raise error
    translations = Translations()
    win = MainWindow(Settings(), translations)
    qtbot.addWidget(win)
    win.resize(1500, 940)
    win.show()
    qtbot.waitUntil(lambda: win.torch_is_ready, timeout=60_000)
    yield win
    win.close()
    if translations.language != "en":
        translations.set_language("en")
