"""Session files (``.archscope``): what a tab shows, kept in one file and opened anywhere.

A session file is a zip archive::

    manifest.json                         format, versions, where it was saved, the tabs
    tabs/<tab>/weights.safetensors        the tab's tensors: weights, optimizer moments,
                                          random-generator states (safetensors: no pickle)
    tabs/<tab>/arrays/<name>.npy          the tab's arrays: loss curves, the user's points,
                                          a loaded graph's edges (read with allow_pickle=False)

``manifest.json``::

    {"format": "archscope-session", "format_version": 1, "app_version": "0.1.0",
     "saved_at": "2026-12-01T17:30:00+00:00", "saved_on": "cpu", "current": "flows",
     "tabs": {"flows": {"params": {...}, "data": {...},
                        "weights": "tabs/flows/weights.safetensors",
                        "arrays": {"points": "tabs/flows/arrays/points.npy"}}}}

``params`` are the tab's controls (what its ``apply_state`` takes), ``data`` is anything
else small and JSON-able the tab needs (a typed sentence, a node's names, the records of
each training session).

Nothing in the file is ever executed: no pickle, no ``torch.load``. Reading checks the
archive before a byte of it is unpacked, from its central directory, which declares
every member's size: more than ``MAX_MEMBERS`` members, more than ``MAX_UNPACKED_BYTES``
unpacked, a member compressed more than ``MAX_COMPRESSION_RATIO`` times, a name that is
absolute or climbs out with ``..`` are refused, as are a newer ``format_version``, a
manifest that names members the archive does not have, and a truncated or damaged file
(zip's CRC-32 is checked on every member read). Tensors come back on the CPU; the caller
moves them to its device, so a session saved on CUDA opens on a CPU-only machine.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from models.errors import SessionFileError
from models.reading import loads_json, open_regular

FORMAT = "archscope-session"
FORMAT_VERSION = 1
SUFFIX = ".archscope"
MANIFEST = "manifest.json"
#: the most members a session may have (a tab writes one weights file and a few arrays)
MAX_MEMBERS = 2_000
#: the most its members may declare, unpacked, together
MAX_UNPACKED_BYTES = 1 << 30
#: the largest manifest (parameters and records: a few KB to a few hundred KB)
MAX_MANIFEST_BYTES = 16 << 20
#: the largest unpacked-to-packed ratio of a member over ``RATIO_FROM_BYTES``
MAX_COMPRESSION_RATIO = 200
RATIO_FROM_BYTES = 1 << 20
#: the most one tab's arrays and weights may unpack to (a tab's own checks then hold
#: each array to what its controls can make)
MAX_TAB_BYTES = 256 << 20
#: the end of a zip: its last record (22 bytes) and a comment of up to 64 KiB
_EOCD, _EOCD_SIZE, _TAIL = b"PK\x05\x06", 22, 22 + 0xFFFF
_ZIP64_LOCATOR, _ZIP64_EOCD = b"PK\x06\x07", b"PK\x06\x06"
#: a tab key or an array name: letters, digits, ``_ - .`` (never a path)
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


@dataclass
class TabState:
    """One tab's part of a session: its controls (``params``), small JSON-able ``data``,
    ``tensors`` (saved as safetensors) and ``arrays`` (saved as .npy)."""

    params: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    tensors: dict = field(default_factory=dict)        # name -> torch.Tensor
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class SessionDocument:
    """A whole session: one tab's state or every tab's, the tab on screen, where and with
    which version it was saved."""

    tabs: dict[str, TabState]
    current: str | None = None
    app_version: str = ""
    saved_on: str = "cpu"
    saved_at: str = ""
    format_version: int = FORMAT_VERSION


def _size(nbytes: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if nbytes < 1024 or unit == "TB":
            return f"{nbytes:,.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return ""


def _check_name(name: str, what: str, file: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        raise SessionFileError(f"{file}: refused: {what} {name!r} is not a plain name.")
    return name


# -- writing -------------------------------------------------------------------------------
def write_session(path: str | os.PathLike, doc: SessionDocument,
                  step: Callable[[int, int], None] | None = None) -> None:
    """Write ``doc`` to ``path`` (callers make it atomic: write to a temporary name in the
    same folder, then rename, as ``app.export.atomic_write`` does). ``step(done, total)``
    is called before each member of the archive (a background save reports progress
    there, and gives up by raising)."""
    from safetensors.torch import save as save_tensors

    name = Path(path).name
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "app_version": doc.app_version, "saved_on": doc.saved_on,
        "saved_at": doc.saved_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "current": doc.current, "tabs": {},
    }
    total = sum(bool(state.tensors) + len(state.arrays) for state in doc.tabs.values()) + 1
    done = 0

    def next_member() -> None:
        nonlocal done
        if step is not None:
            step(done, total)
        done += 1

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for tab, state in doc.tabs.items():
            _check_name(tab, "the tab", name)
            entry: dict = {"params": state.params, "data": state.data, "arrays": {}}
            if state.tensors:
                tensors = {k: t.detach().to("cpu").contiguous() for k, t in state.tensors.items()}
                entry["weights"] = f"tabs/{tab}/weights.safetensors"
                next_member()
                # stored, not deflated: float weights shrink by ~7 % at 20 times the time
                zf.writestr(entry["weights"], save_tensors(tensors),
                            compress_type=zipfile.ZIP_STORED)
            for key, array in state.arrays.items():
                _check_name(key, "the array", name)
                array = np.asarray(array)
                if array.dtype.hasobject:
                    raise SessionFileError(f"{name}: the array {key} holds Python objects.")
                member = f"tabs/{tab}/arrays/{key}.npy"
                next_member()
                buf = io.BytesIO()
                np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
                zf.writestr(member, buf.getvalue())
                entry["arrays"][key] = member
            manifest["tabs"][tab] = entry
        try:
            text = json.dumps(manifest, indent=1, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise SessionFileError(f"{name}: a value cannot be saved ({exc}).") from exc
        next_member()
        zf.writestr(MANIFEST, text)


# -- reading -------------------------------------------------------------------------------
class _Archive(zipfile.ZipFile):
    """A zip archive read from a file this module opened, closed with it."""

    def __init__(self, fh) -> None:
        self._file = fh
        super().__init__(fh)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def _declared_members(fh, total: int, name: str) -> int:
    """The member count the zip's last record declares (zip64's where it says so), read
    from the file's end before Python's ``zipfile`` parses the whole directory: an archive
    of three million empty members took that parse 32 s and 2 GB before its count was
    refused."""
    fh.seek(max(0, total - _TAIL))
    tail = fh.read(_TAIL)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < _EOCD_SIZE:
        raise SessionFileError(f"{name}: the file is damaged or truncated: the end of its "
                               "zip directory is missing.")
    count = struct.unpack_from("<H", tail, at + 10)[0]
    if count != 0xFFFF:
        return count
    locator = at - 20
    if locator < 0 or tail[locator:locator + 4] != _ZIP64_LOCATOR:
        return count
    offset = struct.unpack_from("<Q", tail, locator + 8)[0]
    if offset + 56 > total:
        raise SessionFileError(f"{name}: the file is damaged: its zip64 directory points "
                               "beyond its end.")
    fh.seek(offset)
    record = fh.read(56)
    if record[:4] != _ZIP64_EOCD:
        raise SessionFileError(f"{name}: the file is damaged: its zip64 directory is missing.")
    return struct.unpack_from("<Q", record, 32)[0]


def _open_archive(path: str | os.PathLike) -> tuple[zipfile.ZipFile, str]:
    path = Path(path)
    name = path.name
    try:
        fh = open_regular(path)
    except OSError as exc:
        raise SessionFileError(f"{name}: cannot open the file ({exc.strerror or exc}).") from exc
    try:
        total = os.fstat(fh.fileno()).st_size
        head = fh.read(4)
        if total == 0:
            raise SessionFileError(f"{name}: the file is empty (0 bytes).")
        if head != b"PK\x03\x04":
            raise SessionFileError(f"{name}: not an ArchScope session (a session is a zip "
                                   f"archive; this file starts with {head!r}).")
        if total > MAX_UNPACKED_BYTES:
            raise SessionFileError(f"{name}: the file is {_size(total)}; ArchScope opens "
                                   f"sessions up to {_size(MAX_UNPACKED_BYTES)}.")
        count = _declared_members(fh, total, name)
        if count > MAX_MEMBERS:
            raise SessionFileError(f"{name}: refused: the archive has {count:,} members; "
                                   f"a session has at most {MAX_MEMBERS:,}.")
        fh.seek(0)
        try:
            zf = _Archive(fh)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise SessionFileError(f"{name}: the file is damaged or truncated: its zip "
                                   f"directory cannot be read ({exc}).") from exc
    except BaseException:
        fh.close()
        raise
    try:
        _check_members(zf.infolist(), name)
    except SessionFileError:
        zf.close()
        raise
    return zf, name


def _check_members(infos: list[zipfile.ZipInfo], name: str) -> None:
    if len(infos) > MAX_MEMBERS:
        raise SessionFileError(f"{name}: refused: the archive has {len(infos):,} members; "
                               f"a session has at most {MAX_MEMBERS:,}.")
    for info in infos:
        member = info.filename
        parts = member.replace("\\", "/").split("/")
        if (member.startswith(("/", "\\")) or "\\" in member or ".." in parts
                or re.match(r"^[A-Za-z]:", member)):
            raise SessionFileError(f"{name}: refused: the member {member!r} points outside "
                                   "the archive.")
    declared = sum(i.file_size for i in infos)
    if declared > MAX_UNPACKED_BYTES:
        raise SessionFileError(
            f"{name}: refused: the archive would unpack to {_size(declared)} (from "
            f"{_size(sum(i.compress_size for i in infos))} on disk); ArchScope opens "
            f"sessions up to {_size(MAX_UNPACKED_BYTES)} unpacked.")
    for i in infos:
        if i.file_size > RATIO_FROM_BYTES and \
                i.file_size > MAX_COMPRESSION_RATIO * max(i.compress_size, 1):
            raise SessionFileError(
                f"{name}: refused: the member {i.filename} unpacks "
                f"{i.file_size / max(i.compress_size, 1):,.0f} times larger "
                f"({_size(i.compress_size)} to {_size(i.file_size)}): built to exhaust memory.")


def _read(zf: zipfile.ZipFile, member: str, name: str) -> bytes:
    try:
        return zf.read(member)
    except KeyError as exc:
        raise SessionFileError(f"{name}: the manifest names {member}, which the archive "
                               "does not have.") from exc
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        # zlib.error is an Exception subclass raised for a damaged stream
        raise SessionFileError(f"{name}: the file is damaged or truncated ({member}: "
                               f"{exc}).") from exc
    except Exception as exc:  # noqa: BLE001 - zlib.error and friends
        raise SessionFileError(f"{name}: the file is damaged ({member}: {exc}).") from exc


def _manifest(zf: zipfile.ZipFile, name: str) -> dict:
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError as exc:
        raise SessionFileError(f"{name}: a zip archive, but not an ArchScope session (it has "
                               f"no {MANIFEST}).") from exc
    if info.file_size > MAX_MANIFEST_BYTES:
        raise SessionFileError(f"{name}: refused: its manifest is {_size(info.file_size)}.")
    try:
        manifest = loads_json(_read(zf, MANIFEST, name).decode("utf-8"))
    except ValueError as exc:        # also UnicodeDecodeError, JSONDecodeError
        raise SessionFileError(f"{name}: its manifest is not valid JSON ({exc}).") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SessionFileError(f"{name}: a zip archive, but not an ArchScope session (its "
                               "manifest does not say format “archscope-session”).")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SessionFileError(f"{name}: its manifest has no valid format_version "
                               f"({version!r}).")
    if version > FORMAT_VERSION:
        raise SessionFileError(
            f"{name}: written by a newer ArchScope ({manifest.get('app_version') or 'unknown'}, "
            f"session format {version}); this version reads format {FORMAT_VERSION}. "
            "Update ArchScope to open it.")
    tabs = manifest.get("tabs")
    if not isinstance(tabs, dict) or not tabs:
        raise SessionFileError(f"{name}: its manifest lists no tabs.")
    for tab, entry in tabs.items():
        _check_name(tab, "the tab", name)
        if not isinstance(entry, dict) or not isinstance(entry.get("params", {}), dict) \
                or not isinstance(entry.get("data", {}), dict) \
                or not isinstance(entry.get("arrays", {}), dict):
            raise SessionFileError(f"{name}: the manifest's entry for the tab {tab} is "
                                   "malformed.")
    return manifest


def read_manifest(path: str | os.PathLike) -> dict:
    """The checked manifest of a session file, without reading its weights or arrays."""
    zf, name = _open_archive(path)
    with zf:
        manifest = _manifest(zf, name)
        manifest["_members"] = {i.filename: i.file_size for i in zf.infolist()}
        return manifest


def _npy_bytes(zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str, name: str) -> int:
    """The bytes an array member's ``.npy`` header declares, checked against the member's
    size before its data is unpacked: a header may claim (10⁷, 10⁷) doubles (728 TiB)
    over a few bytes, which ``np.load`` would try to allocate first."""
    fmt = np.lib.format
    try:
        with zf.open(info) as f:
            version = fmt.read_magic(f)
            if version == (1, 0):
                shape, _fortran, dtype = fmt.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _fortran, dtype = fmt.read_array_header_2_0(f)
            else:
                raise ValueError(f"npy format version {version} is not one ArchScope writes")
            header = f.tell()
    except SessionFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - ValueError, zlib.error, EOFError alike
        raise SessionFileError(f"{name}: the file is damaged: {what} cannot be read "
                               f"({str(exc)[:200]}).") from exc
    if dtype.hasobject:
        raise SessionFileError(f"{name}: {what} holds Python objects; a session holds "
                               "numbers only.")
    declared = math.prod(shape) * dtype.itemsize
    if header + declared != info.file_size:
        raise SessionFileError(
            f"{name}: refused: {what} declares {shape} {dtype} ({_size(declared)}) but holds "
            f"{_size(max(0, info.file_size - header))}.")
    return declared


def _tab_members(zf: zipfile.ZipFile, tab: str, entry: dict, name: str,
                 tab_bytes: int) -> tuple[str | None, dict[str, str]]:
    """The tab's weights member and arrays, each where it must be, with what they unpack
    to checked against ``tab_bytes`` before a byte of them is unpacked."""
    weights = entry.get("weights")
    total = 0
    if weights is not None:
        if weights != f"tabs/{tab}/weights.safetensors":
            raise SessionFileError(f"{name}: the tab {tab}'s weights are at an "
                                   f"unexpected place ({weights!r}).")
        total += _info(zf, weights, name).file_size
    arrays: dict[str, str] = {}
    for key, member in entry.get("arrays", {}).items():
        _check_name(key, "the array", name)
        if member != f"tabs/{tab}/arrays/{key}.npy":
            raise SessionFileError(f"{name}: the array {key} of the tab {tab} is at "
                                   f"an unexpected place ({member!r}).")
        total += _npy_bytes(zf, _info(zf, member, name), f"the array {key} of the tab {tab}",
                            name)
        arrays[key] = member
        if total > tab_bytes:
            raise SessionFileError(
                f"{name}: refused: the tab {tab}'s arrays and weights unpack to more than "
                f"{_size(tab_bytes)}, more than any setting of the tab makes.")
    return weights, arrays


def _info(zf: zipfile.ZipFile, member: str, name: str) -> zipfile.ZipInfo:
    try:
        return zf.getinfo(member)
    except KeyError as exc:
        raise SessionFileError(f"{name}: the manifest names {member}, which the archive "
                               "does not have.") from exc


def read_session(path: str | os.PathLike, known_tabs: tuple[str, ...] | None = None,
                 tab_bytes: int = MAX_TAB_BYTES) -> SessionDocument:
    """Read and check a session file; tensors on the CPU. ``known_tabs``: refuse a tab
    that is not among them (a session from a later version with a new topic);
    ``tab_bytes``: the most one tab's arrays and weights may unpack to."""
    from safetensors import SafetensorError
    from safetensors.torch import load as load_tensors

    zf, name = _open_archive(path)
    with zf:
        manifest = _manifest(zf, name)
        if known_tabs is not None:
            unknown = [t for t in manifest["tabs"] if t not in known_tabs]
            if unknown:
                raise SessionFileError(
                    f"{name}: it holds the tab {', '.join(unknown)}, which this version of "
                    f"ArchScope does not have (it has {', '.join(known_tabs)}).")
        tabs: dict[str, TabState] = {}
        for tab, entry in manifest["tabs"].items():
            weights, arrays = _tab_members(zf, tab, entry, name, tab_bytes)
            state = TabState(params=entry.get("params", {}), data=entry.get("data", {}))
            if weights is not None:
                try:
                    state.tensors = load_tensors(_read(zf, weights, name))
                except SafetensorError as exc:
                    raise SessionFileError(f"{name}: the weights of the tab {tab} are "
                                           f"damaged ({exc}).") from exc
            for key, member in arrays.items():
                try:
                    state.arrays[key] = np.load(io.BytesIO(_read(zf, member, name)),
                                                allow_pickle=False)
                except (ValueError, EOFError, OSError) as exc:
                    raise SessionFileError(f"{name}: the array {key} of the tab {tab} cannot "
                                           f"be read ({exc}).") from exc
            tabs[tab] = state
        current = manifest.get("current")
        return SessionDocument(      # (a list as "current" raised TypeError: unhashable)
            tabs=tabs, current=current if isinstance(current, str) and current in tabs
            else None,
            app_version=str(manifest.get("app_version", "")),
            saved_on=str(manifest.get("saved_on", "cpu")),
            saved_at=str(manifest.get("saved_at", "")),
            format_version=manifest["format_version"])
