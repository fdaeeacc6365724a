"""The graph tab driven as a person would: pick a node, switch what the edges show,
train, open Gephi's own files and broken ones, save for Gephi, run the tour."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from figure_checks import english_words
from figure_checks import view_marks as drawn_marks

from app.tabs.graph import GraphTab
from app.tabs.graph.views.graph import node_name
from tests.windows import open_tab
from viz.legend import drawn_geometry

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"
HOSTILE = Path(__file__).parent / "data" / "hostile"


@pytest.fixture
def tab(qtbot, window) -> GraphTab:
    t = open_tab(qtbot, window, "graph")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def _settle(qtbot, tab, check, timeout=30_000):
    qtbot.waitUntil(lambda: tab.result is not None and check(tab.result), timeout=timeout)


def test_karate_club_is_drawn_with_its_four_communities(tab):
    r = tab.result
    assert r.doc.data.num_nodes == 34 and len(r.doc.edges) == 78
    assert tab.canvas.node_count() == 34
    assert set(np.unique(r.doc.labels)) == {0, 1, 2, 3}
    assert "34" in tab.view("graph").panel.title.text()


def test_clicking_a_node_shows_its_messages_from_the_real_layer(qtbot, tab):
    tab.canvas.nodeClicked.emit(33)
    _settle(qtbot, tab, lambda r: r.message is not None and r.message.node == 33)
    m = tab.result.message
    # node 33's neighbours plus its self-loop send the messages of layer 1
    doc = tab.result.doc
    neighbours = {int(b) if int(a) == 33 else int(a) for a, b in doc.edges if 33 in (a, b)}
    assert set(m.neighbors.tolist()) == neighbours | {33}
    assert m.max_abs_difference < 1e-4
    assert "33" in tab.view("messages").panel.title.text()
    # every label names the row drawn beside it; margin rows above and below keep the
    # first and last labels inside the view
    matrix = tab.messages_view.plot.matrix()
    ticks = dict(tab.messages_view.plot.plotItem.getAxis("left")._tickLevels[0])
    assert np.isnan(matrix[0]).all() and np.isnan(matrix[-1]).all()
    for row, text in ticks.items():
        if "c=" in text:
            i = int(row) - int(np.isnan(matrix).all(axis=1).argmin())   # below the margin
            assert text.split()[0] == str(node_name(tab.result, int(m.neighbors[i])))
            np.testing.assert_allclose(matrix[int(row)], m.messages[i], atol=1e-6)
        elif text.startswith("aggregate"):
            np.testing.assert_allclose(matrix[int(row), :len(m.aggregate)], m.aggregate,
                                       atol=1e-6)
        else:
            np.testing.assert_allclose(matrix[int(row), :len(m.update)], m.update, atol=1e-6)
    # the labels a line apart, and half a line from the view's edges
    assert _message_labels_spaced(tab)
    # the receptive field is highlighted on the canvas: hop 0 is the node itself
    assert m.hops[33] == 0 and (m.hops >= 0).sum() > len(neighbours)
    tab.apply_state({"aggregation": "max"})
    _settle(qtbot, tab, lambda r: r.message.aggregation == "max")
    assert "max" in tab.view("messages").panel.readout.text()


def _message_labels_spaced(tab) -> bool:
    """The messages heatmap's row names a line apart, and half a line inside its view."""
    from PySide6.QtGui import QFontMetricsF

    matrix = tab.messages_view.plot.matrix()
    ticks = dict(tab.messages_view.plot.plotItem.getAxis("left")._tickLevels[0])
    axis = tab.messages_view.plot.plotItem.getAxis("left")
    line = QFontMetricsF(axis.style.get("tickFont") or axis.font()).height()
    pitch = tab.messages_view.plot.plotItem.vb.height() / matrix.shape[0]
    rows = sorted(int(r) for r in ticks)
    return bool((np.diff(rows) * pitch >= line - 0.5).all()
                and (rows[0] + 0.5) * pitch >= line / 2 - 0.5
                and (matrix.shape[0] - rows[-1] - 0.5) * pitch >= line / 2 - 0.5)


def test_the_messages_rows_are_spaced_again_when_the_view_changes_size(qtbot, window, tab):
    """Drawn at one size, the heatmap keeps its row names a line apart at another: drawn
    in a tall window (every name, few empty rows), then a small one (more empty rows,
    fewer names), then the tall one again."""
    window.resize(1500, 1500)
    try:
        qtbot.wait(100)
        tab.canvas.nodeClicked.emit(33)                  # 18 neighbours' rows
        _settle(qtbot, tab, lambda r: r.message is not None and r.message.node == 33)
        qtbot.waitUntil(lambda: _message_labels_spaced(tab), timeout=5_000)
        tall = tab.messages_view.plot.plotItem.vb.height()
        first = tab.messages_view.plot.matrix().shape[0]
        for size in ((1280, 800), (1500, 1500)):
            window.resize(*size)
            qtbot.wait(100)
            assert _message_labels_spaced(tab), (size, tab.messages_view.plot.plotItem.vb.height(),
                                                 tall)
        assert tab.messages_view.plot.matrix().shape[0] == first   # back where it started
    finally:
        window.resize(1500, 940)


def test_gcn_coefficients_and_gat_attention_reach_the_canvas(qtbot, tab):
    tab.apply_state({"edges": "gcn", "model": "gcn"})
    _settle(qtbot, tab, lambda r: r.gcn is not None)   # computed when shown
    gcn = tab.result.gcn
    assert gcn.edge_index.shape[1] == 2 * 78 + 34          # both directions + self-loops
    # every one of them drawn, in a few colour bins
    qtbot.waitUntil(lambda: len(np.unique(np.concatenate(tab.canvas.edge_item_edges)))
                    == 190, timeout=20_000)
    assert 1 < len(tab.canvas.edge_item_edges) <= 16
    tab.apply_state({"edges": "gat", "model": "gat", "head": "2"})
    _settle(qtbot, tab, lambda r: r.gat is not None)
    gat = tab.result.gat
    alpha = gat.values[:, 1]
    into = np.bincount(gat.edge_index[1], weights=alpha, minlength=34)
    np.testing.assert_allclose(into, 1.0, atol=1e-5)


def test_training_switches_the_colours_to_predictions(qtbot, tab):
    tab.apply_state({"model": "gcn", "epochs": 120, "colour": "prediction"})
    tab.toggle_job("node")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
    _settle(qtbot, tab, lambda r: r.node.epoch == 120)
    node = tab.result.node
    assert node.train_acc == 1.0 and node.test_acc > 0.4
    history = tab.histories[tab._session_key()]
    assert history[-1]["epoch"] == 120 and history[-1]["loss"] < history[0]["loss"]
    assert tab.train_button.text() == "Train more"


def test_an_unlabelled_graph_is_drawn_and_training_says_what_to_do(qtbot, tab, tmp_path,
                                                                    monkeypatch):
    errors = []
    monkeypatch.setattr(tab.ctx, "report_error", lambda e, d: errors.append(e))
    path = tmp_path / "ring.csv"
    path.write_text("source,target\n" + "\n".join(f"a{i},a{(i + 1) % 12}" for i in range(12)))
    tab.open_file(str(path))
    _settle(qtbot, tab, lambda r: r.doc.data.num_nodes == 12)
    tab.toggle_job("node")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert "label" in str(errors[0]).lower()


@pytest.mark.parametrize(("name", "nodes", "edges"), [
    ("Les_Miserables.gexf", 77, 254), ("football.graphml", 115, 613), ("label.gml", 3, 2)])
def test_gephi_files_open_with_their_counts(qtbot, tab, name, nodes, edges):
    tab.open_file(str(GEPHI / name))
    _settle(qtbot, tab, lambda r: r.doc.data.num_nodes == nodes)
    assert len(tab.result.doc.edges) == edges
    assert tab.canvas.node_count() == nodes
    assert name in tab.view("graph").panel.title.text()


def test_choosing_a_label_attribute_rebuilds_the_labels(qtbot, tab):
    tab.open_file(str(GEPHI / "Les_Miserables.gexf"))
    _settle(qtbot, tab, lambda r: r.doc.data.num_nodes == 77)
    combo = tab.label_combo
    assert combo.findData("Modularity Class") >= 0
    combo.setCurrentIndex(combo.findData(None))                # "(none)"
    _settle(qtbot, tab, lambda r: (r.doc.labels < 0).all())
    combo.setCurrentIndex(combo.findData("Modularity Class"))
    _settle(qtbot, tab, lambda r: len(np.unique(r.doc.labels)) > 3)


def test_negative_weights_are_named_in_the_note_and_the_views_still_draw(qtbot, tab,
                                                                         monkeypatch):
    """Issue 19: negative edge weights were trained with, and the embedding's PCA then
    failed ("SVD did not converge"). Now the note names the edges and says what GCN's
    normalisation would do; the models train without the weights, and every view draws."""
    errors = []
    monkeypatch.setattr(tab.ctx, "report_error", lambda e, d: errors.append(e))
    tab.open_file(str(HOSTILE / "weights_negative.csv"))
    _settle(qtbot, tab, lambda r: r.doc.data.num_nodes == 12)
    note = tab.note.text()
    assert "2 edges have a negative weight: (2, 3): -3, (6, 7): -0.5" in note, note
    assert "1/sqrt(deg(u) deg(v))" in note
    assert np.isfinite(tab.result.node.embedding).all()
    assert tab.canvas.node_count() == 12 and not errors


def test_a_broken_file_is_refused_and_the_graph_is_kept(qtbot, tab, tmp_path):
    from models.errors import GraphLoadError

    before = tab.result.doc
    bad = tmp_path / "bomb.graphml"
    bad.write_text('<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaaaaaaaa">'
                   '<!ENTITY b "&a;&a;&a;&a;&a;&a;">]><graphml>&b;</graphml>')
    with pytest.raises(GraphLoadError):
        tab.open_file(str(bad))
    assert tab.document() is before and tab.params()["dataset"] == "karate"


def test_saved_graphml_reopens_in_networkx_with_predictions_and_coefficients(qtbot, tab,
                                                                            tmp_path):
    tab.apply_state({"model": "gat", "edges": "gat"})
    _settle(qtbot, tab, lambda r: r.gat is not None)
    out = tab.save_graph(str(tmp_path / "karate.graphml"))
    g = nx.read_graphml(out)
    assert g.number_of_nodes() == 34 and g.number_of_edges() == 78
    node = next(iter(g.nodes(data=True)))[1]
    assert "prediction" in node and "gcn_coefficient_self" in node
    edge = next(iter(g.edges(data=True)))[2]
    assert {"gcn_coefficient", "gcn_coefficient_reverse", "gat_alpha"} <= set(edge)
    # a GCN coefficient of an undirected edge is the same both ways
    assert all(abs(d["gcn_coefficient"] - d["gcn_coefficient_reverse"]) < 1e-6
               for _, _, d in g.edges(data=True))
    gexf = tab.save_graph(str(tmp_path / "karate.gexf"))
    assert nx.read_gexf(gexf).number_of_nodes() == 34
    assert not list(tmp_path.glob("*.part"))


def test_graph_classification_and_link_prediction_train(qtbot, tab):
    tab.apply_state({"batch_graphs": 4})
    _settle(qtbot, tab, lambda r: len(r.batch.ptr) == 5)
    b = tab.result.batch
    assert b.adjacency.shape == (b.ptr[-1], b.ptr[-1])
    tab.toggle_job("graphs")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=90_000)
    _settle(qtbot, tab, lambda r: r.graphs is not None)
    assert tab.result.graphs.test_acc > 0.8
    tab.toggle_job("links")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=90_000)
    _settle(qtbot, tab, lambda r: r.link is not None)
    link = tab.result.link
    assert 0.0 <= link.test_auc <= 1.0 and len(link.top_pairs) > 0
    assert tab.canvas.overlay_edge_count() == min(10, len(link.top_pairs))


def test_every_tour_step_applies(qtbot, tab):
    steps = tab.tour_steps()
    assert 8 <= len(steps) <= 14          # 13: with communities, DMoN and explanations
    for i, step in enumerate(steps):
        tab.tour.go_to(i)
        assert [v.key for v in tab.views if v.panel.is_highlighted()] == [
            step.state["highlight"]]
        params = tab.params()
        for k, v in step.state.items():
            if k in params:
                assert params[k] == v, (step.id, k)
        tab.jobs.stop()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)


def test_a_view_setting_does_not_stop_training_and_a_node_fits_the_new_graph(qtbot, tab):
    tab.apply_state({"epochs": 100000})
    tab.toggle_job("node")
    qtbot.waitUntil(tab.jobs.is_running, timeout=10_000)
    tab.apply_state({"aggregation": "max", "batch_graphs": 2, "edges": "gcn"})
    assert tab.jobs.is_running() and tab.running() == "node"
    tab.toggle_job("node")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    # the node is set after the graph, so it may exceed the old graph's size
    tab.apply_state({"dataset": "les_miserables", "node": 50})
    assert tab.params()["node"] == 50
    _settle(qtbot, tab, lambda r: r.message is not None and r.message.node == 50)


def test_a_label_the_graph_lacks_is_refused_and_the_graph_keeps_working(qtbot, tab):
    from models.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError):
        tab.apply_state({"label": "no such attribute"}, strict=True)
    tab.apply_state({"node": 3})
    _settle(qtbot, tab, lambda r: r.message is not None and r.message.node == 3)


def test_compare_button_trains_the_three_models_and_the_baseline(qtbot, tab):
    from PySide6.QtCore import Qt

    tab.apply_state({"epochs": 20})
    qtbot.mouseClick(tab.compare_button, Qt.MouseButton.LeftButton)
    assert tab.running() == "compare" and tab.compare_button.text() == "Stop"
    assert tab.train_button.text() in ("Train", "Train more")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
    c = tab.comparisons[tab._compare_key()]
    assert set(c.kinds) == {"gcn", "sage", "gat", "baseline"}
    assert ((c.test_acc >= 0) & (c.test_acc <= 1)).all()
    assert tab.compare_button.text() == "Compare"
    qtbot.waitUntil(lambda: "GraphSAGE" in tab.view("compare").panel.readout.text(),
                    timeout=10_000)
    # the bars drawn: untrained and trained accuracy of the four, as compared
    accuracy = tab.view("compare").data().arrays["accuracy"]
    trained = [c.as_dict()[k] for k in ("gcn", "sage", "gat", "baseline")]
    assert accuracy.shape == (4, 2)
    np.testing.assert_allclose(accuracy[:, 1], trained)
    qtbot.waitUntil(lambda: len(tab.compare_view.plot._bars) == 2 and np.isfinite(    # redrawn
        tab.compare_view.plot._bars[1].opts["height"]).all(), timeout=10_000)  # when it ends
    bars = tab.compare_view.plot._bars
    np.testing.assert_allclose(bars[1].opts["height"], trained)
    assert all(r.height() > 0 for r in drawn_geometry([bars[1]], None)[1])


def test_every_view_is_in_sight_at_1600_by_1000(qtbot, window, tab):
    """The mini-batch view was a fourth row, below the fold at 1600 × 1000: every view
    of the tab is now inside the grid's visible part, whole, without scrolling; at
    1280 × 800 the three columns stay (four would scroll sideways)."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=3000)
    qtbot.wait(200)
    area = next(a for a in tab.findChildren(QScrollArea) if a.widget() is not None
                and a.widget().isAncestorOf(tab.views[0].panel))
    assert area.verticalScrollBar().value() == 0
    sight = area.viewport().rect()
    for view in tab.views:
        panel = view.panel
        rect = QRect(panel.mapTo(area.viewport(), panel.rect().topLeft()), panel.size())
        assert sight.contains(rect), (view.key, rect, sight)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=3000)
    qtbot.wait(200)
    bar = area.horizontalScrollBar()
    assert not (bar.isVisible() and bar.maximum()), bar.maximum()
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=3000)
    qtbot.wait(200)
    batch = tab.view("batch").panel
    assert area.viewport().rect().contains(
        QRect(batch.mapTo(area.viewport(), batch.rect().topLeft()), batch.size()))


def test_the_comparison_shows_the_model_trained_with_train(qtbot, tab):
    """After 200 epochs of GCN the comparison's bars still said "untrained" only: the
    model Train trained is drawn beside them (its kind's bar, its epoch named), with the
    test accuracy its own evaluation gives, and the read-out names it."""
    tab.apply_state({"model": "gcn", "epochs": 60})
    _settle(qtbot, tab, lambda r: r.untrained is not None)
    tab.toggle_job("node")
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
    _settle(qtbot, tab, lambda r: r.node.epoch == 60)
    acc = tab.result.node.test_acc                    # the trained model's own evaluation
    assert tab.histories[tab._session_key()][-1]["test_acc"] == pytest.approx(acc)
    qtbot.waitUntil(lambda: len(tab.compare_view.plot._bars) == 2, timeout=10_000)
    heights = np.asarray(tab.compare_view.plot._bars[1].opts["height"], np.float64)
    assert heights[0] == pytest.approx(acc) and np.isnan(heights[1:]).all()
    untrained = tab.result.untrained.as_dict()
    np.testing.assert_allclose(tab.compare_view.plot._bars[0].opts["height"],
                               [untrained[k] for k in ("gcn", "sage", "gat", "baseline")])
    names = [label.text for _item, label in tab.compare_view.plot.legend.items]
    assert names == ["untrained", "GCN trained, epoch 60"]
    assert f"GCN after 60 epochs: test accuracy {acc:.2f}" in \
        tab.view("compare").panel.readout.text()
    accuracy = tab.view("compare").data().arrays["accuracy"]
    assert accuracy.shape == (4, 2) and accuracy[0, 1] == pytest.approx(acc)


def test_every_view_has_content_on_first_open(qtbot, tab):
    """Nothing waits for a button to show something: the untrained models are drawn (their
    accuracies computed once the tab is shown, not while it is hidden at start-up)."""
    _settle(qtbot, tab, lambda r: r.untrained is not None)
    r = tab.result
    for view in tab.views:
        assert drawn_marks(view) > 0, view.key
    assert r.untrained is not None and set(r.untrained.kinds) == {"gcn", "sage", "gat",
                                                                  "baseline"}
    bars = tab.compare_view.plot._bars                      # the untrained accuracies as bars
    assert len(bars) == 1 and len(bars[0].opts["height"]) == 4
    np.testing.assert_allclose(bars[0].opts["height"], [r.untrained.as_dict()[k] for k in (
        "gcn", "sage", "gat", "baseline")])
    assert r.graphs is not None and r.graphs.epoch == 0           # graph classification
    assert tab.pooled_view.plot.node_count() == len(r.graphs.embedding)
    assert tab.pooled_view.plot.plotItem.getAxis("bottom").labelText != ""
    assert r.link is not None and r.link.epoch == 0                # link prediction
    assert len(tab.links_view.plot.curves()[0]) == 1 and len(tab.links_view.plot.curves()[0][0]) > 2
    assert tab.canvas.overlay_edge_count() == 0        # an untrained guess is not drawn
    x, y = tab.training_view.plot.curves()                    # the training curves' epoch 0
    assert len(x) == 4 and all(len(xi) == 1 and xi[0] == 0 for xi in x)
    assert "PC 1" in tab.embedding_view.plot.plotItem.getAxis("bottom").labelText


def test_a_tab_computed_while_hidden_says_its_comparison_is_coming_not_that_labels_lack(
        qtbot, window):
    """Built behind another tab, the graph's untrained accuracies wait until it is seen;
    meanwhile the comparison said "No labels: choose a label attribute" over the karate
    club's four labelled communities (seen in a screenshot)."""
    tab = window.tab("graph")                   # asked for by code: built, not shown
    qtbot.waitUntil(lambda: tab.result is not None, timeout=30_000)
    assert not tab.isVisible() and tab.result.untrained is None
    readout = tab.view("compare").panel.readout.full_text()
    assert "accuracies" in readout and "No labels" not in readout, readout
    window.tabs_widget.setCurrentWidget(tab)
    _settle(qtbot, tab, lambda r: r.untrained is not None)
    assert "Compare" in tab.view("compare").panel.readout.full_text()
    assert len(tab.compare_view.plot._bars) == 1 and tab.compare_view.plot.legend.isVisible()


def test_a_comparison_that_cannot_be_made_says_why_instead_of_waiting(qtbot, window,
                                                                      monkeypatch):
    """When the untrained models cannot be compared (too few labelled nodes for a
    split), the comparison says so, not "Working out…" for ever (review)."""
    from models.errors import InvalidParameterError
    from models.graphs import probe

    def refuse(*args, **kwargs):
        raise InvalidParameterError("Too few labelled nodes to test on.")

    monkeypatch.setattr(probe, "untrained_comparison", refuse)
    tab = open_tab(qtbot, window, "graph")
    _settle(qtbot, tab, lambda r: bool(r.untrained_error))
    assert tab.result.untrained is None
    assert tab.view("compare").panel.readout.full_text() == "Too few labelled nodes to test on."


def test_going_back_in_the_tour_restores_each_step(qtbot, tab):
    steps = tab.tour_steps()
    links = next(i for i, s in enumerate(steps) if s.id == "links")
    tab.tour.go_to(links)                              # trains the link predictor
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=90_000)
    _settle(qtbot, tab, lambda r: r.link is not None and r.link.epoch > 0)
    qtbot.waitUntil(lambda: tab.canvas.overlay_edge_count() > 0, timeout=10_000)
    for i in reversed(range(links)):
        tab.tour.go_to(i)
        params = tab.params()
        for k, v in steps[i].state.items():
            if k in params:
                assert params[k] == v, (steps[i].id, k)
        tab.compute_now()
        qtbot.waitUntil(lambda: tab.canvas.overlay_edge_count() == 0, timeout=10_000)
        assert tab.params()["links"] == 0, steps[i].id      # no dashed link overlay
        if steps[i].state.get("edges") == "plain":
            assert tab.canvas.edge_bar not in tab.canvas._bars_in_layout, steps[i].id
        tab.jobs.stop()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)


def test_nothing_stays_english_in_chinese(qtbot, window, tab):
    window.set_language("zh_CN")
    _settle(qtbot, tab, lambda r: True)
    qtbot.wait(300)
    doc = tab.result.doc
    names = [*doc.node_attributes, *doc.label_names, "KarateClub", "GNNExplainer",
             "BA-Shapes", "Louvain", "networkx", "Zachary"]
    assert english_words(window, "graph", names) == []
    assert tab.label_combo.itemText(0) != "(none)"
    heading = tab.canvas.legend.items[0][1].text
    assert "community" in heading and "label" not in heading
    window.set_language("en")


@pytest.mark.slow
def test_the_tabs_defaults_beat_the_nearest_labelled_baseline_on_karate_over_seeds(qapp):
    """Issue 32 item 9: the tab's defaults gave GCN 0.58 against the baseline's 0.75 on
    seed 0 and lost to it on 12 of 20 seeds (mean -0.05): the tab trained on karate's
    edge weights (Zachary's interaction counts, 1-7, which the course's
    ``GCNConv(x, edge_index)`` and the GCN paper's karate club do not use) with 16 hidden
    units. With the tab's own defaults (the forms' defaults, the Train button's settings)
    GCN beats the baseline on the same split by a margin over 20 seeds, not one lucky
    seed: mean difference >= 0.03 and a one-sided sign test p < 0.05 over the seeds that
    are not tied."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_gnn import sign_test, tab_default_accuracy

    from app.tabs.graph.params import MODEL_PARAMS
    from models import graphs as gnn
    from models.graphs.options import session_kwargs

    p, res = tab_default_accuracy(range(20))
    d = res["gcn"] - res["baseline"]
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    assert d.mean() >= 0.03 and sign_test(wins, losses) < 0.05, (d, wins, losses)
    assert np.median(res["gcn"]) >= 0.83, res["gcn"]
    # the same numbers as the tab's own Train button's session: what it builds is what
    # was measured (seed 0)
    assert {q.key: q.default for q in MODEL_PARAMS}.items() <= p.items()
    data = gnn.builtin_graph("karate", seed=0).data
    s = gnn.NodeClassificationSession(data, "gcn", seed=0, train_per_class=1,
                                      **session_kwargs(p))
    assert getattr(s.data, "edge_weight", None) is None
    for _ in s.train(p["epochs"], report_every=p["epochs"]):
        pass
    assert s.evaluate().test_acc == pytest.approx(res["gcn"][0])


@pytest.mark.slow
def test_the_karate_example_opens_with_every_view_trained(qtbot):
    """Issue 32 item 9: the "trained" karate example (Help → Examples) left 3 of its views
    untrained: the comparison bars (the untrained models only), the graph classifier and
    the link predictor. Opened through its menu entry, every training view now shows a
    model trained with the tab's defaults, the comparison has GCN above the baseline,
    and no view's title or read-out says untrained."""
    from PySide6.QtWidgets import QLabel

    from app.sessions import examples
    from tests.session_checks import make_window, settle, tab_of

    win = make_window(qtbot)
    errors = []
    win.report_error = lambda error, details: errors.append(error)
    path = next(p for p in examples() if p.stem == "gcn-karate")
    with qtbot.waitSignal(win.sessionOpened, timeout=120_000) as opened:
        next(a for a in win.example_actions if a.data() == str(path)).trigger()
    assert opened.args == [str(path), True] and not errors, errors
    tab = tab_of(win, "graph")
    assert win.current_tab() is tab
    settle(qtbot, tab)
    _settle(qtbot, tab, lambda r: r.node.epoch == 200 and r.graphs is not None
            and r.link is not None)
    p = tab.params()
    assert (p["hidden"], p["edge_weights"], p["train_per_class"], p["epochs"]) == \
        (32, False, 1, 200)
    r = tab.result
    assert r.node.test_acc >= 0.8 and tab.histories.get(tab._session_key())
    trained = tab.comparisons.get(tab._compare_key())
    assert trained is not None, "the comparison after training is not in the example"
    acc = trained.as_dict()
    assert acc["gcn"] == pytest.approx(r.node.test_acc) and acc["gcn"] > acc["baseline"]
    assert tab.graph_session().step > 0 and r.graphs.epoch > 0
    assert tab.link_session().step > 0 and r.link.epoch > 0
    untrained_words = ("untrained", "not trained")
    for view in tab.views:
        texts = [view.panel.title.text()]
        texts += [w.text() for w in view.panel.findChildren(QLabel)]
        assert not any(u in t.lower() for t in texts for u in untrained_words), \
            (view.key, texts)


def test_views_draw_and_export_a_trace_without_the_tab(qapp):
    """A view sees only a trace and a request: made, drawn and exported with no tab."""
    from app.tabs.graph.views import (
        BatchView,
        CommunitiesShown,
        CommunitiesView,
        CompareView,
        GraphShown,
        GraphView,
        MessagesView,
        TrainingShown,
        TrainingView,
    )
    from models import graphs as gnn
    from models.graphs.options import GraphRequest
    from models.graphs.probe import graph_result

    ask = GraphRequest(node=0, edges="gcn")
    doc = gnn.builtin_graph("karate", seed=0)
    session = gnn.NodeClassificationSession(doc.data, ask.model, seed=ask.seed,
                                            train_per_class=ask.train_per_class,
                                            **ask.session_kwargs())
    r = graph_result(doc, ask, session, None, (("karate", 0), "spring", 0),
                     gnn.motif_graphs(seed=0), None, None, None, name="karate")
    graph = GraphView()
    graph.show(GraphShown(r), ask)
    assert graph.plot.node_count() == 34 and "34" in graph.title()
    assert graph.data().arrays["nodes"].shape == (34, 5)
    messages = MessagesView()
    messages.show(r, ask)
    assert messages.data().row_labels == [str(doc.node_ids[j]) for j in r.message.neighbors]
    assert messages.plot.matrix().shape[0] > len(r.message.neighbors)
    training, compare = TrainingView(), CompareView()
    shown = TrainingShown(r)
    training.show(shown, ask)
    compare.show(shown, ask)
    assert training.data().row_labels == [r.node.epoch] and compare.data() is None
    assert "Train" in training.panel.readout.text()
    batch = BatchView()
    batch.show(r, ask)
    assert batch.data().meta == {"graphs": ask.batch_graphs}
    communities = CommunitiesView()
    communities.show(CommunitiesShown())
    assert communities.data() is None and "eigenvalues" in communities.title()
