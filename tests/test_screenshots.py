"""Real-window screenshots under Xvfb: every tab in both languages, saved as PNG to a
folder this test prints (ARCHSCOPE_SCREENSHOTS, default ./screenshots), each checked for
real content. Skips with a reason where Xvfb or the CJK fonts are not installed
(`make test` installs them as root through .ci/sysdeps.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parent.parent


def _as_array(path: Path) -> np.ndarray:
    img = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB32)
    ptr = img.constBits()
    arr = np.frombuffer(ptr, np.uint8, count=img.sizeInBytes()).reshape(
        img.height(), img.bytesPerLine() // 4, 4)
    return arr[:, : img.width(), :3].copy()


@pytest.mark.display
def test_screenshots_of_every_tab_in_both_languages(capsys):
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (Debian package xvfb; `make test` installs it "
                    "as root)")
    if not subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True
                          ).stdout.strip():
        pytest.skip("no CJK font installed (Debian package fonts-noto-cjk): Chinese would "
                    "render as boxes")
    from pyvirtualdisplay import Display

    out = Path(os.environ.get("ARCHSCOPE_SCREENSHOTS", ROOT / "screenshots")).resolve()
    with Display(visible=False, size=(1600, 1000), color_depth=24) as display:
        env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
        env["DISPLAY"] = display.new_display_var
        env["QT_QPA_PLATFORM"] = "xcb"
        proc = subprocess.run([sys.executable, str(ROOT / "tests" / "shoot.py"), str(out)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "cjk_families: 0" not in proc.stdout, "Qt sees no Simplified Chinese font"
    # every tab's views fit beside its controls, at 1280 × 800 too, in both languages
    assert "sideways:" not in proc.stdout, [line for line in proc.stdout.splitlines()
                                            if line.startswith("sideways:")]
    shots = sorted(out.glob("*.png"))
    with capsys.disabled():
        print(f"\nscreenshots saved in {out}: {', '.join(p.name for p in shots)}")
    from app.i18n import LANGUAGES
    from app.tabs.catalog import tab_specs

    expected = {f"{s.key}_{code}.png" for s in tab_specs() for code in LANGUAGES}
    assert expected <= {p.name for p in shots}
    for name in sorted(expected):
        arr = _as_array(out / name)
        h, w, _ = arr.shape
        assert w >= 1200 and h >= 800, name
        colours = len(np.unique(arr.reshape(-1, 3), axis=0))
        assert colours > 200, f"{name}: only {colours} colours (blank window?)"
        # the plots occupy the right part: it must not be one flat colour
        plots = arr[h // 8: -h // 8, w // 3:]
        assert plots.std() > 20, f"{name}: the views look empty"
    for spec in tab_specs():
        en = _as_array(out / f"{spec.key}_en.png")
        zh = _as_array(out / f"{spec.key}_zh_CN.png")
        assert en.shape == zh.shape and (en != zh).any(), "the language switch changed nothing"
