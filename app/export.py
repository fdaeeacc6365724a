"""Export: figures (PNG / SVG / PDF) and the data behind a view (CSV / NPY / JSON).

Every write is atomic: the file is written under a temporary name in the target
folder and renamed over the target only when complete, so a failed export leaves no
partial file and never damages an existing one.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from models.errors import ArchScopeError

DATA_FORMATS = ("csv", "npy", "json")


class ExportError(ArchScopeError):
    """The export could not be written (bad format, unwritable folder ...)."""


class ExportCancelled(Exception):
    """Raised inside a write once its ``cancelled()`` turned True (nothing is written)."""


class _Watched:
    """A text file whose writes report ``progress(fraction)`` (the characters written of
    ``total`` expected) and raise ``ExportCancelled`` once ``cancelled()``."""

    def __init__(self, fh, total: int, progress, cancelled) -> None:
        self.fh, self.total, self.done = fh, max(1, total), 0
        self.progress, self.cancelled = progress, cancelled
        self.next_check = 0

    def write(self, text: str) -> int:
        self.done += len(text)
        if self.done >= self.next_check:          # every 64 kB or so
            self.next_check = self.done + 65536
            self.check()
            if self.progress is not None:
                self.progress(min(0.99, self.done / self.total))
        return self.fh.write(text)

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise ExportCancelled


def format_of(path: str | os.PathLike, allowed: tuple[str, ...]) -> str:
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in allowed:
        raise ExportError(f"Cannot tell the format of '{Path(path).name}': use one of "
                          + ", ".join("." + a for a in allowed) + ".")
    return ext


class AtomicFile:
    """A file written under a temporary name (``tmp``) in the target's folder, put in
    place by :meth:`commit` only when complete; :meth:`discard` removes it. For a write
    that spans many event-loop turns (a PNG written in the background)."""

    #: the temporary files not yet committed or discarded (``discard_unfinished``)
    unfinished: set[str] = set()

    def __init__(self, path: str | os.PathLike) -> None:
        self.target = Path(path).expanduser()
        folder = self.target.parent
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".part",
                                            dir=folder)
        except OSError as exc:
            raise ExportError(f"Cannot write to '{folder}': {exc.strerror or exc}.") from exc
        os.close(fd)
        AtomicFile.unfinished.add(self.tmp)

    def commit(self) -> Path:
        """Rename the complete temporary file over the target; on failure it is removed."""
        try:
            if not os.path.exists(self.tmp) or os.path.getsize(self.tmp) == 0:
                raise ExportError(f"Nothing was written for '{self.target.name}'.")
            os.chmod(self.tmp, 0o666 & ~_umask())   # mkstemp makes 0600; exports are ordinary
            os.replace(self.tmp, self.target)
            AtomicFile.unfinished.discard(self.tmp)
        except ExportError:
            self.discard()
            raise
        except OSError as exc:
            self.discard()
            raise ExportError(f"Cannot write '{self.target}': {exc.strerror or exc}.") from exc
        return self.target

    def discard(self) -> None:
        _remove(self.tmp)
        AtomicFile.unfinished.discard(self.tmp)


def discard_unfinished() -> None:
    """Remove every temporary file an export has not finished (the process is leaving
    while a worker still writes one): the user's files stay as they were."""
    for tmp in list(AtomicFile.unfinished):
        _remove(tmp)
        AtomicFile.unfinished.discard(tmp)


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp_path)`` then rename ``tmp_path`` to ``path``."""
    file = AtomicFile(path)
    target = file.target
    try:
        write(file.tmp)
    except (ExportError, ExportCancelled):
        file.discard()
        raise
    except OSError as exc:
        file.discard()
        raise ExportError(f"Cannot write '{target}': {exc.strerror or exc}.") from exc
    except Exception as exc:
        file.discard()
        raise ExportError(f"Exporting '{target.name}' failed: {exc}") from exc
    except BaseException:   # KeyboardInterrupt, SystemExit: no half file either
        file.discard()
        raise
    return file.commit()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


def _json_default(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _dumps(value) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False)


#: bytes a data export gathers before each write to the file. Each write lets go of the
#: interpreter and takes it straight back; every 8 kB (Python's default) the GUI thread,
#: woken too late each time, lost the race for seconds in all: stalls of 40-400 ms
WRITE_BUFFER = 4 << 20
#: numbers of a 1-D array turned into Python objects at once in a JSON export: one
#: ``tolist`` of a whole 2048 × 2048 map held the interpreter (and the window) ~0.2 s
JSON_CHUNK = 4096


def _write_json_array(out, a: np.ndarray) -> None:
    """``a`` as nested JSON lists (as ``json.dump(a.tolist())`` writes it), a row or
    ``JSON_CHUNK`` numbers at a time."""
    if a.ndim == 0:
        out.write(_dumps(a.item()))
        return
    out.write("[")
    if a.ndim == 1:
        for start in range(0, len(a), JSON_CHUNK):
            out.write((", " if start else "") + _dumps(a[start:start + JSON_CHUNK].tolist())[1:-1])
    else:
        for i, row in enumerate(a):
            if i:
                out.write(", ")
            _write_json_array(out, row)
    out.write("]")


def write_data(path: str | os.PathLike, primary: str, arrays: Mapping[str, np.ndarray],
               meta: Mapping[str, object] | None = None,
               row_labels=None, col_labels=None, progress=None, cancelled=None) -> Path:
    """Write the arrays behind a view.

    CSV and NPY hold the primary array (CSV with row/column labels when given);
    JSON holds every array and the parameters in ``meta``. ``progress(fraction)`` is
    called now and then; once ``cancelled()`` is True the write stops with
    ``ExportCancelled`` and the target is left as it was (for a background job).
    """
    fmt = format_of(path, DATA_FORMATS)
    if primary not in arrays:
        raise ExportError(f"The view has no array named '{primary}'.")
    main = np.asarray(arrays[primary])

    def watched(fh, values: int) -> _Watched:       # ~12 characters a number
        return _Watched(fh, 12 * values, progress, cancelled)

    def write(tmp: str) -> None:
        if fmt == "npy":
            with open(tmp, "wb") as fh:
                np.save(fh, main)
        elif fmt == "json":
            with open(tmp, "w", encoding="utf-8", buffering=WRITE_BUFFER) as fh:
                out = watched(fh, sum(np.asarray(v).size for v in arrays.values()))
                out.write(f'{{"primary": {_dumps(primary)}, "meta": {_dumps(dict(meta or {}))}'
                          ', "arrays": {')
                for i, (k, v) in enumerate(arrays.items()):
                    out.write(f'{", " if i else ""}{_dumps(str(k))}: ')
                    _write_json_array(out, np.asarray(v))
                out.write("}}")
                out.check()
        else:
            table = np.atleast_2d(main) if main.ndim < 2 else main.reshape(main.shape[0], -1)
            if main.ndim == 1:
                table = main.reshape(-1, 1)
            with open(tmp, "w", encoding="utf-8", newline="", buffering=WRITE_BUFFER) as fh:
                for k, v in (meta or {}).items():
                    fh.write(f"# {k}: {v}\n")
                cols = list(col_labels) if col_labels is not None else [
                    f"{primary}[{j}]" for j in range(table.shape[1])]
                rows = list(row_labels) if row_labels is not None else list(
                    range(table.shape[0]))
                sink = watched(fh, table.size)
                out = csv.writer(sink, lineterminator="\n")  # quotes labels like "hello,"
                out.writerow(["row", *map(str, cols)])
                for label, row in zip(rows, table, strict=False):
                    out.writerow([str(label), *(f"{x:.9g}" for x in row)])
                sink.check()

    return atomic_write(path, write)
