"""A large PNG export: time, peak memory, and the GUI thread's longest stall.

    .venv/bin/python benchmarks/bench_png_export.py [--width 20000] [--view positional.pe]
        [--root DIR] [--skip-cli] [--skip-app]

Two measurements, each in a fresh process (so its peak RSS is the export's):
  cli   ``python -m app export VIEW --width W --out x.png``: wall time, peak RSS (the
        child's ``ru_maxrss`` from ``os.wait4``)
  app   the window (offscreen) exports VIEW from its File → Export figure… path while a
        10 ms heartbeat runs: wall time, longest event-loop stall, peak RSS, and the RSS
        before the export began
Each PNG is checked: chunk CRCs, the IDAT stream inflated row by row (bounded memory)
to the right length, and PIL's ``verify``.

``--root DIR`` runs the code of another checkout (e.g. ``git archive`` of the commit
before the streaming writer) for the "before" figures; its app path exports on the GUI
thread, so its longest stall is the whole export. Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def check_png(path: Path) -> str:
    """'ok WxH' after checking every chunk's CRC and inflating the image data; raises
    ValueError naming the first problem."""
    with open(path, "rb") as fh:
        if fh.read(8) != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG signature")
        inflate = zlib.decompressobj()
        width = height = 0
        raw = 0
        kinds = []
        while True:
            head = fh.read(8)
            if len(head) < 8:
                raise ValueError("the file ends before IEND")
            length, kind = struct.unpack(">I4s", head)
            data = fh.read(length)
            (crc,) = struct.unpack(">I", fh.read(4))
            if zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF != crc:
                raise ValueError(f"bad CRC in a {kind!r} chunk")
            if kind not in kinds:
                kinds.append(kind)
            if kind == b"IHDR":
                width, height = struct.unpack(">II", data[:8])
            elif kind == b"IDAT":
                raw += len(inflate.decompress(data, 1 << 24))
                while inflate.unconsumed_tail:
                    raw += len(inflate.decompress(inflate.unconsumed_tail, 1 << 24))
            elif kind == b"IEND":
                break
    raw += len(inflate.flush())
    expected = height * (1 + 4 * width)
    if raw != expected:
        raise ValueError(f"{raw} bytes of rows, expected {expected}")
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    with Image.open(path) as img:
        img.verify()
    return f"ok {width}x{height} chunks {'/'.join(k.decode() for k in kinds)}"


def _run_child(args: list[str], root: Path) -> tuple[int, float, float, str, str]:
    """(returncode, wall s, peak RSS MB, stdout, stderr) of a child process."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=root, env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024,
                out.read(), err.read())


def bench_cli(view: str, width: int, root: Path, folder: Path) -> None:
    """The command at ``width``, and at 400 px for what start-up alone costs."""
    os.environ["ARCHSCOPE_SETTINGS_DIR"] = str(folder / "settings-cli")
    for w in (400, width):
        out = folder / f"cli{w}.png"
        rc, wall, peak, _out, err = _run_child(
            [sys.executable, "-m", "app", "export", view, "--width", str(w),
             "--out", str(out)], root)
        verdict = check_png(out) if rc == 0 else f"failed: {err.strip()[-300:]}"
        size = out.stat().st_size / 1e6 if out.exists() else 0.0
        print(f"cli  {view} width {w}: {wall:.1f} s, peak RSS {peak:.0f} MB, "
              f"{size:.1f} MB file, {verdict}", flush=True)


def bench_app(view: str, width: int, root: Path, folder: Path) -> None:
    out = folder / "app.png"
    os.environ["ARCHSCOPE_SETTINGS_DIR"] = str(folder / "settings-app")
    rc, wall, peak, stdout, err = _run_child(
        [sys.executable, str(Path(__file__).resolve()), "--child-app", view,
         "--width", str(width), "--out", str(out)], root)
    if rc != 0:
        print(f"app  {view} width {width}: failed: {err.strip()[-500:]}", flush=True)
        return
    figures = json.loads(stdout.strip().splitlines()[-1])
    print(f"app  {view} width {width}: export {figures['export_s']:.1f} s, longest "
          f"stall {figures['longest_stall_ms']:.0f} ms (median {figures['median_ms']:.1f}), "
          f"RSS {figures['rss_before_mb']:.0f} MB before, peak {figures['rss_peak_mb']:.0f}"
          f" MB during (process peak {peak:.0f} MB), {figures['mode']}, "
          f"{check_png(out)}", flush=True)


def child_app(view: str, width: int, out: str) -> int:
    """In the child: a window, then the export the way File → Export figure… runs it."""
    import psutil

    sys.path.insert(0, os.getcwd())
    from app.main import _application

    app = _application()
    from PySide6.QtCore import QTimer

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    window = MainWindow(Settings(os.environ["ARCHSCOPE_SETTINGS_DIR"]), Translations(),
                        start_loader=False)
    tab_key, _, view_key = view.partition(".")
    tab = window.tab(tab_key)
    window.tabs_widget.setCurrentWidget(tab)
    window.resize(1500, 940)
    window.show()
    window._on_torch_ready(window.loader.load_here())
    # the tab's first trace drawn (it arrives on the GUI thread; the other tabs are not
    # built), then a quiet second: the stalls measured are the export's
    end = time.perf_counter() + 300.0
    while time.perf_counter() < end and getattr(tab, "trace", None) is None:
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter() + 3.0
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    me = psutil.Process()
    before = me.memory_info().rss
    peak = [before]
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(max(0.0, (now - last[0]) * 1000.0 - 10.0))
        last[0] = now
        peak[0] = max(peak[0], me.memory_info().rss)

    beat = QTimer()
    beat.setInterval(10)
    beat.timeout.connect(tick)
    done: list[str] = []
    beat.start()
    last[0] = started = time.perf_counter()
    if hasattr(window, "start_png_export"):
        mode = "background job"
        job = window.start_png_export(tab, view_key, out, width)
        job.finished.connect(lambda _p: done.append("ok"))
        job.failed.connect(lambda exc: done.append(f"failed: {exc}"))
        job.cancelled.connect(lambda: done.append("cancelled"))
        while not done:
            app.processEvents()
            time.sleep(0.001)
    else:   # the code before the streaming writer: on the GUI thread
        mode = "on the GUI thread"
        QTimer.singleShot(0, lambda: (window.export_figure(tab, view_key, out, width),
                                      done.append("ok")))
        while not done:
            app.processEvents()
            time.sleep(0.001)
    elapsed = time.perf_counter() - started
    app.processEvents()
    beat.stop()
    gaps.sort()
    print(json.dumps({"export_s": elapsed, "longest_stall_ms": gaps[-1] if gaps else 0.0,
                      "median_ms": gaps[len(gaps) // 2] if gaps else 0.0,
                      "rss_before_mb": before / 2**20, "rss_peak_mb": peak[0] / 2**20,
                      "mode": mode, "result": done[0]}), flush=True)
    tab.shutdown()
    window.close()
    os._exit(0 if done[0] == "ok" else 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=20000)
    parser.add_argument("--view", default="positional.pe")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout whose code runs (default: this one)")
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--skip-app", action="store_true")
    parser.add_argument("--child-app", metavar="VIEW", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_app:
        return child_app(args.child_app, args.width, args.out)
    with tempfile.TemporaryDirectory(prefix="bench-png-") as tmp:
        folder = Path(tmp)
        print(f"code of {args.root}", flush=True)
        if not args.skip_cli:
            bench_cli(args.view, args.width, args.root.resolve(), folder)
        if not args.skip_app:
            bench_app(args.view, args.width, args.root.resolve(), folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
