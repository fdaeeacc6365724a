"""Hostile session files (``.archscope``) for File → Open session, written small.

    python tests/data/hostile_sessions.py /tmp/sessions

Each file is one case of issue 33 (tests/test_hostile_round3.py checks the readers on
their own; the monkey opens these through the window): an end record that claims
3,000,002 members, an array header claiming (10^7, 10^7) float64 (728 TiB), a manifest
nested 100,000 deep, a loss curve declaring 134 M values in a few bytes, points that
deflate to 640 MB (0.6 MB on disk), an array shorter than its header, lists where the
manifest has tables, terminal escapes in its text, a cut file and a named pipe. Each
must be refused (or opened, for the escapes) in bounded time and memory, naming the
file, with the window unchanged.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import struct
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SUFFIX = ".archscope"


def _good(path: Path, **arrays) -> Path:
    """A real one-tab session (the flows tab's settings and ``arrays``)."""
    from models.sessionfile import SessionDocument, TabState, write_session

    doc = SessionDocument(tabs={"flows": TabState(params={"layers": 4}, arrays=arrays)},
                          current="flows", app_version="0.1.0", saved_on="cpu")
    write_session(path, doc)
    return path


def _with_member(src: Path, dst: Path, member: str, data: bytes) -> Path:
    """``src`` with ``member`` holding ``data`` (deflated), or added if absent."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        names = zin.namelist()
        for name in names:
            zout.writestr(name, data if name == member else zin.read(name))
        if member not in names:
            zout.writestr(member, data)
    return dst


def _npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _zeros_member(zf: zipfile.ZipFile, name: str, header: bytes, zeros: int) -> None:
    """A deflated member of ``header`` then ``zeros`` zero bytes, written in pieces."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    block = bytes(1 << 20)
    with zf.open(info, "w", force_zip64=True) as fh:
        fh.write(header)
        left = zeros
        while left > 0:
            fh.write(block[:min(left, len(block))])
            left -= len(block)


def zip64_count(path: Path, count: int = 3_000_002) -> Path:
    """A few bytes whose zip64 end record claims ``count`` members."""
    body = b"PK\x03\x04" + bytes(60)
    zip64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, 0,
                        len(body))
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(body), 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                      0xFFFFFFFF, 0)
    path.write_bytes(body + zip64 + locator + end)
    return path


def write_sessions(folder: Path) -> list[Path]:
    """Write every hostile session into ``folder``; returns their paths (about 1 MB in
    all, most of it the deflated zeros)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    good = _good(folder / "_base.tmp", points=np.zeros((4, 2), np.float32))
    points = "tabs/flows/arrays/points.npy"
    out = [zip64_count(folder / f"three_million_members{SUFFIX}")]
    out.append(_with_member(good, folder / f"header_728_tib{SUFFIX}", points,
                            _npy_header((10**7, 10**7)) + bytes(64)))
    with zipfile.ZipFile(folder / f"manifest_100k_deep{SUFFIX}", "w",
                         zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", "[" * 100_000 + "]" * 100_000)
    out.append(folder / f"manifest_100k_deep{SUFFIX}")
    with zipfile.ZipFile(good) as zin:
        manifest = json.loads(zin.read("manifest.json"))
        rest = {n: zin.read(n) for n in zin.namelist() if n not in ("manifest.json", points)}
    losses = "tabs/flows/arrays/losses.npy"
    listed = json.loads(json.dumps(manifest))
    listed["tabs"]["flows"]["arrays"]["losses"] = losses
    _with_member(good, folder / "_listed.tmp", "manifest.json", json.dumps(listed).encode())
    out.append(_with_member(folder / "_listed.tmp", folder / f"losses_134M_declared{SUFFIX}",
                            losses, _npy_header((134_000_000,), "<f4") + bytes(4096)))
    (folder / "_listed.tmp").unlink()
    # the points really deflate to 640 MB (refused from the sizes, before unpacking)
    bomb = folder / f"points_640mb_bomb{SUFFIX}"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for name, data in rest.items():
            zf.writestr(name, data)
        _zeros_member(zf, points, _npy_header((40_000_000, 2)), 640_000_000)
    out.append(bomb)
    buf = io.BytesIO()
    np.save(buf, np.zeros((4, 2), np.float32))
    out.append(_with_member(good, folder / f"array_cut_short{SUFFIX}", points,
                            buf.getvalue()[:-8]))
    lists = dict(manifest)
    lists["tabs"] = {"flows": {**manifest["tabs"]["flows"], "data": {"sessions": ["main", 3]},
                               "params": {"layers": [[1, 2], {"a": None}]}}}
    lists.update(app_version=["0.1"], current=["flows"])
    out.append(_with_member(good, folder / f"lists_for_tables{SUFFIX}", "manifest.json",
                            json.dumps(lists).encode()))
    evil = "\x1b[2J\x1b[31mPWNED\r\nfake line\u202e"
    escapes = {**manifest, "app_version": evil, "saved_on": evil}
    out.append(_with_member(good, folder / f"terminal_escapes{SUFFIX}", "manifest.json",
                            json.dumps(escapes).encode()))
    data = good.read_bytes()
    cut = folder / f"cut_in_half{SUFFIX}"
    cut.write_bytes(data[: len(data) // 2])
    out.append(cut)
    garbage = folder / f"not_a_zip{SUFFIX}"
    garbage.write_bytes(zlib.compress(bytes(range(256)) * 64))
    out.append(garbage)
    if hasattr(os, "mkfifo"):
        pipe = folder / f"named_pipe{SUFFIX}"
        os.mkfifo(pipe)
        out.append(pipe)
    good.unlink()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    for f in write_sessions(args.folder):
        size = f.stat().st_size if f.is_file() else 0
        print(f"{f}  {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
