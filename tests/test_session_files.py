"""The session file format (models.sessionfile): what it writes, what it refuses.

Every refusal is a ``SessionFileError`` naming the file; tests/test_sessions.py checks
that the window keeps its state when one is refused.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
import torch

from models import sessionfile
from models.errors import SessionFileError
from models.sessionfile import SessionDocument, TabState, read_manifest, read_session, write_session


def _doc(**tabs) -> SessionDocument:
    tabs = tabs or {"flows": TabState(
        params={"layers": 4, "lr": 0.001, "density": "two_moons"},
        data={"note": "中文 ok"},
        tensors={"main/model0.w": torch.arange(6, dtype=torch.float32).reshape(2, 3),
                 "main/rng.gen": torch.Generator().manual_seed(3).get_state()},
        arrays={"points": np.linspace(0, 1, 10, dtype=np.float32).reshape(5, 2),
                "labels": np.arange(5)})}
    return SessionDocument(tabs=tabs, current="flows", app_version="0.1.0", saved_on="cuda:0")


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.archscope"
    write_session(path, _doc())
    return path


def test_what_is_written_is_what_is_read(good):
    doc = read_session(good, ("flows", "graph"))
    state = doc.tabs["flows"]
    assert state.params == {"layers": 4, "lr": 0.001, "density": "two_moons"}
    assert state.data == {"note": "中文 ok"}
    torch.testing.assert_close(state.tensors["main/model0.w"],
                               torch.arange(6, dtype=torch.float32).reshape(2, 3))
    assert state.tensors["main/rng.gen"].dtype == torch.uint8
    np.testing.assert_array_equal(state.arrays["points"],
                                  np.linspace(0, 1, 10, dtype=np.float32).reshape(5, 2))
    assert state.arrays["labels"].dtype == np.int64
    assert (doc.current, doc.saved_on, doc.format_version) == ("flows", "cuda:0", 1)


def test_the_archive_is_a_plain_zip_with_a_json_manifest_and_no_pickle(good):
    with zipfile.ZipFile(good) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("manifest.json"))
        assert names == {"manifest.json", "tabs/flows/weights.safetensors",
                         "tabs/flows/arrays/points.npy", "tabs/flows/arrays/labels.npy"}
        heads = {name: zf.read(name)[:8] for name in names}
    # JSON, .npy (magic \x93NUMPY) and safetensors (a little-endian header length): no
    # member is a pickle (which starts with the PROTO opcode \x80)
    assert heads["manifest.json"].startswith(b"{")
    assert all(heads[n].startswith(b"\x93NUMPY") for n in names if n.endswith(".npy"))
    assert all(not h.startswith(b"\x80") for h in heads.values())
    assert manifest["format"] == "archscope-session" and manifest["format_version"] == 1
    assert manifest["tabs"]["flows"]["arrays"]["points"] == "tabs/flows/arrays/points.npy"


def test_tensors_saved_on_a_device_come_back_on_the_cpu(tmp_path):
    t = torch.ones(3)
    path = tmp_path / "s.archscope"
    write_session(path, _doc(flows=TabState(tensors={"w": t})))
    assert read_session(path).tabs["flows"].tensors["w"].device.type == "cpu"


def _rewrite(src, dst, edit_manifest=None, extra=(), drop=()):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = zin.read(info.filename)
            if info.filename == "manifest.json" and edit_manifest:
                manifest = json.loads(data)
                edit_manifest(manifest)
                data = json.dumps(manifest).encode()
            zout.writestr(info.filename, data)
        for name, data in extra:
            zout.writestr(name, data)
    return dst


def _refused(path, match, known=("flows", "graph")):
    with pytest.raises(SessionFileError, match=match) as info:
        read_session(path, known)
    assert path.name in str(info.value)
    return str(info.value)


def test_a_newer_format_is_refused_saying_to_update(good, tmp_path):
    path = _rewrite(good, tmp_path / "newer.archscope",
                    lambda m: m.update(format_version=2, app_version="9.0"))
    _refused(path, r"newer ArchScope \(9\.0, session format 2\).*Update ArchScope")


def test_a_tab_this_version_lacks_is_refused_naming_it(good, tmp_path):
    path = _rewrite(good, tmp_path / "tab.archscope",
                    lambda m: m["tabs"].update(diffusion={"params": {}}))
    _refused(path, r"the tab diffusion, which this version of ArchScope does not have")


@pytest.mark.parametrize("member", ["../escape.npy", "/etc/passwd", "tabs/../../x",
                                    "C:/windows/x", "tabs\\..\\x"])
def test_a_member_that_leaves_the_archive_is_refused(good, tmp_path, member):
    path = _rewrite(good, tmp_path / "escape.archscope", extra=[(member, b"x")])
    _refused(path, "points outside the archive")


def test_a_manifest_pointing_elsewhere_is_refused(good, tmp_path):
    path = _rewrite(good, tmp_path / "elsewhere.archscope", lambda m: m["tabs"]["flows"]
                    ["arrays"].update(points="tabs/graph/arrays/points.npy"))
    _refused(path, "at an unexpected place")


def test_too_many_members_are_refused_unread(good, tmp_path):
    extra = [(f"junk/{i}", b"") for i in range(sessionfile.MAX_MEMBERS + 1)]
    path = _rewrite(good, tmp_path / "many.archscope", extra=extra)
    _refused(path, "members; a session has at most 2,000")


def test_a_zip_bomb_member_is_refused_before_it_is_unpacked(good, tmp_path):
    path = tmp_path / "bomb.archscope"
    _rewrite(good, path)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("tabs/flows/arrays/zeros.npy", bytes(64 << 20))   # 64 MB to ~64 KB
    assert path.stat().st_size < 1 << 20
    _refused(path, r"unpacks [\d,]+ times larger")


def test_an_archive_declaring_more_than_the_limit_is_refused(good, tmp_path, monkeypatch):
    path = tmp_path / "declared.archscope"
    _rewrite(good, path)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("tabs/flows/arrays/zeros.npy", bytes(64 << 10))
    monkeypatch.setattr(sessionfile, "MAX_UNPACKED_BYTES", 16 << 10)
    assert path.stat().st_size < 16 << 10
    _refused(path, r"would unpack to \d+\.\d KB .* sessions up to 16\.0 KB")


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.99])
def test_a_truncated_file_is_refused(good, tmp_path, cut):
    data = good.read_bytes()
    path = tmp_path / "cut.archscope"
    path.write_bytes(data[:int(len(data) * cut)])
    _refused(path, "damaged or truncated")


def test_a_damaged_member_fails_its_checksum(tmp_path):
    path = tmp_path / "crc.archscope"
    doc = _doc(flows=TabState(arrays={"big": np.random.default_rng(0).random(5000)}))
    write_session(path, doc)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("tabs/flows/arrays/big.npy")
    data[info.header_offset + 30 + len(info.filename) + 100] ^= 0xFF
    path.write_bytes(bytes(data))
    _refused(path, "damaged")


@pytest.mark.parametrize("content, match", [
    (b"", "empty"), (b"hello world", "not an ArchScope session"),
    (b"\x80\x04\x95pickle", "not an ArchScope session")])
def test_what_is_not_a_session_is_said_so(tmp_path, content, match):
    path = tmp_path / "x.archscope"
    path.write_bytes(content)
    _refused(path, match)


def test_a_zip_without_a_manifest_or_with_a_broken_one_is_refused(good, tmp_path):
    _refused(_rewrite(good, tmp_path / "none.archscope", drop=("manifest.json",)),
             "has no manifest.json")
    path = tmp_path / "json.archscope"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", "{not json")
    _refused(path, "not valid JSON")
    path = tmp_path / "other.archscope"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "something-else"}))
    _refused(path, "not an ArchScope session")


def test_a_missing_member_is_named(good, tmp_path):
    path = _rewrite(good, tmp_path / "missing.archscope",
                    drop=("tabs/flows/arrays/points.npy",))
    _refused(path, "names tabs/flows/arrays/points.npy, which the archive does not have")


def test_an_array_of_python_objects_is_refused_without_unpickling(good, tmp_path):
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    path = _rewrite(good, tmp_path / "pickled.archscope", drop=("tabs/flows/arrays/points.npy",),
                    extra=[("tabs/flows/arrays/points.npy", buf.getvalue())])
    _refused(path, "the array points of the tab flows holds Python objects")


def test_damaged_weights_are_refused(good, tmp_path):
    path = _rewrite(good, tmp_path / "weights.archscope",
                    drop=("tabs/flows/weights.safetensors",),
                    extra=[("tabs/flows/weights.safetensors", b"\xff" * 40)])
    _refused(path, "the weights of the tab flows are damaged")


def test_the_manifest_reads_without_the_weights(good):
    manifest = read_manifest(good)
    assert manifest["tabs"]["flows"]["params"]["layers"] == 4
    assert manifest["_members"]["tabs/flows/arrays/points.npy"] > 0


def test_a_value_json_cannot_hold_is_refused_when_saving(tmp_path):
    with pytest.raises(SessionFileError, match="cannot be saved"):
        write_session(tmp_path / "nan.archscope",
                      _doc(flows=TabState(params={"lr": float("nan")})))
