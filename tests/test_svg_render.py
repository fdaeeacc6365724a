"""Exported figures look the same whoever opens them.

Four real views of the window (a heatmap, a graph with edges, curves with a legend, a
scatter plane) are exported as PNG, SVG and PDF; the SVG is rendered by librsvg
(``rsvg-convert``, as GNOME, Inkscape's import and many Linux tools do) at the PNG's
pixel size and compared with the PNG pixel by pixel; the PDF's fonts are embedded and
its text holds the view's title; the PNG has the title in a band above the plot.
Before the exporter was reworked, librsvg drew a graph's edges as one grey filled band
(a 1-px cosmetic stroke scaled by the data transform) and interpolated heatmaps.

:func:`viz.svg_post.fix_svg` is also tested on its own, on SVG text like Qt's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from figure_checks import read_rgb

from tests.windows import open_tab
from viz.figure import cell_runs
from viz.svg_post import fix_svg

SVG_NS = "{http://www.w3.org/2000/svg}"
RSVG = shutil.which("rsvg-convert")
PDFFONTS = shutil.which("pdffonts")
PDFTOTEXT = shutil.which("pdftotext")

#: (tab, view): a heatmap, a graph with edges, curves with a legend, a scatter plane
VIEWS = [("positional", "pe"), ("graph", "graph"), ("positional", "curves"),
         ("meta", "proto_input")]


def _blur(a: np.ndarray) -> np.ndarray:
    """3 x 3 box blur: antialiasing and hinting differ between renderers by a pixel."""
    f = np.pad(a.astype(np.float32), ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = a.shape[:2]
    return sum(f[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) / 9.0


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Filled by the one test that has the window; the others read it."""
    return {"dir": tmp_path_factory.mktemp("figures"), "files": {}}


def test_views_export_in_three_formats_with_title(qtbot, window, exported):
    """Run first: writes every file the tests below compare, and checks the title."""
    folder = exported["dir"]
    for tab_key, view_key in VIEWS:
        tab = open_tab(qtbot, window, tab_key)
        window.tabs_widget.setCurrentWidget(tab)
        qtbot.wait(150)
        view = tab.view(view_key)
        files = {}
        for fmt in ("png", "svg", "pdf"):
            out = folder / f"{tab_key}.{view_key}.{fmt}"
            window.export_figure(tab, view_key, str(out), scale=1.0)
            files[fmt] = out
        title = view.panel.title.text()
        exported["files"][(tab_key, view_key)] = (files, title, view.panel.graphics.size())

        # SVG: the title is a text element, as are the axis labels
        root = ET.parse(files["svg"]).getroot()
        texts = [" ".join("".join(t.itertext()).split()) for t in root.iter(SVG_NS + "text")]
        words = title.split()
        assert any(words[0] in t for t in texts), f"{tab_key}.{view_key}: no title in {texts}"
        # PNG: one logical pixel per pixel, the graphics below a title band
        png = read_rgb(files["png"])
        graphics = view.panel.graphics.size()
        band = png.shape[0] - graphics.height()
        assert png.shape[1] == graphics.width() and band >= 10, (png.shape, graphics)
        ink = (png[:band] < 128).any(axis=2).mean()
        blank = (png[:band] < 128).any(axis=2)[:, -20:].mean()  # the title's right end
        assert ink > 0.01, f"{tab_key}.{view_key}: the title band is blank"
        assert blank < ink


@pytest.mark.skipif(RSVG is None, reason="rsvg-convert (librsvg2-bin) is not installed; "
                                         ".ci/sysdeps.sh installs it")
@pytest.mark.parametrize(("tab_key", "view_key"), VIEWS)
def test_librsvg_draws_the_svg_as_the_png(exported, tmp_path, tab_key, view_key):
    if (tab_key, view_key) not in exported["files"]:
        pytest.skip("the export test did not run")
    files, _title, _size = exported["files"][(tab_key, view_key)]
    png = read_rgb(files["png"])
    h, w = png.shape[:2]
    out = tmp_path / "rsvg.png"
    proc = subprocess.run([RSVG, "-w", str(w), "-h", str(h), "-b", "white", "-o", str(out),
                           str(files["svg"])], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr
    rsvg = read_rgb(out)
    assert rsvg.shape == png.shape

    png, rsvg = _blur(png), _blur(rsvg)
    # measured 0.8-1.4 of 255 (text hinting); the grey-band SVG of before: ~92
    mad = np.abs(png - rsvg).mean(axis=(0, 1))
    assert (mad < 4.0).all(), f"{tab_key}.{view_key}: mean |PNG - librsvg| per channel {mad}"
    # no band or polygon of colour where the PNG is white (the edges' grey fill);
    # measured under 0.01 % of the pixels
    painted_on_white = ((png > 245).all(axis=2) & (rsvg < 200).any(axis=2)).mean()
    assert painted_on_white < 0.002, f"{tab_key}.{view_key}: librsvg paints on white"
    # and the other way round: nothing the PNG shows is missing (axes clipped away)
    missing = ((png < 200).any(axis=2) & (rsvg > 245).all(axis=2)).mean()
    assert missing < 0.002, f"{tab_key}.{view_key}: {missing:.2%} of the PNG's ink is missing"


@pytest.mark.skipif(PDFFONTS is None or PDFTOTEXT is None,
                    reason="pdffonts / pdftotext (poppler-utils) are not installed")
@pytest.mark.parametrize(("tab_key", "view_key"), VIEWS)
def test_pdf_embeds_its_fonts_and_holds_the_title(exported, tab_key, view_key):
    if (tab_key, view_key) not in exported["files"]:
        pytest.skip("the export test did not run")
    files, title, _size = exported["files"][(tab_key, view_key)]
    listing = subprocess.run([PDFFONTS, str(files["pdf"])], capture_output=True, text=True,
                             check=True, timeout=60).stdout.splitlines()
    fonts = [line.split() for line in listing[2:] if line.strip()]
    assert fonts, "no fonts in the PDF"
    for row in fonts:
        # columns: name type... encoding emb sub uni object ID
        assert row[-5] == "yes", f"font {row[0]} is not embedded"
    text = subprocess.run([PDFTOTEXT, str(files["pdf"]), "-"], capture_output=True,
                          check=True, timeout=60).stdout.decode("utf-8", "replace")
    flat = " ".join(text.split())
    assert " ".join(title.split()[:3]) in flat, f"title {title!r} not in {flat[:200]!r}"


# -- fix_svg on its own ----------------------------------------------------------------------

QT_LIKE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg width="100mm" height="100mm" viewBox="0 0 200 100"
 xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1">
<g fill="none" stroke="black">
<g fill="none" stroke="#555555" stroke-width="1" transform="matrix(100,0,0,-50,100,50)"
font-family="Sans Serif" font-size="12">
<polyline fill="none" vector-effect="non-scaling-stroke" points="-0.5,0.5 0.5,-0.5 " />
<text x="0" y="0">kept</text>
<path vector-effect="non-scaling-stroke" d="M0,0 L0.25,0 C0.5,0 0.5,0.5 0.25,0.5 Z "/>
<rect vector-effect="none" x="0" y="0" width="0.1" height="0.1"/>
</g>
<g transform="matrix(1,0,0,1,0,0)"><image x="0" y="0" width="4" height="4"
 xlink:href="data:image/png;base64,AAAA"/></g>
</g>
</svg>
"""


def test_fix_svg_bakes_non_scaling_strokes_and_keeps_the_rest_in_order():
    root = ET.fromstring(fix_svg(QT_LIKE, lambda family: "'DejaVu Sans', sans-serif"))
    outer = root.find(SVG_NS + "g")
    groups = outer.findall(SVG_NS + "g")
    # the data group split into runs: baked stroke, text (transformed), baked path, rect
    kinds = [[c.tag.replace(SVG_NS, "") for c in g] for g in groups[:4]]
    assert kinds == [["polyline"], ["text"], ["path"], ["rect"]]
    baked_line, text_run, baked_path, rect_run = groups[:4]
    assert baked_line.get("transform") is None and baked_path.get("transform") is None
    assert text_run.get("transform") == rect_run.get("transform") == "matrix(100,0,0,-50,100,50)"
    line = baked_line.find(SVG_NS + "polyline")
    assert line.get("vector-effect") is None
    pts = [float(v) for v in re.split(r"[ ,]+", line.get("points").strip())]
    assert pts == [50.0, 25.0, 150.0, 75.0]       # (-0.5, 0.5) -> (50, 25) ...
    d = baked_path.find(SVG_NS + "path").get("d")
    assert d.startswith("M100,50 L125,50 C150,50 150,25 125,25") and d.endswith("Z")
    assert baked_line.get("stroke-width") == "1"   # one pixel of the figure, as on screen
    # font families made portable, images pixelated
    assert {g.get("font-family") for g in groups[:4]} == {"'DejaVu Sans', sans-serif"}
    image = root.find(f".//{SVG_NS}image")
    assert "image-rendering:pixelated" in image.get("style")
    assert image.get("{http://www.w3.org/1999/xlink}href").startswith("data:image/png")


def test_fix_svg_turns_relative_and_shape_elements_into_absolute_paths():
    text = QT_LIKE.replace(
        '<polyline fill="none" vector-effect="non-scaling-stroke" points="-0.5,0.5 0.5,-0.5 " />',
        '<ellipse vector-effect="non-scaling-stroke" cx="0" cy="0" rx="0.1" ry="0.2"/>'
        '<path vector-effect="non-scaling-stroke" d="m0,0 l0.1,0 h0.1 v0.2 z"/>')
    root = ET.fromstring(fix_svg(text))
    paths = [p.get("d") for p in root.iter(SVG_NS + "path") if p.get("d", "").startswith("M1")]
    ellipse = next(p for p in paths if "C" in p)
    assert ellipse.startswith("M110,50 C")           # (0.1, 0) -> (110, 50)
    assert "M100,50 L110,50 L120,50 L120,40 Z" in paths


# -- vector heatmap cells -------------------------------------------------------------------


def test_cell_runs_merge_equal_neighbours_and_overlap_only_inward():
    rgba = np.zeros((2, 4, 4), np.uint8)
    rgba[..., 3] = 255
    rgba[0, :2, 0] = 200                       # row 0: two red cells, then two black
    rgba[1, 3] = (0, 0, 0, 0)                  # row 1: three black, one transparent

    runs = cell_runs(rgba, overlap=(0.1, 0.2))

    rects = [(r.x(), r.y(), round(r.width(), 3), round(r.height(), 3)) for r, _c in runs]
    assert rects == [(0, 0, 2.1, 1.2), (2, 0, 2.0, 1.2), (0, 1, 3.1, 1.0)]
    assert [c.red() for _r, c in runs] == [200, 0, 0]
