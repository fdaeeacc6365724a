"""A PNG written strip by strip: only the rows at hand are in memory.

Qt's writer needs the whole image (a 20,000 x 20,000 figure is a 1.6 GB ``QImage``,
and libpng's copies took the headless export to 2.4 GB). :class:`PngWriter` takes the
rows of an 8-bit RGBA image a strip at a time, filters each row (PNG filter "Up": the
difference to the row above, cheap in numpy and as small as libpng's adaptive choice on
figures, within about 3 %), deflates them through one ``zlib.compressobj`` (level 6, as
Qt writes) and writes ``IDAT`` chunks of at most :data:`IDAT_BYTES` as they fill.

The file has the chunks Qt writes for a figure: ``IHDR`` (RGBA, 8 bits, colour type 6,
not interlaced), ``pHYs`` (the dots per metre, as ``QImage.setDotsPerMeterX/Y``),
``IDAT``, ``IEND`` (a figure's ``QImage`` has no text, so Qt writes no text chunk).
Numpy and zlib only; the zlib calls release the GIL, so a worker thread that encodes
leaves the GUI thread free.

Shapes:
    rows passed to :meth:`PngWriter.write_rows`: uint8[n, width, 4] (R, G, B, A).
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: the largest IDAT chunk written (the compressed stream is cut into chunks this size)
IDAT_BYTES = 1 << 16
#: PNG limits a dimension to 2**31 - 1; this writer is for figures
MAX_SIDE = 1 << 20
FILTER_UP = 2


class PngWriteError(ValueError):
    """Rows that do not fit the image being written (wrong shape, too many, too few)."""


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC-32 of type and data."""
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF))


class PngWriter:
    """Writes an RGBA PNG of ``width`` x ``height`` to the binary file ``fh``.

    ``dots_per_meter``: (x, y) for the ``pHYs`` chunk, or None for none. Call
    :meth:`write_rows` until every row is written, then :meth:`finish`; the file is not
    closed here.
    """

    def __init__(self, fh: BinaryIO, width: int, height: int,
                 dots_per_meter: tuple[int, int] | None = None, level: int = 6) -> None:
        if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
            raise PngWriteError(f"A PNG of {width} x {height} pixels cannot be written.")
        self.fh, self.width, self.height = fh, int(width), int(height)
        self.rows_written = 0
        self._previous = np.zeros(self.width * 4, np.uint8)
        self._deflate = zlib.compressobj(level, zlib.DEFLATED, 15, 9)
        self._pending = bytearray()
        fh.write(SIGNATURE)
        fh.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height,
                                            8, 6, 0, 0, 0)))
        if dots_per_meter is not None:
            x, y = (max(1, int(round(v))) for v in dots_per_meter)
            fh.write(chunk(b"pHYs", struct.pack(">IIB", x, y, 1)))

    def write_rows(self, rows: np.ndarray) -> None:
        """Filter, deflate and write the next ``rows`` (uint8[n, width, 4])."""
        rows = np.asarray(rows)
        if rows.dtype != np.uint8 or rows.ndim != 3 or rows.shape[1:] != (self.width, 4):
            raise PngWriteError(f"Rows of shape {rows.shape} ({rows.dtype}) do not fit a "
                                f"PNG {self.width} pixels wide (uint8[n, {self.width}, 4]).")
        n = rows.shape[0]
        if self.rows_written + n > self.height:
            raise PngWriteError(f"{self.rows_written + n} rows for a PNG {self.height} "
                                "rows high.")
        if n == 0:
            return
        flat = rows.reshape(n, self.width * 4)
        # every row: the filter byte, then its difference to the row above (mod 256)
        lines = np.empty((n, 1 + self.width * 4), np.uint8)
        lines[:, 0] = FILTER_UP
        np.subtract(flat[0], self._previous, out=lines[0, 1:])
        np.subtract(flat[1:], flat[:-1], out=lines[1:, 1:])
        self._previous = flat[-1].copy()
        self._emit(self._deflate.compress(lines))
        self.rows_written += n

    def finish(self) -> None:
        """Write the end of the compressed stream and ``IEND``; every row must be in."""
        if self.rows_written != self.height:
            raise PngWriteError(f"Only {self.rows_written} of {self.height} rows were "
                                "written.")
        self._emit(self._deflate.flush(), final=True)
        self.fh.write(chunk(b"IEND", b""))

    def _emit(self, data: bytes, final: bool = False) -> None:
        self._pending += data
        while len(self._pending) >= IDAT_BYTES or (final and self._pending):
            part = bytes(self._pending[:IDAT_BYTES])
            del self._pending[:IDAT_BYTES]
            self.fh.write(chunk(b"IDAT", part))
