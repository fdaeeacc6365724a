"""Hostile files for ArchScope's File → Open: the generator of the corpus.

    python tests/data/make_hostile.py /tmp/corpus            # the whole corpus but the bombs
    python tests/data/make_hostile.py /tmp/corpus --large    # and the zip bombs
    python tests/data/make_hostile.py /tmp/corpus --big      # and 80 MB of large text

The text files (UTF-16/32 graphs, non-finite or negative edge weights, one-point,
1e39, quoted-newline and degenerate point files, ...) are committed in
``tests/data/hostile`` (``HOSTILE_DIR``) and copied; the ``.pt`` files (model files with
hostile hyper-parameters, an empty file, a legacy-format file, pickles that would run
code) are written here, so they follow the installed torch's format, and so are the files
too large to commit. ``zip_bomb_pt`` writes a real bomb: a PyTorch zip archive whose
tensor record is deflated zeros, a few MB on disk and gigabytes declared, with a pickle
that agrees with it: ``torch.load`` without ArchScope's check allocates and inflates all
of it. The deflate stream is one compressed 16 MiB block repeated (each block ends with a
full flush, so copies can be concatenated) and its CRC is computed with zlib's
``crc32_combine`` algorithm, so a 3 GiB bomb takes well under a second to write.
"""

from __future__ import annotations

import argparse
import collections
import io
import math
import pickle
import shutil
import struct
import sys
import zipfile
import zlib
from pathlib import Path

import torch

CHUNK = 16 << 20
#: the committed (small, text) files of the corpus
HOSTILE_DIR = Path(__file__).resolve().parent / "hostile"


# -- CRC-32 of long runs of zeros (zlib's crc32_combine, in Python) --------------------------------
def _gf2_times(mat: list[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of ``A + B`` from ``crc32(A)``, ``crc32(B)`` and ``len(B)``."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def _zeros_crc(chunks: int) -> int:
    one = zlib.crc32(bytes(CHUNK))
    crc, have, power, power_len = 0, 0, one, CHUNK
    n = chunks
    while n:
        if n & 1:
            crc = crc32_combine(crc, power, power_len) if have else power
            have += power_len
        power = crc32_combine(power, power, power_len)
        power_len *= 2
        n >>= 1
    return crc


# -- a zip archive written by hand (a member may be pre-deflated) ---------------------------------
def _write_zip(path: Path, members: list[tuple[str, int, int, int, bytes]]) -> None:
    """``members``: (name, method, crc, uncompressed size, payload); sizes < 4 GiB."""
    out, central = bytearray(), bytearray()
    for name, method, crc, size, payload in members:
        raw = name.encode()
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc,
                           len(payload), size, len(raw), 0) + raw + payload
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc,
                               len(payload), size, len(raw), 0, 0, 0, 0, 0, offset) + raw
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(central), len(out), 0)
    Path(path).write_bytes(bytes(out + central + end))


class _Storage:
    """A tensor storage of ``numel`` int64 that only exists in the pickle."""

    def __init__(self, numel: int):
        self.numel = numel


class _Tensor:
    """Pickles as torch pickles a tensor (``_rebuild_tensor_v2`` on a storage record)."""

    def __init__(self, storage: _Storage, shape: tuple[int, ...]):
        self.storage, self.shape = storage, shape

    def __reduce__(self):
        stride = tuple(math.prod(self.shape[i + 1:]) for i in range(len(self.shape)))
        return (torch._utils._rebuild_tensor_v2,
                (self.storage, 0, self.shape, stride, False, collections.OrderedDict()))


class _TorchPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return ("storage", torch.LongStorage, "0", "cpu", obj.numel)
        return None


def zip_bomb_pt(path: Path, wrap=None, declared: int = 3 << 30) -> Path:
    """A PyTorch archive holding one int64 tensor of ``declared`` bytes (rounded up to
    16 MiB; under 4 GiB), shape [2, n], stored as deflated zeros: its pickle and its record
    agree, so ``torch.load`` allocates and inflates all of it. ``wrap(tensor)`` is the
    object saved (default: a PyG-style ``{"edge_index": tensor}``)."""
    chunks = max(1, math.ceil(declared / CHUNK))
    size = chunks * CHUNK
    if size >= 1 << 32:
        raise ValueError("declared size must stay under 4 GiB (no zip64 here)")
    tensor = _Tensor(_Storage(size // 8), (2, size // 16))
    obj = (wrap or (lambda t: {"edge_index": t}))(tensor)
    pkl = io.BytesIO()
    _TorchPickler(pkl, protocol=2).dump(obj)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(bytes(CHUNK)) + packer.flush(zlib.Z_FULL_FLUSH)
    bomb = block * chunks + b"\x03\x00"          # + an empty final block
    buffer = io.BytesIO()
    torch.save({}, buffer)                        # torch's own small records
    with zipfile.ZipFile(buffer) as zf:
        members = []
        for info in zf.infolist():
            data = pkl.getvalue() if info.filename.endswith("/data.pkl") else zf.read(info)
            members.append((info.filename, zipfile.ZIP_STORED, zlib.crc32(data), len(data),
                            data))
        prefix = info.filename.split("/")[0]
    members.insert(1, (f"{prefix}/data/0", zipfile.ZIP_DEFLATED, _zeros_crc(chunks), size,
                       bomb))
    _write_zip(path, members)
    return Path(path)


def many_members_pt(path: Path, count: int = 20_000) -> Path:
    """A zip archive shaped like torch's with ``count`` tiny records (a dict of tensors
    would give one record each; the reader would open them all)."""
    buffer = io.BytesIO()
    torch.save({"edge_index": torch.tensor([[0], [1]])}, buffer)
    with zipfile.ZipFile(buffer) as zf:
        members = [(i.filename, 0, zlib.crc32(d := zf.read(i)), len(d), d) for i in zf.infolist()]
    prefix = members[0][0].split("/")[0]
    members += [(f"{prefix}/data/x{k}", 0, 0, 0, b"") for k in range(count)]
    _write_zip(path, members)
    return Path(path)


def big_pickle_pt(path: Path, nbytes: int = 12 << 20) -> Path:
    """A torch-shaped archive whose ``data.pkl`` is ``nbytes`` long (one long string):
    unpickling builds Python objects in proportion, outside any tensor limit."""
    buffer = io.BytesIO()
    torch.save({}, buffer)
    pkl = pickle.dumps({"edge_index": "x" * nbytes}, protocol=2)
    with zipfile.ZipFile(buffer) as zf:
        members = [(i.filename, 0, zlib.crc32(d), len(d), d) for i in zf.infolist()
                   for d in [pkl if i.filename.endswith("/data.pkl") else zf.read(i)]]
    _write_zip(path, members)
    return Path(path)


# -- Transformer model files with hostile hyper-parameters -------------------------------------
def model_doc(**changes) -> dict:
    """The dictionary of a saved ArchScope Seq2Seq model (no weights), with ``changes``:
    ``model__num_heads=0`` sets ``doc["model"]["num_heads"]``; ``step=-1`` a top-level key."""
    doc = {"format": "archscope-seq2seq-1",
           "task": {"task": "reverse", "vocab": 10, "min_len": 8, "max_len": 12,
                    "alphabet": "digits"},
           "model": {"num_encoder_layers": 2, "num_decoder_layers": 2, "d_model": 64,
                     "num_heads": 4, "d_ff": 128, "dropout": 0.0,
                     "architecture": "encoder-decoder"},
           "step": 0, "state_dict": {},
           "schedule": {"lr": 1e-3, "warmup": 100, "decay_steps": 0, "batch_size": 64}}
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            doc[section][field] = value
        else:
            doc[section] = value
    return doc


HOSTILE_MODELS = {
    "num_heads_0.pt": {"model__num_heads": 0},
    "encoder_layers_100000.pt": {"model__num_encoder_layers": 100_000},
    "max_len_1e9.pt": {"task__max_len": 10 ** 9},
    "d_model_not_divisible.pt": {"model__d_model": 66},
    "d_model_nan.pt": {"model__d_model": float("nan")},
    "num_heads_float.pt": {"model__num_heads": 4.5},
    "negative_d_ff.pt": {"model__d_ff": -128},
    "vocab_huge.pt": {"task__vocab": 10 ** 7},
    "batch_size_1e9.pt": {"schedule__batch_size": 10 ** 9},
}


class _RunsCode:
    def __reduce__(self):
        return (print, ("this must never run",))


def write_small(folder: Path) -> list[Path]:
    """The small ``.pt`` files of the corpus."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, changes in HOSTILE_MODELS.items():
        torch.save(model_doc(**changes), folder / name)
        out.append(folder / name)
    (folder / "empty.pt").write_bytes(b"")
    torch.save({"edge_index": torch.tensor([[0, 1, -3], [1, 2, 0]])}, folder / "negative_node.pt")
    torch.save({"edge_index": torch.tensor([[0, 1], [1, 2]]),
                "edge_weight": torch.tensor([1.0, 1e308], dtype=torch.float64)},
               folder / "weight_1e308.pt")
    torch.save({"edge_index": torch.tensor([[0, 1], [1, 2]])}, folder / "legacy_format.pt",
               _use_new_zipfile_serialization=False)
    torch.save({"format": "archscope-seq2seq-1", "x": _RunsCode()}, folder / "runs_code.pt")
    with open(folder / "plain_pickle.pt", "wb") as fh:
        pickle.dump({"edge_index": [[0], [1]], "x": _RunsCode()}, fh, protocol=2)
    out += [folder / n for n in ("empty.pt", "negative_node.pt", "weight_1e308.pt",
                                 "legacy_format.pt", "runs_code.pt", "plain_pickle.pt")]
    return out


def write_large(folder: Path) -> list[Path]:
    """The files too large to commit (a few MB each on disk)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [zip_bomb_pt(folder / "zip_bomb_graph.pt"),
            zip_bomb_pt(folder / "zip_bomb_model.pt",
                        lambda t: model_doc(state_dict={"w": t})),
            many_members_pt(folder / "many_members.pt"),
            big_pickle_pt(folder / "big_pickle.pt")]


# -- files that are only large (tens of MB of plain text) ------------------------------------------
def edge_list(path: Path, lines: int, nodes: int) -> Path:
    """A CSV edge list ``u,v`` of ``lines`` random edges among ``nodes`` nodes (100,000
    lines repeated: written in a second)."""
    import numpy as np

    rng = np.random.default_rng(0)
    block = "".join(f"{u},{v}\n" for u, v in rng.integers(0, nodes, size=(100_000, 2)))
    path.write_bytes(block.encode() * max(1, lines // 100_000))
    return path


def graphml(path: Path, nodes: int, weights: bool = False) -> Path:
    """A GraphML ring-like graph of ``nodes`` nodes and as many edges; with ``weights`` a
    numeric node attribute ``weight`` as well."""
    key = ('<key id="w" for="node" attr.name="weight" attr.type="double"/>\n'
           if weights else "")
    body = "".join(f'<node id="n{i}"><data key="w">{i % 7}</data></node>\n' if weights
                   else f'<node id="n{i}"/>\n' for i in range(nodes))
    edges = "".join(f'<edge source="n{i}" target="n{(i * 7 + 1) % nodes}"/>\n'
                    for i in range(nodes))
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.'
                    'graphdrawing.org/xmlns">\n' + key + '<graph edgedefault="undirected">\n'
                    + body + edges + "</graph>\n</graphml>\n")
    return path


def points_file(path: Path, n: int) -> Path:
    """A flows point CSV ``x,y`` of ``n`` normal points (100,000 repeated)."""
    import numpy as np

    rng = np.random.default_rng(0)
    block = "".join(f"{x:.6f},{y:.6f}\n" for x, y in rng.normal(size=(min(n, 100_000), 2)))
    path.write_bytes(b"x,y\n" + block.encode() * max(1, n // 100_000))
    return path


def write_big(folder: Path) -> list[Path]:
    """The files of issue 19 that are hostile only by their size (about 80 MB in all):
    a 3-million-line edge list (refused: over 2,000,000 edges), a 300,000-node GraphML
    (refused: over 200,000 nodes) and a million points (accepted: the most a flows file
    may hold). Each used to hold the GUI thread for seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    return [edge_list(folder / "edges_3M.csv", 3_000_000, 100_000),
            graphml(folder / "nodes_300k.graphml", 300_000),
            points_file(folder / "points_1M.csv", 1_000_000)]


def write_corpus(folder: Path, large: bool = False, big: bool = False) -> list[Path]:
    """Every hostile file in one folder: the committed ones copied, the ``.pt`` ones
    written, with ``large`` the zip bombs (a few MB each), with ``big`` the files that
    are only large (``write_big``)."""
    folder.mkdir(parents=True, exist_ok=True)
    copied = [Path(shutil.copy(f, folder / f.name)) for f in sorted(HOSTILE_DIR.iterdir())
              if f.is_file()]
    return (copied + write_small(folder) + (write_large(folder) if large else [])
            + (write_big(folder) if big else []))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--large", action="store_true", help="also write the zip bombs")
    parser.add_argument("--big", action="store_true",
                        help="also write the files that are only large (about 80 MB)")
    args = parser.parse_args(argv)
    for f in write_corpus(args.folder, args.large, args.big):
        print(f"{f}  {f.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
