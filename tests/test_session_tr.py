"""Session files of the Transformer, positional-encoding and efficient-attention tabs.

Round trips through two windows (the arrays behind every view compared exactly),
training going on from where it was, the Transformer tab's "Save session…" button
(also while training runs), its old .pt model files, and bad content refused with the
tab left as it was.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from models.sessionfile import read_manifest, read_session, write_session
from tests.session_checks import (
    assert_same_views,
    make_window,
    round_trip,
    settle,
    tab_of,
    train_steps,
    view_arrays,
)

REVERSE = "encoder-decoder.digits.reverse"
COPY = "encoder-decoder.digits.copy"


def collect_errors(win) -> list:
    errors: list = []
    win.report_error = lambda error, details: errors.append(error)
    return errors


def rewrite(path, tmp_path, name: str, change) -> str:
    """A copy of the session at ``path`` with ``change(tab_states)`` applied."""
    doc = read_session(path)
    change(doc.tabs)
    out = tmp_path / f"{name}.archscope"
    write_session(out, doc)
    return str(out)


def assert_refused_and_kept(qtbot, win, tab, bad: str, needle: str) -> None:
    """Opening ``bad`` is refused, naming the file and ``needle``; the tab shows what it
    showed (views, controls, trained steps)."""
    settle(qtbot, tab)
    views, params = view_arrays(tab), tab.params()
    steps = getattr(tab.current_session(), "step", None) if hasattr(tab, "sessions") else None
    errors = collect_errors(win)
    assert not win.open_session(bad)
    assert len(errors) == 1, errors
    message = str(errors[0])
    assert bad.rsplit("/", 1)[-1] in message and needle in message, message
    settle(qtbot, tab)
    assert tab.params() == params
    assert_same_views(views, view_arrays(tab))
    if steps is not None:
        assert tab.current_session().step == steps


# -- Transformer ------------------------------------------------------------------------------
@pytest.mark.slow
def test_transformer_models_inputs_and_training_come_back(qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"task": "copy"}, strict=True)
        train_steps(tab, 12)                       # a second model the tab keeps
        tab.apply_state({"task": "reverse", "sequence": "9 8 7 1 2", "kind": "decoder",
                         "layer": 1, "head": 2, "pad_to": 7, "padding": False,
                         "step": "self.scores"}, strict=True)
        train_steps(tab, 40)
        tab.generate()                             # Generate's seed moves on
        tab.sequence.setText("9 8 7 1 2")
        settle(qtbot, tab)
        tab.head_lines_view.plot.set_shown_heads([True, False, True, True])

    a, b, path = round_trip(qtbot, "transformer", tmp_path, prepare)
    assert b.params() == a.params() and b.params()["step"] == "self.scores"
    assert_same_views(view_arrays(a), view_arrays(b))
    assert {k: s.step for k, s in b.sessions.items() if s.step} == \
        {("encoder-decoder", "digits", "copy"): 12, ("encoder-decoder", "digits", "reverse"): 40}
    assert len(b.current_session().losses) == 40      # the whole curve, not its tail
    assert b.head_lines_view.plot.shown_heads().tolist() == [True, False, True, True]
    assert b.train_button.text() == "Resume training" and "40 steps" in b.status.text()
    # training goes on exactly where it was, and Generate gives the same next input
    assert train_steps(b, 5) == train_steps(a, 5)
    a.generate()
    b.generate()
    assert b.sequence.text() == a.sequence.text()
    manifest = read_manifest(path)
    assert set(manifest["tabs"]["transformer"]["data"]["sessions"]) == {REVERSE, COPY}


@pytest.mark.slow
def test_transformer_typed_sequence_it_cannot_read_comes_back_with_what_is_shown(
        qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"sequence": "5 4 3 2 1 0"})
        settle(qtbot, tab)
        tab.apply_state({"sequence": "5 4 x 2", "head": 3})   # a typo, then another head
        settle(qtbot, tab)
        assert "'x'" in tab.input_note.text() and tab.trace.head == 3

    a, b, _ = round_trip(qtbot, "transformer", tmp_path, prepare)
    assert b.sequence.text() == "5 4 x 2" and b.input_note.text() == a.input_note.text()
    assert b.trace.src_tokens[:6] == ("5", "4", "3", "2", "1", "0")
    assert_same_views(view_arrays(a), view_arrays(b))


@pytest.mark.slow
def test_transformer_save_button_writes_a_session_while_training_and_old_files_open(
        qtbot, tmp_path, monkeypatch):
    win_a = make_window(qtbot)
    a = tab_of(win_a, "transformer")
    win_a.tabs_widget.setCurrentWidget(a)
    assert a.save_button.text() == "Save session…" and "Open session" in a.save_button.toolTip()
    assert "Open session" in a.file_filter() and a.file_filter().endswith("(*.pt)")
    target = tmp_path / "from-button"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kw: (str(target), "")))
    qtbot.mouseClick(a.train_button, Qt.MouseButton.LeftButton)
    session = a.current_session()
    qtbot.waitUntil(lambda: session.step >= 5, timeout=60_000)
    assert a.save_button.isEnabled()
    qtbot.mouseClick(a.save_button, Qt.MouseButton.LeftButton)   # while it trains
    assert win_a.data_job is not None               # written in the background
    path = str(target) + ".archscope"
    qtbot.waitUntil(lambda: win_a.data_job is None, timeout=60_000)
    manifest = read_manifest(path)
    assert set(manifest["tabs"]) == {"transformer"} and manifest["current"] == "transformer"
    saved_step = manifest["tabs"]["transformer"]["data"]["sessions"][REVERSE]["step"]
    assert saved_step >= 5
    assert a.jobs.is_running()                      # saving did not stop the training
    assert "from-button.archscope" in win_a.statusBar().currentMessage()
    qtbot.mouseClick(a.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not a.jobs.is_running(), timeout=10_000)
    old = a.save_model(str(tmp_path / "old.pt"))     # the format of earlier versions

    # window B trains; opening the session stops that cleanly and shows the saved model
    win_b = make_window(qtbot)
    b = tab_of(win_b, "transformer")
    win_b.tabs_widget.setCurrentWidget(b)
    errors = collect_errors(win_b)
    qtbot.mouseClick(b.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: b.current_session().step >= 2, timeout=60_000)
    assert win_b.open_session(path), errors
    assert not b.jobs.is_running() and b.train_button.text() == "Resume training"
    assert b.current_session().step == saved_step
    qtbot.wait(300)                                 # nothing of the stopped run comes in
    assert b.current_session().step == saved_step
    assert train_steps(b, 3)                         # and it trains on

    # File → Open… still opens a .pt model, and says how to keep it as a session
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kw: (old, "")))
    win_b.act_open.trigger()
    qtbot.waitUntil(lambda: not b.is_opening(), timeout=60_000)   # read in the background
    assert not errors, errors
    assert b.current_session().step == session.step
    assert "Save session" in win_b.statusBar().currentMessage()
    # a session chosen there is not read as a model: it opens as a session
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kw: (path, "")))
    win_b.act_open.trigger()
    assert not errors, errors
    assert b.current_session().step == saved_step


def _set(tab_key, section, key, value):
    def change(tabs):
        getattr(tabs[tab_key], section)[key] = value
    return change


@pytest.mark.slow
def test_transformer_bad_content_is_refused_and_the_tab_keeps_its_state(qtbot, tmp_path):
    win = make_window(qtbot)
    tab = tab_of(win, "transformer")
    win.tabs_widget.setCurrentWidget(tab)
    train_steps(tab, 10)
    tab.apply_state({"sequence": "1 2 3 4", "layer": 0, "head": 1})
    settle(qtbot, tab)
    good = win.save_session(str(tmp_path / "good.archscope"))
    train_steps(tab, 4)           # the state to keep differs from the file's
    tab.apply_state({"head": 2})

    def meta(change):
        def apply(tabs):
            change(tabs["transformer"].data["sessions"][REVERSE])
        return apply

    def tensor(name, value):
        def apply(tabs):
            tabs["transformer"].tensors[f"{REVERSE}/{name}"] = value
        return apply

    def renamed(tabs):      # the reverse model, named as the copy model
        part = tabs["transformer"]
        part.data["sessions"][COPY] = part.data["sessions"].pop(REVERSE)
        part.tensors = {k.replace(REVERSE, COPY): v for k, v in part.tensors.items()}

    bad = {
        "sequence": (_set("transformer", "params", "sequence", "3 1 99"), "cannot be read"),
        "layer": (_set("transformer", "params", "layer", 7), "layer = 7"),
        "head_float": (_set("transformer", "params", "head", 1.5), "head = 1.5"),
        "kind": (_set("transformer", "params", "kind", "sideways"), "kind"),
        "train": (_set("transformer", "params", "train", True), "unknown setting train"),
        "step": (_set("transformer", "params", "step", "self.nonsense"), "step"),
        "heads": (_set("transformer", "data", "heads_shown", ["yes", False]), "heads"),
        "loss_nan": (tensor("record0", torch.full((10,), float("nan"), dtype=torch.float64)),
                     "loss curve"),
        "history": (tensor("extra.accuracy_history", torch.zeros(3, 5, dtype=torch.float64)),
                    "held-out evaluations"),
        "weights": (tensor("model0.encoder_layers.0.self_attn.W_q.weight", torch.zeros(3, 3)),
                    "wrong shapes"),
        "d_model": (meta(lambda m: m["extra"]["model"].update(d_model=66)), "d_model = 66"),
        "renamed": (renamed, "is a encoder-decoder.digits.reverse model"),
        "missing_model": (meta(lambda m: m.pop("extra")), "no description"),
    }
    for name, (change, needle) in bad.items():
        assert_refused_and_kept(qtbot, win, tab, rewrite(good, tmp_path, name, change), needle)
    assert tab.current_session().step == 14


# -- positional encoding ----------------------------------------------------------------------
@pytest.mark.slow
def test_positional_fit_and_typed_inputs_come_back(qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"d_model": 16, "max_len": 24, "offset": 3, "dims": "0, 1, 99",
                         "sentence": "hello there", "relative_mode": "learned"}, strict=True)
        settle(qtbot, tab)
        qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
        assert tab.fit is not None and len(tab.fit_history) == 2000

    a, b, path = round_trip(qtbot, "positional", tmp_path, prepare)
    assert b.params() == a.params()
    assert_same_views(view_arrays(a), view_arrays(b))
    assert "99" in b.dims_note.text()                       # the typed dims, as typed
    for key in ("fit", "relative"):
        assert b.view(key).panel.readout.text() == a.view(key).panel.readout.text()
        assert b.view(key).title() == a.view(key).title()
    assert "learned" in view_arrays(b)["relative"]

    # a fit whose W is not d_model × d_model: refused, B keeps its fit and controls
    bad = rewrite(path, tmp_path, "bad-fit", lambda tabs: tabs["positional"].arrays.update(
        fit_learned=np.zeros((16, 15), np.float32)))
    assert_refused_and_kept(qtbot, b.window(), b, bad, "fit_learned")
    bad = rewrite(path, tmp_path, "bad-base", _set("positional", "params", "base", 10.5))
    assert_refused_and_kept(qtbot, b.window(), b, bad, "base")
    assert b.fit is not None


# -- efficient attention ----------------------------------------------------------------------
@pytest.mark.slow
def test_efficient_measurements_and_transformer_qkv_come_back(qtbot, tmp_path):
    def prepare(tab):
        qtbot.waitUntil(lambda: tab.cost is not None and not tab.jobs.is_running(),
                        timeout=120_000)               # the quick first measurement
        transformer = tab_of(tab.window(), "transformer")   # built: a peer shows
        train_steps(transformer, 15)                   # q/k/v a fresh window lacks
        transformer.compute_now()
        tab.apply_state({"source": "transformer", "method": "linformer", "k_len": 8,
                         "seed": 7}, strict=True)

    a, b, path = round_trip(qtbot, "efficient", tmp_path, prepare)
    assert b.params() == a.params()
    assert_same_views(view_arrays(a), view_arrays(b))   # measured time and memory too
    assert "saved in the session" in b.source_note.text()
    note = b.view("time").panel.readout.text()
    assert "as saved in the session" in note and "cpu" in note
    assert b.cost_note.text() == a.cost_note.text()
    assert not b.jobs.is_running()                      # no quick measurement over it

    # the saved q/k/v stay until the Transformer tab's head changes
    transformer = tab_of(b.window(), "transformer")
    transformer.apply_state({"head": 3})
    settle(qtbot, transformer)
    settle(qtbot, b)
    assert b._source_pin is None and "saved" not in b.source_note.text()
    assert not np.array_equal(view_arrays(b)["matrices"]["implied"],
                              view_arrays(a)["matrices"]["implied"])

    # measurements of the wrong shape: refused, B keeps its own
    bad = rewrite(path, tmp_path, "bad-cost", lambda tabs: tabs["efficient"].arrays.update(
        cost_seconds=np.zeros(2, np.float32)))
    assert_refused_and_kept(qtbot, b.window(), b, bad, "cost_seconds")
    bad = rewrite(path, tmp_path, "bad-n", _set("efficient", "params", "n", 5000))
    assert_refused_and_kept(qtbot, b.window(), b, bad, "n = 5000")

    # a new measurement replaces the saved one, as before
    b.apply_state({"max_n": "1024", "time_budget": 0.05}, strict=True)
    b.toggle_job("measure")
    qtbot.waitUntil(lambda: not b.jobs.is_running(), timeout=120_000)
    assert b.cost is not None
    assert b.view("time").panel.readout.text() == "Measured on cpu."

