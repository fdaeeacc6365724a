"""``archscope export`` with clumsy sizes and formats: a sentence, no traceback, no
silent default, no file.

Sizes are checked while the command line is read (in this process, before any window);
what depends on the view (the scales that fit it, whether it has data) runs the command
as a user does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.main import export_main

ROOT = Path(__file__).resolve().parent.parent


def _cli(args, tmp_path, timeout=240):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    return subprocess.run([sys.executable, "-m", "app", "export", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _refused(argv, capsys) -> str:
    """stderr of a command line refused as it is read (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        export_main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e400", "0", "-0", "-2"])
def test_a_scale_that_is_no_size_is_refused_with_a_sentence(capsys, tmp_path, value):
    out = tmp_path / "pe.png"
    err = _refused(["positional.pe", "--out", str(out), f"--scale={value}"], capsys)
    assert f"argument --scale: {value} is not a size: give a number above 0" in err
    assert not out.exists()


def test_a_scale_that_is_not_a_number_says_so(capsys, tmp_path):
    err = _refused(["positional.pe", "--out", str(tmp_path / "x.png"), "--scale", "big"],
                   capsys)
    assert "argument --scale: 'big' is not a number" in err


@pytest.mark.parametrize(("value", "says"), [
    ("0", "0 pixels is out of range"), ("15", "15 pixels is out of range"),
    ("20001", "20001 pixels is out of range"), ("-800", "-800 pixels is out of range"),
    ("800.5", "'800.5' is not a whole number of pixels"),
    ("nan", "'nan' is not a whole number of pixels")])
def test_a_width_out_of_range_is_refused_not_replaced_by_the_default(capsys, tmp_path,
                                                                     value, says):
    # --width 0 used to fall back silently to twice the view's size
    err = _refused(["positional.pe", "--out", str(tmp_path / "x.png"), f"--width={value}"],
                   capsys)
    assert f"argument --width: {says}" in err
    assert "16 to 20000" in err


@pytest.mark.parametrize("out", ["pe.svg", "pe.pdf", "pe.csv"])
def test_a_size_for_a_file_that_has_none_is_refused(capsys, tmp_path, out):
    err = _refused(["positional.pe", "--out", str(tmp_path / out), "--scale", "3"], capsys)
    assert f"--width and --scale size a PNG; '{out}' is not one" in err


@pytest.mark.slow
def test_a_scale_too_large_for_the_view_names_the_scales_that_fit(tmp_path):
    out = tmp_path / "pe.png"
    proc = _cli(["positional.pe", "--out", str(out), "--scale", "1e308"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "A scale of 1e+308 gives no PNG size; use a scale from" in proc.stderr
    assert "for this view" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists() and not list(tmp_path.glob("*.part"))


@pytest.mark.slow
def test_an_unknown_extension_lists_figure_and_data_formats_for_a_view_with_data(tmp_path):
    out = tmp_path / "pe.bmp"
    proc = _cli(["positional.pe", "--out", str(out)], tmp_path)
    assert proc.returncode == 2
    assert "cannot tell the format of 'pe.bmp'" in proc.stderr
    assert "figure format (.png, .svg, .pdf)" in proc.stderr
    assert "data format (.csv, .npy, .json)" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


@pytest.mark.slow
def test_an_unknown_extension_for_a_view_without_data_lists_the_figure_formats(tmp_path):
    # the M_k fit has no data until it is learned
    proc = _cli(["positional.fit", "--out", str(tmp_path / "fit.bmp")], tmp_path)
    assert proc.returncode == 2
    assert "figure format (.png, .svg, .pdf)" in proc.stderr
    assert "this view has no data yet for .csv, .npy, .json" in proc.stderr


def test_the_whole_tab_with_an_unknown_extension_lists_the_figure_formats(tmp_path):
    proc = _cli(["positional", "--out", str(tmp_path / "tab")], tmp_path)
    assert proc.returncode == 2
    assert "the whole tab exports as a figure only: give --out a .png, .svg or .pdf file, " \
           "not 'tab'" in proc.stderr
