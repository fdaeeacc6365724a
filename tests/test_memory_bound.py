"""What a tab keeps per setting is bounded (issue 19: memory grew from ~0.9 to ~2 GB over a
few hundred random actions, one model kept per setting ever visited).

``Kept`` on its own first; then the flows tab as a person drives it: a model let go is
really freed (nothing else holds it), the one on screen and a trained one outlive
untrained ones, and a trained model let go is said in the status bar.
"""

from __future__ import annotations

import gc
import weakref

import pytest

from app.tabs.kept import Kept
from tests.windows import open_tab


class _Model:
    def __init__(self, step: int = 0):
        self.step = step


def test_kept_holds_at_most_its_limit_least_recently_used_first():
    gone = []
    kept = Kept(3, dropped=lambda k, v, lost: gone.append((k, lost)))
    for k in "abc":
        kept[k] = _Model(1)
    kept["a"]                       # read: now the most recently used
    kept["d"] = _Model(1)
    assert list(kept) == ["c", "a", "d"] and gone == [("b", True)]
    assert kept.get("b") is None and len(kept) == 3


def test_kept_never_drops_pinned_and_drops_what_is_cheap_to_remake_first():
    shown = {"key": "a"}
    gone = []
    kept = Kept(2, pinned=lambda: {shown["key"]}, precious=lambda m: m.step > 0,
                dropped=lambda k, v, lost: gone.append((k, lost)))
    kept["a"] = _Model(0)            # on screen, untrained
    kept["b"] = _Model(500)          # trained
    kept["c"] = _Model(0)
    # over the limit: not "a" (pinned), not "b" (trained) while an untrained one can go
    assert set(kept) == {"a", "b"} and gone == [("c", False)]
    shown["key"] = "d"
    kept["d"] = _Model(0)            # "a" is no longer on screen and is untrained
    assert set(kept) == {"b", "d"}
    kept["e"] = _Model(3)
    assert set(kept) == {"d", "e"} and gone[-1] == ("b", True)     # trained, but oldest
    with pytest.raises(ValueError):
        Kept(0)


def test_kept_with_everything_pinned_grows_rather_than_drop_what_is_in_use():
    kept = Kept(1, pinned=lambda: {"a", "b"})
    kept["a"], kept["b"] = 1, 2
    assert set(kept) == {"a", "b"}


# -- the flows tab -------------------------------------------------------------------------------------
@pytest.fixture
def flows(qtbot, window):
    tab = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.result is not None, timeout=30_000)
    return tab


def _visit(qtbot, tab, layers: int) -> None:
    tab.model_form.widgets["layers"].setValue(layers)
    qtbot.waitUntil(lambda: tab._session_key() in tab.sessions and not tab.compute.is_busy()
                    and tab.result is not None and tab.result.trace.points.shape[0] == layers + 1,
                    timeout=30_000)


def _train_a_little(qtbot, tab) -> None:
    key = tab._session_key()
    tab.toggle_training()
    qtbot.waitUntil(lambda: tab.sessions[key].step >= 3, timeout=30_000)
    tab.toggle_training()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)


def test_flows_keeps_four_models_and_frees_the_others(qtbot, flows, window):
    from app.tabs.flows import SESSIONS_KEPT

    _visit(qtbot, flows, 2)
    first = weakref.ref(flows.sessions[flows._session_key()])
    _train_a_little(qtbot, flows)                    # a trained model: kept the longest
    trained_key = flows._session_key()
    for layers in (3, 4, 5, 6):
        _visit(qtbot, flows, layers)
        assert len(flows.sessions) <= SESSIONS_KEPT
        assert flows._session_key() in flows.sessions          # never the one on screen
    assert trained_key in flows.sessions and first() is not None
    # untrained models let go are freed: nothing else (a result, a closure) holds one
    _visit(qtbot, flows, 10)
    untrained = weakref.ref(flows.sessions[flows._session_key()])
    for layers in (11, 12, 13):
        _visit(qtbot, flows, layers)
    gc.collect()
    assert untrained() is None

    # a trained model goes last, and the status bar says so
    for layers in (15, 16, 17):
        _visit(qtbot, flows, layers)
        _train_a_little(qtbot, flows)
    assert trained_key in flows.sessions
    _visit(qtbot, flows, 18)
    assert trained_key not in flows.sessions and len(flows.sessions) == SESSIONS_KEPT
    note = window.statusBar().currentMessage()
    assert "was let go" in note and "steps trained" in note, note
    gc.collect()
    assert first() is None
    # coming back to a setting makes its model again, untrained: the button says so
    _visit(qtbot, flows, 2)
    assert flows.train_button.text() == "Train"


# -- freed memory goes back to the system ---------------------------------------------------------------
def test_memory_a_worker_freed_goes_back_to_the_system(qtbot):
    """A worker's transient blocks (a trace, an export) freed with a few kept among them:
    glibc keeps the holes mapped, and the resident size stayed at the high-water mark;
    a poke of the window's ``Releaser`` hands them back a moment later."""
    import threading

    import psutil

    from app import memory

    if not memory.available():
        pytest.skip("malloc_trim is glibc's")
    proc = psutil.Process()
    releaser = memory.Releaser(delay_ms=200)
    kept: list = []

    def work():                  # 240 MB in 60 kB blocks, one in eight kept
        blocks = [bytearray(b"x" * 60_000) for _ in range(4000)]
        kept.extend(blocks[::8])

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    before = proc.memory_info().rss
    releaser.poke()
    qtbot.waitUntil(lambda: releaser.releases == 1, timeout=5000)
    qtbot.waitUntil(lambda: before - proc.memory_info().rss > 100 * 2**20, timeout=10_000)
    assert len(kept) == 500


def test_pyside_reads_no_module_source_into_memory_but_answers_the_same(tmp_path, monkeypatch):
    """PySide asks of every module imported after it whether its source names PySide6;
    it read the source through linecache and kept it (108 MB over torch and PyG). After
    ``lighten_pyside_import_check`` the answer is the same and nothing is kept."""
    import linecache
    import sys

    from app.torch_loader import lighten_pyside_import_check

    feature = sys.modules["shibokensupport.feature"]
    monkeypatch.setattr(feature, "_mod_uses_pyside", feature._mod_uses_pyside)  # undone after
    assert lighten_pyside_import_check() and lighten_pyside_import_check()
    (tmp_path / "as_uses_qt.py").write_text("from PySide6.QtCore import QObject\n")
    (tmp_path / "as_plain.py").write_text("VALUE = 'no Qt here'\n")
    pkg = tmp_path / "as_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("# a package that says PySide6 in a comment\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, uses in (("as_uses_qt", 0), ("as_plain", -1), ("as_pkg", 0)):
        module = __import__(name)   # through PySide's hook (import_module bypasses it)
        try:
            assert feature.pyside_feature_dict[name] == uses, name
            assert module.__file__ not in linecache.cache, name
        finally:
            sys.modules.pop(name, None)
            feature.pyside_feature_dict.pop(name, None)
    # a module that is not a .py file keeps PySide's own check
    assert feature._mod_uses_pyside(sys.modules["math"]) is False


@pytest.mark.slow
def test_the_shell_lightens_pyside_before_it_imports_anything_heavy():
    """Importing any part of the shell puts the light check in place first, so the source
    of numpy, pyqtgraph, torch and PyG is never kept (a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys, linecache, app.mainwindow, torch, torch_geometric\n"
            "f = sys.modules['shibokensupport.feature']._mod_uses_pyside\n"
            "print(getattr(f, 'lightened', False), len(linecache.cache))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lightened, cached = proc.stdout.split()
    assert lightened == "True" and int(cached) < 200, proc.stdout


def test_every_computation_of_a_tab_pokes_the_releaser(qtbot):
    """The meta tab's evaluation of 600 test tasks runs on a runner of its own, not the
    tab's ``compute``: what it freed went back only at the releaser's half-minute
    backstop. Every runner of a tab now pokes it when its result lands."""
    from tests.windows import window_of

    win, _ = window_of(qtbot, ("positional", "meta"), "positional")
    got: list = []
    win.releaser.poke = lambda *args: got.append(type(args[0]).__name__ if args else None)
    tab = open_tab(qtbot, win, "meta")          # built now, connected to the recorder
    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=120_000)
    assert "MetaEvalTrace" in got, got
