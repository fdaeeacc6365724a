"""The Flows tab's "Export animation…": the samples' journey through the layers as an
animated GIF or WebP, or as numbered PNG frames, made in the background with progress
("frame 37 of 185") and Cancel while the window, the animation and training go on.

Frames are painted from a scene, which only the GUI thread may touch; encoding and
writing may run anywhere. So the work is split in two:

* on the GUI thread, ``FrameDrawer`` moves a copy of the flow view
  (``FlowView.copy_steps``: the view on screen keeps animating and training keeps
  updating it) to each position and paints it item by item
  (``figure.render_png_steps``), for at most ``SLICE_S`` per event-loop turn; a
  32-layer flow of 20,000 points froze the window for 101 s when each frame (about
  1 s of painting) was drawn in one go;
* in a worker (the tab's second ``JobRunner``), each finished ``QImage`` comes through a
  ``FrameFeed`` (at most ``FEED_SIZE`` frames wait: the drawing waits for the writer and
  memory stays bounded) to the writer: PNG frames under temporary names, renamed once
  all are written, or Pillow's GIF / WebP writer reading the frames as one multi-frame
  image while they arrive (``_FeedImage``): WebP encodes each frame as it comes, GIF
  keeps each as 256 colours (its writer needs them all before writing).

Cancel (or closing the window) stops the drawing and wakes the writer, which removes
what it wrote: no half file, and the file or frames of that name from before stay as
they were. The writer reports how it ended (``Outcome``), so the status line says what
happened rather than what was asked.
"""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QCoreApplication, QObject, Qt, QThreadPool, QTimer
from PySide6.QtGui import QImage

from app.export import ExportError, atomic_write
from app.jobs import Failure, JobRunner
from app.tabs.base import JobBar
from models import gcpause

translate = QCoreApplication.translate

#: the longest stretch of painting in one event-loop turn, in seconds
SLICE_S = 0.02
#: frames painted and not yet written, at most
FEED_SIZE = 2
#: how often a waiting writer looks whether the export was cancelled, in seconds
POLL_S = 0.05
PER_LAYER = 8
ANIMATION_WIDTH = 800
FRAMES_WIDTH = 1200
FPS = 12.0
ANIMATION_FORMATS = {".gif": "GIF", ".webp": "WEBP"}


class ExportCancelled(BaseException):  # noqa: N818 - a signal, as asyncio's CancelledError
    """The user cancelled the export (a BaseException, so that no ``except Exception``
    on the way, Pillow's or ``atomic_write``'s, mistakes it for a failure)."""


@dataclass(frozen=True)
class Outcome:
    """How an export ended: ``path`` the file or folder, ``frames`` written."""

    path: str
    frames: int
    cancelled: bool = False
    left: tuple[str, ...] = ()       # temporary files a cancel could not remove


class FrameFeed:
    """Frames handed from the GUI thread (``put``) to the writer (``get``), in order."""

    def __init__(self, total: int, size: int = FEED_SIZE) -> None:
        self.total = total
        self.taken = 0                          # frames the writer has taken
        self._queue: queue.Queue = queue.Queue(size)
        self._cancelled = threading.Event()
        self._error: Exception | None = None

    def room(self) -> bool:
        return not self._queue.full()

    def put(self, image: QImage) -> None:
        """A painted frame (only when there is ``room()``)."""
        self._queue.put_nowait(image)

    def fail(self, error: Exception) -> None:
        """The painting failed: the writer raises ``error`` after the frames before it."""
        self._error = error

    def get(self) -> QImage:
        """The next frame, waiting for it; raises ``ExportCancelled`` once cancelled and
        the painting's exception if it failed."""
        while True:
            self.check()
            try:
                image = self._queue.get(timeout=POLL_S)
            except queue.Empty:
                if self._error is not None:
                    raise self._error from None
                continue
            self.taken += 1
            return image

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        if self._cancelled.is_set():
            raise ExportCancelled


# -- the writer (a worker thread: no widgets, no scene) -----------------------------------------
def png_frames_job(feed: FrameFeed, folder: Path) -> Iterator[Outcome]:
    """Write ``flow_0000.png`` … in ``folder``: each under a temporary name first, all
    renamed once the last is written, so a cancel or a failure leaves the folder as it
    was."""
    staged: list[tuple[str, Path]] = []
    try:
        for i in range(feed.total):
            image = feed.get()
            final = folder / f"flow_{i:04d}.png"
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".part",
                                           dir=folder)
            except OSError as exc:
                raise ExportError(f"Cannot write to '{folder}': {exc.strerror or exc}.") from exc
            os.close(fd)
            staged.append((tmp, final))
            if not image.save(tmp, "PNG"):
                raise ExportError(f"Cannot write '{final}' (is the disk full?).")
        feed.check()
        mode = 0o666 & ~_umask()
        for k, (tmp, final) in enumerate(staged):
            try:
                os.chmod(tmp, mode)
                os.replace(tmp, final)
            except OSError as exc:
                raise ExportError(f"Cannot write '{final}': {exc.strerror or exc}; {k} of "
                                  f"{len(staged)} frames were written.") from exc
        staged = []
        yield Outcome(str(folder), feed.total)
    except ExportCancelled:
        yield Outcome(str(folder), 0, cancelled=True, left=_remove(t for t, _ in staged))
    except BaseException:
        _remove(t for t, _ in staged)
        raise


def animation_job(feed: FrameFeed, path: Path, fmt: str, fps: float) -> Iterator[Outcome]:
    """Write the frames as one animated ``fmt`` ("GIF" or "WEBP") file, atomically."""
    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:    # closed on a cancel too (Pillow closes on Exception)
            _FeedImage(feed).save(fh, format=fmt, save_all=True, loop=0,
                                  duration=round(1000 / fps))
        feed.check()                   # cancelled while Pillow wrote the last frames

    try:
        written = atomic_write(path, write)
    except ExportCancelled:            # atomic_write has removed its temporary file
        yield Outcome(str(path), 0, cancelled=True)
        return
    yield Outcome(str(written), feed.total)


class _FeedImage(Image.Image):
    """A ``FrameFeed`` as one multi-frame Pillow image: ``seek(i)`` takes frame i from
    the feed, waiting for it, so Pillow's GIF and WebP writers (which read multi-frame
    images frame by frame) encode the frames while they are painted, and no more than
    one RGB frame is held here."""

    def __init__(self, feed: FrameFeed) -> None:
        super().__init__()
        self._feed = feed
        self.n_frames = feed.total
        self.is_animated = feed.total > 1
        self._index = -1
        self.seek(0)

    def seek(self, frame: int) -> None:
        if frame >= self.n_frames:
            raise EOFError("no more frames")
        if frame <= self._index:       # the WebP writer goes back to the first at the end
            return
        rgb = _rgb(self._feed.get())
        self.im, self._mode, self._size = rgb.im, rgb.mode, rgb.size
        self._index = frame

    def tell(self) -> int:
        return max(self._index, 0)


def _rgb(image: QImage) -> Image.Image:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = bytes(image.constBits())
    return Image.frombuffer("RGB", (image.width(), image.height()), data, "raw", "RGB",
                            image.bytesPerLine(), 1).copy()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(paths) -> tuple[str, ...]:
    """Remove ``paths``; returns those that could not be removed."""
    left = []
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass
        except OSError:
            left.append(str(p))
    return tuple(left)


# -- the painter (GUI thread) -------------------------------------------------------------------
class FrameDrawer(QObject):
    """Paints the frames of ``source`` (the ``FlowView`` on screen) at ``positions`` into
    ``feed``, from an off-screen copy (``copy``, made anew if None: ``self.copy``), for at
    most ``SLICE_S`` per event-loop turn, waiting while the feed is full; ``note(t)`` is
    the caption under the panels at position t."""

    def __init__(self, source, copy, positions: list[float], note: Callable[[float], str],
                 width: int, feed: FrameFeed, parent: QObject | None = None) -> None:
        from viz.flow_view import FlowView

        super().__init__(parent)
        if copy is None:                # a window of its own, never on screen, gone with
            copy = FlowView(in_steps=True)                           # the tab
            copy.setParent(parent, Qt.WindowType.Window)
        self.copy, self.positions, self.note = copy, positions, note
        self.width, self.feed = width, feed
        self.drawn = 0
        # the source as it is now, copied in steps
        self._copying = source.copy_steps(copy, width / max(1, source.width()))
        self._steps: Iterator | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._work)

    def start(self) -> None:
        self._steps = self._frames()
        self._timer.start(0)

    def stop(self) -> None:
        self._timer.stop()
        if self._steps is not None:    # a frame half painted: its painter is ended
            self._steps.close()
            self._steps = None

    def is_active(self) -> bool:
        return self._timer.isActive()

    def _frames(self) -> Iterator[bool]:
        """The work in steps of a few milliseconds; True: wait for the writer."""
        from viz import figure

        yield from self._copying
        for t in self.positions:
            while not self.feed.room():
                yield True
            yield from self.copy.position_steps(t)
            self.copy.set_note(self.note(t))
            self.copy.scene().prepareForPaint()    # ranges and transforms brought up to date
            image = yield from figure.render_png_steps(self.copy, self.width,
                                                       vector_symbols=False)
            self.feed.put(image)
            self.drawn += 1

    def _work(self) -> None:
        end = time.perf_counter() + SLICE_S
        try:
            while time.perf_counter() < end:
                if next(self._steps):
                    self._timer.setInterval(5)     # the writer is behind: wait for it
                    return
                self._timer.setInterval(0)
        except StopIteration:
            self._steps = None
            self._timer.stop()
        except Exception as exc:  # noqa: BLE001 - the writer raises it: one report
            self.stop()
            self.feed.fail(exc)


class ExportBar(JobBar):
    """The export's line, bar and Cancel button, shown while an export runs. Cancel asks
    the export to end (``cancel``), which then says itself what it left."""

    def __init__(self, runner: JobRunner, cancel: Callable[[], None], parent=None) -> None:
        super().__init__(runner, parent)
        self.stop_button.clicked.disconnect()
        self.stop_button.clicked.connect(cancel)
        self.stop_button.setObjectName("CancelExportButton")
        self.setObjectName("ExportBar")

    def retranslate(self) -> None:
        self.stop_button.setText(translate("FlowsTab", "Cancel"))


@dataclass
class _Run:
    feed: FrameFeed
    drawer: FrameDrawer
    name: str                      # the file, or the folder of the frames
    frames: bool                   # PNG frames (not one animated file)
    outcome: Outcome | None = None


class FlowsExport:
    """Mixed into ``FlowsTab`` (which has ``flow_view``, ``frames_button``, ``ctx``,
    ``samples_view`` (its ``layer_note``) and the ``BaseTab`` layout); its strings are in the FlowsTab context.
    ``_build_export()`` is called once from the tab's constructor."""

    def _build_export(self) -> None:
        self.export_jobs = JobRunner(self)
        self.export_bar = ExportBar(self.export_jobs, self.cancel_export)
        self.export_bar.hide()
        # in the job bar's row: showing it moves no view (a relayout of the tab repaints
        # every view, ~0.3 s with 20,000 points)
        self.job_bar.layout().addWidget(self.export_bar, 1)
        self._export: _Run | None = None
        self._export_view = None          # the off-screen copy frames are painted from
        self._export_timer = QTimer(self)           # the bar follows the writer
        self._export_timer.setInterval(100)
        self._export_timer.timeout.connect(self._show_export_progress)
        self.export_jobs.progressed.connect(self._export_outcome)
        self.export_jobs.failed.connect(self._export_failed)
        self.export_jobs.stopped.connect(self._export_ended)

    def exporting(self) -> bool:
        return self._export is not None

    def export_frames(self, folder: str, per_layer: int = PER_LAYER,
                      width: int = FRAMES_WIDTH) -> None:
        """Start writing the animation as PNG frames ``flow_0000.png`` … in ``folder``
        (t = 0 … L, ``per_layer`` frames per layer)."""
        target = Path(folder).expanduser()
        if not target.is_dir():
            raise ExportError(f"'{target}' is not a folder.")
        self._start_export(target, per_layer, width, None, FPS)

    def export_animation(self, path: str, per_layer: int = PER_LAYER,
                         width: int = ANIMATION_WIDTH, fps: float = FPS) -> None:
        """Start writing the animation as one animated GIF or WebP file (by the
        extension), written atomically; Pillow encodes it (Qt writes neither format)."""
        target = Path(path).expanduser()
        fmt = ANIMATION_FORMATS.get(target.suffix.lower())
        if fmt is None:
            raise ExportError(f"'{target.name}': an animation is written as .gif or .webp.")
        if not target.parent.is_dir():
            raise ExportError(f"'{target.parent}' is not a folder.")
        self._start_export(target, per_layer, width, fmt, fps)

    def _start_export(self, target: Path, per_layer: int, width: int, fmt: str | None,
                      fps: float) -> None:
        view = self.flow_view
        if view.trace is None:
            raise ExportError("There is nothing to export yet: the flow has not been drawn.")
        if self._export is not None:
            raise ExportError("An export is running: cancel it or wait for it to end.")
        if not 16 <= width <= 20000 or per_layer < 1 or not fps > 0:
            raise ExportError(f"Cannot export {width} px wide, {per_layer} frames per layer "
                              f"at {fps} frames per second.")
        trace = view.trace
        positions = [i / per_layer for i in range(view.layers * per_layer + 1)]
        feed = FrameFeed(len(positions))
        drawer = FrameDrawer(view, self._export_view, positions,
                             lambda t: self.samples_view.layer_note(trace, t), width, feed, self)
        self._export = _Run(feed, drawer, target.name, fmt is None)
        # the writer brings its own thread: with training running in this or other tabs
        # the pool could be full, and the export would wait for a training to be stopped
        pool = QThreadPool.globalInstance()
        pool.setMaxThreadCount(pool.maxThreadCount() + 1)
        # automatic garbage collection paused: moving 20,000 points allocates enough to
        # start full collections of the whole app (six of up to 1.4 s in a 13-s export);
        # the export makes no cyclic garbage (none found after one), see _export_ended
        gcpause.hold()
        if fmt is None:
            self.export_jobs.start(lambda: png_frames_job(feed, target))
        else:
            self.export_jobs.start(lambda: animation_job(feed, target, fmt, fps))
        drawer.start()
        self.export_bar.show()
        self._export_timer.start()
        self._show_export_progress()
        self._update_export_button()

    def cancel_export(self) -> None:
        """Stop painting and tell the writer, which removes what it wrote and reports."""
        run = self._export
        if run is None or run.feed.cancelled:
            return
        run.drawer.stop()
        run.feed.cancel()
        self.export_bar.stop_button.setEnabled(False)
        self._show_export_progress()

    def _show_export_progress(self) -> None:
        run = self._export
        if run is None:
            return
        feed = run.feed
        if feed.cancelled:
            text = translate("FlowsTab", "Cancelling the export…")
        elif feed.taken >= feed.total:
            text = translate("FlowsTab", "Writing {0}…").format(run.name)
        elif run.frames:
            text = translate("FlowsTab", "Exporting PNG frames to {0}: frame {1} of {2}").format(
                run.name, feed.taken + 1, feed.total)
        else:
            text = translate("FlowsTab", "Exporting {0}: frame {1} of {2}").format(
                run.name, feed.taken + 1, feed.total)
        self.export_bar.show_progress(feed.taken / max(1, feed.total), text)

    def _export_outcome(self, outcome: Outcome) -> None:
        if self._export is not None:
            self._export.outcome = outcome

    def _export_failed(self, failure: Failure) -> None:
        if self._export is not None:
            self._export.drawer.stop()
            self._export.feed.cancel()
        self.ctx.report_error(failure.error, failure.details)

    def _export_ended(self, completed: bool) -> None:
        run, self._export = self._export, None
        if run is None:
            return
        run.drawer.stop()
        run.drawer.deleteLater()
        self._export_view = copy = run.drawer.copy    # kept: the next export starts faster
        if copy is not None:
            copy.hide()
            for items in copy.scatters:               # its points go (a big trace's too)
                for item in items:
                    item.clear()
        self._export_timer.stop()
        pool = QThreadPool.globalInstance()
        pool.setMaxThreadCount(max(1, pool.maxThreadCount() - 1))
        # here on the GUI thread (cheap: the young), unless an ODE step runs meanwhile
        gcpause.collect(0, holders=2)          # this export's hold and the window's
        gcpause.release()
        self.export_bar.hide()
        self._update_export_button()
        outcome = run.outcome
        if outcome is None:               # failed (reported) or stopped at shutdown
            return
        if not outcome.cancelled:
            self.ctx.settings.set_last_dir("export", outcome.path)
            self.ctx.status(translate("FlowsTab", "Wrote {0} frames to {1}.").format(
                outcome.frames, outcome.path))
            return
        text = (translate("FlowsTab", "Export cancelled: no frames were written to {0}; "
                          "frames there from before are unchanged.") if run.frames else
                translate("FlowsTab", "Export cancelled: {0} was not written; a file of "
                          "that name from before is unchanged.")).format(outcome.path)
        if outcome.left:
            text += " " + translate("FlowsTab", "These temporary files could not be "
                                    "removed: {0}").format(", ".join(outcome.left))
        self.ctx.status(text)

    def retranslate_export(self) -> None:
        self.export_bar.retranslate()
        self._update_export_button()
        self._show_export_progress()

    def _update_export_button(self) -> None:
        busy = self._export is not None
        self.frames_button.setEnabled(not busy)
        self.frames_button.setToolTip(
            translate("FlowsTab", "An export is running: cancel it in the bar below or wait "
                      "for it to end") if busy else
            translate("FlowsTab", "The animation as an animated GIF or WebP, or as numbered "
                      "PNG frames; 8 frames per layer"))

    def export_frames_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, chosen = QFileDialog.getSaveFileName(
            self, translate("FlowsTab", "Export the animation"),
            f"{self.ctx.settings.last_dir('export')}/flow.gif",
            translate("FlowsTab", "Animated GIF (*.gif);;Animated WebP (*.webp);;"
                      "PNG frames, numbered, in this folder (*.png)"))
        if not path:
            return
        try:
            if path.lower().endswith(".png") or "*.png" in chosen:
                self.export_frames(str(Path(path).parent))
            else:
                self.export_animation(path)
        except Exception as exc:  # noqa: BLE001 - ExportError / OSError: shown to the user
            self.ctx.report_error(exc, None)

    def shutdown(self) -> None:
        """Closing the window mid-export: the writer removes what it wrote and ends."""
        if self._export is not None:
            self.cancel_export()
            with contextlib.suppress(RuntimeError):
                self.export_jobs.stop()      # its last report goes nowhere
        super().shutdown()
