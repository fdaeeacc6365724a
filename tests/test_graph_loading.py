"""Graph loading (every reader, safety), built-in graphs, layouts and export."""

from __future__ import annotations

import io
import json
import os
import pickle
import resource
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.errors import GraphLoadError, InvalidParameterError
from models.graphs import (
    BUILTIN_GRAPHS,
    LAYOUTS,
    GraphDocument,
    builtin_graph,
    layout,
    load_graph,
    save_graph,
)

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"

# file, nodes, edges, directed
GEPHI_FILES = [
    ("Les_Miserables.gexf", 77, 254, False),
    ("US_Airports.gexf", 235, 1297, False),
    ("Java.gexf", 1538, 8032, True),
    ("Power_Grid.gml", 4941, 6594, False),
    ("football.graphml", 115, 613, False),
    ("moviegalaxies.graphml", 27, 102, False),
    ("two-cliques.graphml", 10, 20, False),
    ("cdata.graphml", 2, 1, True),
    ("withdesc.graphml", 2, 1, True),
    ("emojis.gml", 1, 0, False),
    ("label.gml", 3, 2, False),
    ("data.gexf", 1, 1, True),
    ("infinity.gexf", 1, 0, True),
    ("zeroweight.gexf", 2, 1, True),
    ("slice.gexf", 2, 1, True),
]


def check_consistent(doc: GraphDocument) -> None:
    """The invariants every document keeps, whatever it was read from."""
    n, e = doc.num_nodes, doc.num_edges
    assert n == len(doc.node_ids) == doc.data.num_nodes
    assert doc.edges.dtype == np.int64 and doc.edges.shape == (e, 2)
    ei = doc.data.edge_index
    assert ei.dtype == torch.int64 and ei.shape[0] == 2
    if e:
        assert int(ei.min()) >= 0 and int(ei.max()) < n
    assert doc.data.x.dtype == torch.float32 and doc.data.x.shape[0] == n
    assert torch.isfinite(doc.data.x).all()
    assert doc.labels.dtype == np.int64 and doc.labels.shape == (n,)
    assert doc.labels.max(initial=-1) < len(doc.label_names)
    assert torch.equal(doc.data.y, torch.from_numpy(doc.labels))
    for column in doc.node_attributes.values():
        assert column.shape == (n,) and column.dtype in (np.float32, object)
    for column in doc.edge_attributes.values():
        assert column.shape == (e,) and column.dtype in (np.float32, object)
    loops = int((doc.edges[:, 0] == doc.edges[:, 1]).sum()) if e else 0
    if doc.directed:
        assert ei.shape[1] == e
    else:
        assert ei.shape[1] == 2 * e - loops
        pairs = set(map(tuple, ei.T.tolist()))
        assert all((v, u) in pairs for u, v in pairs)
    if doc.edge_weight is not None:
        assert doc.edge_weight.dtype == np.float32 and doc.edge_weight.shape == (e,)
        assert doc.data.edge_weight.shape == (ei.shape[1],)
    if doc.pos is not None:
        assert doc.pos.shape == (n, 2) and doc.pos.dtype == np.float32
    assert doc.graph.number_of_nodes() == n and doc.graph.number_of_edges() == e
    assert isinstance(doc.summary(), str)


# ----------------------------------------------------------------------------------------
# Gephi files
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "nodes", "edges", "directed"), GEPHI_FILES)
def test_gephi_files_open_with_the_right_counts(name, nodes, edges, directed):
    doc = load_graph(GEPHI / name)
    assert (doc.num_nodes, doc.num_edges, doc.directed) == (nodes, edges, directed)
    check_consistent(doc)


def test_les_miserables_modularity_class_and_weights():
    doc = load_graph(GEPHI / "Les_Miserables.gexf")
    assert doc.label_attr == "Modularity Class"
    assert doc.pos is not None and doc.data.pos.shape == (77, 2)
    assert doc.node_attributes["label"][0] == "Myriel"
    assert doc.edge_weight is not None and doc.edge_weight[0] == 1.0  # no weight: 1
    assert doc.edge_weight[1] == 8.0
    assert "Modularity Class" in doc.label_candidates()
    assert doc.summary() == "77 nodes, 254 edges, undirected, weighted, 4 attributes"


def test_us_airports_latitude_longitude_and_viz():
    doc = load_graph(GEPHI / "US_Airports.gexf")
    lat = doc.node_attributes["latitude"]
    assert lat.dtype == np.float32 and lat[0] == pytest.approx(34.729444)
    assert doc.node_attributes["longitude"][0] == pytest.approx(-92.224444)
    assert doc.node_attributes["Code"][0] == "LIT"
    assert doc.pos[0].tolist() == pytest.approx([55.805447, -209.34912])
    assert doc.node_attributes["viz_color"][0] == "#d94ea4"


def test_graphml_cdata_and_shared_key_id():
    doc = load_graph(GEPHI / "cdata.graphml")
    assert doc.node_ids == ("n0", "n1")
    assert doc.node_attributes["label"].tolist() == ["foo", "bar"]
    assert doc.edge_attributes["label"].tolist() == ["foobar"]


def test_graphml_descriptions_and_partition_labels():
    assert load_graph(GEPHI / "withdesc.graphml").node_attributes["description"].tolist() == [
        "Node Zero", "Node One"]
    doc = load_graph(GEPHI / "two-cliques.graphml")
    assert doc.label_attr == "partition" and doc.label_names == ("0", "1")
    assert doc.labels.tolist() == [0] * 5 + [1] * 5


def test_gexf_self_loop_types_and_default():
    doc = load_graph(GEPHI / "data.gexf")
    assert doc.edges.tolist() == [[0, 0]]
    assert any("self-loop" in w for w in doc.warnings)
    assert doc.node_attributes["url"][0] == "http://gephi.org"
    assert doc.node_attributes["indegree"][0] == 1.0
    assert doc.node_attributes["valid"][0] == 1.0  # boolean default true


def test_gexf_infinite_values():
    doc = load_graph(GEPHI / "infinity.gexf")
    assert doc.node_attributes["positive"][0] == np.inf
    assert doc.node_attributes["negative"][0] == -np.inf
    assert any("infinite" in w for w in doc.warnings)
    assert torch.isfinite(doc.with_attributes(None, ["positive"]).data.x).all()


def test_gexf_zero_weight_edge_is_kept():
    doc = load_graph(GEPHI / "zeroweight.gexf")
    assert doc.num_edges == 1 and doc.edge_weight.tolist() == [0.0]


def test_gexf_time_slices_are_flattened_with_a_warning():
    doc = load_graph(GEPHI / "slice.gexf")
    assert doc.node_attributes["Price"].tolist() == [12.0, 8.0]
    assert doc.edge_weight.tolist() == [2.0]
    assert any("latest time slice" in w for w in doc.warnings)


def test_gml_non_ascii_label_and_non_numeric_ids():
    assert load_graph(GEPHI / "emojis.gml").node_ids == ("✅",)
    doc = load_graph(GEPHI / "label.gml")
    assert doc.node_ids == ("Node A", "Node B", "Node C")
    assert doc.edges.tolist() == [[1, 0], [2, 0]]
    assert doc.edge_attributes["label"].tolist() == ["Edge B to A", "Edge C to A"]


def test_gml_without_labels_power_grid():
    doc = load_graph(GEPHI / "Power_Grid.gml")
    assert doc.node_ids[:3] == ("0", "1", "2")
    assert doc.data.x.shape[0] == 4941 and "degree" in doc.features_note


def test_directed_graph_keeps_direction_and_offers_the_symmetric_version():
    doc = load_graph(GEPHI / "Java.gexf")
    assert torch.equal(doc.data.edge_index, torch.from_numpy(doc.edges.T.copy()))
    und = doc.data.edge_index_undirected
    pairs = set(map(tuple, und.T.tolist()))
    assert all((v, u) in pairs for u, v in pairs)


# ----------------------------------------------------------------------------------------
# Round trips with networkx's own writers
# ----------------------------------------------------------------------------------------


def _karate() -> nx.Graph:
    return nx.karate_club_graph()


def _directed_with_loops() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edges_from([("a", "b"), ("b", "c"), ("c", "a"), ("b", "b"), ("c", "d"), ("d", "c")])
    g.add_node("lonely")
    for i, node in enumerate(g.nodes):
        g.nodes[node]["group"] = "x" if i % 2 else "y"
        g.nodes[node]["score"] = float(i) / 2
    return g


def _weighted() -> nx.Graph:
    g = nx.Graph()
    g.add_weighted_edges_from([(1, 2, 0.5), (2, 3, 2.25), (3, 4, 0.0), (4, 1, 7.0), (5, 5, 1.5)])
    return g


GRAPHS = {"karate": _karate, "directed": _directed_with_loops, "weighted": _weighted}


def _write(graph: nx.Graph, fmt: str, folder: Path) -> Path:
    path = folder / f"g.{fmt}"
    if fmt == "graphml":
        nx.write_graphml(graph, path)
    elif fmt == "gexf":
        nx.write_gexf(graph, path)
    elif fmt == "gml":
        nx.write_gml(graph, path)
    elif fmt == "net":
        nx.write_pajek(graph, path)
    elif fmt == "edgelist":
        nx.write_edgelist(graph, path)
    elif fmt == "txt":
        nx.write_weighted_edgelist(graph, path)
    elif fmt == "json":
        path.write_text(json.dumps(nx.node_link_data(graph, edges="links")))
    return path


FORMATS = ["graphml", "gexf", "gml", "net", "edgelist", "txt", "json"]


def _edge_set(doc: GraphDocument, directed: bool) -> dict:
    out = {}
    for k, (u, v) in enumerate(doc.edges.tolist()):
        key = (doc.node_ids[u], doc.node_ids[v])
        if not directed:
            key = tuple(sorted(key))
        out[key] = None if doc.edge_weight is None else float(doc.edge_weight[k])
    return out


def _nx_edge_set(graph: nx.Graph) -> dict:
    out = {}
    for u, v, w in graph.edges(data="weight"):
        key = (str(u), str(v)) if graph.is_directed() else tuple(sorted((str(u), str(v))))
        out[key] = None if w is None else float(w)
    return out


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("which", list(GRAPHS))
def test_round_trip_with_networkx_writers(tmp_path, which, fmt):
    graph = GRAPHS[which]()
    if fmt == "txt" and which != "weighted":
        pytest.skip("write_weighted_edgelist needs weights on every edge")
    doc = load_graph(_write(graph, fmt, tmp_path))
    check_consistent(doc)
    edge_list = fmt in ("edgelist", "txt")
    if not edge_list:  # edge lists cannot hold isolated nodes or direction
        assert set(doc.node_ids) == {str(n) for n in graph.nodes}
        assert doc.directed == graph.is_directed()
    else:
        assert set(doc.node_ids) == {str(n) for n in graph.nodes if graph.degree(n)}
    expected = _nx_edge_set(graph)
    got = _edge_set(doc, doc.directed)
    if edge_list and graph.is_directed():
        expected = {tuple(sorted(k)): w for k, w in expected.items()}
        assert set(got) == set(expected)
        return
    assert set(got) == set(expected)
    if any(w is not None for w in expected.values()):
        assert got == pytest.approx(expected)
    if which in ("karate", "directed") and not edge_list:
        attr = "club" if which == "karate" else "group"
        column = doc.node_attributes[attr]
        for i, node_id in enumerate(doc.node_ids):
            node = int(node_id) if which == "karate" else node_id
            assert column[i] == graph.nodes[node][attr]
        if which == "karate":
            assert attr in doc.label_candidates()


def test_edge_list_csv_with_header_names_and_weights(tmp_path):
    path = tmp_path / "edges.csv"
    path.write_text("# a comment\nsource,target,strength\nAnn,Bob,1.5\n\n% another\n"
                    "Bob,Cy,2\nCy,Ann,0.25\nAnn,Bob,1\n")
    doc = load_graph(path)
    assert doc.node_ids == ("Ann", "Bob", "Cy")
    assert doc.num_edges == 3 and doc.multigraph_collapsed == 1
    assert doc.edge_weight.tolist() == [2.5, 2.0, 0.25]  # parallel weights summed
    assert any("parallel" in w for w in doc.warnings)
    assert any("'strength' is used as the edge weight" in w for w in doc.warnings)


def test_edge_list_whitespace_without_header(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("1 2\n2 3\n3 1\n3 3\n")
    doc = load_graph(path)
    assert doc.num_nodes == 3 and doc.num_edges == 4 and doc.edge_weight is None


# ----------------------------------------------------------------------------------------
# PyG Data and unsafe pickles
# ----------------------------------------------------------------------------------------


def test_pyg_data_round_trip(tmp_path):
    from torch_geometric.data import Data
    from torch_geometric.utils import to_undirected

    g = torch.Generator().manual_seed(0)
    edge_index = to_undirected(torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]))
    data = Data(x=torch.randn(5, 3, generator=g), edge_index=edge_index,
                y=torch.tensor([0, 1, 1, 0, 2]), pos=torch.randn(5, 2, generator=g),
                edge_attr=torch.randn(edge_index.shape[1], 2, generator=g),
                train_mask=torch.tensor([True, False, True, False, True]))
    torch.save(data, tmp_path / "g.pt")
    doc = load_graph(tmp_path / "g.pt")
    check_consistent(doc)
    assert not doc.directed and doc.num_edges == 4
    assert doc.label_attr == "y" and doc.labels.tolist() == [0, 1, 1, 0, 2]
    np.testing.assert_allclose(doc.pos, data.pos.numpy())
    for c in range(3):
        np.testing.assert_allclose(doc.node_attributes[f"x[{c}]"], data.x[:, c].numpy())
    assert doc.node_attributes["train_mask"].tolist() == [1, 0, 1, 0, 1]
    assert doc.feature_attrs == ("x[0]", "x[1]", "x[2]") and doc.data.x.shape == (5, 3)
    assert {tuple(p) for p in doc.data.edge_index.T.tolist()} == \
        {tuple(p) for p in edge_index.T.tolist()}

    torch.save({"edge_index": torch.tensor([[0, 1], [1, 2]])}, tmp_path / "d.pth")
    doc = load_graph(tmp_path / "d.pth")
    assert doc.directed and doc.num_nodes == 3 and doc.num_edges == 2


class _Evil:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_and_does_not_run(tmp_path):
    marker = tmp_path / "pwned"
    for name, saver in [("evil.pt", lambda f, obj: torch.save(obj, f)),
                        ("evil2.pt", lambda f, obj: pickle.dump(obj, f, protocol=2))]:
        with open(tmp_path / name, "wb") as f:
            saver(f, {"edge_index": torch.tensor([[0], [1]]), "boom": _Evil(str(marker))})
        with pytest.raises(GraphLoadError, match="refused: the file would run code"):
            load_graph(tmp_path / name)
    assert not marker.exists()


# ----------------------------------------------------------------------------------------
# XML attacks, malformed files
# ----------------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
"""
BODIES = {
    "graphml": '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph '
               'edgedefault="undirected"><node id="&{e};"/></graph></graphml>',
    "gexf": '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2"><graph><nodes>'
            '<node id="a" label="&{e};"/></nodes></graph></gexf>',
}


@pytest.mark.parametrize("ext", list(BODIES))
def test_billion_laughs_is_refused_fast(tmp_path, ext):
    path = tmp_path / f"lol.{ext}"
    path.write_text(BILLION_LAUGHS + BODIES[ext].format(e="lol9"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(GraphLoadError, match="refused"):
        load_graph(path)
    assert time.perf_counter() - start < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB


@pytest.mark.parametrize("ext", list(BODIES))
def test_external_entity_is_refused(tmp_path, ext):
    path = tmp_path / f"xxe.{ext}"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY xxe SYSTEM '
                    '"file:///etc/passwd">]>\n' + BODIES[ext].format(e="xxe"))
    with pytest.raises(GraphLoadError, match="refused") as info:
        load_graph(path)
    assert "root:" not in str(info.value)


def test_malformed_csv_line_names_file_and_line(tmp_path):
    path = tmp_path / "edges.csv"
    path.write_text("a,b\n" * 11 + "a,b,c,d,e\n")
    with pytest.raises(GraphLoadError, match=r"edges\.csv, line 12: expected 2 or 3 columns, "
                                             r".*got 5"):
        load_graph(path)
    path.write_text("a,b,1\nb,c,heavy\n")
    with pytest.raises(GraphLoadError, match=r"edges\.csv, line 2: .*numeric weight"):
        load_graph(path)


@pytest.mark.parametrize(("name", "content", "match"), [
    ("empty.csv", b"", "empty"),
    ("comments.csv", b"# only a comment\n", "no edges"),
    ("graph.xyz", b"1 2\n", "Supported formats"),
    ("garbage.graphml", bytes(range(256)) * 4, "not a graph file|not well-formed"),
    ("garbage.pt", b"\x80\x04garbage" * 10, "not a readable PyTorch file"),
    ("garbage.gml", b"graph [ node [ id 1 ", "ends early"),
    ("nodes.gml", b"graph [ ]", "no nodes"),
    ("bad.json", b"{\"nodes\": [", "line 1"),
    ("other.xml", b"<svg></svg>", "neither GraphML nor GEXF"),
    ("x.net", b"*Vertices 2\n1 \"a\"\n2 \"b\"\n*Edges\n1 3\n", "line 5"),
])
def test_bad_files_raise_graph_load_error(tmp_path, name, content, match):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(GraphLoadError, match=match) as info:
        load_graph(path)
    assert name in str(info.value)


def test_size_and_node_caps(tmp_path, monkeypatch):
    import models.graphs.document as document
    import models.graphs.readers.load as readers

    path = tmp_path / "big.txt"
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(50)))
    monkeypatch.setattr(document, "MAX_NODES", 20)
    with pytest.raises(GraphLoadError, match="more than 20 nodes"):
        load_graph(path)
    monkeypatch.setattr(readers, "MAX_FILE_BYTES", 100)
    with pytest.raises(GraphLoadError, match="graph files up to"):
        load_graph(path)


def test_missing_file_raises_graph_load_error(tmp_path):
    with pytest.raises(GraphLoadError, match="cannot open"):
        load_graph(tmp_path / "nope.graphml")


# ----------------------------------------------------------------------------------------
# Fuzzing: mutated small files of every format load or raise GraphLoadError
# ----------------------------------------------------------------------------------------


def _seed_files() -> dict[str, bytes]:
    graph = nx.Graph()
    graph.add_edge("a", "b", weight=1.5)
    graph.add_edge("b", "c", weight=2.0)
    graph.nodes["a"]["group"] = "x"
    graph.nodes["b"]["pos"] = 1
    files = {}
    for fmt, writer in [("graphml", nx.write_graphml), ("gexf", nx.write_gexf),
                        ("gml", nx.write_gml)]:
        buffer = io.BytesIO()
        writer(graph, buffer)
        files[fmt] = buffer.getvalue()
    files["net"] = b'*Vertices 3\n1 "a" 0.1 0.2\n2 "b" 0.3 0.4\n3 "c" 0.5 0.6\n*Edges\n1 2 1.5\n'
    files["csv"] = b"source,target,weight\na,b,1.5\nb,c,2\n"
    files["txt"] = b"# comment\na b 1.5\nb c {'weight': 2}\n"
    files["json"] = json.dumps(nx.node_link_data(graph, edges="links")).encode()
    buffer = io.BytesIO()
    torch.save({"edge_index": torch.tensor([[0, 1], [1, 2]]), "y": torch.tensor([0, 1, 0])},
               buffer)
    files["pt"] = buffer.getvalue()
    return files


SEEDS = _seed_files()

mutation = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), st.integers(0, 10_000), st.integers(1, 16)),
    st.tuples(st.just("replace"), st.integers(0, 10_000), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("truncate"), st.integers(0, 10_000), st.just(0)),
)


def _mutate(data: bytes, ops) -> bytes:
    for op, where, arg in ops:
        where = where % (len(data) + 1)
        if op == "insert":
            data = data[:where] + arg + data[where:]
        elif op == "delete":
            data = data[:where] + data[where + arg:]
        elif op == "replace":
            data = data[:where] + arg + data[where + len(arg):]
        else:
            data = data[:where]
    return data


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=st.sampled_from(sorted(SEEDS)), ops=st.lists(mutation, min_size=1, max_size=4))
@pytest.mark.slow
def test_fuzzed_files_load_or_raise_graph_load_error(tmp_path_factory, fmt, ops):
    path = tmp_path_factory.mktemp("fuzz") / f"g.{fmt}"
    path.write_bytes(_mutate(SEEDS[fmt], ops))
    try:
        doc = load_graph(path)
    except GraphLoadError:
        return
    check_consistent(doc)


def test_seed_files_load(tmp_path):
    for fmt, content in SEEDS.items():
        path = tmp_path / f"g.{fmt}"
        path.write_bytes(content)
        doc = load_graph(path)
        assert doc.num_nodes == 3, fmt


# ----------------------------------------------------------------------------------------
# Built-in graphs and layouts
# ----------------------------------------------------------------------------------------

BUILTIN_COUNTS = {"karate": (34, 78, 4), "les_miserables": (77, 254, None),
                  "florentine": (15, 20, None), "davis": (32, 89, 2), "sbm": (100, None, 4),
                  "ba_house": (110, 116 + 70, 4), "grid": (100, 180, 4),
                  "geometric": (150, None, 4), "football": (115, 613, 12)}


@pytest.mark.parametrize("key", list(BUILTIN_GRAPHS))
def test_builtin_graphs(key):
    doc = builtin_graph(key, seed=1)
    check_consistent(doc)
    nodes, edges, classes = BUILTIN_COUNTS[key]
    assert doc.num_nodes == nodes and doc.source == "built-in"
    if edges is not None:
        assert doc.num_edges == edges
    if classes is not None:
        assert len(doc.label_names) == classes
    assert doc.label_attr is not None and (doc.labels >= 0).all()
    again = builtin_graph(key, seed=1)
    assert np.array_equal(doc.edges, again.edges) and np.array_equal(doc.labels, again.labels)


def test_builtin_details():
    sbm = builtin_graph("sbm", seed=0)
    assert sbm.labels.tolist() == sorted(sbm.labels.tolist())
    assert not np.array_equal(sbm.edges, builtin_graph("sbm", seed=2).edges)
    assert builtin_graph("sbm", p_in=0.5, sizes=(10, 10)).num_nodes == 20
    house = builtin_graph("ba_house")
    assert np.bincount(house.labels).tolist() == [60, 10, 20, 20]
    assert builtin_graph("grid").pos is not None and builtin_graph("geometric").pos is not None
    assert torch.equal(builtin_graph("karate").data.y,
                       __import__("torch_geometric.datasets", fromlist=["KarateClub"])
                       .KarateClub()[0].y)
    with pytest.raises(InvalidParameterError):
        builtin_graph("nope")
    with pytest.raises(InvalidParameterError):
        builtin_graph("grid", wrong=1)


def _tiny(tmp_path, name: str, content: str) -> GraphDocument:
    path = tmp_path / name
    path.write_text(content)
    return load_graph(path)


@pytest.mark.parametrize("kind", LAYOUTS[:-1])
def test_layouts_are_finite_for_awkward_graphs(tmp_path, kind):
    docs = [
        builtin_graph("karate"),
        _tiny(tmp_path, "one.gml", "graph [ node [ id 0 ] ]"),
        _tiny(tmp_path, "loose.gml", "graph [ node [ id 0 ] node [ id 1 ] node [ id 2 ] ]"),
        _tiny(tmp_path, "parts.txt", "a b\nb c\nc a\nd e\nf f\n"),
        builtin_graph("geometric", radius=0.05),
    ]
    for doc in docs:
        pos = layout(doc, kind, seed=3)
        assert pos.dtype == np.float32 and pos.shape == (doc.num_nodes, 2)
        assert np.isfinite(pos).all() and np.abs(pos).max() <= 1.0 + 1e-5
        if doc.num_nodes > 2 and kind != "circular":
            assert len(np.unique(pos.round(4), axis=0)) > 1
        assert np.array_equal(pos, layout(doc, kind, seed=3))


def test_data_layout_and_errors():
    grid = builtin_graph("grid")
    pos = layout(grid, "data")
    assert pos.shape == (100, 2) and np.abs(pos).max() == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="no node positions"):
        layout(builtin_graph("karate"), "data")
    with pytest.raises(InvalidParameterError):
        layout(grid, "sideways")
    with pytest.raises(InvalidParameterError, match="too slow"):
        layout(builtin_graph("geometric", n=2500, radius=0.03), "kamada_kawai")


def test_kamada_kawai_recovers_a_grid():
    grid = builtin_graph("grid", rows=6, cols=6)
    pos = layout(grid, "kamada_kawai").astype(np.float64)
    hops = np.abs(grid.pos[:, None, :] - grid.pos[None, :, :]).sum(-1)
    dist = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
    assert np.corrcoef(hops.ravel(), dist.ravel())[0, 1] > 0.95


# ----------------------------------------------------------------------------------------
# Attributes, labels and features
# ----------------------------------------------------------------------------------------


def test_with_attributes_rebuilds_labels_and_features():
    doc = load_graph(GEPHI / "US_Airports.gexf")
    assert doc.label_attr is None and (doc.labels == -1).all()
    assert "degree" in doc.features_note
    chosen = doc.with_attributes(None, ["latitude", "longitude"])
    x = chosen.data.x.numpy()
    assert x.shape == (235, 2)
    np.testing.assert_allclose(x.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(x.std(0), 1, atol=1e-4)
    karate = builtin_graph("karate").with_attributes("club", ["club"])
    assert karate.label_names == ("Mr. Hi", "Officer") and karate.data.x.shape == (34, 2)
    codes, names = karate.categorical("community")
    assert names == ("0", "1", "2", "3") and codes.dtype == np.int64
    assert "latitude" in doc.feature_candidates()
    with pytest.raises(InvalidParameterError, match="no node attribute"):
        doc.with_attributes("nope", [])


# ----------------------------------------------------------------------------------------
# Export
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("ext", ["graphml", "gexf"])
@pytest.mark.parametrize("source", ["les_mis", "directed"])
def test_save_graph_round_trip(tmp_path, ext, source):
    if source == "les_mis":
        doc = load_graph(GEPHI / "Les_Miserables.gexf")
    else:
        doc = load_graph(_write(_directed_with_loops(), "graphml", tmp_path))
    n, e, e2 = doc.num_nodes, doc.num_edges, doc.data.edge_index.shape[1]
    rng = np.random.default_rng(0)
    score = rng.random(n).astype(np.float32)
    cls = np.arange(n) % 3
    flow = rng.random(e2).astype(np.float32)
    per_edge = np.arange(e, dtype=np.int64)
    path = tmp_path / f"out.{ext}"
    save_graph(doc, path, node_values={"score": score, "cls": cls,
                                       "name": np.array([f"n{i}" for i in range(n)])},
               edge_values={"flow": flow, "rank": per_edge})
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []

    back = load_graph(path)
    assert back.node_ids == doc.node_ids and back.directed == doc.directed
    # edges come back in networkx's order, each in the direction of doc.edges
    row = {tuple(uv): k for k, uv in enumerate(doc.edges.tolist())}
    order = np.array([row[tuple(uv)] for uv in back.edges.tolist()])
    assert sorted(order.tolist()) == list(range(e))
    np.testing.assert_allclose(back.node_attributes["score"], score, rtol=1e-6)
    assert back.node_attributes["cls"].tolist() == cls.tolist()
    assert back.node_attributes["name"][n - 1] == f"n{n - 1}"
    assert back.edge_attributes["rank"].tolist() == order.tolist()
    forward = np.empty(e, dtype=np.float32)
    forward[doc.edge_index_edge[~doc.edge_index_reverse]] = flow[~doc.edge_index_reverse]
    np.testing.assert_allclose(back.edge_attributes["flow"], forward[order], rtol=1e-6)
    if not doc.directed:
        backward = forward.copy()
        backward[doc.edge_index_edge[doc.edge_index_reverse]] = flow[doc.edge_index_reverse]
        np.testing.assert_allclose(back.edge_attributes["flow_reverse"], backward[order],
                                   rtol=1e-6)
    for name, column in doc.node_attributes.items():
        if name in ("score", "cls", "name"):
            continue  # replaced by node_values
        if column.dtype == object:
            assert back.node_attributes[name].tolist() == column.tolist()
        else:
            np.testing.assert_allclose(back.node_attributes[name], column, rtol=1e-6)
    if doc.edge_weight is not None:
        np.testing.assert_allclose(back.edge_weight, doc.edge_weight[order])
    if doc.pos is not None:
        np.testing.assert_allclose(back.pos, doc.pos, rtol=1e-6)

    graph = nx.read_graphml(path) if ext == "graphml" else nx.read_gexf(path)
    assert graph.number_of_nodes() == n and graph.number_of_edges() == e
    assert graph.is_directed() == doc.directed
    node = doc.node_ids[3]
    assert graph.nodes[node]["score"] == pytest.approx(float(score[3]))
    assert graph.nodes[node]["cls"] == int(cls[3])


def test_save_graph_rejects_bad_values_and_leaves_no_file(tmp_path):
    doc = builtin_graph("karate")
    path = tmp_path / "k.graphml"
    with pytest.raises(InvalidParameterError):
        save_graph(doc, path, edge_values={"bad": np.zeros(5)})
    with pytest.raises(InvalidParameterError):
        save_graph(doc, tmp_path / "k.csv")
    assert list(tmp_path.iterdir()) == []
    save_graph(doc, tmp_path / "k.gexf", node_values={"pos": layout(doc, "spring")})
    assert load_graph(tmp_path / "k.gexf").pos.shape == (34, 2)
