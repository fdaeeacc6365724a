"""Flows → Export animation… as a background job (issue 19): the window stays responsive
while a big animation is painted and written, the bar says "frame k of n", Cancel leaves
no half file and the file of that name from before as it was, training goes on meanwhile,
and closing the window mid-export exits cleanly."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from heartbeat import Heartbeat
from PIL import Image
from PySide6.QtCore import Qt

from app.tabs.flows import FlowsTab
from tests.windows import open_tab

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tab(qtbot, window) -> FlowsTab:
    t = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def trained(qtbot, tab, layers: int, points: int, steps: int = 30) -> None:
    """A flow of ``layers`` layers showing ``points`` points, trained a little (an
    untrained flow is the identity: its frames would be equal, and a GIF merges them)."""
    tab.apply_state({"layers": layers, "points": points})
    qtbot.waitUntil(lambda: tab.result is not None
                    and tab.result.trace.points.shape == (layers + 1, points, 2),
                    timeout=60_000)
    for _ in tab.session().train(steps):
        pass
    tab.compute_now()
    qtbot.wait(300)                     # the new trace painted: the window is idle


@pytest.fixture
def folder(tmp_path) -> Path:
    """Where the exports go (tmp_path holds the settings too)."""
    out = tmp_path / "out"
    out.mkdir()
    return out


def status(window) -> str:
    return window.statusBar().currentMessage()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_png_frames_are_written_in_the_background_with_progress(qtbot, window, tab,
                                                                  folder):
    layers = tab.flow_view.layers
    seen = set()
    with Heartbeat() as beat:              # the PNG path: 185 frames once froze 90 s
        tab.export_frames(str(folder), per_layer=2, width=400)
        bar = tab.export_bar
        assert tab.exporting() and bar.isVisible() and not tab.frames_button.isEnabled()
        qtbot.waitUntil(lambda: seen.add(bar.label.text()) or not tab.exporting(),
                        timeout=60_000)
    assert beat.longest_own_ms < beat.limit_ms, beat.report()
    total = 2 * layers + 1
    steps = {int(m.group(1)) for m in (re.search(r"frame (\d+) of (\d+)", s) for s in seen)
             if m and int(m.group(2)) == total}
    assert steps and min(steps) >= 1, seen    # "frame k of n" was shown while it ran
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"flow_{i:04d}.png" for i in range(total)]
    for name in names[:: max(1, total // 3)]:
        with Image.open(folder / name) as im:
            assert im.format == "PNG" and im.width == 400
            h = round(tab.flow_view.height() * 400 / tab.flow_view.width())
            assert abs(im.height - h) <= 1
    assert status(window) == f"Wrote {total} frames to {folder}."
    assert not bar.isVisible() and tab.frames_button.isEnabled()


@pytest.mark.parametrize("ext", ["gif", "webp"])
def test_an_animated_file_has_every_frame(qtbot, window, tab, folder, ext):
    trained(qtbot, tab, layers=3, points=2000)
    out = folder / f"flow.{ext}"
    tab.export_animation(str(out), per_layer=2, width=300)
    qtbot.waitUntil(lambda: not tab.exporting(), timeout=60_000)
    with Image.open(out) as im:
        assert im.format == ext.upper() and im.n_frames == 2 * 3 + 1
        assert im.width == 300
        im.seek(im.n_frames - 1)
        last = np.asarray(im.convert("RGB"))
        im.seek(0)
        first = np.asarray(im.convert("RGB"))
    assert (np.abs(first.astype(int) - last).sum(axis=2) > 60).mean() > 0.005  # it moves
    assert leftovers(folder) == [] and status(window) == f"Wrote 7 frames to {out}."
    from app.export import ExportError
    with pytest.raises(ExportError, match="gif or .webp"):
        tab.export_animation(str(folder / "flow.mp4"))


def test_a_big_export_leaves_the_window_responsive(qtbot, window, tab, folder):
    """20,000 points: one frame took about 1 s to paint on the GUI thread, and the whole
    animation froze the window (101 s for 32 layers)."""
    trained(qtbot, tab, layers=3, points=20_000, steps=10)
    out = folder / "big.gif"
    with Heartbeat() as beat:
        tab.export_animation(str(out), per_layer=3, width=800)
        qtbot.waitUntil(lambda: not tab.exporting(), timeout=240_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    with Image.open(out) as im:
        assert im.n_frames == 3 * 3 + 1 and im.size[0] == 800


@pytest.mark.parametrize("kind", ["gif", "webp", "png"])
def test_cancel_leaves_no_half_file_and_the_old_one_as_it_was(qtbot, window, tab, folder,
                                                              kind):
    trained(qtbot, tab, layers=8, points=2000, steps=5)
    old = b"the export from before"
    name = "flow_0000.png" if kind == "png" else f"flow.{kind}"
    (folder / name).write_bytes(old)
    if kind == "png":
        tab.export_frames(str(folder), per_layer=8, width=600)
    else:
        tab.export_animation(str(folder / name), per_layer=8, width=600)
    qtbot.waitUntil(lambda: tab._export.feed.taken >= 3, timeout=60_000)
    assert leftovers(folder)             # it was writing (temporary names)
    qtbot.mouseClick(tab.export_bar.stop_button, Qt.MouseButton.LeftButton)
    assert "Cancelling" in tab.export_bar.label.text()
    qtbot.waitUntil(lambda: not tab.exporting(), timeout=10_000)
    assert sorted(p.name for p in folder.iterdir()) == [name]
    assert (folder / name).read_bytes() == old
    assert status(window).startswith("Export cancelled"), status(window)
    assert not tab.export_bar.isVisible() and tab.frames_button.isEnabled()


def test_a_failure_while_painting_is_reported_and_nothing_is_left(qtbot, window, tab,
                                                                   folder, monkeypatch):
    from viz import figure
    from viz.figure import FigureError

    shown = []
    monkeypatch.setattr(tab.ctx, "report_error", lambda error, details: shown.append(error))
    render, calls = figure.render_png_steps, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise FigureError("Qt could not open the output for painting.")
        return render(*args, **kwargs)

    monkeypatch.setattr(figure, "render_png_steps", failing)
    tab.export_animation(str(folder / "flow.gif"), per_layer=4, width=400)
    qtbot.waitUntil(lambda: not tab.exporting(), timeout=60_000)
    assert [str(e) for e in shown] == ["Exporting 'flow.gif' failed: Qt could not open the "
                                       "output for painting."]
    assert list(folder.iterdir()) == []
    assert not tab.export_bar.isVisible() and tab.frames_button.isEnabled()
    monkeypatch.setattr(figure, "render_png_steps", render)
    tab.export_frames(str(folder), per_layer=1, width=300)      # and the next one works
    qtbot.waitUntil(lambda: not tab.exporting(), timeout=60_000)
    assert len(list(folder.glob("flow_*.png"))) == tab.flow_view.layers + 1


def test_training_and_the_animation_go_on_while_an_export_runs(qtbot, window, tab, folder):
    key = tab._session_key()
    tab.toggle_training()
    qtbot.waitUntil(lambda: tab.sessions[key].step >= 5, timeout=60_000)
    tab.apply_state({"speed": 0.5, "position": 0})
    tab.export_frames(str(folder), per_layer=4, width=500)
    qtbot.mouseClick(tab.play_button, Qt.MouseButton.LeftButton)   # the view on screen
    start = tab.sessions[key].step
    qtbot.waitUntil(lambda: not tab.exporting(), timeout=120_000)
    assert tab.slider.value() > 0                                    # went on playing
    tab.play_button.setChecked(False)
    assert tab.running() == "train" and tab.sessions[key].step > start
    tab.toggle_training()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    assert len(list(folder.glob("flow_*.png"))) == 4 * tab.flow_view.layers + 1


def test_export_bar_in_chinese(qtbot, window, tab, folder):
    window.set_language("zh_CN")
    tab.export_frames(str(folder), per_layer=4, width=500)
    try:
        text = tab.export_bar.label.text()
        assert "帧" in text and "取消" in tab.export_bar.stop_button.text(), text
    finally:
        tab.cancel_export()
        qtbot.waitUntil(lambda: not tab.exporting(), timeout=10_000)


CLOSE_SCRIPT = r"""
import sys, time
from pathlib import Path
from PySide6.QtCore import QTimer
import app.main as m
from app.mainwindow import MainWindow

out = Path(sys.argv[1])
orig_show = MainWindow.show
def show(self):
    orig_show(self)
    def when_ready():
        tab = next(t for t in self.tabs if t.key == "flows")
        self.tabs_widget.setCurrentWidget(tab)
        def start():
            if tab.result is None:
                QTimer.singleShot(200, start)
                return
            tab.export_animation(str(out), per_layer=8, width=600)
            def close():
                if tab._export is None or tab._export.feed.taken < 2:
                    QTimer.singleShot(50, close)
                    return
                print("CLOSING", flush=True)
                self.close()
            close()
        start()
    self.torchReady.connect(when_ready)
MainWindow.show = show
sys.argv = ["archscope"]
m.entry()
"""


@pytest.mark.slow
def test_closing_the_window_mid_export_exits_cleanly(tmp_path):
    out = tmp_path / "flow.gif"
    out.write_bytes(b"before")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    proc = subprocess.Popen([sys.executable, "-c", CLOSE_SCRIPT, str(out)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    closing_at = None
    for line in proc.stdout:
        if line.startswith("CLOSING"):
            closing_at = time.monotonic()
            break
    assert closing_at is not None, proc.stderr.read()
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - closing_at
    assert proc.returncode == 0, err
    assert took < 5.0, f"took {took:.2f} s"
    assert "Traceback" not in err and "Fatal" not in err and "did not stop" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flow.gif", "settings"]
    assert out.read_bytes() == b"before"
