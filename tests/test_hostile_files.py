"""Hostile and clumsy files (issue 19, models side): zip bombs, huge or broken
hyper-parameters, files that would run code, empty and legacy files, UTF-16/32 text,
non-finite and negative edge weights, point files too small, beyond float32, quoted
over several lines, and data with no spread.

The small files live in tests/data/hostile; the ``.pt`` files and the bombs are written
by tests/data/make_hostile.py into a temporary folder.
"""

from __future__ import annotations

import math
import resource
import shutil
import time
import zipfile

import numpy as np
import pytest
import torch

from models.checkpoint import MAX_UNPACKED_BYTES, check_torch_archive, pickle_globals
from models.errors import (
    DegenerateDataError,
    GraphLoadError,
    InvalidParameterError,
    ModelFileError,
    TrainingDivergedError,
)
from models.flows import FlowSession, densities
from models.flows import points as flow_points
from models.graphs import load_graph
from models.graphs.document import NEGATIVE_WEIGHT_NOTE
from models.transformer.model import (
    MAX_ATTENTION_VALUES,
    MAX_PARAMETERS,
    validate_hyperparameters,
)
from models.transformer.session import Seq2SeqSession
from tests.data.make_hostile import (
    HOSTILE_DIR,
    HOSTILE_MODELS,
    _zeros_crc,
    big_pickle_pt,
    many_members_pt,
    model_doc,
    write_small,
    zip_bomb_pt,
)

CHUNK = 16 << 20


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    write_small(folder)
    return folder


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs")
    return {"graph": zip_bomb_pt(folder / "zip_bomb_graph.pt"),
            "model": zip_bomb_pt(folder / "zip_bomb_model.pt",
                                 lambda t: model_doc(state_dict={"w": t}))}


def _load_model(path):
    return Seq2SeqSession.load(path)


LOADERS = {"graph": (load_graph, GraphLoadError), "model": (_load_model, ModelFileError)}


# -- 1. zip bombs and archives ---------------------------------------------------------------------
def test_the_generated_bomb_is_real_and_cheap_to_write(tmp_path):
    """What the corpus calls a bomb is one: torch.load alone inflates it whole (here a
    small one, 32 MiB from 32 KB), and its CRC is the CRC of the zeros."""
    assert _zeros_crc(3) == __import__("zlib").crc32(bytes(3 * CHUNK))
    path = zip_bomb_pt(tmp_path / "small_bomb.pt", declared=32 << 20)
    assert path.stat().st_size < 64_000
    obj = torch.load(path, weights_only=True)
    assert obj["edge_index"].numel() * 8 == 32 << 20
    start = time.perf_counter()
    big = zip_bomb_pt(tmp_path / "big.pt")
    assert time.perf_counter() - start < 5 and big.stat().st_size < 8 << 20
    with zipfile.ZipFile(big) as zf:
        assert sum(i.file_size for i in zf.infolist()) > 3 * MAX_UNPACKED_BYTES - CHUNK


@pytest.mark.parametrize("kind", ["graph", "model"])
def test_a_zip_bomb_is_refused_before_it_is_unpacked(bombs, kind):
    load, error = LOADERS[kind]
    before, start = _rss_mb(), time.perf_counter()
    with pytest.raises(error, match=r"refused: the archive would unpack to 3\.0 GB \(from "
                                    r"3\.0 MB on disk\); .* up to 1\.0 GB") as info:
        load(bombs[kind])
    assert time.perf_counter() - start < 1.0
    assert _rss_mb() - before < 100
    assert bombs[kind].name in str(info.value)


def test_a_member_compressed_absurdly_is_refused_even_when_small_overall(tmp_path):
    path = zip_bomb_pt(tmp_path / "dense.pt", declared=64 << 20)
    with pytest.raises(GraphLoadError, match=r"member archive/data/0 unpacks [\d,]+ times "
                                             r"larger .*built to exhaust memory"):
        load_graph(path)


def test_an_archive_of_too_many_members_is_refused(tmp_path):
    path = many_members_pt(tmp_path / "many.pt", count=12_000)
    with pytest.raises(ModelFileError, match="12,00\\d members; .* at most 10,000"):
        Seq2SeqSession.load(path)


def test_an_oversized_pickle_is_refused_before_unpickling(tmp_path):
    path = big_pickle_pt(tmp_path / "big_pickle.pt")
    with pytest.raises(GraphLoadError, match=r"its pickle \(data.pkl\) is 12.0 MB; .* at "
                                             r"most 8.0 MB"):
        load_graph(path)


# -- 3. raw error texts ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["graph", "model"])
def test_an_empty_file_is_said_to_be_empty(corpus, kind):
    load, error = LOADERS[kind]
    with pytest.raises(error, match="empty") as info:
        load(corpus / "empty.pt")
    assert "empty.pt" in str(info.value) and not str(info.value).rstrip().endswith(":")


@pytest.mark.parametrize("name", ["runs_code.pt", "plain_pickle.pt"])
@pytest.mark.parametrize("kind", ["graph", "model"])
def test_code_in_a_file_is_refused_by_name_without_torchs_hint(corpus, capsys, name, kind):
    load, error = LOADERS[kind]
    with pytest.raises(error, match=r"refused: the file would run code .*builtins\.print") \
            as info:
        load(corpus / name)
    text = str(info.value)
    assert "weights_only" not in text and "Re-running" not in text and "trust" not in text
    assert "this must never run" not in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["graph", "model"])
def test_a_legacy_file_is_refused_with_the_conversion_to_do(corpus, kind):
    load, error = LOADERS[kind]
    with pytest.raises(error, match=r"legacy format .* torch\.save\(obj, new_path\)"):
        load(corpus / "legacy_format.pt")


def test_no_message_about_any_hostile_pt_shows_torchs_advice(corpus, bombs):
    for path in [*sorted(corpus.glob("*.pt")), *bombs.values()]:
        for load, error in LOADERS.values():
            with pytest.raises(error) as info:
                load(path)
            text = str(info.value)
            assert "weights_only=False" not in text and "weights_only` set" not in text, text
            assert text.split(":")[-1].strip(), text


def test_a_weights_only_refusal_of_numpy_names_the_class(tmp_path):
    torch.save({"edge_index": torch.tensor([[0], [1]]), "x": np.zeros(3)}, tmp_path / "np.pt")
    with pytest.raises(GraphLoadError, match=r"would run code .*numpy\S*_reconstruct") as info:
        load_graph(tmp_path / "np.pt")
    assert "add_safe_globals" not in str(info.value)


def test_pickle_globals_reads_opcodes_without_running_anything(corpus):
    data = (corpus / "plain_pickle.pt").read_bytes()
    assert pickle_globals(data) == ["__builtin__.print"]
    assert pickle_globals(b"\x80\x04garbage") == []


def test_the_archive_check_reads_paths_and_bytes_alike(corpus):
    for source in (corpus / "legacy_format.pt", (corpus / "legacy_format.pt").read_bytes()):
        with pytest.raises(ValueError, match="x.pt: saved in PyTorch's legacy format"):
            check_torch_archive(source, "x.pt")


# -- 2. hyper-parameters of a model file ------------------------------------------------------------
EXPECTED = {
    "num_heads_0.pt": r"num_heads = 0 is outside the allowed range 1 to 64",
    "encoder_layers_100000.pt": r"num_encoder_layers = 100000 is outside .* 1 to 12",
    "max_len_1e9.pt": r"max_len = 1000000000 is outside the allowed range 1 to 64",
    "d_model_not_divisible.pt": r"d_model = 66 is not divisible by num_heads = 4",
    "d_model_nan.pt": r"d_model is NaN; it must be a whole number from 2 to 1024",
    "num_heads_float.pt": r"num_heads = 4\.5 is not a whole number; .* from 1 to 64",
    "negative_d_ff.pt": r"d_ff = -128 is outside the allowed range 1 to 8192",
    "vocab_huge.pt": r"vocab = 10000000 is outside the allowed range 2 to 1000",
    "batch_size_1e9.pt": r"batch_size = 1000000000 is outside the allowed range 1 to 1024",
}


@pytest.mark.parametrize("name", list(HOSTILE_MODELS))
def test_model_file_hyper_parameters_are_checked_before_building(corpus, name):
    before, start = _rss_mb(), time.perf_counter()
    with pytest.raises(ModelFileError, match=f"^{name}: {EXPECTED[name]}"):
        Seq2SeqSession.load(corpus / name)
    assert time.perf_counter() - start < 1.0 and _rss_mb() - before < 50


@pytest.mark.parametrize("model, task, batch, match", [
    ({"d_model": 63, "num_heads": 1}, {}, None, "d_model = 63 is odd"),
    ({"dropout": 1.0}, {}, None, r"dropout = 1\.0 is outside the allowed range 0 to 1"),
    ({"dropout": math.nan}, {}, None, "dropout = nan"),
    ({"num_decoder_layers": True}, {}, None, "num_decoder_layers = True is not a whole"),
    ({"d_ff": "128"}, {}, None, "d_ff = '128' is not a whole number"),
    ({}, {"min_len": 9, "max_len": 8}, None, "min_len = 9 is larger than max_len = 8"),
    ({"num_encoder_layers": 12, "num_decoder_layers": 12, "d_model": 1024, "d_ff": 8192},
     {}, None, f"at most {MAX_PARAMETERS:,}"),
    ({"num_heads": 64, "d_model": 1024}, {"max_len": 64}, 1024,
     f"at most {MAX_ATTENTION_VALUES:,}"),
])
def test_validate_hyperparameters(model, task, batch, match):
    base = model_doc()
    with pytest.raises(InvalidParameterError, match=match):
        validate_hyperparameters({**base["model"], **model}, {**base["task"], **task}, batch)
    validate_hyperparameters(base["model"], base["task"], 64)      # the defaults pass
    # the paper's base model (6 + 6 layers, 512, 8 heads, 2048) passes too
    validate_hyperparameters({**base["model"], "num_encoder_layers": 6, "num_decoder_layers": 6,
                              "d_model": 512, "num_heads": 8, "d_ff": 2048}, base["task"], 64)


def test_a_schedule_or_step_out_of_range_is_refused(tmp_path):
    for changes, match in [({"schedule__lr": math.inf}, "lr must be a number > 0"),
                           ({"step": -1}, "step = -1 is outside"),
                           ({"model__heads": 4}, "unknown model field heads"),
                           ({"task": [1, 2]}, "the file has no 'task' description")]:
        torch.save(model_doc(**changes), tmp_path / "m.pt")
        with pytest.raises(ModelFileError, match=f"m.pt: {match}"):
            Seq2SeqSession.load(tmp_path / "m.pt")


# -- 4. graph readers --------------------------------------------------------------------------------
def _copy(name, tmp_path):
    return shutil.copy(HOSTILE_DIR / name, tmp_path / name)


def test_utf16_with_a_bom_reads_like_utf8(tmp_path):
    wide = load_graph(HOSTILE_DIR / "edges_utf16.csv")
    (tmp_path / "edges.csv").write_text((HOSTILE_DIR / "edges_utf16.csv").read_bytes()
                                        .decode("utf-16"))
    narrow = load_graph(tmp_path / "edges.csv")
    assert wide.node_ids == narrow.node_ids == ("a", "b", "c", "d")
    np.testing.assert_array_equal(wide.edges, narrow.edges)
    np.testing.assert_array_equal(wide.edge_weight, [1.5, 2, 0.5, 1])


def test_utf32_graphml_with_chinese_ids_and_its_declaration_is_read():
    doc = load_graph(HOSTILE_DIR / "cities_utf32be.graphml")
    assert doc.node_ids == ("北京", "上海", "广州")
    np.testing.assert_allclose(doc.edge_weight, [1.2, 0.8])


def test_utf16_without_a_bom_names_the_encoding():
    with pytest.raises(GraphLoadError, match="edges_utf16_no_bom.csv: the text looks like "
                                             "UTF-16 LE without a byte-order mark"):
        load_graph(HOSTILE_DIR / "edges_utf16_no_bom.csv")


def test_a_negative_node_index_names_that_node(corpus):
    with pytest.raises(GraphLoadError, match=r"refers to node -3 \(column 2, source\); node "
                                             r"indices must be 0 to 2"):
        load_graph(corpus / "negative_node.pt")


@pytest.mark.parametrize("name, match", [
    ("weights_inf.csv", r"1 edge weight is not a finite number: \(b, c\): inf"),
    ("weights_1e308.csv", r"1 edge weight is too large: \(b, c\): 1e\+308\. .*float32"),
])
def test_edge_weights_beyond_float32_are_refused_naming_the_edge(name, match):
    with pytest.raises(GraphLoadError, match=f"{name}: {match}"):
        load_graph(HOSTILE_DIR / name)


def test_a_pt_weight_beyond_float32_and_parallel_sums_are_refused(corpus, tmp_path):
    with pytest.raises(GraphLoadError, match=r"\(1, 2\): 1e\+308"):
        load_graph(corpus / "weight_1e308.pt")
    (tmp_path / "sum.csv").write_text("a,b,3e38\nb,a,3e38\nb,c,1\n")
    with pytest.raises(GraphLoadError, match=r"sum.csv: merging parallel edges sums their "
                                             r"weights beyond float32.*\(a, b\)"):
        load_graph(tmp_path / "sum.csv")


def test_negative_weights_are_shown_but_not_trained_with():
    from models.graphs.layers import build_model

    doc = load_graph(HOSTILE_DIR / "weights_negative.csv")
    note = [w for w in doc.warnings if "negative" in w]
    assert note == [f"2 edges have a negative weight: (2, 3): -3, (6, 7): -0.5. "
                    f"{NEGATIVE_WEIGHT_NOTE}"]
    assert doc.edge_weight.min() == -3                   # kept as the file gave them
    assert getattr(doc.data, "edge_weight", None) is None
    torch.manual_seed(0)
    gcn = build_model("gcn", doc.data.num_features, 2)
    gcn.eval()
    logits, hidden = gcn(doc.data.x, doc.data.edge_index, None, return_hidden=True)
    assert torch.isfinite(logits).all() and all(torch.isfinite(h).all() for h in hidden)
    # what the note says: with the weights, node 2's degree is 1 + 1 - 3 < 0
    weights = torch.from_numpy(doc.edge_weight[doc.edge_index_edge].copy())
    bad = gcn(doc.data.x, doc.data.edge_index, weights)
    assert not torch.isfinite(bad).all()


def test_a_json_message_names_the_file():
    with pytest.raises(GraphLoadError, match=r"^node_id_object.json: node 1: a node id is a "
                                             r"list or an object"):
        load_graph(HOSTILE_DIR / "node_id_object.json")


# -- 5. points files -------------------------------------------------------------------------------
def test_too_few_points_are_refused():
    with pytest.raises(InvalidParameterError, match=r"points_one.csv: only 1 point; a flow "
                                                    f"needs at least {flow_points.MIN_POINTS}"):
        flow_points.load_points_csv(HOSTILE_DIR / "points_one.csv")


def test_a_value_beyond_float32_is_refused_naming_its_line():
    with pytest.raises(InvalidParameterError, match=r"points_1e39.csv, line 42: 1e\+39 is "
                                                    r"beyond float32's range"):
        flow_points.load_points_csv(HOSTILE_DIR / "points_1e39.csv")


def test_rfc4180_quoted_newlines_are_read(tmp_path):
    pts = flow_points.load_points_csv(HOSTILE_DIR / "points_quoted_newline.csv")
    assert pts.shape == (60, 2) and np.isfinite(pts).all()
    np.testing.assert_array_equal(pts[9], [1.25, -0.75])   # "1.25\n", then a note over 2 lines
    # comments still work in a quoted file, quotes and all
    commented = tmp_path / "c.csv"
    commented.write_text('# "my" points\n"x";"y"\n' + "".join(
        f'"{i}";"{i % 5}"  # "note {i}\n' for i in range(60)) + '# a "last word\n')
    pts = flow_points.load_points_csv(commented)
    np.testing.assert_array_equal(pts[:3], [[0, 0], [1, 1], [2, 2]])


def test_an_unclosed_quote_names_the_line_it_opens(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"points_unclosed_quote.csv, line 62: a "
                                                    r"quoted field opens here and is never"):
        flow_points.load_points_csv(HOSTILE_DIR / "points_unclosed_quote.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text('"x","y"\n' + "".join(f'"{i}","{i % 7}"\n' for i in range(60))
                   + '"3","abc"\n')
    with pytest.raises(InvalidParameterError, match=r"bad.csv, line 62: '3,abc' is not two"):
        flow_points.load_points_csv(bad)


def test_utf16_points_are_read(tmp_path):
    text = "x,y\n" + "".join(f"{i},{i * i % 11}\n" for i in range(60))
    (tmp_path / "p.csv").write_bytes(text.encode("utf-16"))
    assert flow_points.load_points_csv(tmp_path / "p.csv").shape == (60, 2)


# -- 6. degenerate data before flow training -------------------------------------------------------
@pytest.mark.parametrize("name, match", [
    ("points_identical.csv", r"All 500 points are the same point \(0\.5, -1\.25\)\. A density "
                             "with no spread is unbounded"),
    ("points_scale_1e-30.csv", r"almost no spread \(standard deviation \S+e-3\d\)\. A density "
                               "with no spread is unbounded.*Standardise the data"),
])
def test_data_with_no_spread_is_refused_before_training(name, match):
    points = flow_points.load_points_csv(HOSTILE_DIR / name)
    session = FlowSession("realnvp", points=points, num_flows=2, hidden_dim=8, batch_size=32)
    weights = [p.detach().clone() for p in session.flow.parameters()]
    with pytest.raises(DegenerateDataError, match=match):
        session.train(5)
    assert session.step == 0 and not session.losses
    assert all(torch.equal(a, b) for a, b in zip(weights, session.flow.parameters(),
                                                 strict=True))


def test_points_on_a_line_are_refused():
    line = np.stack([np.linspace(-1, 1, 300), 0.5 * np.linspace(-1, 1, 300)], 1)
    assert "lie on a line" in flow_points.spread_problem(line)
    assert flow_points.spread_problem(densities.sample("two_moons", 300)) is None


def test_data_at_1e30_diverges_with_advice_to_standardise_then_standardised_it_trains():
    points = flow_points.load_points_csv(HOSTILE_DIR / "points_scale_1e30.csv")
    session = FlowSession("realnvp", points=points, num_flows=2, hidden_dim=8, batch_size=32)
    with pytest.raises(TrainingDivergedError, match=r"reach \S+e\+30 from their mean.*"
                                                    "standardise the data") as info:
        list(session.train(5))
    assert "learning rate" not in str(info.value)
    fixed = flow_points.standardise(points)
    assert fixed.dtype == np.float32
    np.testing.assert_allclose(fixed.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(fixed.std(0), 1, atol=1e-4)
    np.testing.assert_allclose(fixed * points.astype(np.float64).std(0)
                               + points.astype(np.float64).mean(0), points, rtol=1e-4)
    session = FlowSession("realnvp", points=fixed, num_flows=2, hidden_dim=8, batch_size=32)
    assert session.data_problem is None
    list(session.train(5))
    assert session.step == 5 and all(math.isfinite(v) for v in session.losses)


def test_a_flow_session_needs_the_minimum_of_finite_points():
    with pytest.raises(InvalidParameterError, match=f"at least {flow_points.MIN_POINTS} rows"):
        FlowSession("realnvp", points=np.zeros((10, 2), np.float32))
    bad = densities.sample("two_moons", 100)
    bad[3] = np.inf
    with pytest.raises(InvalidParameterError, match="finite"):
        FlowSession("realnvp", points=bad)


@pytest.mark.parametrize("name, helps", [
    ("points_scale_1e30.csv", True),        # far from unit scale: standardising cures it
    ("points_scale_1e-30.csv", True),       # almost no spread: so does it
    ("points_identical.csv", False),        # all one point: nothing can
])
def test_the_scale_judgement_is_the_sessions_scale_and_knows_when_standardising_helps(
        name, helps):
    points = flow_points.load_points_csv(HOSTILE_DIR / name)
    problem = flow_points.spread_problem(points)
    scale, standardising_helps = flow_points.scale_judgement(points, problem)
    session = FlowSession("realnvp", points=points, num_flows=2, hidden_dim=8, batch_size=32)
    assert scale == session.data_scale()
    centred = points.astype(np.float64) - points.astype(np.float64).mean(0)
    assert scale == pytest.approx(float(np.abs(centred).max()), rel=1e-12)
    assert standardising_helps is helps
    assert (flow_points.spread_problem(flow_points.standardise(points)) is None) is helps
    moons = densities.sample("two_moons", 300)       # nothing wrong: nothing to cure
    assert flow_points.scale_judgement(moons, None)[1] is False
