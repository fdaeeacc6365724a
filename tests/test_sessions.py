"""Session files: round trips through the window, and the format's refusals."""

from __future__ import annotations

import pytest

from tests.session_checks import assert_same_views, round_trip, train_steps, view_arrays


@pytest.mark.parametrize("key, state", [
    ("positional", {"d_model": 48, "max_len": 70, "base": 5000, "offset": 7}),
])
def test_a_tab_without_training_comes_back_with_its_controls(qtbot, tmp_path, key, state):
    a, b, _ = round_trip(qtbot, key, tmp_path, lambda tab: tab.apply_state(state, strict=True))
    assert b.params() == a.params()
    assert {k: b.params()[k] for k in state} == state
    assert_same_views(view_arrays(a), view_arrays(b))


def test_a_trained_flow_comes_back_and_trains_on_from_where_it_was(qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"layers": 4, "lr": 0.003}, strict=True)
        train_steps(tab, 40)

    a, b, _ = round_trip(qtbot, "flows", tmp_path, prepare)
    assert b.current_session().step == 40
    assert_same_views(view_arrays(a), view_arrays(b))
    assert train_steps(a, 5) == train_steps(b, 5)


# -- refusals keep the window as it was -------------------------------------------------------
def _rewrite(src, dst, edit):
    import json
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                edit(manifest)
                data = json.dumps(manifest).encode()
            zout.writestr(info.filename, data)
    return str(dst)


def _flows(m):
    return m["tabs"]["flows"]


def test_a_refused_session_leaves_every_tab_as_it_was(qtbot, tmp_path):
    from tests.session_checks import make_window, settle, tab_of

    win = make_window(qtbot)
    tab = tab_of(win, "flows")
    win.tabs_widget.setCurrentWidget(tab)
    tab.apply_state({"layers": 4}, strict=True)
    train_steps(tab, 20)
    good = win.save_session(str(tmp_path / "good.archscope"))
    train_steps(tab, 10)               # the window moves on from what was saved
    tab.apply_state({"lr": 0.002}, strict=True)
    settle(qtbot, tab)
    before = (tab.params(), tab.current_session().step, view_arrays(tab))
    positional = tab_of(win, "positional").params()

    truncated = tmp_path / "truncated.archscope"
    with open(good, "rb") as fh:
        truncated.write_bytes(fh.read()[:-200])
    files = {
        "newer": _rewrite(good, tmp_path / "newer.archscope",
                          lambda m: m.update(format_version=99)),
        "unknown tab": _rewrite(good, tmp_path / "tab.archscope",
                                lambda m: m["tabs"].update(holography={"params": {}})),
        "truncated": str(truncated),
        # settings that build a model of 6 layers, weights of 4: refused after the controls
        # were set, which then go back
        "wrong shapes": _rewrite(good, tmp_path / "shapes.archscope",
                                 lambda m: _flows(m)["params"].update(layers=6)),
        "out of range": _rewrite(good, tmp_path / "range.archscope",
                                 lambda m: _flows(m)["params"].update(layers=10_000)),
        "bad type": _rewrite(good, tmp_path / "type.archscope",
                             lambda m: _flows(m)["params"].update(lr="fast")),
        "other session kind": _rewrite(good, tmp_path / "kind.archscope",
                                       lambda m: _flows(m)["data"]["sessions"]["main"]
                                       .update(kind="MetaSession")),
    }
    for what, path in files.items():
        errors = []
        win.report_error = lambda error, details, errors=errors: errors.append(error)
        assert not win.open_session(path), what
        assert len(errors) == 1 and type(errors[0]).__name__ == "SessionFileError", \
            (what, errors)
        assert path.rsplit("/", 1)[1] in str(errors[0]), (what, str(errors[0]))
        settle(qtbot, tab)
        assert tab.params() == before[0], what
        assert tab.current_session().step == before[1], what
        assert_same_views(before[2], view_arrays(tab))
        assert tab_of(win, "positional").params() == positional
    # and the good file still opens
    assert win.open_session(good)
    assert tab.current_session().step == 20


def test_a_session_saved_on_cuda_opens_on_the_cpu_with_a_note(qtbot, tmp_path):
    from tests.session_checks import make_window, tab_of

    win = make_window(qtbot)
    tab = tab_of(win, "flows")
    win.tabs_widget.setCurrentWidget(tab)
    train_steps(tab, 5)
    path = win.save_session(str(tmp_path / "s.archscope"))

    def on_cuda(m):
        m["saved_on"] = "cuda:0"
        _flows(m)["data"]["sessions"]["main"]["saved_on"] = "cuda:0"

    cuda = _rewrite(path, tmp_path / "cuda.archscope", on_cuda)
    assert win.open_session(cuda)
    assert "Saved on cuda:0, opened here on cpu" in win.statusBar().currentMessage()
    session = tab.current_session()
    assert session.step == 5
    assert {p.device.type for p in session.flow.parameters()} == {"cpu"}


def test_a_failed_save_leaves_the_previous_file_intact(qtbot, tmp_path, monkeypatch):
    import os

    from models import sessionfile
    from tests.session_checks import make_window

    win = make_window(qtbot)
    path = win.save_session(str(tmp_path / "keep.archscope"))
    with open(path, "rb") as fh:
        saved = fh.read()

    def broken(target, doc, step=None):
        with open(target, "wb") as fh:
            fh.write(b"PK\x03\x04 half a session")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sessionfile, "write_session", broken)
    with pytest.raises(Exception, match="No space left on device"):
        win.save_session(path)
    with open(path, "rb") as fh:
        assert fh.read() == saved
    assert [p for p in os.listdir(tmp_path) if p != "settings"] == ["keep.archscope"]


# -- headless --------------------------------------------------------------------------------
def test_session_info_and_a_headless_export_of_the_saved_state(qtbot, tmp_path):
    import os
    import subprocess
    import sys

    import numpy as np

    from tests.session_checks import make_window, settle, tab_of

    win = make_window(qtbot)
    tab = tab_of(win, "flows")
    win.tabs_widget.setCurrentWidget(tab)
    tab.apply_state({"layers": 4}, strict=True)
    train_steps(tab, 30)
    settle(qtbot, tab)
    path = win.save_session(str(tmp_path / "flows.archscope"))
    expected = tab.view("nll").data().arrays
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    info = subprocess.run([sys.executable, "-m", "app", "session", "info", path], cwd=root,
                          env=env, capture_output=True, text=True, timeout=120)
    assert info.returncode == 0, info.stderr
    assert "[flows]" in info.stdout and "FlowSession, 30 steps" in info.stdout
    assert "layers=4" in info.stdout
    out = tmp_path / "nll.npy"
    proc = subprocess.run([sys.executable, "-m", "app", "export", "flows.nll", "--session",
                           path, "--out", str(out)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    primary = tab.view("nll").data().primary
    np.testing.assert_array_equal(np.load(out), expected[primary])
    proc = subprocess.run([sys.executable, "-m", "app", "export", "graph.graph", "--session",
                           path, "--out", str(tmp_path / "g.png")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "holds the tab flows, not graph" in proc.stderr


# -- the examples of Help → Examples -------------------------------------------------------------
def _no_examples() -> bool:
    from app.sessions import examples

    return not examples()


@pytest.mark.skipif(_no_examples(), reason="no example sessions in resources/sessions/ yet: "
                    "write them with resources/sessions/make_examples.py")
def test_the_shipped_examples_are_small_and_open_trained(qtbot):
    from app.sessions import example_title, examples
    from models.sessionfile import read_manifest
    from tests.session_checks import make_window, tab_of

    files = {p.stem: p for p in examples()}
    assert set(files) == {"transformer-reverse", "realnvp-two-moons", "gcn-karate"}
    win = make_window(qtbot)
    assert [a.text() for a in win.example_actions] == [example_title(p) for p in files.values()]
    for stem, path in files.items():
        assert path.stat().st_size < 1.1e6, f"{path.name}: {path.stat().st_size:,} bytes"
        manifest = read_manifest(path)
        (key,) = manifest["tabs"]
        errors = []
        win.report_error = lambda error, details, errors=errors: errors.append(error)
        action = next(a for a in win.example_actions if a.data() == str(path))
        with qtbot.waitSignal(win.sessionOpened, timeout=120_000) as opened:
            action.trigger()
        assert opened.args == [str(path), True] and not errors, errors
        tab = tab_of(win, key)
        assert win.current_tab() is tab
        session = tab.current_session()
        name = next(n for n, s in tab.saved_sessions().items() if s is session)
        saved_steps = manifest["tabs"][key]["data"]["sessions"][name]["step"]
        assert session.step == saved_steps >= 200, stem
        # trained: the last losses are well below the first (cross-entropy, or NLL in nats)
        first, last = sum(session.losses[:20]) / 20, sum(session.losses[-20:]) / 20
        assert last < first - 0.5, (stem, first, last)
