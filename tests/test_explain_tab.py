"""Explanations in the graph tab, driven as a student would: train the node classifier,
click a node, press Explain; the canvas draws the edge mask, the readout says the
fidelities; Stop, the untrained refusal, GAT's attention, the graph saved with the mask."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from heartbeat import Heartbeat

from app.tabs.graph import GraphTab, explaining
from tests.windows import open_tab


@pytest.fixture
def tab(qtbot, window) -> GraphTab:
    t = open_tab(qtbot, window, "graph")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None and t.torch_ready, timeout=60_000)
    return t


def _train(qtbot, tab, model="gcn", epochs=60):
    tab.apply_state({"model": model, "epochs": epochs, "train_per_class": 2})
    tab.apply_state({"train": True})
    qtbot.waitUntil(lambda: not tab.running() and tab.trained_steps() >= epochs,
                    timeout=120_000)


def _click(qtbot, tab, node):
    tab.canvas.nodeClicked.emit(node)
    qtbot.waitUntil(lambda: tab.result.message is not None and
                    tab.result.message.node == node, timeout=30_000)


def _explain(qtbot, tab, **form):
    tab.explaining.form.set_values(form)
    tab.explaining.button.click()
    qtbot.waitUntil(lambda: not tab.running(), timeout=120_000)


def test_untrained_classifier_and_no_node_are_refused_in_words(qtbot, tab):
    tab.explaining.button.click()
    assert not tab.running() and tab.explaining.current() is None
    assert "Train the node classifier first" in tab.error_note.text()
    _train(qtbot, tab, epochs=10)
    tab.show_form.set_values({"node": -1})
    tab.explaining.button.click()
    assert not tab.running()
    assert "Select a node first" in tab.error_note.text()


def test_gnnexplainer_draws_the_edge_mask_and_reads_out_fidelity(qtbot, tab, tmp_path):
    _train(qtbot, tab)
    _click(qtbot, tab, 33)
    with Heartbeat() as beat:
        _explain(qtbot, tab, explain_method="gnnexplainer", explain_epochs=100)
    assert beat.longest_own_ms < beat.limit_ms, beat.report()
    x = tab.explaining.current()
    assert x is not None and x.node == 33 and x.method == "gnnexplainer"
    assert x.loss.shape == (100,)
    # the canvas's edge values are the mask, on the directed edges of edge_index
    arrays = tab.canvas.export_arrays()
    np.testing.assert_allclose(arrays["edge_values"], x.edge_mask)
    np.testing.assert_array_equal(arrays["value_edges"], x.edge_index.T)
    # the top edges are emphasised: drawn on top as the overlay, in the widest bin
    top = x.explanation_edges
    assert tab.canvas.overlay_edge_count() == int(top.sum()) > 0
    np.testing.assert_array_equal(arrays["overlay_edges"], x.edge_index.T[top])
    bins = tab.canvas._edge_bins
    assert bins[top].min() >= bins[~top].max() - 1
    assert bins[np.argmax(x.edge_mask)] == tab.canvas._edge_opts["n_bins"] - 1
    # the readout: the prediction, both fidelities, the three probabilities, features
    text = tab.explaining.readout.text()
    assert f"Fidelity+ {x.fidelity_plus:.0f}" in text
    assert f"Fidelity− {x.fidelity_minus:.0f}" in text
    assert f"whole graph {x.prob_full:.2f}" in text
    assert f"explanation only {x.prob_explanation:.2f}" in text
    # karate's features are the identity: the bars name the node whose column matters most
    top_feature = tab.result.doc.node_ids[int(np.argmax(x.feature_mask))]
    assert "Feature mask" in text and f"identity of node {top_feature}" in text
    assert "dashed" in tab.view("graph").panel.readout.text()
    # saved with the graph: the mask as the edge attribute explanation_33 (both directions)
    g = nx.read_graphml(tab.save_graph(str(tmp_path / "karate.graphml")))
    ei, mask = x.edge_index, x.edge_mask
    want = {(int(a), int(b)): float(m) for a, b, m in zip(ei[0], ei[1], mask, strict=True)}
    checked = 0
    for u, v, attrs in g.edges(data=True):
        a, b = int(u), int(v)
        assert attrs["explanation_33"] == pytest.approx(want[(a, b)], abs=1e-6)
        assert attrs["explanation_33_reverse"] == pytest.approx(want[(b, a)], abs=1e-6)
        checked += 1
    assert checked == 78
    # another node: the explanation is no longer shown, the edges are plain again
    _click(qtbot, tab, 0)
    assert tab.explaining.current() is None
    assert "edge_values" not in tab.canvas.export_arrays()
    assert tab.canvas.overlay_edge_count() == 0
    assert "No explanation yet" in tab.explaining.readout.text()


def test_stop_mid_gnnexplainer_keeps_no_explanation(qtbot, tab):
    _train(qtbot, tab, epochs=20)
    _click(qtbot, tab, 5)
    tab.explaining.form.set_values({"explain_method": "gnnexplainer", "explain_epochs": 5000})
    tab.explaining.button.click()
    assert tab.running() == explaining.JOB
    assert tab.explaining.button.text() == "Stop"
    qtbot.waitUntil(lambda: "GNNExplainer: epoch" in tab.job_bar.label.text(), timeout=60_000)
    tab.explaining.button.click()
    assert not tab.running()
    assert tab.explaining.current() is None
    # the session's lock is given back: training resumes at once
    _train(qtbot, tab, epochs=30)


def test_gat_attention_explanation(qtbot, tab):
    tab.explaining.form.set_values({"explain_method": "attention"})
    _train(qtbot, tab, model="gcn", epochs=10)
    _click(qtbot, tab, 33)
    tab.explaining.button.click()
    assert "needs a GAT" in tab.error_note.text()
    _train(qtbot, tab, model="gat", epochs=30)
    _click(qtbot, tab, 33)
    tab.apply_state({"explain_method": "attention", "explain": True})   # as a tour step does
    qtbot.waitUntil(lambda: not tab.running(), timeout=120_000)
    x = tab.explaining.current()
    assert x is not None and x.method == "attention" and x.feature_mask.size == 0
    np.testing.assert_allclose(tab.canvas.export_arrays()["edge_values"], x.edge_mask)
    text = tab.explaining.readout.text()
    assert "GAT attention for node" in text and "No feature mask" in text
    # more training: the model changed, the explanation is dropped from the canvas
    _train(qtbot, tab, model="gat", epochs=10)
    assert tab.explaining.current() is None


def test_the_tour_step_trains_then_explains_the_best_correctly_predicted_test_node(
        qtbot, tab):
    """The tour's explanation step on a fresh tab (the tab's defaults, seed 0): the Explain
    button refuses an untrained model, so the step trains it first; then it explains every
    correctly predicted test node and shows the one the rule keeps (no node is named in
    the step): predicted right, a test node, fidelity+ > fidelity−, the largest gap and,
    among those, the largest probability drop. The readout says the rule, the threshold
    and the edge count; a node whose explanation has fidelity+ 0 is told what that means."""
    import html

    from app.tours import load_tour

    step = next(s for s in load_tour("graph") if s.id == "explain")
    assert "node" not in step.state and step.state.get("explain_best")
    assert tab.trained_steps() == 0
    tab.apply_state(step.state)
    qtbot.waitUntil(lambda: tab.explaining.current() is not None, timeout=300_000)
    x, pick = tab.explaining.current(), tab.explaining.current_pick()
    trace = tab.current_session().evaluate()
    correct = np.flatnonzero(trace.test_mask.astype(bool) &
                             (trace.predictions == trace.labels))
    assert tab.trained_steps() == 200 and tab.params()["seed"] == 0
    assert pick is not None and pick.candidates == tuple(int(v) for v in correct)
    assert tab.params()["node"] == x.node == pick.node and x.method == "gnnexplainer"
    assert x.node in correct and x.predicted == x.label == int(trace.labels[x.node])
    assert x.fidelity_plus > x.fidelity_minus
    gaps, drops = np.array(pick.gaps), np.array(pick.drops)
    at = pick.candidates.index(x.node)
    assert gaps[at] == gaps.max() and drops[at] == drops[gaps == gaps.max()].max()
    assert drops[at] == pytest.approx(x.prob_full - x.prob_complement)
    k = int(x.explanation_edges.sum())
    np.testing.assert_array_equal(x.explanation_edges, x.edge_mask > 0.5)
    text = html.unescape(tab.explaining.readout.text())
    assert f"among the {len(correct)} correctly predicted test nodes" in text
    assert f"reached by {pick.best_count}" in text
    assert f"The explanation: {k} edges (mask > 0.5)" in text
    assert "Fidelity+ 1 and fidelity− 0" in text and "Fidelity+ 0 means" not in text
    assert f"{k} edges (mask > 0.5)" in tab.view("graph").panel.readout.text()
    assert tab.canvas.overlay_edge_count() == k and tab.error_note.text() == ""
    # a node whose explanation removes nothing the prediction needs: said so
    weak = pick.candidates[int(np.argmin(gaps))]
    assert gaps.min() <= 0
    _click(qtbot, tab, weak)
    _explain(qtbot, tab, explain_method="gnnexplainer", explain_epochs=200)
    y = tab.explaining.current()
    assert y.node == weak and y.fidelity_plus == 0 and tab.explaining.current_pick() is None
    text = html.unescape(tab.explaining.readout.text())
    assert "Fidelity+ 0 means these edges were not needed" in text
    assert "chosen by rule" not in text


def test_stopping_the_training_drops_the_explanation_it_was_for(qtbot, tab):
    tab.apply_state({"model": "gcn", "epochs": 2000, "node": 0, "explain": True})
    qtbot.waitUntil(lambda: tab.running() == "node", timeout=30_000)
    tab.toggle_job("node")                              # Stop, before the end
    qtbot.waitUntil(lambda: not tab.running(), timeout=30_000)
    qtbot.wait(200)
    assert not tab.running() and tab.explaining.current() is None
    assert not tab.explaining.after_training
