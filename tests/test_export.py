"""Export: data files (CSV / NPY / JSON), atomic writes, and figures (PNG / SVG / PDF).

Data files are read back with numpy / json / csv, not with ArchScope's own code.
Figures are rendered from real pyqtgraph widgets shown offscreen and checked as a
person opening the file would see them: the PNG has the asked-for size and real
content, the SVG and the PDF keep the axis labels as text.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from figure_checks import read_rgb
from PySide6.QtCore import QEvent, QRectF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

from app.export import DATA_FORMATS, ExportError, atomic_write, format_of, write_data
from tests.windows import open_tab
from viz.figure import FigureError, render
from viz.heatmap import HeatmapPlot
from viz.panel import ViewPanel
from viz.plots import CurvesPlot

SVG_NS = "{http://www.w3.org/2000/svg}"
X_LABEL = "dimension i"
Y_LABEL = "position pos"


def _leftovers(folder: Path) -> list[str]:
    """Temporary files an atomic write may leave behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# -- format_of -----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), [
    ("pe.csv", "csv"), ("pe.NPY", "npy"), ("dir.with.dots/pe.Json", "json")])
def test_format_of_reads_the_extension_case_insensitively(name, expected):
    assert format_of(name, DATA_FORMATS) == expected


@pytest.mark.parametrize("name", ["pe.xlsx", "pe", "pe.csv.bak", ".csv"])
def test_format_of_rejects_an_unknown_extension_and_names_the_choices(name):
    with pytest.raises(ExportError) as info:
        format_of(name, DATA_FORMATS)
    assert ".csv" in str(info.value) and ".npy" in str(info.value)


# -- write_data ----------------------------------------------------------------------------


@pytest.fixture
def pe_like():
    rng = np.random.default_rng(3)
    return rng.normal(size=(7, 4)).astype(np.float32)


def test_csv_has_meta_lines_a_header_row_labels_and_round_trips_the_values(tmp_path, pe_like):
    path = tmp_path / "pe.csv"
    rows = ["the", "cat", "sat", "on", "the", "mat", "."]
    cols = ["dim0", "dim1", "dim2", "dim3"]
    meta = {"d_model": 4, "base": 10000.0, "device": "cpu"}

    written = write_data(path, "pe", {"pe": pe_like, "other": np.zeros(3)}, meta,
                         row_labels=rows, col_labels=cols)

    assert written == path
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["# d_model: 4", "# base: 10000.0", "# device: cpu"]
    assert lines[3].split(",") == ["row", *cols]
    assert [line.split(",")[0] for line in lines[4:]] == rows
    # numpy counts the comment lines in skiprows: 3 meta lines + the header
    values = np.loadtxt(path, delimiter=",", skiprows=4, usecols=range(1, 5), ndmin=2)
    assert values.shape == pe_like.shape
    np.testing.assert_allclose(values, pe_like, rtol=0, atol=1e-6)


def test_csv_without_labels_numbers_rows_and_names_columns_after_the_array(tmp_path):
    path = tmp_path / "loss.csv"
    loss = np.array([0.5, 0.25, 0.125, 1e-7], np.float32)

    write_data(path, "loss", {"loss": loss})

    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "row,loss[0]"
    table = np.genfromtxt(path, delimiter=",", skip_header=1)
    np.testing.assert_array_equal(table[:, 0], np.arange(4))
    np.testing.assert_allclose(table[:, 1], loss, rtol=1e-6, atol=0)


def test_csv_row_label_with_a_comma_is_quoted_so_every_row_keeps_its_columns(tmp_path):
    # Regression: labels were joined with "," unquoted, so "hello," broke the table.
    path = tmp_path / "tokens.csv"
    tokens = ["hello,", "world", 'say "hi"']
    values = np.arange(6, dtype=np.float32).reshape(3, 2)

    write_data(path, "token_sum", {"token_sum": values}, row_labels=tokens,
               col_labels=["dim0", "dim1"])

    with open(path, newline="", encoding="utf-8") as fh:
        records = list(csv.reader(line for line in fh if not line.startswith("#")))
    assert records[0] == ["row", "dim0", "dim1"]
    assert [r[0] for r in records[1:]] == tokens
    assert all(len(r) == 3 for r in records)


def test_npy_loads_back_equal(tmp_path, pe_like):
    path = tmp_path / "pe.npy"

    write_data(path, "pe", {"pe": pe_like, "positions": np.arange(7)}, {"d_model": 4})

    loaded = np.load(path)
    assert loaded.dtype == pe_like.dtype
    np.testing.assert_array_equal(loaded, pe_like)


def test_json_holds_primary_meta_and_every_array_as_nested_lists(tmp_path, pe_like):
    path = tmp_path / "pe.json"
    positions = np.arange(7, dtype=np.int64)
    meta = {"d_model": np.int64(4), "base": 10000.0, "tokens": "the cat"}

    write_data(path, "pe", {"pe": pe_like, "positions": positions}, meta)

    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    assert doc["primary"] == "pe"
    assert doc["meta"] == {"d_model": 4, "base": 10000.0, "tokens": "the cat"}
    assert set(doc["arrays"]) == {"pe", "positions"}
    assert isinstance(doc["arrays"]["pe"], list) and isinstance(doc["arrays"]["pe"][0], list)
    np.testing.assert_allclose(np.array(doc["arrays"]["pe"]), pe_like, rtol=0, atol=1e-6)
    assert doc["arrays"]["positions"] == list(range(7))


def test_write_data_rejects_an_unknown_extension_and_writes_nothing(tmp_path, pe_like):
    with pytest.raises(ExportError):
        write_data(tmp_path / "pe.xlsx", "pe", {"pe": pe_like})
    assert list(tmp_path.iterdir()) == []


def test_write_data_rejects_a_primary_the_view_does_not_have(tmp_path, pe_like):
    with pytest.raises(ExportError) as info:
        write_data(tmp_path / "pe.csv", "similarity", {"pe": pe_like})
    assert "similarity" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_exported_file_gets_the_usual_permissions_not_private_ones(tmp_path, pe_like):
    # the temporary file comes from tempfile.mkstemp (mode 0o600); the export must end up
    # with the mode open() would give it, or a figure saved to share is private
    umask = os.umask(0)
    os.umask(umask)
    path = tmp_path / "pe.npy"

    write_data(path, "pe", {"pe": pe_like})

    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~umask)


# -- atomic_write --------------------------------------------------------------------------


def test_atomic_write_puts_the_complete_file_in_place_and_no_temporary(tmp_path):
    target = tmp_path / "figure.svg"
    seen: list[str] = []

    def write(tmp: str) -> None:
        seen.append(tmp)
        assert not target.exists()  # nothing at the target until the write is complete
        Path(tmp).write_text("<svg/>", encoding="utf-8")

    assert atomic_write(target, write) == target
    assert target.read_text(encoding="utf-8") == "<svg/>"
    assert Path(seen[0]).parent == tmp_path and seen[0].endswith(".part")
    assert _leftovers(tmp_path) == []


def test_exception_in_the_write_leaves_no_file_and_no_temporary(tmp_path):
    target = tmp_path / "pe.csv"

    def write(tmp: str) -> None:
        Path(tmp).write_text("half a fi", encoding="utf-8")
        raise RuntimeError("disk on fire")

    with pytest.raises(ExportError) as info:
        atomic_write(target, write)
    assert "disk on fire" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_content_of_an_existing_file(tmp_path):
    target = tmp_path / "pe.csv"
    target.write_text("old,content\n", encoding="utf-8")

    def write(tmp: str) -> None:
        Path(tmp).write_text("new", encoding="utf-8")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExportError):
        atomic_write(target, write)
    assert target.read_text(encoding="utf-8") == "old,content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pe.csv"]


def test_write_that_produces_an_empty_file_is_an_error_and_leaves_nothing(tmp_path):
    with pytest.raises(ExportError):
        atomic_write(tmp_path / "empty.png", lambda tmp: None)
    assert list(tmp_path.iterdir()) == []


def test_folder_that_is_a_regular_file_raises_export_error_naming_it(tmp_path, pe_like):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("I am a file", encoding="utf-8")

    with pytest.raises(ExportError) as info:
        write_data(blocker / "pe.csv", "pe", {"pe": pe_like})
    assert str(blocker) in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not_a_folder"]
    assert blocker.read_text(encoding="utf-8") == "I am a file"


def test_missing_folder_raises_export_error_naming_it_and_creates_nothing(tmp_path, pe_like):
    folder = tmp_path / "no" / "such" / "folder"

    with pytest.raises(ExportError) as info:
        write_data(folder / "pe.npy", "pe", {"pe": pe_like})
    assert str(folder) in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_target_that_is_a_folder_raises_export_error_and_leaves_no_temporary(tmp_path):
    (tmp_path / "pe.csv").mkdir()

    with pytest.raises(ExportError):
        atomic_write(tmp_path / "pe.csv", lambda tmp: Path(tmp).write_bytes(b"x"))
    assert _leftovers(tmp_path) == []
    assert (tmp_path / "pe.csv").is_dir()


# -- figures -------------------------------------------------------------------------------


@pytest.fixture
def show(qtbot):
    """Show a widget at 500 x 400 offscreen; returns it.

    The test keeps a strong reference to every widget until teardown, after pytest-qt
    has closed them, and then deletes them. A shown pyqtgraph widget kept alive only by
    a garbage cycle (e.g. a ``pytest.raises(...) as info`` whose traceback holds it) can
    otherwise be deleted by the garbage collector while Qt is painting it, a segfault.
    """
    alive: list[QWidget] = []

    def _show(widget: QWidget) -> QWidget:
        alive.append(widget)
        qtbot.addWidget(widget)
        widget.resize(500, 400)
        widget.show()
        qtbot.waitExposed(widget)
        return widget

    yield _show
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    alive.clear()


def _heatmap(show) -> HeatmapPlot:
    plot = HeatmapPlot("CET-D1")
    # 6 x 5 cells: far below the PDF minimum side, so the PDF export upsamples it
    plot.set_matrix(np.linspace(-1, 1, 30, dtype=np.float32).reshape(6, 5))
    plot.set_axis_labels(X_LABEL, Y_LABEL)
    return show(plot)


def _curves(show) -> CurvesPlot:
    plot = CurvesPlot()
    x = np.arange(50, dtype=np.float32)
    plot.set_curves(x, np.stack([np.sin(x / 5), np.cos(x / 9)]), ["dim 0", "dim 1"])
    plot.set_axis_labels(X_LABEL, Y_LABEL)
    return show(plot)


def _scatter(show) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    rng = np.random.default_rng(0)
    plot.addItem(pg.ScatterPlotItem(x=rng.normal(size=40), y=rng.normal(size=40), size=9,
                                    brush=pg.mkBrush("#d62728"), pen=pg.mkPen("k")))
    plot.setLabel("bottom", X_LABEL)
    plot.setLabel("left", Y_LABEL)
    return show(plot)


def _graph(show) -> pg.PlotWidget:
    """A stand-in for a graph canvas: nodes and edges drawn by a GraphItem."""
    plot = pg.PlotWidget()
    angle = np.linspace(0, 2 * np.pi, 7)[:-1]
    pos = np.column_stack([np.cos(angle), np.sin(angle)])
    adj = np.array([[i, (i + 1) % 6] for i in range(6)] + [[0, 3]])
    plot.addItem(pg.GraphItem(pos=pos, adj=adj, size=14, symbolBrush="#1f77b4",
                              pen=pg.mkPen("#555555", width=2)))
    plot.setLabel("bottom", X_LABEL)
    plot.setLabel("left", Y_LABEL)
    return show(plot)


VIEWS = {"heatmap": _heatmap, "curves": _curves, "scatter": _scatter, "graph": _graph}


@pytest.fixture(params=sorted(VIEWS))
def view(request, show):
    return VIEWS[request.param](show)


def test_png_has_the_requested_width_the_view_aspect_and_real_content(view, tmp_path):
    path = tmp_path / "view.png"

    size = render(view, str(path), "png", width=800)

    expected_h = round(view.height() * 800 / view.width())
    assert (size.width(), size.height()) == (800, expected_h)
    pixels = read_rgb(path)
    assert pixels.shape[:2] == (expected_h, 800)
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    assert len(colours) >= 8, f"only {len(colours)} colours: a blank image"
    not_white = np.any(pixels < 250, axis=2).mean()
    assert 0.01 < not_white < 0.99


def test_png_default_width_is_twice_the_view(show, tmp_path):
    plot = _curves(show)

    size = render(plot, str(tmp_path / "c.png"), "png")

    assert (size.width(), size.height()) == (2 * plot.width(), 2 * plot.height())
    assert QImage(str(tmp_path / "c.png")).width() == 2 * plot.width()


def test_svg_is_xml_with_axis_labels_as_text_and_vector_paths(view, tmp_path):
    path = tmp_path / "view.svg"

    render(view, str(path), "svg")

    root = ET.parse(path).getroot()
    assert root.tag == SVG_NS + "svg"
    texts = {"".join(t.itertext()).strip() for t in root.iter(SVG_NS + "text")}
    assert {X_LABEL, Y_LABEL} <= texts
    assert len(list(root.iter(SVG_NS + "path"))) >= 1


def test_a_grid_shown_on_screen_as_images_is_exported_as_lines(show, tmp_path):
    """On screen a grid is drawn as strip images (viz.axis_grid), recorded into the axis's
    cached picture; SVG and PDF get lines all the same, and no image at all."""
    plot = _curves(show)
    axis = plot.plotItem.getAxis("bottom")
    plot.grab()                                   # painted on screen: the picture cached
    assert axis.grid is not False and axis.picture is not None
    render(plot, str(tmp_path / "grid.svg"), "svg")
    root = ET.parse(tmp_path / "grid.svg").getroot()
    assert not list(root.iter(SVG_NS + "image"))
    assert len(list(root.iter(SVG_NS + "path"))) + len(list(root.iter(SVG_NS + "line"))) > 10
    render(plot, str(tmp_path / "grid.pdf"), "pdf")
    assert b"/Subtype /Image" not in (tmp_path / "grid.pdf").read_bytes()


def test_svg_keeps_scatter_symbols_as_one_vector_path_each(show, tmp_path):
    plot = _scatter(show)
    path = tmp_path / "scatter.svg"

    render(plot, str(path), "svg")

    root = ET.parse(path).getroot()
    assert len(list(root.iter(SVG_NS + "path"))) >= 40
    assert not list(root.iter(SVG_NS + "image"))


def test_pdf_is_a_pdf_with_embedded_fonts(view, tmp_path):
    path = tmp_path / "view.pdf"

    render(view, str(path), "pdf")

    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    assert b"/Font" in data
    assert data.rstrip().endswith(b"%%EOF")


@pytest.mark.skipif(shutil.which("pdftotext") is None,
                    reason="pdftotext (poppler-utils) is not installed: cannot read PDF text")
def test_pdf_keeps_axis_labels_as_text(view, tmp_path):
    path = tmp_path / "view.pdf"
    render(view, str(path), "pdf")

    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, check=True,
                          timeout=30).stdout.decode("utf-8", "replace")

    assert X_LABEL in text
    assert Y_LABEL in text


def test_small_heatmap_is_vector_cells_in_svg_and_pdf(show, tmp_path):
    """6 x 5 cells: one filled rectangle per run of equal cells, no image to blur."""
    plot = _heatmap(show)

    render(plot, str(tmp_path / "h.svg"), "svg")
    render(plot, str(tmp_path / "h.pdf"), "pdf")

    root = ET.parse(tmp_path / "h.svg").getroot()
    assert not list(root.iter(SVG_NS + "image"))
    fills = {el.get("fill") for el in root.iter() if el.get("fill", "none") not in
             ("none", "#ffffff")}
    # the matrix has 30 distinct values: 30 colours (some may merge in the colour map)
    assert len(fills) >= 25, fills
    assert b"/Subtype /Image" not in (tmp_path / "h.pdf").read_bytes()
    assert plot.image.opacity() == 1.0          # the image item is back after the export


def test_pdf_of_a_large_heatmap_upsamples_the_image_then_restores_it(show, tmp_path):
    plot = show(HeatmapPlot("CET-D1"))
    matrix = np.random.default_rng(1).normal(size=(150, 200)).astype(np.float32)
    plot.set_matrix(matrix)
    item = plot.image
    rect = QRectF(item.mapRectToParent(item.boundingRect()))
    levels = tuple(item.getLevels())
    path = tmp_path / "heatmap.pdf"

    render(plot, str(path), "pdf")

    data = path.read_bytes()
    # 150 x 200 cells (more than 128 x 128: an image) drawn 6 x 6 pixels each
    assert b"/Width 1200" in data and b"/Height 900" in data
    np.testing.assert_array_equal(item.image, matrix)
    assert item.mapRectToParent(item.boundingRect()) == rect
    assert tuple(item.getLevels()) == pytest.approx(levels)


def test_large_heatmap_in_svg_is_one_pixelated_image(show, tmp_path):
    plot = show(HeatmapPlot("CET-D1"))
    plot.set_matrix(np.random.default_rng(1).normal(size=(150, 200)).astype(np.float32))

    render(plot, str(tmp_path / "h.svg"), "svg")

    images = list(ET.parse(tmp_path / "h.svg").getroot().iter(SVG_NS + "image"))
    assert len(images) == 1
    assert "image-rendering:pixelated" in images[0].get("style")
    assert plot.image.image.shape == (150, 200)


def test_png_and_svg_do_not_upsample_the_heatmap(show, tmp_path):
    plot = _heatmap(show)

    render(plot, str(tmp_path / "h.svg"), "svg")

    assert b"/Width 1000" not in (tmp_path / "h.svg").read_bytes()
    assert plot.image.image.shape == (6, 5)


def _ink_box(pixels: np.ndarray, region: tuple[slice, slice]) -> tuple[int, int]:
    """Height and width of the dark pixels' bounding box inside ``region``."""
    dark = (pixels[region] < 128).any(axis=2)
    rows, cols = np.flatnonzero(dark.any(axis=1)), np.flatnonzero(dark.any(axis=0))
    assert rows.size and cols.size, "nothing drawn in the region"
    return rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1


def test_png_legend_text_and_lines_grow_with_the_figure(show, tmp_path):
    """Regression: at 2x the legend text stayed at screen size (8 px beside 30-px node
    labels) and 1-px lines stayed 1 px, half as thick as in the window and the SVG."""
    plot = pg.PlotWidget()
    for side in ("left", "bottom"):
        plot.hideAxis(side)
    plot.addLegend(offset=(10, 10))
    plot.plot([0, 1], [0, 0], pen=pg.mkPen("k"), name="a legend entry")
    show(plot)
    plot.setXRange(0, 1, padding=0)
    plot.setYRange(-1, 1, padding=0)
    QApplication.processEvents()
    sizes = {}
    for scale in (1.0, 3.0):
        path = tmp_path / f"x{scale:g}.png"
        render(plot, str(path), "png", scale=scale)
        pixels = read_rgb(path)
        h, w = pixels.shape[:2]
        legend = _ink_box(pixels, (slice(0, h // 4), slice(0, w // 2)))
        # the curve: a horizontal line, right of the legend; its ink summed down a
        # column is its thickness in pixels, whatever the antialiasing
        column = pixels[h // 4:, int(w * 0.75)].min(axis=1).astype(float)
        sizes[scale] = (legend, float(((255.0 - column) / 255.0).sum()))
    (legend1, line1), (legend3, line3) = sizes[1.0], sizes[3.0]
    assert legend3[0] == pytest.approx(3 * legend1[0], rel=0.15)
    assert legend3[1] == pytest.approx(3 * legend1[1], rel=0.15)
    assert 0.7 < line1 < 1.5, sizes
    assert line3 == pytest.approx(3 * line1, rel=0.2)


def test_a_panel_exports_with_its_title_above_the_graphics(show, tmp_path):
    panel = show(ViewPanel(CurvesPlot()))
    panel.graphics.set_curves(np.arange(5.0), np.ones((1, 5)), ["one"])
    panel.set_title("Chosen dimensions over positions")
    qt_size = panel.graphics.size()

    png = render(panel, str(tmp_path / "p.png"), "png", scale=1.0)
    render(panel, str(tmp_path / "p.svg"), "svg")

    assert png.width() == qt_size.width() and png.height() > qt_size.height() + 10
    pixels = read_rgb(tmp_path / "p.png")
    band = pixels[: png.height() - qt_size.height()]
    assert (band < 128).any(axis=2).mean() > 0.02        # the title's ink
    root = ET.parse(tmp_path / "p.svg").getroot()
    texts = {"".join(t.itertext()).strip() for t in root.iter(SVG_NS + "text")}
    assert "Chosen dimensions over positions" in texts


def test_render_rejects_an_unknown_format(show, tmp_path):
    plot = _curves(show)
    with pytest.raises(FigureError) as info:
        render(plot, str(tmp_path / "c.bmp"), "bmp")
    assert "bmp" in str(info.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("width", [5, 15, 20001])
def test_render_rejects_a_png_width_out_of_range(show, tmp_path, width):
    plot = _curves(show)
    with pytest.raises(FigureError) as info:
        render(plot, str(tmp_path / "c.png"), "png", width=width)
    assert str(width) in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_render_format_name_is_case_insensitive(show, tmp_path):
    plot = _curves(show)
    render(plot, str(tmp_path / "c.svg"), "SVG")
    ET.parse(tmp_path / "c.svg")


def test_figure_through_atomic_write_lands_complete_under_its_name(show, tmp_path):
    plot = _heatmap(show)
    target = tmp_path / "heatmap.png"

    atomic_write(target, lambda tmp: render(plot, tmp, "png", width=400))

    assert QImage(str(target)).width() == 400
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heatmap.png"]


def test_failed_render_through_atomic_write_leaves_no_file(show, tmp_path):
    plot = _curves(show)

    with pytest.raises(ExportError):
        atomic_write(tmp_path / "c.png", lambda tmp: render(plot, tmp, "png", width=5))
    assert list(tmp_path.iterdir()) == []


def test_csv_reader_sees_the_same_table_as_numpy(tmp_path, pe_like):
    path = tmp_path / "pe.csv"
    write_data(path, "pe", {"pe": pe_like}, {"note": "x"})

    body = "".join(line for line in path.read_text(encoding="utf-8").splitlines(True)
                   if not line.startswith("#"))
    records = list(csv.reader(io.StringIO(body)))
    assert len(records) == 1 + pe_like.shape[0]
    assert all(len(r) == 1 + pe_like.shape[1] for r in records)


@pytest.mark.parametrize("key", ["transformer", "pretrained", "efficient", "graph", "generation",
                                 "flows", "ode",
                                 "meta"])
@pytest.mark.parametrize("fmt", ["png", "svg", "csv"])
def test_every_view_of_a_tab_exports(qtbot, window, tmp_path, key, fmt):
    tab = open_tab(qtbot, window, key)
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.wait(100)                           # laid out, so the views have a size
    for view in tab.views:
        if fmt == "csv":
            if view.data() is None:
                continue
            out = window.export_data(tab, view.key, str(tmp_path / f"{view.key}.csv"))
        else:
            out = window.export_figure(tab, view.key, str(tmp_path / f"{view.key}.{fmt}"), 800)
        assert (tmp_path / out).exists()


def test_a_scaled_png_keeps_the_screen_dpi(qtbot, tmp_path):
    """A PNG at 3x the view's width: the painter is scaled by 3 already, so the image
    keeps the screen's DPI. With DPI x 3, text drawn in points (axis tick labels) grew
    with the device too and came out 9x as large (seen in exported heatmaps' colour
    bars and in the flow view)."""
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    plot.show()
    render(plot, str(tmp_path / "x3.png"), "png", scale=3.0)
    img = QImage(str(tmp_path / "x3.png"))
    assert img.width() == 900
    assert abs(img.dotsPerMeterX() - plot.logicalDpiX() / 0.0254) < 2


# -- the PDF of a small heatmap, interface state, Chinese fonts, the three formats alike ------

def _orange(pixels: np.ndarray) -> int:
    """Pixels within 30 levels of the selection colour (viz.theme.HIGHLIGHT) per channel."""
    from viz.theme import HIGHLIGHT

    colour = np.array([int(HIGHLIGHT[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(pixels.astype(int) - colour) <= 30).all(axis=-1).sum())


def _grab(widget: QWidget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    buf = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes()).copy()
    return buf.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3].reshape(
        image.height(), image.width(), 3)


@pytest.mark.skipif(shutil.which("pdftoppm") is None,
                    reason="pdftoppm (poppler-utils) is not installed: cannot draw the PDF")
def test_pdf_of_a_small_heatmap_draws_its_cells_where_the_png_does(show, tmp_path):
    """Regression: the PDF upsampled every image, the small ones painted as vector
    cells too; upsampling rescales the image item, so the cells, laid out in the
    image's own pixels, came out 200x too small (6 x 5 cells: a dot in the plot's
    corner). Poppler draws the PDF; it must match the PNG."""
    from figure_checks import FORMAT_LIMIT, box_blur, grey, rendered

    plot = _heatmap(show)
    render(plot, str(tmp_path / "h.png"), "png", scale=1.0)
    render(plot, str(tmp_path / "h.pdf"), "pdf")

    png = box_blur(grey(tmp_path / "h.png"))
    pdf = box_blur(rendered(tmp_path / "h.pdf", png.shape[1], png.shape[0],
                            tmp_path / "pdf.png"))
    assert np.abs(png - pdf).mean() < FORMAT_LIMIT
    assert plot.image.image.shape == (6, 5)


def test_the_mosaic_s_selection_frame_stays_on_screen_and_out_of_every_figure(show, tmp_path):
    from viz.mosaic import TileMosaic

    mosaic = show(TileMosaic())
    tiles = np.random.default_rng(0).random((6, 5, 5)).astype(np.float32)
    mosaic.set_tiles(tiles, 3, ["L0", "L1", "L2"], ["H0", "H1"], selected=4)
    QApplication.processEvents()
    assert mosaic.frame.isVisible() and _orange(_grab(mosaic)) > 50   # on screen

    for fmt in ("png", "svg", "pdf"):
        render(mosaic, str(tmp_path / f"m.{fmt}"), fmt)
    assert _orange(read_rgb(tmp_path / "m.png")) == 0
    assert "#e8a200" not in (tmp_path / "m.svg").read_text(encoding="utf-8")
    assert mosaic.frame.isVisible()                       # and still there afterwards


def test_the_selected_head_s_title_is_plain_in_a_figure_and_orange_on_screen(show, tmp_path):
    from viz.attention import HeadGrid

    grid = show(HeadGrid())
    weights = np.random.default_rng(1).dirichlet(np.ones(5), size=(4, 5)).astype(np.float32)
    tokens = list("abcde")
    grid.set_heads(weights, tokens, tokens, [f"head {h}" for h in range(4)], selected=0)
    QApplication.processEvents()
    assert "#e8a200" in grid.plots[0].titleLabel.item.toHtml()

    render(grid, str(tmp_path / "g.svg"), "svg")
    render(grid, str(tmp_path / "g.png"), "png")

    titles = {" ".join("".join(t.itertext()).split()): t for t in
              ET.parse(tmp_path / "g.svg").getroot().iter(SVG_NS + "text")}
    assert {f"head {h}" for h in range(4)} <= set(titles)
    styles = {(titles[f"head {h}"].get("fill"), titles[f"head {h}"].get("font-weight"))
              for h in range(4)}
    assert styles == {("#222222", "400")}          # all four alike: none selected
    assert _orange(read_rgb(tmp_path / "g.png")) == 0
    assert "#e8a200" in grid.plots[0].titleLabel.item.toHtml()      # the screen's unchanged


def test_the_head_view_s_figure_shows_the_drawn_heads_without_hover_or_selection(show, tmp_path):
    from viz.head_view import QUERY, HeadView

    view = show(HeadView())
    weights = np.random.default_rng(2).dirichlet(np.ones(6), size=(3, 6)).astype(np.float32)
    tokens = ["the", "cat", "sat", "on", "a", "mat"]
    view.set_heads(weights, tokens, tokens, ["head 0", "head 1", "head 2"], selected=0)
    view.set_head_shown(1, False)
    view.set_hover(QUERY, 2)
    render(view, str(tmp_path / "hover.png"), "png")
    render(view, str(tmp_path / "v.svg"), "svg")

    texts = {" ".join("".join(t.itertext()).split())
             for t in ET.parse(tmp_path / "v.svg").getroot().iter(SVG_NS + "text")}
    assert {"head 0", "head 2"} <= texts and "head 1" not in texts   # the drawn heads
    hovered = read_rgb(tmp_path / "hover.png")
    assert _orange(hovered) == 0                     # no selection line, no hover box
    view.set_hover(-1, -1)
    render(view, str(tmp_path / "still.png"), "png")
    np.testing.assert_array_equal(hovered, read_rgb(tmp_path / "still.png"))
    assert view.lines.hover == (-1, -1) and not view.shown_heads()[1]


def test_a_figure_is_trimmed_to_what_its_view_draws(show, tmp_path):
    """The layers x heads mosaic is centred in its panel; its figure was the panel,
    up to 60 % white."""
    from viz.figure import TRIM_MARGIN
    from viz.mosaic import TileMosaic

    mosaic = show(TileMosaic())
    mosaic.resize(900, 300)
    tiles = np.random.default_rng(0).random((6, 5, 5)).astype(np.float32)
    mosaic.set_tiles(tiles, 3, ["L0", "L1", "L2"], ["H0", "H1"])
    QApplication.processEvents()

    size = render(mosaic, str(tmp_path / "m.png"), "png", scale=1.0)

    pixels = read_rgb(tmp_path / "m.png")
    assert size.width() < 0.6 * mosaic.width()
    # white left beside the ink: the margin, and the colour bar's room for longer ticks
    # (the untrimmed figure had some 190 px a side)
    ink = np.flatnonzero((pixels < 200).any(axis=2).any(axis=0))
    assert ink[0] <= TRIM_MARGIN + 12 and pixels.shape[1] - 1 - ink[-1] <= TRIM_MARGIN + 30


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="pdffonts (poppler-utils) missing")
def test_a_chinese_pdf_embeds_the_simplified_chinese_face(show, tmp_path):
    """Qt took the CJK glyphs from the Japanese variant of Noto Sans CJK (the first
    fontconfig offers): "，" and "。" centred, Japanese glyph forms."""
    from viz.fonts import simplified_chinese_family

    if simplified_chinese_family() != "Noto Sans CJK SC":
        pytest.skip("Noto Sans CJK SC (fonts-noto-cjk) is not installed")
    plot = _curves(show)
    plot.set_axis_labels("注意力权重，按头", "位置。")
    render(plot, str(tmp_path / "zh.pdf"), "pdf")

    listing = subprocess.run(["pdffonts", str(tmp_path / "zh.pdf")], capture_output=True,
                             text=True, check=True, timeout=60).stdout.splitlines()[2:]
    names = [line.split()[0] for line in listing if line.strip()]
    assert any("CJKsc" in n for n in names), names
    assert not any("CJKjp" in n for n in names), names


def test_a_chinese_svg_names_the_simplified_chinese_faces_an_english_one_does_not(show, tmp_path):
    from viz.fonts import SVG_CJK_FAMILIES

    plot = _curves(show)
    render(plot, str(tmp_path / "en.svg"), "svg")
    plot.set_axis_labels("注意力权重，按头", "位置。")
    render(plot, str(tmp_path / "zh.svg"), "svg")

    def families(path: Path) -> set[str]:
        return {el.get("font-family") for el in ET.parse(path).getroot().iter()
                if el.get("font-family")}

    for family in families(tmp_path / "zh.svg"):
        names = [n.strip(" '") for n in family.split(",")]
        assert names[0] == "DejaVu Sans" and names[-1] == "sans-serif"
        assert set(SVG_CJK_FAMILIES) <= set(names[1:]) and len(set(names)) == len(names)
    assert not any("CJK" in f for f in families(tmp_path / "en.svg"))


@pytest.mark.skipif(None in __import__("figure_checks").format_tools(),
                    reason="pdftoppm (poppler-utils) or rsvg-convert (librsvg2-bin) is not "
                           "installed: cannot draw the PDF and the SVG to compare")
def test_every_view_s_svg_and_pdf_look_like_its_png_in_both_languages(qtbot, window, tmp_path):
    """Every registered view of every tab, en and zh_CN, at the window's test size: the
    SVG drawn by librsvg and the PDF by poppler differ from the PNG by at most
    ``figure_checks.FORMAT_LIMIT`` (see there). About 70 s on a loaded 2-core machine."""
    from figure_checks import format_mismatches

    rows, found = [], []
    for language in ("en", "zh_CN"):
        window.set_language(language)
        r, f = format_mismatches(window, tmp_path, qtbot.wait, language)
        rows += r
        found += f
    assert len(rows) >= 100, [name for name, _ in rows]
    assert not found, "\n".join(found)


def test_a_view_drawn_in_this_turn_exports_as_the_window_will_show_it(show, qtbot, tmp_path):
    """New bars set and exported in the same turn of the event loop, before the window
    painted them (the graph tab's comparison when the untrained accuracies arrive): the
    first export showed the old x range, bars stretched (its painting settled the view,
    so the SVG and the PDF after it differed from the PNG by 0.11, CI). The export
    settles the view first: every export of that moment is the settled figure."""
    from viz.plots import GroupedBarsPlot

    plot = show(GroupedBarsPlot())
    plot.set_bars(["gcn", "sage"], np.array([[0.4, 0.1]], np.float32), ["untrained"])
    qtbot.wait(300)
    plot.set_bars(["gcn", "sage", "gat", "baseline"],
                  np.array([[0.4, 0.1, 0.5, 0.75]], np.float32), ["untrained"])
    def export(name: str) -> np.ndarray:
        render(plot, str(tmp_path / name), "png", scale=1.0)
        return read_rgb(tmp_path / name)

    first, second = export("first.png"), export("second.png")
    qtbot.wait(300)                                   # what the window then shows
    settled = export("settled.png")
    assert np.array_equal(first, second)
    assert np.array_equal(first, settled)


@pytest.mark.skipif(None in __import__("figure_checks").format_tools(),
                    reason="pdftoppm (poppler-utils) or rsvg-convert (librsvg2-bin) is not "
                           "installed: cannot draw the PDF and the SVG to compare")
def test_a_tab_laid_out_in_this_turn_exports_its_settled_size_in_every_format(
        qtbot, window, tmp_path):
    """The graph tab exported in the turn its first trace arrived: a layout request that
    a pending one posted (the scroll area around the panel) waited for the next export,
    and the size was read before the settling, so the PNG kept the old size and range
    (370x484) and the SVG after it the new (365x508; mean |PNG - SVG| 0.035 here, 0.042
    in a clean clone's whole run). Settled first, to the last request: two PNGs in a
    row are one image, and the SVG and the PDF match it."""
    from figure_checks import format_differences

    tab = open_tab(qtbot, window, "graph")
    files = [str(tmp_path / f"graph.{fmt}") for fmt in ("png", "svg", "pdf")]
    for path in [str(tmp_path / "first.png")] + files:
        window.export_figure(tab, "graph", path, scale=1.0)
    assert np.array_equal(read_rgb(tmp_path / "first.png"), read_rgb(files[0]))
    differences = format_differences(*files, tmp_path)
    assert max(differences.values()) < 0.01, differences


def test_a_png_at_screen_size_draws_scatter_symbols_as_the_window_does(show, tmp_path):
    """At scale 1 the symbols come from pyqtgraph's atlas, as on screen: the PNG is the
    window's own picture (painted as a path each, 10,000 nodes took 3.4x the time and
    differed from the window by 0.019 on average). Enlarged, they stay vector paths."""
    import viz.figure as figure_module

    plot = _scatter(show)
    plot.plotItem.hideAxis("bottom")
    plot.plotItem.hideAxis("left")
    QApplication.processEvents()
    window = plot.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    window.save(str(tmp_path / "window.png"))
    render(plot, str(tmp_path / "one.png"), "png", scale=1.0)
    drawn, shown = read_rgb(tmp_path / "one.png"), read_rgb(tmp_path / "window.png")
    assert drawn.shape == shown.shape
    assert np.abs(drawn.astype(float) - shown).mean() / 255 < 0.002
    calls = []
    real = figure_module._Figure.paint_steps

    def spy(self, *args, **kwargs):
        calls.append(kwargs.get("vector_symbols", True))
        return real(self, *args, **kwargs)

    figure_module._Figure.paint_steps = spy
    try:
        render(plot, str(tmp_path / "two.png"), "png", scale=2.0)
        render(plot, str(tmp_path / "three.png"), "png", scale=1.0)
    finally:
        figure_module._Figure.paint_steps = real
    assert calls[0] is True and calls[-1] is False, calls

