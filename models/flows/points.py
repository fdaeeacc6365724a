"""The user's own points for the flows tab: a file of points read and checked, and the
checks a training session makes of any points (too few, too large for float32, no
spread, on a line), with what to do about it (``standardise``).

``load_points_csv`` reads UTF-8, or UTF-16/32 with a byte-order mark, RFC 4180 quoting
included, reporting progress and giving up when cancelled (``models.reading``; the tab
runs it in the background); whatever is wrong is an ``InvalidParameterError`` that names
the file.
"""

from __future__ import annotations

import csv
import io
import math
import re
from array import array
from pathlib import Path

import numpy as np

from models import gcpause
from models.errors import InvalidParameterError
from models.flows.densities import MAX_POINTS, knn_entropy
from models.reading import (
    TICK_EVERY,
    LoadWatch,
    data_lines_at_least,
    iter_lines,
    read_bytes,
)

__all__ = ["MIN_POINTS", "FLOAT32_MAX", "MIN_SPREAD", "MIN_SPREAD_RATIO", "MAX_POINTS_FILE_BYTES",
           "UNIT_SCALE", "load_points_csv", "point_statistics", "check_points", "spread_problem",
           "data_scale", "scale_judgement", "standardise"]

_SPLIT = re.compile(r"[,;\s]+")
#: the fewest points ``load_points_csv`` accepts: as many as the Flows tab asks to be
#: drawn. A flow of a few thousand weights fits a handful of points exactly (its NLL
#: falls without a floor) and their k-NN entropy estimate is meaningless.
MIN_POINTS = 50
#: the data's extent from its mean (``data_scale``) within which a flow starting at unit
#: scale can learn it; outside it, training diverges or crawls and the tab offers to
#: standardise (and a divergence is blamed on the data's scale, not the optimiser)
UNIT_SCALE = (1e-3, 1e3)
#: the largest float32: the flow computes in float32, where 1e39 becomes infinity
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: below this standard deviation (in the data's units) points have no spread to learn
MIN_SPREAD = 1e-6
#: points whose spread across their main direction is below this fraction of the spread
#: along it lie on a line
MIN_SPREAD_RATIO = 1e-5
#: the largest file of points read (a million points of 40 digits each fit 5 times over)
MAX_POINTS_FILE_BYTES = 256 << 20
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig"))


def _read_text(path: Path, watch: LoadWatch) -> str:
    """The file's text: UTF-8, or UTF-16/32 with a byte-order mark. A file over
    ``MAX_POINTS_FILE_BYTES``, or (in UTF-8, without quotes) with more lines of data than
    ``MAX_POINTS`` and a header, is refused before a line is parsed."""
    try:
        data = read_bytes(path, MAX_POINTS_FILE_BYTES, watch)
    except OSError as exc:
        raise InvalidParameterError(
            f"{path.name}: cannot read the file ({exc.strerror or exc}).") from exc
    if len(data) > MAX_POINTS_FILE_BYTES:
        raise InvalidParameterError(
            f"{path.name}: the file is over {MAX_POINTS_FILE_BYTES >> 20} MB; ArchScope "
            f"reads up to {MAX_POINTS:,} points, which fit in far less.")
    codec = next((c for bom, c in _BOMS if data.startswith(bom)), "utf-8")
    if codec.startswith("utf-8") and b'"' not in data:
        lines = data_lines_at_least(data, comments=b"#")
        if lines > MAX_POINTS + 1:
            raise InvalidParameterError(
                f"{path.name}: more than {MAX_POINTS:,} points ({lines:,} lines of "
                "points).")
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(
            f"{path.name}: not {codec.upper().replace('-SIG', '')} text (byte {exc.start}); "
            "save the points as UTF-8.") from exc


def _plain_records(text: str):
    """(line number, cells) of a file without quotes: ``#`` comments, any separators."""
    for number, raw in enumerate(iter_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line, [c for c in _SPLIT.split(line) if c]


def _quoted_records(name: str, text: str):
    """(first line, cells) of an RFC 4180 file: quoted fields, which may hold the
    separator or a line break; the separator is the first of , ; tab on a data line
    (outside quotes); ``#`` starts a comment, as in a plain file. A quote that is never
    closed (an odd number of quotes) is named by the line of the record it opens."""
    unquoted = re.sub(r'"(?:[^"]|"")*"', '""', text[:65536])   # separators outside quotes
    first = next((ln for ln in unquoted.splitlines() if ln.strip() and
                  not ln.lstrip().startswith("#")), "")
    delimiter = next((d for d in ",;\t" if d in first), " ")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                        skipinitialspace=True)
    start, held = 1, None
    for row in reader:
        cut = next((k for k, c in enumerate(row) if "#" in c), None)
        if cut is not None:             # a comment: from its '#' to the end of the record
            row = [*row[:cut], row[cut].split("#", 1)[0]]
        cells = [c.strip() for c in row if c.strip()]
        if cells:
            if held is not None:
                yield held
            held = (start, delimiter.join(" ".join(c.split()) for c in row), cells)
        start = reader.line_num + 1
    if held is not None and text.count('"') % 2 and _unclosed(text, held[0], delimiter):
        # the last record swallowed the rest of the file into the unclosed field
        raise InvalidParameterError(
            f"{name}, line {held[0]}: a quoted field opens here and is never closed (a "
            "quote is missing).")
    if held is not None:
        yield held


def _unclosed(text: str, line: int, delimiter: str) -> bool:
    """Whether the record from ``line`` on ends inside a quoted field (the csv module
    reads such a record to the end of the file without a word)."""
    rest = "".join(text.splitlines(keepends=True)[line - 1:])
    try:
        for _ in csv.reader(io.StringIO(rest, newline=""), delimiter=delimiter, strict=True,
                            skipinitialspace=True):
            pass
    except csv.Error as exc:
        return "end of data" in str(exc)
    return False


def load_points_csv(path: str | Path, progress=None, cancelled=None) -> np.ndarray:
    """2D points from a text file, as float32[n, 2].

    One point per line, the first two columns used (more are ignored); columns separated
    by commas, semicolons or whitespace; ``#`` starts a comment; blank lines are skipped;
    a first non-comment line that is not numeric is taken as a header. A file with
    double quotes is read as RFC 4180 CSV (a quoted field may hold a separator or a line
    break; a line number is where the record starts). UTF-8, or UTF-16/32 with a
    byte-order mark. Raises ``InvalidParameterError`` naming the file (and the line) for
    an unreadable file, a malformed line, fewer than 2 columns, NaN or infinity, a value
    beyond float32 (``FLOAT32_MAX``: it would become infinity in the model), fewer than
    ``MIN_POINTS`` or more than ``MAX_POINTS`` points (a file with far more lines than
    that before a line is parsed).

    ``progress(fraction)`` is called now and then from 0 to 1 (the bytes read, then the
    lines parsed); once ``cancelled()`` is True, ``LoadCancelled`` is raised at the next
    check (see ``models.reading``).
    """
    path = Path(path)
    watch = LoadWatch(path.name, progress, cancelled)
    text = _read_text(path, watch.span(0.0, 0.1))
    with gcpause.paused():     # no collection walks the million rows being made
        return _points_from_text(path.name, text, watch.span(0.1, 1.0))


def _points_from_text(name: str, text: str, parsing: LoadWatch) -> np.ndarray:
    """The points of ``text`` (see ``load_points_csv``), gathered in an ``array`` of
    doubles: made into numpy at once, where a list of a million tuples would hold the
    interpreter for a second."""
    records = _quoted_records(name, text) if '"' in text else _plain_records(text)
    total = text.count("\n") + 1
    values = array("d")
    seen_data = False
    next_tick = 0
    for number, line, cells in records:
        if number >= next_tick:
            next_tick = number + TICK_EVERY
            parsing.tick(number / total)
        if len(cells) < 2:
            raise InvalidParameterError(
                f"{name}, line {number}: expected 2 columns (x and y), found {len(cells)}.")
        try:
            x, y = float(cells[0]), float(cells[1])
        except ValueError:
            if not seen_data:   # a header
                seen_data = True
                continue
            raise InvalidParameterError(
                f"{name}, line {number}: '{line[:40]}' is not two numbers.") from None
        seen_data = True
        if not (math.isfinite(x) and math.isfinite(y)):
            raise InvalidParameterError(
                f"{name}, line {number}: NaN or infinity is not a point.")
        if abs(x) > FLOAT32_MAX or abs(y) > FLOAT32_MAX:
            raise InvalidParameterError(
                f"{name}, line {number}: {max(x, y, key=abs):g} is beyond float32's "
                f"range (±{FLOAT32_MAX:.3g}), in which the flow computes: it would become "
                "infinity. Rescale the points.")
        values.append(x)
        values.append(y)
        if len(values) > 2 * MAX_POINTS:
            raise InvalidParameterError(
                f"{name}: more than {MAX_POINTS:,} points (line {number}).")
    count = len(values) // 2
    if not count:
        raise InvalidParameterError(f"{name}: the file holds no points.")
    if count < MIN_POINTS:
        raise InvalidParameterError(
            f"{name}: only {count} point{'s' if count > 1 else ''}; a flow needs "
            f"at least {MIN_POINTS} to learn a density from (with fewer it just memorises "
            "them).")
    out = np.frombuffer(values, dtype=np.float64).astype(np.float32).reshape(-1, 2)
    parsing.tick(1.0)
    return out


def point_statistics(points: np.ndarray) -> tuple[str | None, float]:
    """What a ``FlowSession`` judges user points by: ``(spread_problem, entropy)``, the
    entropy the k-NN estimate on up to 10,000 of them (NaN when there is a problem). Its
    second costs a second for a large file: worth computing once per point set, in the
    background, and handing to every session trained on them (``statistics=``)."""
    pool = np.asarray(points, np.float32)
    problem = spread_problem(pool)
    return problem, (math.nan if problem else knn_entropy(pool[:10_000]))


def check_points(points) -> np.ndarray:
    """The user's points (from a file, drawn, or kept in a session file) as C-contiguous
    float32[n, 2], or ``InvalidParameterError`` saying what is wrong: not real numbers,
    not n rows of (x, y), fewer than ``MIN_POINTS`` or more than ``MAX_POINTS`` rows, a
    NaN, an infinity or a value beyond float32's range (the flow computes in float32)."""
    arr = np.asarray(points)
    if arr.dtype.kind not in "fiu":
        raise InvalidParameterError(f"Custom points must be real numbers, got {arr.dtype}.")
    if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) < MIN_POINTS:
        raise InvalidParameterError(
            f"Custom points must be an array of at least {MIN_POINTS} rows of (x, y), got "
            f"shape {arr.shape}.")
    if len(arr) > MAX_POINTS:
        raise InvalidParameterError(f"Custom points: at most {MAX_POINTS:,} rows, got "
                                    f"{len(arr):,}.")
    with np.errstate(over="ignore", invalid="ignore"):
        pool = np.ascontiguousarray(arr, dtype=np.float32)
    if not np.isfinite(pool).all():
        raise InvalidParameterError("Custom points must be finite in float32 (no NaN, no "
                                    "infinity, nothing beyond ±3.4e38).")
    return pool


def spread_problem(points: np.ndarray) -> str | None:
    """Why a density cannot be learnt from ``points`` (float[n, 2]), or None: all points
    the same, almost no spread (standard deviation below ``MIN_SPREAD``), or on a line
    (spread across below ``MIN_SPREAD_RATIO`` of the spread along). A density concentrated
    on no area has no upper bound, so a flow's NLL on such data falls without limit."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    pts = pts[np.isfinite(pts).all(1)]
    if len(pts) < 2:
        return None
    centred = pts - pts.mean(0)
    scale = float(np.abs(centred).max())        # so squares of 1e200 do not overflow
    if scale > 0:
        unit = centred / scale
        spreads = scale * np.sqrt(np.clip(np.linalg.eigvalsh(unit.T @ unit / len(pts)), 0,
                                          None))
    else:
        spreads = np.zeros(2)
    low, high = float(spreads[0]), float(spreads[1])
    unbounded = ("A density with no spread is unbounded: the NLL would fall without limit "
                 "and mean nothing.")
    if high == 0:
        x, y = pts[0]
        return (f"All {len(pts)} points are the same point ({x:g}, {y:g}). {unbounded} "
                "Use points that spread out.")
    if high < MIN_SPREAD:
        return (f"The points have almost no spread (standard deviation {high:.3g}). "
                f"{unbounded} Standardise the data (subtract the mean, divide by the "
                "standard deviation of each coordinate).")
    if low < MIN_SPREAD_RATIO * high:
        return (f"The points lie on a line (spread {low:.3g} across it, {high:.3g} along "
                f"it). {unbounded} Use points that spread in both directions.")
    return None


def data_scale(points) -> float:
    """The points' largest absolute coordinate after centring, in float64 (about 3 for the
    toy densities)."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    return float(np.abs(pts - pts.mean(0)).max()) if len(pts) else 0.0


def scale_judgement(points, problem: str | None) -> tuple[float, bool]:
    """``(data_scale(points), standardising_helps)`` for points whose ``spread_problem``
    is ``problem``: whether something is wrong with them (that problem, or a scale far
    from ``UNIT_SCALE``) that ``standardise`` would cure (worked out only then: it copies
    the points). The tab's note needs both; for a file they are judged in the background
    with it."""
    scale = data_scale(points)
    helps = False
    if problem is not None or not UNIT_SCALE[0] <= scale <= UNIT_SCALE[1]:
        helps = spread_problem(standardise(points)) is None
    return scale, helps


def standardise(points: np.ndarray) -> np.ndarray:
    """``points`` (float[n, 2]) moved to mean 0 and scaled to standard deviation 1 in
    each coordinate (computed in float64; float32[n, 2] out), as the Flows tab offers for
    data at a scale the flow cannot train on (1e30, 1e-30). A coordinate with no spread
    at all is only centred."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    centred = pts - pts.mean(0)
    std = centred.std(0)
    return np.ascontiguousarray(centred / np.where(std > 0, std, 1.0), dtype=np.float32)
