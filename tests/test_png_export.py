"""Large PNG exports: written strip by strip, in the background, cancellable.

The PNG writer is checked against readers that are not ArchScope's (PIL, Qt); the
strips against one image painted whole, as the export painted before; the window's
export as a person sees it: the window keeps answering (a heartbeat), a progress bar
and a Cancel button, the file valid and the same as the headless export's, and after
Cancel no file and no temporary, the previous file untouched.
"""

from __future__ import annotations

import struct
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import psutil
import pyqtgraph as pg
import pytest
from figure_checks import read_rgb
from heartbeat import Heartbeat
from PIL import Image
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

from tests.windows import open_tab
from viz.figure import FigureError, render
from viz.figure_png import PngStrips, rgba
from viz.heatmap import HeatmapPlot
from viz.plots import CurvesPlot
from viz.png_writer import IDAT_BYTES, PngWriteError, PngWriter


def _chunks(path: Path) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk, each CRC checked here (not by a PNG library)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, i = [], 8
    while i < len(data):
        (length,) = struct.unpack(">I", data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + length]
        (crc,) = struct.unpack(">I", data[i + 8 + length:i + 12 + length])
        assert zlib.crc32(body, zlib.crc32(kind)) & 0xFFFFFFFF == crc, kind
        out.append((kind, body))
        i += 12 + length
    return out


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# -- the writer ------------------------------------------------------------------------------


def test_writer_output_reads_back_pixel_for_pixel_in_pil_and_qt(tmp_path):
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, size=(161, 217, 4), dtype=np.uint8)   # noise: 140 kB
    pixels[:20, :, 3] = 255
    path = tmp_path / "noise.png"
    with open(path, "wb") as fh:
        writer = PngWriter(fh, 217, 161, dots_per_meter=(3780, 3780))
        for a, b in ((0, 1), (1, 8), (8, 8), (8, 90), (90, 161)):   # uneven, one empty
            writer.write_rows(pixels[a:b])
        writer.finish()

    kinds = [k for k, _ in _chunks(path)]
    assert kinds[0] == b"IHDR" and kinds[1] == b"pHYs" and kinds[-1] == b"IEND"
    assert kinds.count(b"IDAT") > 1
    assert all(len(d) <= IDAT_BYTES for k, d in _chunks(path) if k == b"IDAT")
    with Image.open(path) as img:
        assert img.mode == "RGBA" and img.size == (217, 161)
        assert img.info["dpi"] == pytest.approx((96.0, 96.0), abs=0.1)
        np.testing.assert_array_equal(np.asarray(img), pixels)
    qimage = QImage(str(path))
    assert abs(qimage.dotsPerMeterX() - 3780) <= 1
    np.testing.assert_array_equal(rgba(qimage), pixels)


def test_writer_refuses_rows_that_do_not_fit_and_an_unfinished_image(tmp_path):
    with open(tmp_path / "x.png", "wb") as fh:
        writer = PngWriter(fh, 10, 4)
        with pytest.raises(PngWriteError, match="10 pixels wide"):
            writer.write_rows(np.zeros((2, 9, 4), np.uint8))
        with pytest.raises(PngWriteError, match="uint8"):
            writer.write_rows(np.zeros((2, 10, 4), np.float32))
        writer.write_rows(np.zeros((3, 10, 4), np.uint8))
        with pytest.raises(PngWriteError, match="5 rows for a PNG 4 rows high"):
            writer.write_rows(np.zeros((2, 10, 4), np.uint8))
        with pytest.raises(PngWriteError, match="Only 3 of 4 rows"):
            writer.finish()
    with pytest.raises(PngWriteError):
        PngWriter(open(tmp_path / "y.png", "wb"), 0, 5)   # noqa: SIM115 - refused first


# -- strips against one image ----------------------------------------------------------------


@pytest.fixture
def show(qtbot):
    alive: list[QWidget] = []

    def _show(widget: QWidget) -> QWidget:
        alive.append(widget)
        qtbot.addWidget(widget)
        widget.resize(420, 300)
        widget.show()
        qtbot.waitExposed(widget)
        return widget

    yield _show
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    alive.clear()


def _heatmap(show) -> HeatmapPlot:
    plot = HeatmapPlot("CET-D1")
    plot.set_matrix(np.sin(np.arange(12 * 9, dtype=np.float32) / 7).reshape(12, 9))
    plot.set_axis_labels("key", "query")
    return show(plot)


def _curves(show, dashed: bool = False) -> CurvesPlot:
    plot = CurvesPlot()
    x = np.arange(60, dtype=np.float32)
    plot.set_curves(x, np.stack([np.sin(x / 5), np.cos(x / 9)]), ["dim 0", "dim 1"])
    if dashed:
        plot.plotItem.plot(x, 0.5 * np.sin(x / 3),
                           pen=pg.mkPen("#333333", width=1.5, style=Qt.PenStyle.DashLine))
    return show(plot)


def _whole(strips: PngStrips) -> np.ndarray:
    return rgba(strips.paint(0, strips.size.height()))


def _in_strips(strips: PngStrips, rows: int) -> np.ndarray:
    height = strips.size.height()
    return np.concatenate([rgba(strips.paint(top, min(rows, height - top)))
                           for top in range(0, height, rows)])


@pytest.mark.parametrize("make", [_heatmap, _curves], ids=["heatmap", "curves"])
def test_strips_paint_the_pixels_of_one_image(show, make):
    """Strips of any height paint the image painted whole. Qt places a few line ends
    by a pixel differently when the device is a strip (a colour-bar tick started one
    pixel later): a handful of pixels at most, never a shape."""
    strips = PngStrips(make(show), width=1100)
    whole = _whole(strips).astype(int)

    for rows in (37, 5):
        moved = np.abs(_in_strips(strips, rows).astype(int) - whole).max(axis=2) > 0
        assert moved.sum() <= 12, (rows, int(moved.sum()))


def test_a_dashed_line_keeps_its_dashes_across_strips(show):
    """Qt dashes a wide pen per device: each strip started the pattern afresh (dashes
    moved by up to a dash length). Laid out in figure pixels, they stay within an
    antialiasing step of the one image."""
    strips = PngStrips(_curves(show, dashed=True), width=1100)
    whole = _whole(strips).astype(int)
    diff = np.abs(_in_strips(strips, 23).astype(int) - whole)

    assert diff.max() <= 8, diff.max()
    assert (diff > 0).mean() < 0.002


def test_streamed_png_is_pixel_identical_to_qts_writer_at_an_ordinary_width(show, tmp_path):
    plot = _heatmap(show)
    strips = PngStrips(plot, width=900)
    # what the export painted before, as the RGBA the streamed writer writes
    image = strips.paint(0, strips.size.height()).convertToFormat(QImage.Format.Format_ARGB32)
    image.setDotsPerMeterX(strips.dots_per_meter[0])
    image.setDotsPerMeterY(strips.dots_per_meter[1])
    assert image.save(str(tmp_path / "qt.png"), "PNG")

    size = render(plot, str(tmp_path / "streamed.png"), "png", width=900)

    assert (size.width(), size.height()) == (image.width(), image.height())
    np.testing.assert_array_equal(read_rgb(tmp_path / "streamed.png"),
                                  read_rgb(tmp_path / "qt.png"))
    kinds = [k for k, _ in _chunks(tmp_path / "streamed.png")]
    qt_kinds = [k for k, _ in _chunks(tmp_path / "qt.png")]
    assert [k for k in kinds if k != b"IDAT"] == [k for k in qt_kinds if k != b"IDAT"]
    with Image.open(tmp_path / "streamed.png") as a, Image.open(tmp_path / "qt.png") as b:
        assert a.mode == b.mode and a.info["dpi"] == b.info["dpi"]


@pytest.mark.slow
def test_a_large_png_never_holds_the_whole_image(show, tmp_path):
    plot = _curves(show)
    width = 9000
    whole_mb = width * round(plot.height() * width / plot.width()) * 4 / 2**20   # ~450 MB
    me = psutil.Process()
    before = me.memory_info().rss
    peak = [before]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], me.memory_info().rss)
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        render(plot, str(tmp_path / "big.png"), "png", width=width)
    finally:
        done.set()
        watcher.join()
    grew_mb = (peak[0] - before) / 2**20
    assert grew_mb < whole_mb / 4, f"grew {grew_mb:.0f} MB for a {whole_mb:.0f} MB image"
    with Image.open(tmp_path / "big.png") as img:
        assert img.size[0] == width
        img.verify()


@pytest.mark.parametrize(("scale", "says"), [
    (float("nan"), "scale of nan gives no PNG size"),
    (float("inf"), "scale of inf gives no PNG size"),
    (-1.0, "scale of -1 gives no PNG size"), (0.0, "scale of 0 gives no PNG size"),
    (1e308, r"scale of 1e\+308 gives no PNG size"),
    (100.0, "scale of 100 makes the PNG 42000 pixels wide"),
    (1e-9, "scale of 1e-09 makes the PNG 0 pixels wide")])
def test_a_scale_out_of_range_is_named_with_the_scales_that_fit(show, tmp_path, scale, says):
    plot = _curves(show)
    with pytest.raises(FigureError, match=says) as info:
        render(plot, str(tmp_path / "c.png"), "png", scale=scale)
    assert "use a scale from 0.0381 to 47.6 for this view" in str(info.value)
    assert not (tmp_path / "c.png").exists() or (tmp_path / "c.png").stat().st_size == 0


# -- the window's export -------------------------------------------------------------------------


def _positional(qtbot, window):
    tab = open_tab(qtbot, window, "positional")
    window.tabs_widget.setCurrentWidget(tab)
    return tab


def _same_picture(a: Path, b: Path) -> bool:
    """The same figure up to antialiasing: no pixel a quarter of the range apart (a
    line moved by a pixel, a marker elsewhere would be), under 2 % differing at all."""
    moved = np.abs(read_rgb(a).astype(int) - read_rgb(b).astype(int)).max(axis=2)
    print(f"{a.name} / {b.name}: {(moved > 0).mean():.3%} of the pixels differ, "
          f"by at most {moved.max()} levels")
    return bool((moved > 64).sum() == 0 and (moved > 0).mean() < 0.02)


def _watch(job) -> list:
    """How ``job`` ends, once it has: [("finished", path)], [("failed", error)] or
    [("cancelled",)]."""
    ended: list = []
    job.finished.connect(lambda path: ended.append(("finished", path)))
    job.failed.connect(lambda exc: ended.append(("failed", exc)))
    job.cancelled.connect(lambda: ended.append(("cancelled",)))
    return ended


def _run(qtbot, job, timeout_ms=240_000):
    ended = _watch(job)
    qtbot.waitUntil(lambda: bool(ended), timeout=timeout_ms)
    return ended[0]


def test_window_exports_a_large_png_in_the_background(qtbot, window, tmp_path):
    tab = _positional(qtbot, window)
    qtbot.wait(200)
    target = tmp_path / "pe.png"
    seen_bar: list[bool] = []
    with Heartbeat() as beat:
        job = window.start_png_export(tab, "pe", str(target), width=3000)
        # at each step of progress (not at a fixed time: how long the export takes
        # depends on the machine): the bar with its Cancel is up
        job.progressed.connect(lambda *_: seen_bar.append(
            window.export_bar.isVisible() and window.export_bar.stop_button.isEnabled()))
        assert not window.act_export_fig.isEnabled()
        result = _run(qtbot, job)
    assert result == ("finished", str(target)), result
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert seen_bar and all(seen_bar)              # progress and Cancel while it ran
    assert not window.export_bar.isVisible() and window.act_export_fig.isEnabled()
    assert str(target) in window.statusBar().currentMessage()
    assert _leftovers(tmp_path) == []
    # the picture of the headless export of the same view at the same width; the window
    # paints strips as tall as fit its turns, and Qt's antialiasing of a line or a glyph
    # that crosses a strip's edge differs by a few levels: nothing more
    window.export_figure(tab, "pe", str(tmp_path / "headless.png"), 3000)
    assert _same_picture(target, tmp_path / "headless.png")
    with Image.open(target) as img:
        assert img.size[0] == 3000
        img.verify()


def test_cancel_leaves_no_half_file_and_the_previous_file_as_it_was(qtbot, window, tmp_path):
    tab = _positional(qtbot, window)
    target = tmp_path / "pe.png"
    target.write_bytes(b"the previous export")
    job = window.start_png_export(tab, "pe", str(target), width=12000)
    ended = _watch(job)
    progress: list[float] = []
    job.progressed.connect(lambda fraction, _paused: progress.append(fraction))
    qtbot.waitUntil(lambda: any(f > 0 for f in progress), timeout=120_000)
    assert _leftovers(tmp_path)                    # being written, beside the target
    assert window.export_bar.stop_button.text() == "Cancel"
    qtbot.mouseClick(window.export_bar.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(ended), timeout=10_000)
    assert ended == [("cancelled",)]
    qtbot.waitUntil(lambda: _leftovers(tmp_path) == [], timeout=10_000)
    assert target.read_bytes() == b"the previous export"
    assert not window.export_bar.isVisible() and window.act_export_fig.isEnabled()
    assert not tab.jobs.is_paused()
    assert "was not changed" in window.statusBar().currentMessage()


def test_the_tabs_training_pauses_while_strips_are_painted_then_goes_on(qtbot, window,
                                                                         tmp_path):
    """Exporting the loss curve while it is being learned: the learning waits while the
    strips are painted (else the PNG shows two moments), and goes on afterwards."""
    tab = _positional(qtbot, window)
    tab.toggle_training()
    qtbot.waitUntil(lambda: len(tab.fit_errors) > 0, timeout=60_000)
    seen: list[tuple[bool, int]] = []        # (paused, reports shown) at each progress
    job = window.start_png_export(tab, "fit", str(tmp_path / "fit.png"), width=2400)
    job.progressed.connect(lambda _f, paused: seen.append((paused, len(tab.fit_errors))))
    assert tab.jobs.is_paused()
    reports = len(tab.fit_errors)
    assert _run(qtbot, job)[0] == "finished"
    while_painted = [n for paused, n in seen if paused]
    assert while_painted                           # the bar said so while it lasted
    assert max(while_painted) <= reports + 1       # at most the step that was in flight
    assert job.restarts == 0                       # the view held still: one picture
    assert not tab.jobs.is_paused()
    qtbot.waitUntil(lambda: len(tab.fit_errors) > reports + 1 or not tab.jobs.is_running(),
                    timeout=60_000)
    tab.jobs.stop()


def test_a_view_that_changes_once_is_exported_again_as_it_is_now(qtbot, window, tmp_path):
    tab = _positional(qtbot, window)
    plot = tab.view("curves").panel.graphics
    marker = pg.InfiniteLine(pos=10, angle=90, pen=pg.mkPen("#ff00ff", width=3))
    plot.addItem(marker)
    target = tmp_path / "curves.png"
    try:
        job = window.start_png_export(tab, "curves", str(target), width=4000)
        job.progressed.connect(lambda f, _p: marker.setValue(60) if marker.value() == 10
                               else None)
        assert _run(qtbot, job)[0] == "finished"
        # the move, then what follows from it in later turns (the legend moves aside)
        assert 1 <= job.restarts <= 3
        window.export_figure(tab, "curves", str(tmp_path / "now.png"), 4000)
    finally:
        plot.removeItem(marker)
    assert _same_picture(target, tmp_path / "now.png")          # the marker at 60


def test_a_view_that_keeps_changing_ends_the_export_with_a_reason(qtbot, window, tmp_path):
    tab = _positional(qtbot, window)
    plot = tab.view("curves").panel.graphics
    marker = pg.InfiniteLine(pos=0, angle=90)
    plot.addItem(marker)
    moves = QTimer()
    moves.timeout.connect(lambda: marker.setValue(marker.value() + 1))   # an animation
    moves.start(15)
    target = tmp_path / "curves.png"
    try:
        job = window.start_png_export(tab, "curves", str(target), width=6000)
        result = _run(qtbot, job)
    finally:
        moves.stop()
        plot.removeItem(marker)
    assert result[0] == "failed"
    assert "kept changing" in str(result[1])
    assert job.restarts > 1
    assert not target.exists() and _leftovers(tmp_path) == []
    assert not tab.jobs.is_paused()


def test_export_dialog_saves_a_png_through_the_background_job(qtbot, window, tmp_path):
    tab = _positional(qtbot, window)
    dialog = window.export_figure_dialog()
    dialog.path.setText(str(tmp_path / "from-dialog.png"))
    dialog.width.setValue(1800)
    dialog.accept()
    assert window.png_job is not None
    qtbot.waitUntil(lambda: window.png_job is None, timeout=120_000)
    image = QImage(str(tmp_path / "from-dialog.png"))
    assert image.width() == 1800
    assert abs(image.dotsPerMeterX() - tab.view(tab.active_view).panel.logicalDpiX()
               / 0.0254) < 2
