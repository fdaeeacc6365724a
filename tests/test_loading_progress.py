"""The file loaders' progress, Cancel and early refusal (models/, no window).

Every loader File → Open runs (graphs of each format, points, model files) reports how far
it is from 0 to 1 and gives up with ``LoadCancelled`` once cancelled; a file far over a
limit is refused before it is parsed (an edge list or a point file with too many lines)
or as soon as the parser passes the limit (GraphML and GEXF), not after reading it all.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from models.errors import GraphLoadError, InvalidParameterError, LoadCancelled, ModelFileError
from models.flows.points import load_points_csv
from models.graphs import load_graph
from models.reading import data_lines_at_least

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"


def graph_files(folder: Path) -> list[Path]:
    """One file per graph format, each large enough for several progress reports."""
    g = nx.gnm_random_graph(3000, 9000, seed=0)
    g.add_edges_from(zip(range(2999), range(1, 3000), strict=True))   # no isolated node
    out = []
    lines = "".join(f"{u},{v}\n" for u, v in g.edges())
    (folder / "edges.csv").write_text("source,target\n" + lines)
    out.append(folder / "edges.csv")
    for ext, write in (("graphml", nx.write_graphml), ("gexf", nx.write_gexf),
                       ("gml", nx.write_gml), ("net", nx.write_pajek)):
        h = nx.relabel_nodes(g, str) if ext in ("gml", "net") else g
        write(h, folder / f"g.{ext}")
        out.append(folder / f"g.{ext}")
    import json
    (folder / "g.json").write_text(json.dumps(nx.node_link_data(g, edges="links")))
    out.append(folder / "g.json")
    return out


def points_file(folder: Path, n: int = 20_000) -> Path:
    rng = np.random.default_rng(0)
    path = folder / "pts.csv"
    path.write_text("x,y\n" + "".join(f"{x:.5f},{y:.5f}\n" for x, y in rng.normal(size=(n, 2))))
    return path


def test_every_graph_format_reports_progress_up_to_one(tmp_path):
    for path in graph_files(tmp_path):
        seen: list[float] = []
        doc = load_graph(path, progress=seen.append)
        assert doc.num_nodes == 3000, path.name
        assert len(seen) >= 3, (path.name, seen)          # read, parsed, built
        assert seen == sorted(seen), (path.name, seen)    # never goes back
        assert seen[0] <= 0.1 and seen[-1] == 1.0, (path.name, seen)


@pytest.mark.parametrize("after", [0, 3])
def test_cancel_stops_every_graph_format(tmp_path, after):
    for path in graph_files(tmp_path):
        checks = [0]

        def cancelled(checks=checks):
            checks[0] += 1
            return checks[0] > after

        with pytest.raises(LoadCancelled, match=path.name):
            load_graph(path, cancelled=cancelled)


def test_a_huge_edge_list_is_refused_before_a_line_is_parsed(tmp_path, monkeypatch):
    import models.graphs.document as document

    monkeypatch.setattr(document, "MAX_EDGES", 1000)
    path = tmp_path / "big.txt"
    path.write_text("# a comment\n\nsource target\n" + "1 2\n" * 1500)
    seen: list[float] = []
    with pytest.raises(GraphLoadError, match=r"more than 1,000 edges \(1,501 lines"):
        load_graph(path, progress=seen.append)
    assert max(seen) <= 0.1                 # only read: refused before the parser started
    # a header and exactly the limit: opened
    path.write_text("source target\n" + "".join(f"{i} {i + 1}\n" for i in range(1000)))
    assert load_graph(path).num_edges == 1000


def test_a_graphml_over_the_node_limit_is_refused_while_parsing(tmp_path, monkeypatch):
    import models.graphs.document as document

    g = nx.path_graph(3000)
    nx.write_graphml(g, tmp_path / "g.graphml")
    monkeypatch.setattr(document, "MAX_NODES", 1000)
    monkeypatch.setattr("models.graphs.readers.xmlutil._FEED_BYTES", 4096)
    seen: list[float] = []
    with pytest.raises(GraphLoadError, match="more than 1,000 nodes"):
        load_graph(tmp_path / "g.graphml", progress=seen.append)
    # the XML is parsed in 0.1..0.1 + 0.8 * 0.75 of the bar: refused well before its end
    assert 0.1 < max(seen) < 0.5
    monkeypatch.setattr(document, "MAX_NODES", 3000)
    assert load_graph(tmp_path / "g.graphml").num_nodes == 3000


def test_a_gexf_over_the_edge_limit_is_refused_while_parsing(tmp_path, monkeypatch):
    import models.graphs.document as document

    nx.write_gexf(nx.complete_graph(60), tmp_path / "g.gexf")      # 1770 edges
    monkeypatch.setattr(document, "MAX_EDGES", 1000)
    with pytest.raises(GraphLoadError, match="more than 1,000 edges"):
        load_graph(tmp_path / "g.gexf")


def test_nodes_of_a_second_graph_do_not_count(tmp_path, monkeypatch):
    """Only the first <graph> is read: a second one does not make the file too large."""
    import models.graphs.document as document

    monkeypatch.setattr(document, "MAX_NODES", 5)
    nodes = "".join(f'<node id="{i}"/>' for i in range(5))
    other = "".join(f'<node id="x{i}"/>' for i in range(10))
    path = tmp_path / "two.graphml"
    path.write_text('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                    f'<graph edgedefault="undirected">{nodes}<edge source="0" target="1"/>'
                    f'</graph><graph>{other}</graph></graphml>')
    assert load_graph(path).num_nodes == 5


def test_points_report_progress_and_cancel(tmp_path):
    path = points_file(tmp_path)
    seen: list[float] = []
    pts = load_points_csv(path, progress=seen.append)
    assert pts.shape == (20_000, 2)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 4
    quoted = tmp_path / "quoted.csv"       # the RFC 4180 path ticks and cancels too
    quoted.write_text('"x","y"\n' + path.read_text().split("\n", 1)[1])
    for name in (path, quoted):
        checks = [0]

        def cancelled(checks=checks):      # after the file is read, while it is parsed
            checks[0] += 1
            return checks[0] > 2

        with pytest.raises(LoadCancelled, match=name.name):
            load_points_csv(name, cancelled=cancelled)
        assert checks[0] == 3


def test_a_point_file_with_far_too_many_lines_is_refused_unparsed(tmp_path, monkeypatch):
    import models.flows.points as flow_points

    monkeypatch.setattr(flow_points, "MAX_POINTS", 100)
    path = tmp_path / "many.csv"
    path.write_text("x,y\n" + "1,2\n" * 500)
    seen: list[float] = []
    with pytest.raises(InvalidParameterError, match=r"more than 100 points \(501 lines"):
        load_points_csv(path, progress=seen.append)
    assert max(seen) <= 0.1
    monkeypatch.setattr(flow_points, "MAX_POINTS_FILE_BYTES", 1000)
    with pytest.raises(InvalidParameterError, match="over 0 MB"):
        load_points_csv(path)


def test_data_lines_at_least_is_a_lower_bound():
    text = b"# c\n\n  1 2\n1 2\r\n%x\n#y\n3 4"
    assert data_lines_at_least(text, comments=b"#%") == 2    # "  1 2" counts as unknown
    assert data_lines_at_least(text, comments=b"#") == 3
    assert data_lines_at_least(b"") == 0


def test_a_model_file_reports_progress_and_cancels(tmp_path):
    import torch

    from models.transformer import Seq2SeqSession
    from tests.data.make_hostile import model_doc

    Seq2SeqSession(device="cpu").save(tmp_path / "m.pt")
    seen: list[float] = []
    session = Seq2SeqSession.load(tmp_path / "m.pt", progress=seen.append)
    assert session.step == 0 and seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(LoadCancelled, match="m.pt"):
        Seq2SeqSession.load(tmp_path / "m.pt", cancelled=lambda: len(seen) > 5,
                            progress=seen.append)
    torch.save(model_doc(task__max_len=10 ** 9), tmp_path / "max_len.pt")
    with pytest.raises(ModelFileError, match="max_len = 1000000000"):
        Seq2SeqSession.load(tmp_path / "max_len.pt")
