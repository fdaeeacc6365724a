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

    def __init__(self, path: str | os.PathLike) -> None:
        self.target = Path(path).expanduser()
        folder = self.target.parent
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".part",
                                            dir=folder)
        except OSError as exc:
            raise ExportError(f"Cannot write to '{folder}': {exc.strerror or exc}.") from exc
        os.close(fd)

    def commit(self) -> Path:
        """Rename the complete temporary file over the target; on failure it is removed."""
        try:
            if not os.path.exists(self.tmp) or os.path.getsize(self.tmp) == 0:
                raise ExportError(f"Nothing was written for '{self.target.name}'.")
            os.chmod(self.tmp, 0o666 & ~_umask())   # mkstemp makes 0600; exports are ordinary
            os.replace(self.tmp, self.target)
        except ExportError:
            self.discard()
            raise
        except OSError as exc:
            self.discard()
            raise ExportError(f"Cannot write '{self.target}': {exc.strerror or exc}.") from exc
        return self.target

    def discard(self) -> None:
        _remove(self.tmp)


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp_path)`` then rename ``tmp_path`` to ``path``."""
    file = AtomicFile(path)
    target = file.target
    try:
        write(file.tmp)
    except ExportError:
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


def write_data(path: str | os.PathLike, primary: str, arrays: Mapping[str, np.ndarray],
               meta: Mapping[str, object] | None = None,
               row_labels=None, col_labels=None) -> Path:
    """Write the arrays behind a view.

    CSV and NPY hold the primary array (CSV with row/column labels when given);
    JSON holds every array and the parameters in ``meta``.
    """
    fmt = format_of(path, DATA_FORMATS)
    if primary not in arrays:
        raise ExportError(f"The view has no array named '{primary}'.")
    main = np.asarray(arrays[primary])

    def write(tmp: str) -> None:
        if fmt == "npy":
            with open(tmp, "wb") as fh:
                np.save(fh, main)
        elif fmt == "json":
            doc = {"primary": primary, "meta": dict(meta or {}),
                   "arrays": {k: np.asarray(v) for k, v in arrays.items()}}
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, default=_json_default, ensure_ascii=False)
        else:
            table = np.atleast_2d(main) if main.ndim < 2 else main.reshape(main.shape[0], -1)
            if main.ndim == 1:
                table = main.reshape(-1, 1)
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                for k, v in (meta or {}).items():
                    fh.write(f"# {k}: {v}\n")
                cols = list(col_labels) if col_labels is not None else [
                    f"{primary}[{j}]" for j in range(table.shape[1])]
                rows = list(row_labels) if row_labels is not None else list(
                    range(table.shape[0]))
                out = csv.writer(fh, lineterminator="\n")   # quotes labels like "hello,"
                out.writerow(["row", *map(str, cols)])
                for label, row in zip(rows, table, strict=False):
                    out.writerow([str(label), *(f"{x:.9g}" for x in row)])

    return atomic_write(path, write)
