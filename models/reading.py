"""Reading a user's file with progress and Cancel: what every loader shares (torch-free).

A loader (``load_graph``, ``load_points_csv``, ``Seq2SeqSession.load``) takes two optional
callables from whoever runs it (the app runs loaders in a background job):

* ``progress(fraction)``: how far the reading is, 0..1 (the fraction of the file's bytes
  read, then parsed);
* ``cancelled()``: True once the user pressed Cancel; the loader then raises
  :class:`~models.errors.LoadCancelled` at its next check and keeps nothing.

``LoadWatch`` bundles them; loops call ``watch.tick(fraction)`` every few thousand items.
``read_bytes`` reads a file in chunks with both, and ``data_lines_at_least`` counts the
lines of data of a text file in one vectorised pass, so a file with far more lines than a
limit is refused before a line is parsed.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from models.errors import LoadCancelled

#: how much of a file is read between two progress reports and Cancel checks
CHUNK_BYTES = 4 << 20
#: a loop over a file's lines or elements reports every this many items
TICK_EVERY = 4096


class LoadWatch:
    """The progress report and the Cancel check of one file being read.

    ``span(lo, hi)`` gives a watch for one phase of the reading (say parsing, 0.1..0.9 of
    the bar), whose ``tick(0..1)`` fills that part of the bar."""

    def __init__(self, name: str = "", progress: Callable[[float], None] | None = None,
                 cancelled: Callable[[], bool] | None = None, lo: float = 0.0,
                 hi: float = 1.0) -> None:
        self.name = name
        self.progress = progress
        self.cancelled = cancelled
        self.lo, self.hi = lo, hi

    def check(self) -> None:
        """Raise ``LoadCancelled`` if the user cancelled."""
        if self.cancelled is not None and self.cancelled():
            raise LoadCancelled(f"{self.name}: opening the file was cancelled.")

    def tick(self, fraction: float) -> None:
        """Report ``fraction`` (0..1) of this phase done; raise if cancelled."""
        self.check()
        if self.progress is not None:
            f = min(1.0, max(0.0, float(fraction)))
            self.progress(self.lo + (self.hi - self.lo) * f)

    def span(self, lo: float, hi: float) -> LoadWatch:
        """A watch for the part ``lo..hi`` (fractions of this watch's range)."""
        width = self.hi - self.lo
        return LoadWatch(self.name, self.progress, self.cancelled, self.lo + width * lo,
                         self.lo + width * hi)


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return kind
    return "not a regular file"


def not_a_file(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a file ("it is a named pipe (FIFO), not a file; …"),
    or None for a regular file (and for one that cannot be looked at: opening says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return f"it is {_kind(mode)}, not a file; ArchScope reads regular files only"


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``open(path, "rb")`` for a regular file only: a named pipe, a device, a socket or a
    folder raises ``OSError`` (EINVAL) saying what it is, at once. Opened without
    blocking and checked on the open descriptor, so a pipe put in the file's place after a
    look at its name cannot hang the reader waiting for a writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"it is {_kind(mode)}, not a file; ArchScope reads "
                          "regular files only")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def loads_json(text: str | bytes):
    """``json.loads`` whose failures are ``ValueError``: also a document nested too deep
    for Python's parser (``RecursionError`` from ``[[[[…``, which ``json`` lets through)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("it is nested too deeply to be read (a JSON document built to "
                         "crash a reader)") from None


def read_bytes(path: Path, limit: int, watch: LoadWatch) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (one more than a caller accepts, so it can
    tell a file that grew past its limit), read in ``CHUNK_BYTES`` pieces with a progress
    report and a Cancel check after each. Only a regular file is read (``open_regular``).
    ``OSError`` is left to the caller."""
    parts: list[bytes] = []
    have = 0
    with open_regular(path) as fh:
        total = max(1, min(limit + 1, os.fstat(fh.fileno()).st_size))
        while have <= limit:
            part = fh.read(min(CHUNK_BYTES, limit + 1 - have))
            if not part:
                break
            parts.append(part)
            have += len(part)
            watch.tick(have / total)
    return b"".join(parts)


def data_lines_at_least(data: bytes, comments: bytes = b"#") -> int:
    """A lower bound on the lines of data in ``data``: lines whose first byte is neither
    white space, nor a line break, nor one of ``comments`` (such a line is not blank and
    not a comment, whatever follows). Vectorised: ~0.1 s for 3 million lines."""
    if not data:
        return 0
    buf = np.frombuffer(data, dtype=np.uint8)
    starts = np.flatnonzero(buf[:-1] == 0x0A) + 1      # the byte after each \n
    first = np.concatenate([buf[:1], buf[starts]])
    skip = np.zeros(256, dtype=bool)
    skip[list(b" \t\r\n\x0b\x0c" + comments)] = True
    return int(np.count_nonzero(~skip[first]))


def iter_lines(text: str, block: int = 1 << 20):
    """``text.splitlines()``, one line at a time: split a block of about ``block``
    characters (ending after a ``\\n``) at a time, so no single call holds the
    interpreter for the whole of a large file (``splitlines`` of 3 million lines holds it
    for a third of a second, and the window with it)."""
    start, end = 0, len(text)
    while start < end:
        cut = text.find("\n", min(start + block, end) - 1)
        stop = end if cut < 0 else cut + 1
        yield from text[start:stop].splitlines()
        start = stop
