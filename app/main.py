"""Entry points: ``archscope`` (the window), ``archscope --smoke``, ``archscope export``.

Everything lives inside ``main()``: no widget in a module global, the window is closed
and deleted (``deleteLater`` + the posted DeferredDelete events processed) before
returning, and callers do ``sys.exit(main())``. Objects left for interpreter teardown
crash PySide6 + pyqtgraph on Python 3.11.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time

from app import IMPORT_T0


def process_age() -> float:
    """Seconds since this process started (Linux: from /proc; else since import)."""
    try:
        with open("/proc/self/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - IMPORT_T0


def _has_display() -> bool:
    if sys.platform != "linux" or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _application(argv0: str = "archscope"):
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([argv0])
    app.setOrganizationName("ArchScope")
    app.setApplicationName("ArchScope")
    app.setApplicationVersion("0.1.0")
    from viz import theme

    theme.apply()
    return app


def _dispose(window) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    if window is None:
        return
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


def _close_on_sigint(window):
    """Ctrl+C in the terminal closes the window the normal way (jobs stopped, settings
    saved). Qt's event loop runs in C++, so a timer lets Python look at signals.
    The caller restores the handler it had before the window is deleted."""
    import signal

    from PySide6.QtCore import QTimer

    signal.signal(signal.SIGINT, lambda *_: window.close())
    timer = QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(200)


def resident_mb() -> float | None:
    """This process's resident memory in MB (Linux: /proc; else None)."""
    try:
        with open("/proc/self/statm") as fh:
            return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6, 1)
    except (OSError, ValueError, IndexError):
        return None


class _SmokeMonitor:
    """Records first paint, torch ready and the first trace of the tab in front (the
    only tab built at start-up), the longest event-loop stall between the first paint
    and that trace (``max_stall_ms``: the gap between two ticks of a 10 ms timer on the
    GUI thread, less the interval) and the resident memory at first paint and at the
    end; prints one JSON line."""

    TICK_MS = 10

    def __init__(self, window, timeout_s: float = 120.0) -> None:
        from PySide6.QtCore import QObject, QTimer

        self.window = window
        self.figures: dict[str, float | None] = {"first_paint_s": None, "torch_ready_s": None,
                                                  "first_trace_s": None, "max_stall_ms": None,
                                                  "rss_first_paint_mb": None, "rss_mb": None}
        self.rc = 1
        self._last_tick: float | None = None
        self._longest = 0.0

        class Filter(QObject):
            def eventFilter(inner, obj, event):  # noqa: N802, N805
                from PySide6.QtCore import QEvent

                if event.type() == QEvent.Type.Paint and self.figures["first_paint_s"] is None:
                    self.figures["first_paint_s"] = round(process_age(), 3)
                    self.figures["rss_first_paint_mb"] = resident_mb()
                    self._last_tick = time.perf_counter()
                return False

        self._filter = Filter(window)
        window.installEventFilter(self._filter)
        window.torchReady.connect(self._torch_ready)
        self._poll = QTimer(window)
        self._poll.timeout.connect(self._check)
        self._poll.start(self.TICK_MS)
        QTimer.singleShot(int(timeout_s * 1000), self._give_up)

    def _torch_ready(self) -> None:
        self.figures["torch_ready_s"] = round(process_age(), 3)

    def _check(self) -> None:
        now = time.perf_counter()
        if self._last_tick is not None:
            self._longest = max(self._longest, (now - self._last_tick) * 1000 - self.TICK_MS)
            self._last_tick = now
        if self.figures["first_trace_s"] is None and all(
                getattr(t, "trace", None) is not None for t in self.window.built_tabs()):
            self.figures["first_trace_s"] = round(process_age(), 3)
        if all(self.figures[k] is not None for k in ("first_paint_s", "torch_ready_s",
                                                     "first_trace_s")):
            self.figures["max_stall_ms"] = round(max(0.0, self._longest), 1)
            self.figures["rss_mb"] = resident_mb()
            self._finish(0)

    def _give_up(self) -> None:
        self.figures["error"] = "timed out"
        self._finish(1)

    def _finish(self, rc: int) -> None:
        from PySide6.QtWidgets import QApplication

        self._poll.stop()
        self.rc = rc
        print(json.dumps(self.figures), flush=True)
        QApplication.instance().exit(rc)


def main(args: argparse.Namespace) -> int:
    if args.smoke and not os.environ.get("QT_QPA_PLATFORM") and not _has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not _has_display():
        sys.stderr.write("archscope: no display found. Run it on a desktop, under "
                         "`xvfb-run archscope`, or headless with QT_QPA_PLATFORM=offscreen.\n")
        return 2
    # Ctrl+C while the window is being built (seconds on a slow machine) is remembered
    # and closes it the normal way once shown, instead of a KeyboardInterrupt traceback
    import signal

    quit_early: list[bool] = []
    previous_sigint = signal.signal(signal.SIGINT, lambda *_: quit_early.append(True))
    try:
        return _main_window(args, quit_early)
    finally:
        signal.signal(signal.SIGINT, previous_sigint)


def _main_window(args: argparse.Namespace, quit_early: list[bool]) -> int:
    app = _application()
    from app.errors import ExceptHooks
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    settings = Settings(args.settings_dir)
    translations = Translations()
    translations.set_language(args.lang or settings.language)
    window = None
    hooks = None
    try:
        window = MainWindow(settings, translations)
        if args.device:
            settings.device = args.device
        hooks = ExceptHooks(window)
        hooks.install()
        smoke = _SmokeMonitor(window) if args.smoke else None
        _close_on_sigint(window)
        window.show()
        if quit_early:
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, window.close)
        rc = app.exec()
        # a one-shot computation (a layout, a training step) cannot be interrupted, and
        # tearing down the Qt objects it reports to printed "Signal source has been
        # deleted" tracebacks. It was waited for up to 10 s (a close with six trainings
        # took 11.7 s); now, if it is not done in half a second, the window is left as it
        # is and entry() leaves at once: settings are synced, a session being saved was
        # written to its end in closeEvent, an export's temporary file is removed
        from app.export import discard_unfinished
        from app.jobs import wait_for_workers

        if not wait_for_workers(0.5):
            discard_unfinished()
            window = None
        return smoke.rc if smoke else rc
    finally:
        # the Ctrl+C handler refers to the window: not once it is being deleted
        import signal

        signal.signal(signal.SIGINT, lambda *_: quit_early.append(True))
        if hooks:
            hooks.uninstall()
        if window is not None:
            _dispose(window)


# -- headless export -------------------------------------------------------------------------
def export_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="archscope export",
        description="Export a view as a figure (.png/.svg/.pdf) or its data (.csv/.npy/.json) "
                    "without a display.")
    parser.add_argument("view", nargs="?", help="a view name, see --list")
    parser.add_argument("--list", action="store_true", help="name every view and exit")
    parser.add_argument("--out", help="output file; the extension chooses the format")
    parser.add_argument("--lang", default="en", help="en or zh_CN")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--width", type=_png_width, default=None,
                      help="PNG width in pixels (16 to 20000)")
    size.add_argument("--scale", type=_png_scale, default=None,
                      help="PNG size as a multiple of the on-screen view (default 2)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda:N or mps")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a tab parameter, e.g. --set d_model=256 (repeatable)")
    parser.add_argument("--train", type=int, default=None, metavar="STEPS",
                        help="train the tab's model STEPS steps (epochs on the graph tab) "
                             "before exporting, as the Train button would")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of --train: torch's generators and the tab's own seed "
                             "option where it has one (default 0)")
    parser.add_argument("--session", default=None, metavar="FILE",
                        help="open this session file (.archscope) first: the view shows "
                             "its saved state; --set and --train apply on top of it")
    args = parser.parse_args(argv)
    if not args.list and (not args.view or not args.out):
        parser.error("give a VIEW and --out FILE, or --list")
    fmt = os.path.splitext(args.out or "")[1].lower().lstrip(".")
    if not args.list and fmt != "png" and (args.width is not None or args.scale is not None):
        parser.error(f"--width and --scale size a PNG; '{os.path.basename(args.out)}' is not "
                     "one (an SVG or PDF has the view's size on screen, data has no size)")
    if args.train is not None and args.train < 1:
        parser.error(f"--train needs a number of steps of at least 1, got {args.train}")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _quiet_platform_warnings()
    app = _application()
    from app import export
    from app.i18n import LANGUAGES, Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import figure

    window = None
    # the window's settings live in a folder of their own, removed after the window (on
    # every way out: it writes its settings as it goes, which would make the folder again)
    settings_dir = None
    try:
        settings_dir = tempfile.TemporaryDirectory(prefix="archscope-export-",
                                                   ignore_cleanup_errors=True)
        translations = Translations()
        if args.lang not in LANGUAGES:
            parser.error(f"--lang must be one of {', '.join(LANGUAGES)}")
        translations.set_language(args.lang)
        window = MainWindow(Settings(settings_dir.name), translations, start_loader=False)
        # the tab of the view, built alone (every tab, the pretrained model loaded,
        # only to list them: building all took most of a headless export's time)
        key = (args.view or "").split(".")[0]
        if args.list:
            wanted = window.tabs
        elif key in {spec.key for spec in window.specs}:
            wanted = [window.tab(key)]
        else:
            wanted = []                  # an unknown view: said below, nothing built
        names = {f"{t.key}.{v.key}": (t, v) for t in wanted for v in t.views}
        names.update({t.key: (t, None) for t in wanted})
        if args.list:
            for name, (_t, v) in names.items():
                print(f"{name:28s} {v.title() if v else 'the whole tab (figure only)'}")
            return 0
        if args.view not in names:
            parser.error(f"unknown view '{args.view}'; try --list")
        tab, view = names[args.view]
        if view is None and fmt not in figure.FORMATS:
            parser.error(f"the whole tab exports as a figure only: give --out a .png, "
                         f".svg or .pdf file, not '{os.path.basename(args.out)}'")
        state = {}
        for item in args.set:
            key, sep, value = item.partition("=")
            if not sep:
                parser.error(f"--set needs KEY=VALUE, got '{item}'")
            state[key.strip()] = value.strip()
        for key in ("learn", "train"):
            if key in state:
                parser.error(f"--set {key} is not available in a headless export")
        window._on_torch_ready(window.loader.load_here(), notify_tabs=False)
        window.set_device(args.device)
        if args.session:
            _open_session_headless(window, args.session, tab)
        window.tabs_widget.setCurrentWidget(tab)
        window.resize(1600, 1000)
        window.show()
        tab.apply_state(state, strict=True)
        if args.train is not None:
            _train_headless(tab, args.train, args.seed, tab_seed="seed" not in state,
                            view_key=view.key if view else "")
        tab.compute_now()
        for _ in range(3):
            app.processEvents()
        if fmt in figure.FORMATS:
            written = window.export_figure(tab, view.key if view else "", args.out,
                                           args.width, args.scale)
        elif fmt in export.DATA_FORMATS:
            written = window.export_data(tab, view.key, args.out)
        else:
            parser.error(_unknown_format(args.out, view.data() is not None))
        print(written)
        return 0
    except export.ExportError as exc:
        sys.stderr.write(f"archscope export: {exc}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - a CLI reports, it does not dump
        from app.errors import describe

        sys.stderr.write(f"archscope export: {describe(exc)}\n")
        return 1
    finally:
        try:
            _dispose_headless(window)
        finally:
            window = None
            if settings_dir is not None:
                settings_dir.cleanup()


def _open_session_headless(window, path: str, tab) -> None:
    """Open the session at ``path`` into ``window`` (errors raised, not shown in a
    dialog); the tab of the view to export must be in it."""
    from app import export
    from app.sessions import read

    doc = read(path, tuple(spec.key for spec in window.specs))
    if tab.key not in doc.tabs:
        raise export.ExportError(
            f"{os.path.basename(path)} holds the tab {', '.join(doc.tabs)}, not {tab.key}: "
            f"export a view of {' or '.join(doc.tabs)}, or save a session of the {tab.key} tab.")
    from app.sessions import apply

    apply(doc, {key: window.tab(key) for key in doc.tabs}, os.path.basename(path),
          window.device_name)


def _png_width(text: str) -> int:
    """``--width``: a whole number of pixels from 16 to 20000."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a whole number of pixels (16 to 20000)") from None
    if not 16 <= value <= 20000:
        raise argparse.ArgumentTypeError(
            f"{value} pixels is out of range: a PNG is 16 to 20000 pixels wide")
    return value


def _png_scale(text: str) -> float:
    """``--scale``: a finite multiple of the view's size, more than 0 (whether the PNG
    it makes is 16 to 20000 pixels wide is checked against the view)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a number (e.g. 2 for twice the view's size)") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text} is not a size: give a number above 0, e.g. 2 for twice the view's "
            "size on screen")
    return value


def _unknown_format(out: str, has_data: bool) -> str:
    """The message for an --out whose extension is no format of this view."""
    from app import export
    from viz import figure

    name = os.path.basename(out)
    figures = ", ".join("." + f for f in figure.FORMATS)
    datas = ", ".join("." + f for f in export.DATA_FORMATS)
    if has_data:
        return (f"cannot tell the format of '{name}' from its extension: use a figure "
                f"format ({figures}) or a data format ({datas})")
    return (f"cannot tell the format of '{name}' from its extension: use a figure format "
            f"({figures}); this view has no data yet for {datas}")


def _dispose_headless(window) -> None:
    """Stop the tabs' jobs and let one-shot computations (a trace started by a changed
    setting) end before the window goes: closing gives them 1.5 s, which a loaded
    machine can exceed, and a worker reporting to a deleted tab prints tracebacks."""
    if window is None:
        return
    from app.jobs import wait_for_workers

    for tab in window.built_tabs():
        tab.shutdown()
    wait_for_workers(120.0)
    _dispose(window)


#: Qt messages a headless export does not print: the offscreen platform plugin says this
#: whenever a window with a minimum size is shown; it is not about the figure.
QUIET_MESSAGES = ("This plugin does not support propagateSizeHints()",)


def _quiet_platform_warnings() -> None:
    """Drop :data:`QUIET_MESSAGES` from Qt's log; every other message is printed as Qt
    prints it (or handed to the handler installed before)."""
    from PySide6.QtCore import qFormatLogMessage, qInstallMessageHandler

    previous = None

    def handler(mode, context, message):
        if message in QUIET_MESSAGES:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(qFormatLogMessage(mode, context, message) + "\n")

    previous = qInstallMessageHandler(handler)


def _train_headless(tab, steps: int, seed: int, tab_seed: bool, view_key: str = "") -> None:
    """Train ``tab``'s model ``steps`` steps on this thread, seeded, as its Train button
    would (same job, same session), then let the tab draw the trained model.

    ``view_key``: the view exported; a study's view runs its own job
    (``TrainingTab.headless_job``). ``tab_seed``: also set the tab's own "seed" option to ``seed`` (when it has one and
    the command line did not set it with --set)."""
    from app import export
    from app.tabs.training import TrainingTab
    from models.devices import manual_seed

    if not isinstance(tab, TrainingTab):
        raise export.ExportError(f"The tab '{tab.key}' has no model to train; "
                                 "export it without --train.")
    if tab_seed and "seed" in tab.params():
        tab.apply_state({"seed": seed}, strict=True)
    import numpy as np

    from app.jobs import wait_for_workers

    # the tab's first trace may still be computing in a worker, drawing from the same
    # global generators: seeded only once it is done (two seeded runs differed from
    # their second step when it overlapped the training)
    wait_for_workers(120.0)
    np.random.seed(seed % 2**32)
    manual_seed(seed)
    name = tab.headless_job(view_key)
    make = tab.job_maker(name)
    if make is None:
        raise export.ExportError(f"The tab '{tab.key}' has nothing to train with these "
                                 "settings; export it without --train.")
    session = tab.current_session() if name == tab.train_job else None
    start = getattr(session, "step", 0) if session is not None else 0
    last = None
    tab.running_job = name
    jobs = make()
    delivered = None
    try:
        for progress in jobs:
            last = progress
            # as in the window, a report carrying a trace is never dropped (the graph
            # tab's training curves are made of them)
            if getattr(progress, "trace", None) is not None:
                tab.deliver_progress(name, progress)
                delivered = progress
            if getattr(progress, "step", start) - start >= steps:
                break
    finally:
        jobs.close()
        tab.running_job = ""
    if last is not None and last is not delivered:
        tab.deliver_progress(name, last)
    tab.on_job_stopped(name, True, False)
    tab.update_buttons()


def run(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "export":
        return export_main(argv[1:])
    if argv and argv[0] == "session":
        from app.session_cli import session_main

        return session_main(argv[1:])
    parser = argparse.ArgumentParser(prog="archscope", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true",
                        help="open the window, print start-up figures as JSON, exit")
    parser.add_argument("--lang", choices=["en", "zh_CN"], default=None)
    parser.add_argument("--device", default=None, help="cpu, cuda:N or mps")
    parser.add_argument("--settings-dir", default=None, help=argparse.SUPPRESS)
    return main(parser.parse_args(argv))


def entry() -> None:
    """The ``archscope`` command: ``run()``, then leave without interpreter teardown.

    By the time ``run()`` returns, the window is closed and deleted, settings are
    synced and every file written is closed. What is left is Python's finalisation of
    torch, scipy and PyG modules: 1.4 s of garbage collection on this machine, spent
    after the window has gone while the process still shows as running. Flushing the
    standard streams and ``os._exit`` skip it (and the PySide6 teardown crashes the
    module docstring mentions). ``run()`` itself still returns, for in-process callers.
    """
    rc = run()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(rc if isinstance(rc, int) else 1)
