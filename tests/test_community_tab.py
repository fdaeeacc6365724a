"""Community detection in the graph tab, driven as a person would: pick a method, press
"Find communities", see the nodes coloured by community with modularity, the number of
communities and NMI in the readout; DMoN's loss drawn while it trains, stopped midway
without a freeze; the result saved with the graph for Gephi."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from heartbeat import Heartbeat
from PySide6.QtCore import Qt

from app.tabs.graph import GraphTab
from tests.windows import open_tab
from viz.graph_drawing import OPACITY_ALPHAS
from viz.graph_view import to_rgb
from viz.theme import PALETTE

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"


@pytest.fixture
def tab(qtbot, window) -> GraphTab:
    t = open_tab(qtbot, window, "graph")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def find(qtbot, tab, timeout=60_000, **state) -> object:
    """Choose ``state`` in the Communities group and click "Find communities"; the
    result once the job has ended."""
    tab.apply_state(state)
    settle(qtbot, tab)
    return click_find(qtbot, tab, timeout)


def click_find(qtbot, tab, timeout=60_000) -> object:
    """Click "Find communities"; the result once the job has ended."""

    before = tab.communities.current()
    qtbot.mouseClick(tab.communities.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=timeout)
    result = tab.communities.current()
    assert result is not None and result is not before
    return result


def settle(qtbot, tab) -> None:
    """The tab's redraw for the controls just set has run (its debounce, its trace)."""
    qtbot.wait(100)
    qtbot.waitUntil(lambda: not tab.compute.is_busy() and not tab._debounce.isActive(),
                    timeout=30_000)
    qtbot.wait(50)


def colour_of_node(canvas, i: int) -> tuple[int, int, int]:
    for item, nodes in zip(canvas.node_items, canvas.node_item_nodes, strict=False):
        if item.isVisible() and i in nodes:
            c = item.opts["brush"].color()
            return c.red(), c.green(), c.blue()
    raise AssertionError(f"node {i} is not drawn")


def assert_canvas_shows(tab, labels: np.ndarray) -> None:
    """Every node drawn in its community's colour of the palette."""
    for i, c in enumerate(labels):
        assert colour_of_node(tab.canvas, i) == to_rgb(PALETTE[int(c) % len(PALETTE)]), i


@pytest.mark.parametrize("method", ["louvain", "label_propagation", "spectral"])
def test_each_method_colours_the_nodes_by_community_with_its_numbers(qtbot, tab, method):
    result = find(qtbot, tab, community_method=method, community_seed=3,
                  nmi_attribute="club")
    assert result.method == method and result.labels.shape == (34,)
    assert tab.params()["colour"] == "community"
    assert_canvas_shows(tab, result.labels)
    text = tab.communities.readout.text()
    assert f"{result.k} communities" in text and f"{result.modularity:.3f}" in text
    assert "“club”" in text and f"{result.nmi:.3f}" in text
    assert 0.3 < result.modularity < 0.5            # karate's partitions: Q ≈ 0.37-0.44
    assert tab.view("communities").panel.readout.text() == text
    data = tab.view("communities").data()
    np.testing.assert_array_equal(data.arrays["labels"], result.labels)


def test_nmi_follows_the_attribute_chosen_without_running_again(qtbot, tab):
    result = find(qtbot, tab, community_method="louvain", nmi_attribute="club")
    tab.apply_state({"nmi_attribute": "community"})

    again = tab.communities.current()
    np.testing.assert_array_equal(again.labels, result.labels)
    assert again.nmi_attribute == "community" and again.nmi != result.nmi
    assert "“community”" in tab.communities.readout.text()


def test_dmon_trains_live_shows_its_loss_and_soft_assignment_as_opacity(qtbot, tab):
    tab.apply_state({"community_method": "dmon", "communities": 4, "community_epochs": 150,
                     "nmi_attribute": "club"})
    settle(qtbot, tab)
    with Heartbeat() as beat:
        result = click_find(qtbot, tab)
    assert beat.longest_own_ms < beat.limit_ms, beat.report()
    assert result.method == "dmon" and result.soft.shape == (34, result.k)
    np.testing.assert_allclose(result.soft.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(result.soft.argmax(axis=1), result.labels)
    assert len(result.loss) == 150 and result.loss[-1] < result.loss[0]
    assert_canvas_shows(tab, result.labels)
    # the node's opacity is DMoN's confidence, in four steps
    confidence = result.soft.max(axis=1)
    for i in (int(np.argmax(confidence)), int(np.argmin(confidence))):
        step = min(3, int(np.floor((1.0 - confidence[i]) * 4)))
        assert tab.canvas.node_alpha(i) == OPACITY_ALPHAS[step]
    # the loss and modularity curves are drawn, and exported
    xs, ys = tab.communities.view.plot.curves()
    assert len(ys) == 2 and len(ys[0]) == 150
    assert "opacity" in tab.communities.readout.text()
    # another colouring: every node opaque again
    tab.apply_state({"colour": "degree"})
    qtbot.waitUntil(lambda: tab.canvas.node_alpha(int(np.argmin(confidence))) == 255,
                    timeout=10_000)


def test_stop_halfway_through_dmon_keeps_the_window_alive_and_no_partition(qtbot, tab):

    tab.apply_state({"community_method": "dmon", "communities": 4,
                     "community_epochs": 5000})
    settle(qtbot, tab)
    with Heartbeat() as beat:
        qtbot.mouseClick(tab.communities.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: tab.communities.live is not None and
                        tab.communities.live[1] is not None and
                        len(tab.communities.live[1].history) > 20, timeout=60_000)
        assert tab.communities.button.text() == "Stop"
        # the loss curve is drawn while it trains
        qtbot.waitUntil(lambda: len(tab.communities.view.plot.curves()[1]) == 1, timeout=10_000)
        qtbot.mouseClick(tab.communities.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    assert beat.longest_own_ms < beat.limit_ms, beat.report()
    assert tab.communities.current() is None
    epochs = len(tab.communities.live[1].history)
    assert 20 < epochs < 5000
    assert f"Stopped at epoch {epochs}" in tab.view("communities").panel.readout.text()
    assert tab.communities.button.text() == "Find communities"


def test_saving_the_graph_writes_the_communities_for_gephi(qtbot, tab, tmp_path):
    result = find(qtbot, tab, community_method="louvain")
    for ext in ("graphml", "gexf"):
        path = tab.save_graph(str(tmp_path / f"karate.{ext}"))
        graph = nx.read_graphml(path) if ext == "graphml" else nx.read_gexf(path)
        doc = tab.result.doc
        written = [int(graph.nodes[node]["community_louvain"]) for node in doc.node_ids]
        assert written == result.labels.tolist()
        # the file's own "community" attribute is left as it was
        assert [int(graph.nodes[n]["community"]) for n in doc.node_ids] == \
            [int(v) for v in doc.node_attributes["community"]]


def test_football_file_nmi_against_its_partition(qtbot, tab):
    tab.open_file(str(GEPHI / "football.graphml"))
    qtbot.waitUntil(lambda: tab.result is not None and tab.result.doc.num_nodes == 115,
                    timeout=30_000)
    assert tab.communities.nmi_combo.findData("partition") >= 0
    result = find(qtbot, tab, community_method="louvain", nmi_attribute="partition")
    assert result.nmi > 0.85 and 0.58 < result.modularity < 0.62
    assert_canvas_shows(tab, result.labels)


def test_the_tour_finds_communities_on_football_then_trains_dmon_and_goes_back(qtbot, tab):

    steps = tab.tour_steps()
    first = next(i for i, s in enumerate(steps) if s.id == "communities")
    tab.tour.go_to(first)
    qtbot.waitUntil(lambda: tab.communities.current() is not None and
                    not tab.jobs.is_running(), timeout=90_000)
    louvain = tab.communities.current()
    assert tab.base_document().num_nodes == 115 and louvain.method == "louvain"
    assert louvain.nmi_attribute == "partition" and louvain.nmi > 0.85
    assert tab.params()["colour"] == "community"
    assert "modularity" in tab.communities.readout.text()
    tab.tour.go_to(first + 1)                                    # DMoN, k by the eigengap
    qtbot.waitUntil(lambda: tab.communities.current().method == "dmon" and
                    not tab.jobs.is_running(), timeout=120_000)
    dmon = tab.communities.current()
    assert dmon.k_rule == "eigengap" and dmon.nmi > 0.85 and len(dmon.loss) == 300
    assert tab.view("communities").panel.is_highlighted()
    tab.tour.go_to(first)                                        # back: Louvain again
    qtbot.waitUntil(lambda: tab.communities.current().method == "louvain" and
                    not tab.jobs.is_running(), timeout=90_000)
    assert tab.params()["community_method"] == "louvain"


def test_before_any_run_the_view_shows_the_laplacians_spectrum(qtbot, tab):
    qtbot.waitUntil(lambda: tab.communities.spectra.get(tab._doc_key()) is not None, timeout=30_000)
    spectrum = tab.communities.spectra.get(tab._doc_key())
    eigenvalues = np.linalg.eigvalsh(
        np.eye(34) - normalised_adjacency(tab.base_document()))
    np.testing.assert_allclose(spectrum.eigenvalues, eigenvalues, atol=1e-6)
    xs, ys = tab.communities.view.plot.curves()
    assert len(ys) == 2 and len(ys[0]) == 34
    assert "Laplacian" in tab.view("communities").panel.title.text()


def normalised_adjacency(doc) -> np.ndarray:
    """D^-1/2 A D^-1/2 of the weighted karate graph, from networkx's adjacency."""
    a = nx.to_numpy_array(doc.graph, nodelist=list(doc.node_ids), weight="weight")
    d = 1.0 / np.sqrt(a.sum(axis=1))
    return d[:, None] * a * d[None, :]
