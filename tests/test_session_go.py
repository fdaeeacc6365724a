"""Session files of the graph and neural-ODE tabs: what a user saved comes back the same
(the arrays behind every view, the canvas, the curves), training goes on from where it
was, the graph the user opened comes back, and a session that does not fit is refused
with the window as it was."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# -- the sessions themselves -----------------------------------------------------------------
def test_a_run_begun_before_a_session_is_opened_ends_without_another_step():
    from models.graphs import NodeClassificationSession, builtin_graph

    data = builtin_graph("karate", seed=0).data
    saved = NodeClassificationSession(data, "gcn", seed=1)
    train_run = saved.train(7)
    list(train_run)
    tensors, meta = saved.save_state()
    s = NodeClassificationSession(data, "gcn", seed=1)
    run = s.train(100)
    next(run), next(run)                     # a job has trained two epochs ...
    s.load_state(tensors, meta, "f.archscope")   # ... when a session is opened into it
    with pytest.raises(StopIteration):
        next(run)
    assert s.step == 7 and len(s.losses) == 7


def test_the_link_predictor_trains_the_same_whatever_pythons_random_state():
    """PyG draws the negatives with Python's ``random``: seeded from the session, so a
    session opened elsewhere goes on with the same negatives (the state outside is kept)."""
    import random

    from models.graphs import LinkPredictionSession, builtin_graph

    data = builtin_graph("karate", seed=0).data
    losses = []
    for outside in (1, 2):
        random.seed(outside)
        s = LinkPredictionSession(data, seed=3)
        losses.append([p.loss for p in s.train(6)])
        assert random.random() == random.Random(outside).random()   # left as it was
    assert losses[0] == losses[1]


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


@pytest.mark.slow
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


# -- the neural-ODE tab ---------------------------------------------------------------------------
def ode_prepare(qtbot, tab) -> None:
    tab.apply_state({"task": "spiral", "hidden": 16, "lr": 0.01, "max_nfe": 2000},
                    strict=True)
    train_steps(tab, 8)
    tab.apply_state({"method": "rk4", "step_size": 0.1}, strict=True)   # from step 9 on
    key = tab._session_key()
    qtbot.waitUntil(lambda: len(tab.switches[key]) == 2, timeout=10_000)
    train_steps(tab, 5)
    tab.add_start(0.5, -1.0)
    tab.add_start(-1.5, 0.25)
    tab.apply_state({"t": 0.4}, strict=True)


@pytest.mark.slow
def test_a_trained_ode_comes_back_with_its_records_solver_starts_and_comparison(
        qtbot, tmp_path):
    a, b, _ = round_trip(qtbot, "ode", tmp_path, lambda tab: ode_prepare(qtbot, tab))
    sa, sb = a.current_session(), b.current_session()
    assert sb.step == 13 and sb.solver == sa.solver and sb.solver.method == "rk4"
    for record in ("losses", "nfe_forward", "nfe_backward", "step_seconds"):
        assert getattr(sb, record) == getattr(sa, record), record
    assert b.switches[b._session_key()] == a.switches[a._session_key()]
    assert b.starts == a.starts and len(b.starts["spiral"]) == 2
    assert b.t_fraction() == pytest.approx(0.4)
    views_a, views_b = view_arrays(a), view_arrays(b)
    assert "your_paths" in views_b["field"] and "comparison" in views_b["adjoint"]
    assert_same_views(views_a, views_b)
    # the comparison measured on the saving machine is shown, not measured again
    ca, cb = (t.comparisons[t._session_key()]["result"] for t in (a, b))
    assert (cb.seconds_direct, cb.seconds_adjoint) == (ca.seconds_direct, ca.seconds_adjoint)
    assert b.view("adjoint").panel.readout.text() == a.view("adjoint").panel.readout.text()
    assert train_steps(a, 3) == train_steps(b, 3)


def _ode_nan_start(state):
    state.data["starts"]["spiral"] = [[0.5, "nan"]]       # JSON has no NaN: as text


def _ode_too_many_starts(state):
    state.data["starts"]["cnf"] = [[0.1 * i, 0.0] for i in range(50)]


def _ode_time(state):
    state.data["t"] = 3.5


def _ode_comparison_shape(state):
    state.arrays["comparison"] = state.arrays["comparison"][:4]


def _ode_solver(state):
    state.data["sessions"]["main"]["extra"]["solver"]["rtol"] = 5.0


def _ode_weight(state):
    key = next(k for k in state.tensors if k.startswith("main/model0."))
    state.tensors[key] = torch.zeros(7)


def _ode_switches(state):
    state.data["switches"] = [[9, "rk4"], [0, "dopri5"]]


def _ode_hidden(state):
    state.params["hidden"] = 100_000


ODE_REFUSED = [
    (_ode_nan_start, "starts"), (_ode_too_many_starts, "at most 8"), (_ode_time, "fraction"),
    (_ode_comparison_shape, "comparison"), (_ode_solver, "rtol"), (_ode_weight, "do not fit"),
    (_ode_switches, "switches"), (_ode_hidden, "hidden"),
]


@pytest.mark.slow
def test_an_ode_session_saved_while_training_opens_stopped_and_bad_ones_are_refused(
        qtbot, tmp_path):
    """Saved while the job trains (each session's lock: never half a step), opened into
    a tab whose own training runs (stopped first, and no step after), refused when it
    does not fit (the tab as it was)."""
    win = make_window(qtbot)
    tab = tab_of(win, "ode")
    win.tabs_widget.setCurrentWidget(tab)
    ode_prepare(qtbot, tab)
    settle(qtbot, tab)
    tab.toggle_training()
    qtbot.waitUntil(lambda: tab.current_session().step >= 16, timeout=60_000)
    good = win.save_session(str(tmp_path / "running.archscope"))
    assert tab.running() == "train"
    saved = read_session(good).tabs["ode"]
    meta = saved.data["sessions"]["main"]
    assert meta["step"] >= 16
    for j in range(4):           # loss, NFE forward, NFE backward, seconds: one per step
        assert len(saved.tensors[f"main/record{j}"]) == meta["step"]
    # opening stops the running training, and the file's state is not trained further
    assert win.open_session(good)
    assert not tab.running() and not tab.jobs.is_running()
    session = tab.current_session()
    step = session.step
    assert step == meta["step"]
    qtbot.wait(1500)
    assert session.step == step and len(session.losses) == step
    settle(qtbot, tab)
    first = train_steps(tab, 3)
    assert win.open_session(good)
    settle(qtbot, tab)
    assert train_steps(tab, 3) == first          # from the file, the same steps each time
    # the tab as the user has it now, then files that do not fit
    tab.apply_state({"task": "classify", "hidden": 8}, strict=True)
    train_steps(tab, 4)
    tab.add_start(0.2, 0.3)
    settle(qtbot, tab)
    before, starts = view_arrays(tab), {k: list(v) for k, v in tab.starts.items()}
    errors = []
    win.report_error = lambda error, details: errors.append(str(error))
    for i, (change, words) in enumerate(ODE_REFUSED):
        path = tampered(good, tmp_path / f"bad{i}.archscope", change)
        assert not win.open_session(path), change.__name__
        assert f"bad{i}.archscope" in errors[-1] and words in errors[-1], \
            (change.__name__, errors[-1])
        settle(qtbot, tab)
        assert tab.params()["task"] == "classify" and tab.current_session().step == 4
        assert tab.starts == starts
        assert_same_views(before, view_arrays(tab))


@pytest.mark.slow
def test_the_communities_found_come_back_with_their_colours_soft_assignment_and_loss(
        qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"community_method": "dmon", "communities": 4,
                         "community_epochs": 40, "community_seed": 2,
                         "nmi_attribute": "club"}, strict=True)
        run_job(tab, "communities")

    a, b, _ = round_trip(qtbot, "graph", tmp_path, prepare)
    ra, rb = a.communities.current(), b.communities.current()
    assert rb is not None and rb.method == "dmon" and rb.k == ra.k
    np.testing.assert_array_equal(rb.labels, ra.labels)
    np.testing.assert_array_equal(rb.soft, ra.soft)
    np.testing.assert_array_equal(rb.loss, ra.loss)
    assert (rb.modularity, rb.nmi, rb.nmi_attribute) == (ra.modularity, ra.nmi, "club")
    assert b.params()["colour"] == "community" and b.communities.nmi_combo.currentData() == "club"
    assert b.communities.readout.text() == a.communities.readout.text()
    assert_same_views(view_arrays(a), view_arrays(b))
    assert_same_views(canvas_of(qtbot, a), canvas_of(qtbot, b))
    assert b.canvas.node_alpha(int(np.argmin(rb.soft.max(axis=1)))) < 255


@pytest.mark.slow
def test_the_explanation_shown_comes_back_with_its_masks_and_fidelities(qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"model": "gcn", "epochs": 30, "train_per_class": 2}, strict=True)
        run_job(tab, "node")
        tab.apply_state({"node": 33})
        tab.explaining.form.set_values({"explain_method": "gnnexplainer", "explain_epochs": 30})
        run_job(tab, "explain")
        assert tab.explaining.current() is not None

    a, b, path = round_trip(qtbot, "graph", tmp_path, prepare)
    xa, xb = a.explaining.current(), b.explaining.current()
    assert xb is not None and xb.node == 33 and xb.method == "gnnexplainer"
    for field in ("edge_index", "edge_mask", "explanation_edges", "feature_mask", "loss"):
        np.testing.assert_array_equal(getattr(xb, field), getattr(xa, field), err_msg=field)
    assert (xb.fidelity_plus, xb.fidelity_minus, xb.prob_full) == \
        (xa.fidelity_plus, xa.fidelity_minus, xa.prob_full)
    assert b.explaining.readout.text() == a.explaining.readout.text()
    assert_same_views(canvas_of(qtbot, a), canvas_of(qtbot, b))
    # training on makes it stale, as in the window that explained it
    run_job(b, "node")
    assert b.explaining.current() is None
    # opened into a window that shows another, smaller graph: drawn with karate, once
    # karate's result is in (the florentine result still shown must not be used)
    win_c = make_window(qtbot)
    c = tab_of(win_c, "graph")
    win_c.tabs_widget.setCurrentWidget(c)
    c.apply_state({"dataset": "florentine"}, strict=True)
    settle(qtbot, c)
    errors = []
    win_c.report_error = lambda error, details: errors.append(error)
    assert win_c.open_session(path), errors
    settle(qtbot, c)
    assert c.explaining.current() is not None and c.result.doc.num_nodes == 34
    assert c.explaining.readout.text() == a.explaining.readout.text()


def test_an_explanation_without_its_classifier_or_out_of_range_is_refused():
    from models.errors import SessionFileError
    from models.explain.saved import explanation_from_state, explanation_state
    from models.traces.explain import NodeExplanation

    x = NodeExplanation(node=3, method="gnnexplainer", predicted=1, label=1,
                        edge_index=np.array([[0, 1, 3], [1, 3, 0]], np.int64),
                        edge_mask=np.array([0.1, 0.9, 0.5], np.float32),
                        explanation_edges=np.array([False, True, True]),
                        feature_mask=np.zeros(4, np.float32), fidelity_plus=1.0,
                        fidelity_minus=0.0, prob_full=0.8, prob_explanation=0.7,
                        prob_complement=0.2, loss=np.ones(5, np.float32))
    meta, arrays = explanation_state(x)
    back = explanation_from_state(meta, arrays, num_nodes=4, num_features=4)
    np.testing.assert_array_equal(back.edge_mask, x.edge_mask)
    assert back.node == 3 and back.prob_full == 0.8
    for change, words in (
            (lambda m, a: m.update(node=4), "node 4"),
            (lambda m, a: m.update(method="saliency"), "no method"),
            (lambda m, a: m.update(prob_full=float("nan")), "prob_full"),
            (lambda m, a: a.update({"explanation.edge_index": np.array([[0], [9]])}),
             "edges"),
            (lambda m, a: a.update({"explanation.edge_mask": np.full(3, 2, np.float32)}),
             "edge mask"),
            (lambda m, a: a.update({"explanation.feature_mask": np.zeros(5, np.float32)}),
             "feature mask"),
            (lambda m, a: m.update(predicted=-7), "class of -7"),
            (lambda m, a: a.pop("explanation.loss"), "lacks its loss")):
        m, arr = dict(meta), dict(arrays)
        change(m, arr)
        with pytest.raises(SessionFileError, match=words):
            explanation_from_state(m, arr, num_nodes=4, num_features=4, name="x.archscope")
    with pytest.raises(SessionFileError, match="over 3 edges; the classifier's graph has 5"):
        explanation_from_state(meta, arrays, num_nodes=4, num_features=4, num_edges=5)
    # and without the classifier it belongs to
    from types import SimpleNamespace

    from app.tabs.graph.state import _restore_explanation

    panel = SimpleNamespace(explanation=("old", None))
    with pytest.raises(SessionFileError, match="holds none"):
        _restore_explanation(panel, (meta, arrays), None, "x.archscope")
    assert panel.explanation is None
