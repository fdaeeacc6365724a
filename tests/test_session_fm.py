"""Session files of the Flows and Meta tabs: the user's points, the animation, every
session on screen and the evaluation come back; training goes on where it was; bad
content is refused naming the file, and the tab keeps what it had.

Each window costs ~30 s: each test opens two and checks several things in them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.session_checks import (
    assert_same_views,
    make_window,
    round_trip,
    settle,
    tab_of,
    train_steps,
    view_arrays,
)


def rewrite(path: str, out: Path, tab: str, change) -> str:
    """A copy of the session at ``path`` with ``change(TabState)`` applied to ``tab``."""
    from models.sessionfile import read_session, write_session

    doc = read_session(path)
    change(doc.tabs[tab])
    write_session(out, doc)
    return str(out)


def refused(win, path: str) -> str:
    """Open ``path`` in ``win``: it must be refused with one message naming the file."""
    from models.errors import SessionFileError

    errors = []
    win.report_error = lambda error, details: errors.append(error)
    assert not win.open_session(path)
    assert len(errors) == 1 and isinstance(errors[0], SessionFileError), errors
    assert Path(path).name in str(errors[0]), errors[0]
    return str(errors[0])


def set_array(key: str, value):
    def change(state):
        if value is None:
            state.arrays.pop(key)
        else:
            state.arrays[key] = value
    return change


# -- flows ---------------------------------------------------------------------------------------
def flows_state(tab) -> dict:
    return {"params": tab.params(), "points": tab.custom_points.copy(),
            "name": tab.custom_name, "step": tab.current_session().step,
            "losses": list(tab.current_session().losses), "position": tab.slider.value(),
            "views": view_arrays(tab)}


def assert_flows_kept(qtbot, tab, before: dict) -> None:
    settle(qtbot, tab)
    np.testing.assert_array_equal(tab.custom_points, before["points"])
    assert tab.custom_name == before["name"]
    assert tab.params() == before["params"]
    assert tab.current_session().step == before["step"]
    assert tab.current_session().losses == before["losses"]
    assert tab.slider.value() == before["position"]
    assert_same_views(before["views"], view_arrays(tab))


def test_flows_users_points_come_back_with_their_model_and_animation(qtbot, tmp_path):
    csv = tmp_path / "blob.csv"
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(400, 2)) * [3000.0, 1000.0] + [5e3, -2e3]   # far from unit scale
    csv.write_text("x,y\n" + "\n".join(f"{x:.6f},{y:.6f}" for x, y in pts))

    def prepare(tab):
        tab.open_file(str(csv))
        qtbot.waitUntil(lambda: tab.custom_points is not None, timeout=30_000)
        assert tab.standardise_button.isVisible()      # offered: far from unit scale
        qtbot.mouseClick(tab.standardise_button, Qt.MouseButton.LeftButton)
        tab.apply_state({"model": "nice", "layers": 4, "hidden": 32, "actnorm": True,
                         "direction": "inverse",
                         "points": 700, "grid": False, "seed": 11, "lr": 0.002}, strict=True)
        train_steps(tab, 30)
        tab.apply_state({"position": 2.5})

    a, b, path = round_trip(qtbot, "flows", tmp_path, prepare)
    # the standardised points, their name, the model trained on them, the animation
    np.testing.assert_array_equal(b.custom_points, a.custom_points)
    assert abs(float(b.custom_points.mean())) < 1e-3        # standardised, not the file's
    assert b.custom_name == a.custom_name == "blob.csv"
    assert b.params() == a.params() and b.params()["density"] == "custom"
    assert b.current_session().data == "custom" and b.current_session().step == 30
    assert b.current_session().losses == a.current_session().losses
    assert b.slider.value() == a.slider.value() == 250 and b.flow_view.t == 2.5
    assert not b.standardise_button.isVisible()
    assert_same_views(view_arrays(a), view_arrays(b))
    assert set(view_arrays(b)) == {"flow", "density", "nll", "logdet"}

    # bad content: refused naming the file, the tab keeps its points, model and picture
    win = b.window()
    before = flows_state(b)
    bad = {
        "nan": set_array("custom_points", np.full((400, 2), np.nan, np.float32)),
        "shape": set_array("custom_points", np.zeros((400, 3), np.float32)),
        "few": set_array("custom_points", rng.normal(size=(10, 2)).astype(np.float32)),
        "text": set_array("custom_points", np.array([["a", "b"]] * 60)),
        "none": set_array("custom_points", None),              # density "custom" without
        "position": lambda s: s.data.update(position=-1),
        # only 4 layers (and 4 ActNorms); for another density, whose model must not
        # keep the refused file's weights
        "beyond": lambda s: (s.data.update(position=99.0), s.params.update(density="rings")),
        "session": lambda s: s.data["sessions"].update(other=s.data["sessions"]["main"]),
        "layers": lambda s: s.params.update(layers=99),
    }
    messages = {}
    for key, change in bad.items():
        messages[key] = refused(win, rewrite(path, tmp_path / f"bad-{key}.archscope",
                                             "flows", change))
        assert_flows_kept(qtbot, b, before)
    assert "finite" in messages["nan"] and "(400, 3)" in messages["shape"]
    assert "at least 50" in messages["few"] and "real numbers" in messages["text"]
    assert "points" in messages["none"] and "beyond" in messages["beyond"]
    assert "'other'" in messages["session"] and "layers" in messages["layers"]
    # a whole-window file whose flows part is fine (trained, for "rings") but whose meta
    # part is not: refused, and the flows tab goes back to its own models
    from models.sessionfile import read_session, write_session

    doc = read_session(path)
    doc.tabs["flows"].params["density"] = "rings"
    doc.tabs["meta"] = tab_of(win, "meta").session_state()
    doc.tabs["meta"].arrays["support"] = np.full((2, 2), np.nan, np.float32)
    write_session(tmp_path / "bad-two-tabs.archscope", doc)
    assert "support" in refused(win, str(tmp_path / "bad-two-tabs.archscope"))
    assert_flows_kept(qtbot, b, before)
    b.apply_state({"density": "rings"}, strict=True)
    assert b.session().step == 0                   # no model left from the refused files
    b.apply_state({"density": "custom"}, strict=True)
    assert_flows_kept(qtbot, b, before)

    # training goes on from where it was, in both windows alike
    assert train_steps(a, 5) == train_steps(b, 5)


# -- meta ------------------------------------------------------------------------------------------
def meta_state(tab) -> dict:
    return {"params": tab.params(), "support": None if tab.support is None else
            tab.support.copy(), "meta": {m: list(v) for m, v in tab.session.losses.items()},
            "proto": (list(tab.proto.losses), list(tab.proto.accuracies)),
            "eval_step": tab.eval_result.step, "views": view_arrays(tab)}


def assert_meta_kept(qtbot, tab, before: dict) -> None:
    settle(qtbot, tab)
    assert tab.params() == before["params"]
    np.testing.assert_array_equal(tab.support, before["support"])
    assert {m: list(v) for m, v in tab.session.losses.items()} == before["meta"]
    assert (tab.proto.losses, tab.proto.accuracies) == before["proto"]
    assert tab.eval_result.step == before["eval_step"]
    assert_same_views(before["views"], view_arrays(tab))


@pytest.mark.slow
def test_meta_both_sessions_support_points_and_evaluation_come_back(qtbot, tmp_path):
    def prepare(tab):
        settle(qtbot, tab)                      # the start-up evaluation, done
        tab.apply_state({"k": "5", "task_seed": 21, "amp_max": 7.0, "family": "rings",
                         "n_way": 3, "k_shot": 4, "episode_seed": 5, "steps_shown": 3,
                         "methods": "maml,reptile,pretrained",
                         "input_regions": "baseline"}, strict=True)
        train_steps(tab, 8, "meta")
        tab.evaluate()
        tab.compute_now()                       # the evaluation, here and now
        assert tab.eval_result.step == 8
        train_steps(tab, 4, "meta")             # the view shows step 8's evaluation
        train_steps(tab, 25, "proto")
        settle(qtbot, tab)
        tab.add_point(1.5, -2.0)
        tab.move_point(0, -4.5, 1.25)
        tab.remove_point(2)

    a, b, path = round_trip(qtbot, "meta", tmp_path, prepare)
    assert b.params() == a.params() and b.params()["task_seed"] == 21
    assert b.params()["episode_seed"] == 5 and b.params()["steps_shown"] == 3
    assert len(b.support) == 5 and tuple(b.support[0]) == (-4.5, 1.25)
    np.testing.assert_array_equal(b.support, a.support)
    # every method's curve, the prototypical network's records, the evaluation shown
    assert b.session.step == 12 and b.proto.step == 25
    assert b.session.losses == a.session.losses and len(b.session.losses["maml"]) == 12
    assert (b.proto.losses, b.proto.accuracies) == (a.proto.losses, a.proto.accuracies)
    assert a.eval_result.step == b.eval_result.step == 8 and b.eval_result.k == 5 and b.eval_result.amp_max == 7.0
    assert set(view_arrays(b)) == {"adapt", "mse", "loss", "proto_input", "proto_embedding"}
    assert_same_views(view_arrays(a), view_arrays(b))

    # bad content: refused naming the file, the tab keeps both sessions and its picture
    win = b.window()
    before = meta_state(b)
    no_proto = lambda s: (s.data["sessions"].pop("proto"),            # noqa: E731
                          [s.tensors.pop(k) for k in list(s.tensors) if k.startswith("proto/")])
    bad = {
        "nan": set_array("support", np.array([[0.0, np.nan]], np.float32)),
        "shape": set_array("support", np.zeros((3, 3), np.float32)),
        "many": set_array("support", np.zeros((51, 2), np.float32)),
        "outside": set_array("support", np.array([[7.0, 0.0]], np.float32)),
        "eval": set_array("eval_mse", np.zeros((4, 3), np.float32)),
        "partial": no_proto,
        "weights": lambda s: [s.tensors.pop(k) for k in list(s.tensors)
                              if k.startswith("proto/model0.")],
        "unknown": lambda s: s.data["sessions"].update(other={}),
        "later": lambda s: s.data["evaluation"].update(step=99),
        "range": lambda s: s.params.update(n_way=99),
    }
    messages = {}
    for key, change in bad.items():
        messages[key] = refused(win, rewrite(path, tmp_path / f"bad-{key}.archscope",
                                             "meta", change))
        assert_meta_kept(qtbot, b, before)
    assert "finite" in messages["nan"] and "(3, 3)" in messages["shape"]
    assert "51 of them; at most 50" in messages["many"] and "x from -5" in messages["outside"]
    assert "mse" in messages["eval"] and "'proto' is missing" in messages["partial"]
    assert "missing" in messages["weights"] and "'other'" in messages["unknown"]
    assert "meta-step 99" in messages["later"] and "n_way" in messages["range"]

    # training goes on from where it was: every method, and the prototypical network
    assert train_steps(a, 3, "meta") == train_steps(b, 3, "meta")
    assert train_steps(a, 3, "proto") == train_steps(b, 3, "proto")


# -- saved while training, opened while training ------------------------------------------------
def _draw(qtbot, tab) -> None:
    qtbot.mouseClick(tab.draw_button, Qt.MouseButton.LeftButton)
    for i in range(8):
        tab.samples_view.add_drawn_point(np.cos(i) * 2.0, np.sin(2 * i) * 1.5)
    qtbot.mouseClick(tab.draw_button, Qt.MouseButton.LeftButton)


def test_saved_while_training_and_opening_stops_the_running_job(qtbot, tmp_path):
    from models.sessionfile import read_session

    win = make_window(qtbot)
    flows, meta = tab_of(win, "flows"), tab_of(win, "meta")
    paths = {}
    for tab, job in ((flows, "train"), (meta, "meta")):
        win.tabs_widget.setCurrentWidget(tab)
        if tab is flows:
            _draw(qtbot, flows)
            assert flows.params()["density"] == "custom" and len(flows.custom_points) == 96
        else:
            train_steps(meta, 5, "proto")
        tab.toggle_job(job)
        qtbot.waitUntil(lambda t=tab: t.current_session().step >= 6, timeout=60_000)
        paths[tab.key] = win.save_session(str(tmp_path / f"{tab.key}.archscope"))
        assert tab.running() == job                 # saved while it ran
        tab.stop_jobs()
    drawn = flows.custom_points.copy()
    # every session in the files is whole: as many of each record as steps
    saved = {}
    for key, path in paths.items():
        state = read_session(path).tabs[key]
        for name, info in state.data["sessions"].items():
            records = [v for k, v in state.tensors.items() if k.startswith(f"{name}/record")]
            assert records and all(len(r) == info["step"] for r in records), name
            saved[name] = info["step"]
    assert saved["main"] >= 6 and saved["meta"] >= 6

    win_b = make_window(qtbot)
    flows_b, meta_b = tab_of(win_b, "flows"), tab_of(win_b, "meta")
    win_b.tabs_widget.setCurrentWidget(flows_b)
    qtbot.mouseClick(flows_b.draw_button, Qt.MouseButton.LeftButton)   # drawing, unfinished
    flows_b.samples_view.add_drawn_point(0.0, 0.0)
    flows_b.toggle_job("train")
    meta_b.toggle_job("meta")
    qtbot.waitUntil(lambda: flows_b.current_session().step >= 3 and
                    meta_b.session.step >= 2, timeout=60_000)
    for tab, key in ((flows_b, "main"), (meta_b, "meta")):
        assert tab.running()
        assert win_b.open_session(paths[tab.key])
        assert tab.running() == ""                  # stopped
        session = tab.current_session()
        assert session.step == saved[key]
        qtbot.wait(400)                             # a step the stopped job was taking
        assert session.step == saved[key]           # went to the session it replaced
        losses = session.losses["maml"] if key == "meta" else session.losses
        assert len(losses) == saved[key]
    assert not flows_b.draw_button.isChecked()     # the unfinished drawing was dropped
    np.testing.assert_array_equal(flows_b.custom_points, drawn)
    assert meta_b.proto.step == meta.proto.step == 5
    # and training goes on from there
    flows_b.toggle_job("train")
    qtbot.waitUntil(lambda: flows_b.current_session().step >= saved["main"] + 3,
                    timeout=60_000)
    flows_b.stop_jobs()
    np.testing.assert_array_equal(flows_b.current_session().losses[:saved["main"]],
                                  read_session(paths["flows"]).tabs["flows"]
                                  .tensors["main/record0"].numpy())
