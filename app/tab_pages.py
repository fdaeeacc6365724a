"""The main window's tabs, each built the first time it is wanted.

Building a tab (its controls, its views, the imports behind them) costs 0.2-0.6 s, and
its first trace more; building all seven before the window showed made the first paint
5.8 times a bare window's and held 300 MB nobody had asked for. So the window starts
with a light placeholder page per tab and builds only the tab in front; another tab is
built when it is first shown (or first asked for). Building one cannot be cut into
slices under the 100 ms the event loop may stall, so tabs are not built in idle time.
What can leave the GUI thread does: the packages a tab names (``TabSpec.preload``: PyG,
networkx, scipy, tokenizers...) are imported in a thread when the user opens it, before
it is built.

``window.tabs`` keeps its meaning for callers outside the window (tests, the headless
export, a session of all tabs): every tab of the list, as real ``BaseTab`` objects,
building those not built yet. The window itself goes through ``built_tabs()`` (language,
device, torch ready, closing) and ``tab(key)`` / ``tab_at(i)`` (one tab), so a tab
nobody opened costs nothing; a tab built later takes what its siblings were told
before it existed: the language (``retranslate``), PyTorch ready, the tour panel's
visibility; it reads the device, its saved settings and its tour when it is built.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.jobs import ComputeRunner
from app.tabs.base import BaseTab, TabContext
from app.tabs.catalog import TabSpec
from app.torch_loader import ModuleImports

TAB_CONTEXT = "Tabs"  # tab titles are marked with QT_TRANSLATE_NOOP("Tabs", ...)


class Placeholder(QWidget):
    """The page of a tab not built yet: one line saying it is being prepared."""

    def __init__(self, spec: TabSpec) -> None:
        super().__init__()
        self.spec = spec
        self.setObjectName(f"Placeholder-{spec.key}")
        self.label = QLabel(self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(self.label)
        self.retranslate()

    def retranslate(self) -> None:
        self.label.setText(QCoreApplication.translate("MainWindow", "Preparing “{0}”…").format(
            QCoreApplication.translate(TAB_CONTEXT, self.spec.title)))


class TabPages:
    """Mixed into ``MainWindow`` (which has ``tabs_widget``, ``settings``, ``act_tour``,
    ``releaser``, ``torch_is_ready`` and ``report_settings_problems``)."""

    def _init_tab_pages(self, specs: list[TabSpec], ctx: TabContext) -> None:
        self.specs = specs
        self._tab_ctx = ctx
        self._built: list[BaseTab | None] = [None] * len(specs)
        self._notify_tabs = True          # a tab built after torch: compute its first trace
        self._closing = False             # set by the window's closeEvent
        # a tab the user opens is built once the packages it names are imported, in a
        # thread (its placeholder shows meanwhile): importing PyG, networkx and scipy on
        # the GUI thread held it 1.3-2 s on a first visit to the graph tab. A tab asked
        # for by code (``tab``, ``tabs``) is built at once, importing what it needs.
        self._imports = ModuleImports(self.tabs_widget)
        self._imports.done.connect(self._imported)
        for spec in specs:
            self.tabs_widget.addTab(Placeholder(spec), "")
        # built once the click has been answered (the placeholder shows meanwhile), and
        # only if the user is still on that tab: flicking through the tabs builds none
        self.tabs_widget.currentChanged.connect(
            lambda i: QTimer.singleShot(0, self, lambda: self._build_if_current(i)))
        # a built tab in another language than the window's catches up before it paints
        self.tabs_widget.currentChanged.connect(self._translate_if_built)

    # -- asking for tabs ----------------------------------------------------------------
    @property
    def tabs(self) -> list[BaseTab]:
        """Every tab of the list, in order, building those not built yet (seconds for
        all of them; the window itself uses ``built_tabs`` and ``tab``)."""
        return [self.tab_at(i) for i in range(len(self.specs))]

    def built_tabs(self) -> list[BaseTab]:
        """The tabs built so far, in order."""
        return [t for t in self._built if t is not None]

    def built_tab(self, key: str) -> BaseTab | None:
        """The tab ``key`` if it has been built, else None (nothing is built)."""
        return next((t for t in self._built if t is not None and t.key == key), None)

    def tab(self, key: str) -> BaseTab:
        """The tab ``key``, built now if it was not yet; KeyError if there is none."""
        for i, spec in enumerate(self.specs):
            if spec.key == key:
                return self.tab_at(i)
        raise KeyError(key)

    def tab_at(self, index: int) -> BaseTab:
        tab = self._built[index]
        if tab is None:
            return self._build(index)
        self._translate(tab)
        return tab

    def show_tab(self, key: str) -> BaseTab:
        """Bring the tab ``key`` to the front (built first if need be)."""
        tab = self.tab(key)
        self.tabs_widget.setCurrentWidget(tab)
        return tab

    def current_tab(self) -> BaseTab:
        return self.tab_at(self.tabs_widget.currentIndex())

    def current_built_tab(self) -> BaseTab | None:
        i = self.tabs_widget.currentIndex()
        return self._built[i] if 0 <= i < len(self._built) else None

    # -- building ------------------------------------------------------------------------
    def _build_if_current(self, index: int) -> None:
        if index != self.tabs_widget.currentIndex() or not 0 <= index < len(self._built):
            return
        # its packages are imported first, once PyTorch is (they import it: a second
        # thread importing torch while the loader does is a race torch does not survive);
        # a tab opened before is built at once, as its controls need no torch
        if self._built[index] is not None:
            self._translate(self._built[index])
            return
        if self.torch_is_ready and self._imports.start(index, self.specs[index].preload):
            return                         # built when its packages are in (``_imported``)
        self._build(index, first_trace_later=True)

    def _imported(self, index: int) -> None:
        """A tab's packages are imported: built now if it is still the one in front (and
        the window still open: a closed window starts nothing)."""
        if not self._closing:
            self._build_if_current(index)

    def _build(self, index: int, first_trace_later: bool = False) -> BaseTab:
        """Build the tab at ``index``. ``first_trace_later`` (a tab the user opened): it
        is told PyTorch is ready, and so starts its first computation, a turn of the event
        loop later, so it paints once before that. Otherwise building it, drawing its
        first trace and painting both ran as one stall: 0.4-0.8 s on a first visit."""
        spec = self.specs[index]
        tab = spec.make(self._tab_ctx)
        tab.restore_state()      # the parameters it had when the window last closed
        self._built[index] = tab
        tab.file_opened.connect(lambda path: self.settings.set_last_dir("open", path))
        # what the work freed goes back: after a job, and after every computation (the
        # tab's own and its other runners', such as the meta tab's evaluation of 600
        # tasks, whose freed memory stayed until the half-minute backstop)
        signals = [tab.jobs.stopped, tab.memory_freed]
        for runner in tab.findChildren(ComputeRunner):
            signals += [runner.done, runner.failed]
        for signal in signals:
            signal.connect(self.releaser.poke)
        tab.tour.setVisible(self.act_tour.isChecked())
        # the tab takes the placeholder's place; the tab in front stays in front
        widgets = self.tabs_widget
        placeholder, front = widgets.widget(index), widgets.currentIndex()
        widgets.blockSignals(True)
        try:
            widgets.removeTab(index)
            widgets.insertTab(index, tab, translate_title(spec))
            widgets.setCurrentIndex(front)
        finally:
            widgets.blockSignals(False)
        placeholder.deleteLater()
        self._translate(tab, hold=False)   # in the window's language, as its siblings
        #                                    (and painted before its first computation)
        if self.torch_is_ready:
            if not self._notify_tabs:
                tab.torch_ready = True
            elif first_trace_later:
                # a timer, not a zero one: that is a posted event, run in the same pass
                # as the paint, with no input or timer between
                QTimer.singleShot(1, tab, lambda: self._tell_torch_ready(tab))
            else:
                tab.on_torch_ready()
        self.report_settings_problems()    # its saved settings, checked as it was built
        self._tab_built(tab)
        return tab

    def _tell_torch_ready(self, tab: BaseTab) -> None:
        if not tab.torch_ready and not self._closing:
            tab.on_torch_ready()

    def _tab_built(self, tab: BaseTab) -> None:
        """Hook for the window (the Open action follows the tab in front)."""

    # -- language ------------------------------------------------------------------------
    def _retranslate_pages(self) -> None:
        """The tab titles, the placeholders and the tab in front now; every other built
        tab when it is next shown or asked for (``tab``, ``tab_at``, ``tabs``).
        Retranslating all nine tabs took 0.4-0.6 s, and laying out and repainting their
        views as much again, for tabs nobody was looking at."""
        for i, spec in enumerate(self.specs):
            self.tabs_widget.setTabText(i, translate_title(spec))
            if self._built[i] is None:
                self.tabs_widget.widget(i).retranslate()
        front = self.current_built_tab()
        for tab in self.built_tabs():
            # a tab behind may write texts meanwhile (a job ending) in the language of
            # that moment: after any switch it catches up when shown, whatever its stamp
            if tab is not front:
                tab._pages_language = None
        if front is not None:
            self._translate(front)

    def _translate(self, tab: BaseTab, hold: bool = True) -> None:
        """``tab.retranslate()`` unless it is in the window's language already; ``hold``:
        its painting waits until the new texts are laid out."""
        language = self.translations.language
        if getattr(tab, "_pages_language", None) != language:
            if hold:
                hold_painting_until_settled(tab)
            tab.retranslate()
            tab._pages_language = language

    def _translate_if_built(self, index: int) -> None:
        if 0 <= index < len(self._built) and self._built[index] is not None:
            self._translate(self._built[index])


def hold_painting_until_settled(widget: QWidget, turns: int = 5) -> None:
    """Paint ``widget`` once its layouts have settled, ``turns`` passes of the event loop
    from now. New texts resize labels, axes and legends, and every round of relayout
    that follows repainted every plot: a language switch painted the graph tab's eight
    views 39-46 times, 0.3 s of the GUI thread."""
    if not widget.updatesEnabled():
        return
    widget.setUpdatesEnabled(False)

    def turn(left: int) -> None:
        if left:
            settle_ranges(widget)
            QTimer.singleShot(0, widget, lambda: turn(left - 1))
        else:
            widget.setUpdatesEnabled(True)      # and one update of all of it
    turn(turns)


def settle_ranges(widget: QWidget) -> None:
    """Work out now the auto ranges that pyqtgraph leaves to the next paint (new data
    marks a view box's range out of date, and the paint that sets it asks for another):
    the hold's one paint then shows the final ranges."""
    import pyqtgraph as pg

    for view in widget.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is not None and view.isVisible():
            scene.prepareForPaint()


def translate_title(spec: TabSpec) -> str:
    return QCoreApplication.translate(TAB_CONTEXT, spec.title)
