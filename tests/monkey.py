"""A seeded monkey for the whole window (issue 19): random actions as a clumsy or hostile
user makes them, and what counts as a failure.

    .venv/bin/python -m tests.monkey --seed 7 --actions 300 --log /tmp/monkey.log

Actions (``tests.monkey_actions``): tab switches; clicks on every visible, enabled button
and check box; combo choices; spin boxes set to their ends or typed beyond them (huge,
negative, ``nan``, words); sliders to their ends; text typed into line edits; clicks,
right clicks, double clicks, drags and wheel turns on the views; Train / Stop; File → Open
answered from a corpus of good and hostile files (``tests.monkey_corpus``); Export
figure (any view, any size in the dialog's range, odd extensions) and Export data;
File → Save session and Save all tabs, and Open session answered with the sessions
saved in the run or hostile ones (``tests/data/hostile_sessions.py``);
language and device switches (to devices this machine lacks too); pauses that let the
background jobs run.

A failure (``Watch``): an uncaught exception (``sys.excepthook`` /
``threading.excepthook``, installed by the app's ``ExceptHooks``), an error dialog that
shows an error ArchScope did not expect (a raw exception, not an ``ArchScopeError`` or
an operating-system refusal) or an unclear message (a traceback, PyTorch's
``weights_only`` hint, nothing after a colon), an exception out of an action itself, or
an event-loop stall of the GUI thread's own over the limit: 2 s
(``ARCHSCOPE_MONKEY_STALL_MS``), times the machine's load per core when that is over 1
(``load_factor``: on this shared two-core machine other processes hold the CPUs, and a
worker thread descheduled while it holds the GIL blocks the GUI thread until it runs
again; the benchmark prints the real figures). A crash ends
the process: run it in a subprocess (``tests/test_monkey.py``) and the seed and the last
actions of the log (written and flushed before each action) are printed. Dialogs are
answered as they appear (an error box's OK, any other dialog's Cancel, menus closed), in
nested event loops too, so nothing waits for a person.

Every line of the log is ``index<TAB>action<TAB>detail``; the process prints a JSON line
per ``--rss-every`` actions (``{"action": n, "rss_mb": ...}``) and a final summary line
(``{"summary": ...}``); it exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: a stall of the event loop over this fails a run
STALL_LIMIT_MS = float(os.environ.get("ARCHSCOPE_MONKEY_STALL_MS", "2000"))
#: words in a message that a user should never be shown
#: in a message, a failure: a traceback, PyTorch's own words, or its hint to load with
#: ``weights_only=False`` (which would run the file's code); the app's own conversion
#: command (``torch.load(path, weights_only=True)``, safe) is a clear message
UNCLEAR = ("Traceback (most recent call last)", "weights_only=False", "pickle.UnpicklingError",
           "WeightsUnpickler", "Weights only load failed")


@dataclass
class Problem:
    action: int          # the index of the action during (or right after) which it happened
    kind: str            # "uncaught", "raw error", "unclear message", "action raised", "stall"
    text: str


@dataclass
class Summary:
    seed: int
    actions: int = 0
    seconds: float = 0.0
    problems: list[Problem] = field(default_factory=list)
    longest_stall_ms: float = 0.0          # the GUI thread's own part (see Watch.on_gap)
    longest_stall_action: str = ""
    longest_wall_stall_ms: float = 0.0     # with the wait for a CPU on a busy machine
    stall_limit_ms: float = 0.0            # the limit this run used (see load_factor)
    messages: int = 0              # error dialogs with an expected, clear message
    rss_mb: list[tuple[int, float]] = field(default_factory=list)
    # what the window keeps, at the start and once the run is over: every job stopped,
    # garbage collected and free pages handed back (``settled_rss_mb``); the samples
    # above include whatever a running training was using and glibc had not returned yet
    settled_mb: list[tuple[int, float]] = field(default_factory=list)
    peak_rss_mb: float = 0.0               # the process's largest resident size
    memory_cap_mb: float = 0.0             # RLIMIT_DATA while it ran (0: none)
    counts: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        return json.dumps({"summary": asdict(self)}, ensure_ascii=False)


def crash_report(err: str, limit: int = 8000) -> str:
    """The part of stderr a crash left: faulthandler's dump from "Fatal Python error"
    (the crashing thread first), or the tail."""
    at = err.find("Fatal Python error")
    return err[at:at + limit] if at >= 0 else err[-limit // 2:]


def load_factor() -> float:
    """The one-minute load average per core, at least 1 (1 where unknown)."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (OSError, AttributeError):
        return 1.0


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cap_memory(gib: float) -> float:
    """Limit this process's data (heap and private mappings: RLIMIT_DATA) to ``gib``
    GiB, so that a file that makes the app allocate without bound ends the run with a
    MemoryError, counted as a failure, instead of swapping the machine; returns the
    cap in MB (0 where the limit cannot be set)."""
    import resource

    limit = int(gib * 2**30)
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError, AttributeError):
        return 0.0
    return limit / 2**20


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def settled_rss_mb(window, quiet_s: float = 3.0) -> float:
    """The resident size once nothing runs: every tab's job stopped, its computation
    ended, the events of ``quiet_s`` handled, garbage collected and the free pages of
    every malloc arena handed back (``app.memory.release``, what the window's releaser
    does a few seconds after work ends)."""
    import gc

    from PySide6.QtCore import QThreadPool

    from app.memory import release
    from tests.windows import wait_for

    for tab in window.built_tabs():
        tab.jobs.stop()
        tab.loads.stop()                 # a file being read
        if hasattr(tab, "cancel_export"):
            tab.cancel_export()          # the flows tab's animation export
    window.cancel_png_export()           # and an export (a PNG, data, an SVG)
    pool = QThreadPool.globalInstance()
    with contextlib.suppress(TimeoutError):   # a worker between two checks of its stop
        wait_for(lambda: pool.activeThreadCount() == 0 and not any(
            t.jobs.is_running() or t.compute.is_busy() for t in window.built_tabs()),
            60, "the jobs to stop")
    end = time.monotonic() + quiet_s
    wait_for(lambda: time.monotonic() > end, quiet_s + 5, "a quiet moment")
    gc.collect()
    release()
    return rss_mb()


class StackWatch:
    """The stack of thread ``thread_id`` once ``arm`` has not been called for ``after_s``
    seconds, taken by a Python thread with ``sys._current_frames()``: it holds the GIL,
    so it never reads a frame that is being changed. (faulthandler's watchdog read every
    thread's frames without it, and now and then crashed the monkey: SIGSEGV in
    ``_Py_DumpTracebackThreads``, seen twice in 2,000-action runs.)"""

    def __init__(self, thread_id: int, after_s: float) -> None:
        self.thread_id, self.after_s = thread_id, after_s
        self.stack = ""
        self._armed = time.monotonic()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="monkey-stack", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join(timeout=1.0)

    def arm(self) -> None:
        with self._lock:
            self._armed, self.stack = time.monotonic(), ""

    def _watch(self) -> None:
        import traceback

        root = str(ROOT) + "/"
        while not self._done.wait(0.02):
            with self._lock:
                if self.stack or time.monotonic() - self._armed < self.after_s:
                    continue
                frame = sys._current_frames().get(self.thread_id)  # noqa: SLF001
                if frame is None:
                    continue
                frames = traceback.extract_stack(frame)[::-1][:12]
                self.stack = "\n".join(
                    f'  File "{f.filename.replace(root, "")}", line {f.lineno} in {f.name}'
                    for f in frames)


class Watch:
    """Records the failures of a run (see the module docstring) and answers dialogs.

    ``install`` after the window exists: it installs the app's ``ExceptHooks`` (as
    ``archscope`` does) and wraps them, wraps ``app.errors.describe`` (every error
    dialog's sentence comes from it) and starts the heartbeat; ``uninstall`` undoes it."""

    def __init__(self, window, stall_limit_ms: float = STALL_LIMIT_MS) -> None:
        from tests.heartbeat import Heartbeat

        self.window = window
        self.stall_limit_ms = stall_limit_ms
        self.problems: list[Problem] = []
        self.messages: list[str] = []          # clear, expected messages shown
        self.answered: list[str] = []          # every dialog answered, in order
        self._uncaught: list[BaseException] = []
        self.action = -1                       # the action in progress or last done
        self.action_text = ""
        self.longest = (0.0, "")              # (own ms, the action): the verdict's figure
        self.longest_wall = 0.0
        self._cpu = time.thread_time() * 1000.0

        watch = self

        class Beat(Heartbeat):
            def _tick(inner) -> None:   # noqa: N805
                super()._tick()
                watch.on_gap(inner.gaps_ms[-1], inner.own_gaps_ms[-1])
                if len(inner.gaps_ms) > 10_000:
                    del inner.gaps_ms[:5_000], inner.own_gaps_ms[:5_000]

        self.beat = Beat(interval_ms=10, limit_ms=stall_limit_ms)
        self._answer_timer = None
        self._saved: tuple = ()
        self.note = lambda text: None          # the monkey's log
        # a stall's cause: the GUI thread's stack, taken if the event loop has not ticked
        # for half the limit; re-armed every 20 beats
        self._stack = StackWatch(threading.get_ident(), stall_limit_ms / 2000.0)
        self._beats = 0

    def on_gap(self, gap: float, own: float) -> None:
        """A heartbeat: ``gap`` ms since the last one (beyond the interval), ``own`` of it
        the GUI thread's own (``tests.heartbeat``: the gap less its wait for a CPU; on a
        machine shared with other work two thirds of the wall time can be that wait,
        while a freeze of the app's own, computing or blocked, stays whole). The verdict
        is on ``own``."""
        cpu = time.thread_time() * 1000.0
        computing, self._cpu = cpu - self._cpu, cpu
        self.longest_wall = max(self.longest_wall, gap)
        if own > self.longest[0]:
            self.longest = (own, f"{self.action}: {self.action_text}")
        if own > self.stall_limit_ms:
            self.add("stall", f"the event loop stalled {gap:.0f} ms, {own:.0f} ms of it the "
                              f"GUI thread's own ({computing:.0f} ms computing, the rest "
                              f"blocked: GIL, locks, files; limit {self.stall_limit_ms:.0f}); "
                              f"half-way it was in:\n{self.gui_stack()}")
            self.note(f"  stall of {gap:.0f} ms ({own:.0f} ms own)")
        self._beats += 1
        if gap > self.stall_limit_ms / 2 or self._beats % 20 == 0:
            self._arm()

    def _arm(self) -> None:
        self._stack.arm()

    def gui_stack(self) -> str:
        """The GUI thread's stack as the watch took it (innermost first)."""
        return self._stack.stack or "  (no stack taken)"

    def add(self, kind: str, text: str) -> None:
        self.problems.append(Problem(self.action, kind, text))

    # -- hooks ---------------------------------------------------------------------------------------
    def install(self) -> None:
        import traceback

        from PySide6.QtCore import QTimer

        import app.errors as errors

        self.hooks = errors.ExceptHooks(self.window)
        self.hooks.install()
        app_hook, app_thread_hook = sys.excepthook, threading.excepthook

        def hook(exc_type, exc, tb):
            if not issubclass(exc_type, KeyboardInterrupt):
                self.add("uncaught", "".join(traceback.format_exception(exc_type, exc, tb)))
                self._uncaught.append(exc)     # its dialog is not judged a second time
            app_hook(exc_type, exc, tb)

        def thread_hook(args):
            self.add("uncaught", "in a thread: " + "".join(traceback.format_exception(
                args.exc_type, args.exc_value, args.exc_traceback)))
            self._uncaught.append(args.exc_value)
            app_thread_hook(args)

        sys.excepthook, threading.excepthook = hook, thread_hook
        describe = errors.describe

        def watched_describe(error: BaseException) -> str:
            text = describe(error)
            if not any(error is e for e in self._uncaught):
                self.judge(error, text)
            return text

        self._saved = (errors, describe)
        errors.describe = watched_describe
        self.beat.__enter__()
        self._cpu = time.thread_time() * 1000.0
        self._stack.start()
        self._arm()
        # dialogs opened with exec() run a nested event loop: a timer answers them there
        self._answer_timer = QTimer()
        self._answer_timer.setInterval(150)
        self._answer_timer.timeout.connect(self.answer_dialogs)
        self._answer_timer.start()

    def uninstall(self) -> None:
        self._stack.stop()
        self.beat.__exit__()
        if self._answer_timer is not None:
            self._answer_timer.stop()
        if self._saved:
            errors, describe = self._saved
            errors.describe = describe
        self.hooks.uninstall()

    def judge(self, error: BaseException, text: str) -> None:
        """An error dialog's sentence: expected and clear, or a failure."""
        from models.errors import ArchScopeError

        expected = isinstance(error, ArchScopeError) or (
            isinstance(error, OSError) and bool(error.strerror))
        if not expected:
            self.add("raw error", f"{type(error).__name__}: {error} (shown as: {text})")
        elif not text.strip() or text.rstrip().endswith(":") or any(w in text for w in UNCLEAR):
            self.add("unclear message", text)
        else:
            self.messages.append(text)

    # -- dialogs ------------------------------------------------------------------------------------
    def answer_dialogs(self) -> list[str]:
        """Close what a person would have to answer: error and other message boxes (OK),
        other dialogs (Cancel), open menus. Returns what was answered, for the log."""
        from PySide6.QtWidgets import QApplication, QDialog, QMenu, QMessageBox

        answered = []
        popup = QApplication.activePopupWidget()
        while popup is not None:
            answered.append(f"menu {type(popup).__name__}")
            popup.close()
            nxt = QApplication.activePopupWidget()
            if nxt is popup:
                break
            popup = nxt
        for w in QApplication.topLevelWidgets():
            if not w.isVisible():
                continue
            if isinstance(w, QMessageBox):
                answered.append(f"{w.objectName() or 'message'}: {w.text()[:160]}")
                ok = w.button(QMessageBox.StandardButton.Ok)
                (ok.click if ok is not None else w.reject)()
            elif isinstance(w, QDialog):
                answered.append(f"dialog {w.objectName() or type(w).__name__}: Cancel")
                w.reject()
            elif isinstance(w, QMenu):
                w.close()
        for text in answered:
            self.note(f"  answered {text}")
        self.answered += answered
        return answered

    def longest_stall(self) -> tuple[float, str]:
        return self.longest


def open_window(settings_dir: str, timeout_s: float = 180.0):
    """The main window as ``archscope`` opens it, shown, with torch loaded and every
    tab's first trace drawn."""
    from PySide6.QtCore import QCoreApplication

    from app.i18n import Translations
    from app.main import _application
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from tests.monkey_actions import run_events

    _application("archscope-monkey")
    window = MainWindow(Settings(settings_dir), Translations())
    window.resize(1500, 940)
    window.show()
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and not (
            window.torch_is_ready
            and all(getattr(t, "trace", None) is not None for t in window.tabs)):
        run_events(50)
    if not window.torch_is_ready:
        raise RuntimeError(f"torch was not ready after {timeout_s:.0f} s")
    QCoreApplication.processEvents()
    return window


def close_window(window, timeout_s: float = 10.0) -> tuple[float, str]:
    """Close and delete the window as ``archscope`` does: (the seconds it took, where
    the other threads were when the workers had not finished in ``timeout_s``)."""
    from app.jobs import wait_for_workers
    from app.main import _dispose

    t0 = time.perf_counter()
    window.close()
    stuck = "" if wait_for_workers(timeout_s) else other_threads()
    _dispose(window)
    return time.perf_counter() - t0, stuck


def other_threads(frames: int = 6) -> str:
    """The last ``frames`` frames of every thread but this one (a worker that did not
    stop: the closing took 11.5 s once, with nothing to say which job it was)."""
    import sys
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    out = []
    for ident, frame in sys._current_frames().items():
        if ident != threading.get_ident():
            stack = "".join(traceback.format_stack(frame)[-frames:])
            out.append(f"thread {names.get(ident, ident)}:\n{stack}")
    return "\n".join(out)


def run(seed: int, actions: int, log_path: str | None = None, rss_every: int = 0,
        large: bool = True, stall_limit_ms: float = STALL_LIMIT_MS,
        abort_at: int | None = None, echo=print, big: bool = False) -> Summary:
    """Open the window, run ``actions`` random actions, close it; the summary."""
    import app  # noqa: F401 - the shell's own set-up before the corpus imports torch
    from tests.monkey_actions import Monkey
    from tests.monkey_corpus import FileDialogs, build_corpus

    with tempfile.TemporaryDirectory(prefix="archscope-monkey-") as tmp:
        corpus = build_corpus(Path(tmp) / "corpus", large=large, big=big)
        log = open(log_path, "w", encoding="utf-8") if log_path else None  # noqa: SIM115
        window = open_window(str(Path(tmp) / "settings"))
        stall_limit_ms *= load_factor()
        watch = Watch(window, stall_limit_ms)
        monkey = Monkey(window, watch, seed, Path(tmp) / "out", log=log)
        summary = Summary(seed=seed, stall_limit_ms=round(stall_limit_ms))
        t0 = time.perf_counter()
        try:
            with FileDialogs(monkey.rng, corpus, Path(tmp) / "out", monkey.note):
                # not watched: collecting and trimming hold the GUI thread on purpose
                summary.settled_mb.append((0, round(settled_rss_mb(window), 1)))
                watch.install()
                try:
                    summary.rss_mb.append((0, round(rss_mb(), 1)))
                    if rss_every:
                        echo(json.dumps({"action": 0, "rss_mb": summary.rss_mb[-1][1]}))
                    for i in range(actions):
                        if abort_at is not None and i == abort_at:
                            os.abort()              # the crash reporting's own test
                        monkey.step(i)
                        if rss_every and (i + 1) % rss_every == 0:
                            summary.rss_mb.append((i + 1, round(rss_mb(), 1)))
                            echo(json.dumps({"action": i + 1, "rss_mb": summary.rss_mb[-1][1],
                                             "longest_stall_ms": round(watch.longest[0])}))
                    monkey.settle()
                finally:
                    watch.uninstall()
            summary.rss_mb.append((actions, round(rss_mb(), 1)))
            summary.settled_mb.append((actions, round(settled_rss_mb(window), 1)))
            watch.action, watch.action_text = actions, "closing the window"
            took, stuck = close_window(window)
            if took > 5.0:
                watch.add("close", f"closing the window took {took:.1f} s"
                          + (f"; still running:\n{stuck}" if stuck else ""))
        finally:
            if log:
                log.close()
        summary.actions = actions
        summary.seconds = round(time.perf_counter() - t0, 1)
        summary.peak_rss_mb = round(peak_rss_mb(), 1)
        summary.problems = watch.problems
        summary.longest_stall_ms = round(watch.longest[0], 1)
        summary.longest_stall_action = watch.longest[1]
        summary.longest_wall_stall_ms = round(watch.longest_wall, 1)
        summary.messages = len(watch.messages)
        summary.counts = dict(sorted(monkey.counts.items()))
        return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--log", default=None, help="the action log (default: stderr only)")
    parser.add_argument("--rss-every", type=int, default=0, metavar="N",
                        help="print the resident memory every N actions")
    parser.add_argument("--small", action="store_true",
                        help="leave the zip bombs out of the corpus")
    parser.add_argument("--big", action="store_true",
                        help="put the large text files in the corpus (3M edges, 300k-node "
                             "GraphML, 1M points: 80 MB)")
    parser.add_argument("--stall-ms", type=float, default=STALL_LIMIT_MS)
    parser.add_argument("--memory-cap-gb", type=float, default=0.0,
                        help="limit the process's data to this many GiB (RLIMIT_DATA)")
    parser.add_argument("--abort-at", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cap_mb = cap_memory(args.memory_cap_gb) if args.memory_cap_gb > 0 else 0.0
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    faulthandler.enable()
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    print(json.dumps({"seed": seed}), flush=True)
    summary = run(seed, args.actions, args.log, args.rss_every, large=not args.small,
                  stall_limit_ms=args.stall_ms, abort_at=args.abort_at,
                  echo=lambda s: print(s, flush=True), big=args.big)
    summary.memory_cap_mb = round(cap_mb)
    print(summary.line(), flush=True)
    for p in summary.problems:
        sys.stderr.write(f"\nmonkey seed {seed}, action {p.action}: {p.kind}\n{p.text}\n")
    return 1 if summary.problems else 0


if __name__ == "__main__":
    rc = main()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(rc)      # no interpreter teardown (see app.main.entry)
