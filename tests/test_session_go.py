"""Session files of the graph and neural-ODE tabs: what a user saved comes back the same
(the arrays behind every view, the canvas, the curves), training goes on from where it
was, the graph the user opened comes back, and a session that does not fit is refused
with the window as it was."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from models.sessionfile import read_session, write_session
from tests.session_checks import (
    assert_same_views,
    make_window,
    round_trip,
    settle,
    tab_of,
    train_steps,
    view_arrays,
)

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"


def run_job(tab, name: str) -> None:
    """The tab's job ``name`` run to its end on this thread, each report handed to the
    tab as the job runner would (the node classifier's curves are kept that way)."""
    items = tab.make_job(name)()
    try:
        for item in items:
            tab.on_job_progress(name, item)
    finally:
        items.close()


def canvas_of(qtbot, tab) -> dict:
    """What the graph canvas draws once its nodes have moved to the layout: positions,
    edges, colours, edge values, the overlay, the node selected."""
    from PySide6.QtCore import QAbstractAnimation

    qtbot.waitUntil(lambda: tab.canvas._animation is None or tab.canvas._animation.state()
                    == QAbstractAnimation.State.Stopped, timeout=5_000)
    return {"canvas": {**tab.canvas.export_arrays(),
                       "selected": np.array([tab.canvas.selected()])}}


def next_losses(tab, steps: int = 4) -> dict[str, list[float]]:
    return {name: train_steps(tab, steps, name) for name in tab.saved_sessions()}


def graph_prepare(tab) -> None:
    tab.apply_state({"model": "gat", "epochs": 20, "edges": "gat", "head": "2",
                     "node": 5, "layout": "kamada_kawai", "pooling": "max",
                     "links": 6, "colour": "correct"}, strict=True)
    run_job(tab, "node")                    # 20 epochs, with the tab's curves
    run_job(tab, "compare")                 # GCN, GraphSAGE, GAT and the baseline
    train_steps(tab, 6, "graphs")
    train_steps(tab, 15, "links")


def test_a_trained_graph_tab_comes_back_with_every_session_and_trains_on(qtbot, tmp_path):
    a, b, path = round_trip(qtbot, "graph", tmp_path, graph_prepare)
    assert set(b.saved_sessions()) == {"node", "graphs", "links"}
    for name, session in a.saved_sessions().items():
        assert b.saved_sessions()[name].step == session.step, name
    assert b.saved_sessions()["links"].best_epoch == a.saved_sessions()["links"].best_epoch
    assert b.params() == a.params()
    assert len(b.histories[b._session_key()]) == len(a.histories[a._session_key()]) > 1
    assert_same_views(view_arrays(a), view_arrays(b))
    assert_same_views(canvas_of(qtbot, a), canvas_of(qtbot, b))
    assert b.canvas.selected() == 5 and b.canvas.overlay_edge_count() == 6
    assert next_losses(a) == next_losses(b)


def test_a_graph_the_user_opened_comes_back_with_its_attributes(qtbot, tmp_path):
    def prepare(tab):
        tab.open_file(str(GEPHI / "Les_Miserables.gexf"))
        tab.apply_state({"label": "Modularity Class", "colour": "attribute",
                         "colour_attribute": "Modularity Class", "edges": "weight",
                         "layout": "data", "epochs": 10}, strict=True)
        run_job(tab, "node")

    a, b, _ = round_trip(qtbot, "graph", tmp_path, prepare)
    assert b.params()["dataset"] == "file" and b.file_name == "Les_Miserables.gexf"
    da, db = a.document(), b.document()
    assert db is not da and db.node_ids == da.node_ids and db.summary() == da.summary()
    np.testing.assert_array_equal(db.edges, da.edges)
    np.testing.assert_array_equal(db.edge_weight, da.edge_weight)
    np.testing.assert_array_equal(db.pos, da.pos)
    assert db.label_attr == "Modularity Class" and db.label_names == da.label_names
    assert b.colour_combo.currentData() == "Modularity Class"
    assert "Les_Miserables.gexf" in b.view("graph").panel.title.text()
    assert b.note.text() == a.note.text()
    assert_same_views(view_arrays(a), view_arrays(b))
    assert_same_views(canvas_of(qtbot, a), canvas_of(qtbot, b))
    assert next_losses(a, 3) == next_losses(b, 3)


# -- refusals -------------------------------------------------------------------------------
def tampered(path: str, out: Path, change) -> str:
    doc = read_session(path)
    change(doc.tabs[doc.current])
    write_session(out, doc)
    return str(out)


def _wrong_best_weight(state):
    key = next(k for k in state.tensors if k.startswith("links/extra.best."))
    state.tensors[key] = torch.zeros(3, 3)


def _wrong_weight(state):
    key = next(k for k in state.tensors if k.startswith("node/model0."))
    state.tensors[key] = torch.zeros(2, 2)


def _edge_out_of_range(state):
    edges = state.arrays["file.edges"].copy()
    edges[7, 1] = state.data["file"]["nodes"] + 3
    state.arrays["file.edges"] = edges


def _negative_edge(state):
    edges = state.arrays["file.edges"].copy()
    edges[0, 0] = -1
    state.arrays["file.edges"] = edges


def _infinite_weight(state):
    meta = state.data["file"]
    i = next(i for i, c in enumerate(meta["edge_attributes"]) if c["name"] == "weight")
    weights = state.arrays[f"file.edge{i}"].copy()
    weights[3] = np.inf
    state.arrays[f"file.edge{i}"] = weights


def _short_attribute(state):
    i = next(i for i, c in enumerate(state.data["file"]["node_attributes"])
             if c["kind"] == "number")
    state.arrays[f"file.node{i}"] = state.arrays[f"file.node{i}"][:5]


def _text_offsets(state):
    i = next(i for i, c in enumerate(state.data["file"]["node_attributes"])
             if c["kind"] == "text")
    offsets = state.arrays[f"file.node{i}_at"].copy()
    offsets[3] = 10**9
    state.arrays[f"file.node{i}_at"] = offsets


def _repeated_node_id(state):
    from models.graphs.saved import pack_strings, unpack_strings

    ids = unpack_strings(state.arrays["file.ids"], state.arrays["file.ids_at"],
                         state.data["file"]["nodes"], "ids", "")
    ids[1] = ids[0]
    state.arrays["file.ids"], state.arrays["file.ids_at"] = pack_strings(ids)


def _too_many_nodes(state):
    state.data["file"]["nodes"] = 10**9


def _layout_rows(state):
    state.arrays["layout"] = state.arrays["layout"][:-1]


def _layout_nan(state):
    layout = state.arrays["layout"].copy()
    layout[2, 0] = np.nan
    state.arrays["layout"] = layout


def _unknown_session(state):
    state.data["sessions"]["nodes"] = state.data["sessions"].pop("node")


def _missing_weights(state):
    for key in [k for k in state.tensors if k.startswith("links/model0.")]:
        del state.tensors[key]


def _node_out_of_range(state):
    state.params["node"] = 10**8


def _history_float32(state):
    state.arrays["history"] = state.arrays["history"].astype(np.float32)


REFUSED = [
    (_wrong_best_weight, "best weights do not fit"),
    (_wrong_weight, "do not fit"),
    (_edge_out_of_range, "joins nodes"),
    (_negative_edge, "joins nodes"),
    (_infinite_weight, "not a finite number"),
    (_short_attribute, "float32"),
    (_text_offsets, "offsets"),
    (_repeated_node_id, "not unique"),
    (_too_many_nodes, "nodes"),
    (_layout_rows, "layout"),
    (_layout_nan, "layout"),
    (_unknown_session, "no training session"),
    (_missing_weights, "missing"),
    (_node_out_of_range, "node"),
    (_history_float32, "history"),
]


def test_a_graph_session_that_does_not_fit_is_refused_and_the_tab_stays_as_it_was(
        qtbot, tmp_path):
    win = make_window(qtbot)
    tab = tab_of(win, "graph")
    win.tabs_widget.setCurrentWidget(tab)
    tab.open_file(str(GEPHI / "Les_Miserables.gexf"))
    tab.apply_state({"epochs": 10, "edges": "weight"}, strict=True)
    run_job(tab, "node")
    train_steps(tab, 10, "links")
    settle(qtbot, tab)
    good = win.save_session(str(tmp_path / "good.archscope"))
    # the tab as the user has it now: the karate club, a GCN trained a little
    tab.apply_state({"dataset": "karate", "model": "gcn", "node": 3}, strict=True)
    train_steps(tab, 7, "node")
    settle(qtbot, tab)
    before = view_arrays(tab)
    steps = {k: s.step for k, s in tab.saved_sessions().items()}
    errors = []
    win.report_error = lambda error, details: errors.append(str(error))
    for i, (change, words) in enumerate(REFUSED):
        path = tampered(good, tmp_path / f"bad{i}.archscope", change)
        assert not win.open_session(path), change.__name__
        assert f"bad{i}.archscope" in errors[-1] and words in errors[-1], \
            (change.__name__, errors[-1])
        settle(qtbot, tab)
        assert tab.params()["dataset"] == "karate" and tab.params()["node"] == 3
        assert {k: s.step for k, s in tab.saved_sessions().items()} == steps
        assert_same_views(before, view_arrays(tab))
    # and the good one opens
    assert win.open_session(good), errors[-1:]
    settle(qtbot, tab)
    assert tab.params()["dataset"] == "file" and tab.params()["edges"] == "weight"
