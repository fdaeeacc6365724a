"""The main window: one tab per topic of the tab list, menus, device selector, status bar."""

from __future__ import annotations

import platform
import sys
import weakref
from functools import partial
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QToolBar,
    QWidget,
)

from app import data_export, export, memory, responsive
from app.data_export import DataExportJob
from app.errors import show_error
from app.i18n import LANGUAGES, Translations
from app.jobs import JobRunner
from app.png_export import ExportBar, PngExportJob
from app.sessions import SessionActions
from app.settings import Settings
from app.tab_pages import TabPages
from app.tabs.base import BaseTab, TabContext
from app.tabs.catalog import TabSpec, tab_specs
from app.torch_loader import TorchLoader
from viz import figure

translate = QCoreApplication.translate


class ExportFigureDialog(QDialog):
    """Choose the view, the file (format from its extension) and the PNG width."""

    def __init__(self, tab: BaseTab, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("ExportFigureDialog", "Export figure"))
        self.tab, self.settings = tab, settings
        self.view = QComboBox()
        for v in tab.views:
            self.view.addItem(v.title(), v.key)
        self.view.addItem(translate("ExportFigureDialog", "The whole tab"), "")
        idx = self.view.findData(tab.active_view)
        self.view.setCurrentIndex(max(0, idx))
        self.path = QLineEdit()
        self.path.setText(f"{settings.last_dir('export')}/{tab.key}-{tab.active_view}.png")
        browse = QPushButton(translate("ExportFigureDialog", "Browse…"))
        browse.clicked.connect(self._browse)
        self.size_by = QComboBox()
        self.size_by.addItem(translate("ExportFigureDialog", "Width in pixels"), "width")
        self.size_by.addItem(translate("ExportFigureDialog", "Scale of the view on screen"),
                             "scale")
        self.width = QSpinBox()
        self.width.setRange(16, 20000)
        self.width.setSingleStep(100)
        self.width.setSuffix(" px")
        self.width.setValue(2000)
        self.scale = QDoubleSpinBox()
        self.scale.setRange(0.25, 16.0)
        self.scale.setSingleStep(0.5)
        self.scale.setSuffix(" ×")
        self.scale.setValue(2.0)
        self.scale.setVisible(False)
        self.size_by.currentIndexChanged.connect(self._size_mode)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout(self)
        form.addRow(translate("ExportFigureDialog", "View"), self.view)
        form.addRow(translate("ExportFigureDialog", "File"), row)
        size_row = QHBoxLayout()
        size_row.addWidget(self.size_by)
        size_row.addWidget(self.width)
        size_row.addWidget(self.scale)
        form.addRow(translate("ExportFigureDialog", "PNG size"), size_row)
        form.addRow(QLabel(translate("ExportFigureDialog",
                              "The extension chooses the format: .png, .svg or .pdf. "
                              "SVG and PDF keep text as text.")))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _size_mode(self) -> None:
        by_width = self.size_by.currentData() == "width"
        self.width.setVisible(by_width)
        self.scale.setVisible(not by_width)

    def png_size(self) -> tuple[int | None, float | None]:
        """(width, scale): one of them is None."""
        if self.size_by.currentData() == "width":
            return self.width.value(), None
        return None, self.scale.value()

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, translate("ExportFigureDialog", "Export figure"), self.path.text(),
            "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)")
        if path:
            self.path.setText(path)


class _FirstPaint(QObject):
    """Starts its window's torch loader at the window's first paint (see
    ``MainWindow._start_loader_after_paint``).

    A class of the module, holding its window weakly: it was once made inside that
    method, a new class per window, and Shiboken keeps every class it has seen for the
    life of the process, so the class's closure kept every window ever made alive, with
    its tabs, models and traces (a test run that makes hundreds of windows reached
    26 GB)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = weakref.ref(window)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's API
        window = self._window()
        if window is not None and event.type() == QEvent.Type.Paint:
            from PySide6.QtCore import QTimer

            window.removeEventFilter(self)
            QTimer.singleShot(0, window, window._start_loader)
        return False


class MainWindow(QMainWindow, SessionActions, TabPages):
    """Signals: torchReady() once torch, PyG and devices are known; sessionOpened(path, ok).

    ``specs`` are the tabs, in order; by default ``app.tabs.catalog.tab_specs()``
    (pass ``tab_specs([extra])`` to add a tab without editing the list or the window).
    Only the tab in front is built before the window shows; the others when first
    shown or asked for (``app/tab_pages.py``). PyTorch is loaded in a thread started
    once the window has painted (``start_loader``).
    """

    torchReady = Signal()
    languageChanged = Signal(str)
    sessionOpened = Signal(str, bool)

    def __init__(self, settings: Settings, translations: Translations,
                 start_loader: bool = True, specs: list[TabSpec] | None = None) -> None:
        memory.limit_arenas()          # before the workers' threads exist (app/memory.py)
        responsive.share_the_interpreter()     # the GUI thread waits ≤ 1 ms for Python
        super().__init__()
        self.setObjectName("MainWindow")
        self.releaser = memory.Releaser(self)
        self.collector = memory.GuiCollector(self)   # cyclic garbage: on this thread only
        self.settings = settings
        self.translations = translations
        self.device_name = "cpu"
        self._translated_for = ""
        self.versions: dict[str, str] = {}
        self.torch_is_ready = False
        self.tabs_widget = QTabWidget()
        self.tabs_widget.setDocumentMode(True)
        self.setCentralWidget(self.tabs_widget)
        ctx = TabContext(settings=settings, device=lambda: self.device_name,
                         language=lambda: self.translations.language,
                         report_error=lambda error, details: self.report_error(error,
                                                                               details),
                         status=lambda text: self.statusBar().showMessage(text, 8000),
                         # a tab not opened yet has nothing to show another
                         peer=lambda key: self.built_tab(key),
                         save_session=lambda path, key: self.start_session_save(path,
                                                                                key=key))
        self._init_tab_pages(tab_specs() if specs is None else list(specs), ctx)
        self._build_toolbar()
        self._build_menus()
        self.device_label = QLabel()
        self.statusBar().addPermanentWidget(self.device_label)
        # a PNG export's progress and Cancel (shown while one runs)
        self.export_runner = JobRunner(self)
        self.export_bar = ExportBar(self.export_runner)
        self.export_bar.stop_button.clicked.connect(self.cancel_png_export)
        self.statusBar().insertPermanentWidget(0, self.export_bar, 1)
        self.png_job: PngExportJob | None = None
        self.data_job: DataExportJob | None = None     # File → Export data…, the same bar
        self.loader = TorchLoader(self)
        self.loader.ready.connect(self._on_torch_ready)
        self.loader.failed.connect(self._on_torch_failed)
        self.resize(1500, 940)
        self._restore_window(settings)
        self.tab_at(self.tabs_widget.currentIndex())    # the tab in front, at once
        self.retranslate()
        self.report_settings_problems()
        if start_loader:
            self._start_loader_after_paint()

    def _start_loader_after_paint(self) -> None:
        """Start loading PyTorch once the window has painted (at once if it is not
        shown by the time the event loop runs): the import holds the GIL for up to half
        a second at a time, which would delay building and painting the window."""
        from PySide6.QtCore import QTimer

        self._first_paint = _FirstPaint(self)
        self.installEventFilter(self._first_paint)
        QTimer.singleShot(0, self, lambda: None if self.isVisible() else self._start_loader())

    def _start_loader(self) -> None:
        if not self.loader.started():
            self.loader.start()

    def _restore_window(self, settings: Settings) -> None:
        """Geometry and tool-bar state as saved; bytes Qt cannot read are rejected (the
        window keeps its default size); the device name and the last folders are checked
        now, so that one note at start-up names every unusable setting."""
        for key, value, restore in (("window/geometry", settings.geometry(), self.restoreGeometry),
                                    ("window/state", settings.window_state(), self.restoreState)):
            if value is not None and not restore(value):
                settings.reject(key)
                self.resize(1500, 940)
        settings.device  # noqa: B018 - read for its check; used when torch is loaded
        for purpose in ("open", "export", "session"):
            settings.last_dir(purpose)

    def report_settings_problems(self) -> None:
        """One status-bar note naming the saved settings that were reset to defaults."""
        keys = self.settings.take_problems()
        if keys:
            self.statusBar().showMessage(translate(
                "MainWindow", "Some saved settings could not be used and were reset to their "
                "defaults: {0}.").format(", ".join(keys)), 30000)

    # -- construction --------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        self.toolbar = QToolBar()
        self.toolbar.setObjectName("MainToolbar")
        self.device_caption = QLabel()
        self.device_combo = QComboBox()
        self.device_combo.setObjectName("DeviceCombo")
        self.device_combo.setMinimumWidth(220)
        self.device_combo.addItem("cpu", "cpu")
        self.device_combo.setEnabled(False)
        self.device_combo.currentIndexChanged.connect(self._on_device_combo)
        holder = QWidget()
        lay = QHBoxLayout(holder)
        lay.setContentsMargins(6, 0, 6, 0)
        lay.addWidget(self.device_caption)
        lay.addWidget(self.device_combo)
        self.toolbar.addWidget(holder)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        self.menu_file = mb.addMenu("")
        self.act_open = QAction(self, shortcut=QKeySequence.StandardKey.Open)
        self.act_open.triggered.connect(self.open_dialog)
        self.tabs_widget.currentChanged.connect(lambda _i: self._update_open_action())
        self.act_export_fig = QAction(self, shortcut=QKeySequence("Ctrl+E"))
        self.act_export_fig.triggered.connect(self.export_figure_dialog)
        self.act_export_data = QAction(self, shortcut=QKeySequence("Ctrl+Shift+E"))
        self.act_export_data.triggered.connect(self.export_data_dialog)
        self.act_quit = QAction(self, shortcut=QKeySequence.StandardKey.Quit)
        self.act_quit.triggered.connect(self.close)
        self.menu_file.addActions([self.act_open, self.act_export_fig, self.act_export_data])
        self.menu_file.addSeparator()
        self.menu_file.addAction(self.act_quit)

        self.menu_view = mb.addMenu("")
        self.act_tour = QAction(self, checkable=True, checked=True)
        self.act_tour.toggled.connect(lambda on: [t.tour.setVisible(on)
                                                  for t in self.built_tabs()])
        self.act_toolbar = self.toolbar.toggleViewAction()
        self.act_autorange = QAction(self, shortcut=QKeySequence("Ctrl+0"))
        self.act_autorange.triggered.connect(self._auto_range)
        self.menu_view.addActions([self.act_tour, self.act_toolbar, self.act_autorange])

        self.menu_lang = mb.addMenu("")
        self.lang_group = QActionGroup(self)
        self.lang_actions: dict[str, QAction] = {}
        for code, name in LANGUAGES.items():
            act = QAction(name, self, checkable=True)
            act.setData(code)
            act.triggered.connect(partial(self.set_language, code))
            self.lang_group.addAction(act)
            self.menu_lang.addAction(act)
            self.lang_actions[code] = act
        self.lang_actions.get(self.translations.language, self.lang_actions["en"]).setChecked(True)

        self.menu_help = mb.addMenu("")
        self.act_about = QAction(self)
        self.act_about.triggered.connect(self.show_about)
        self.menu_help.addAction(self.act_about)
        self._build_session_actions(self.menu_file, self.menu_help)

    # -- translations ------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if (event.type() == QEvent.Type.LanguageChange
                and self._translated_for != self.translations.language):
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self._translated_for = self.translations.language
        self.setWindowTitle(translate("MainWindow", "ArchScope — see neural networks run"))
        self.menu_file.setTitle(translate("MainWindow", "&File"))
        self.act_open.setText(translate("MainWindow", "&Open…"))
        self._update_open_action()
        self.act_export_fig.setText(translate("MainWindow", "Export &figure…"))
        self.act_export_data.setText(translate("MainWindow", "Export &data…"))
        self.act_quit.setText(translate("MainWindow", "&Quit"))
        self.menu_view.setTitle(translate("MainWindow", "&View"))
        self.act_tour.setText(translate("MainWindow", "Guided &tour panel"))
        self.act_toolbar.setText(translate("MainWindow", "Tool&bar"))
        self.act_autorange.setText(translate("MainWindow", "&Reset zoom of all views"))
        self.menu_lang.setTitle(translate("MainWindow", "&Language"))
        self.menu_help.setTitle(translate("MainWindow", "&Help"))
        self.act_about.setText(translate("MainWindow", "&About ArchScope"))
        self._retranslate_session_actions()
        self.device_caption.setText(translate("MainWindow", "Device:"))
        self.export_bar.retranslate()
        self._retranslate_pages()
        self._update_device_label()

    def set_language(self, code: str) -> None:
        if code == self.translations.language:
            return
        self.statusBar().clearMessage()     # written in the old language (a load, a save)
        if not self.translations.set_language(code):
            self.report_error(RuntimeError(f"The {LANGUAGES.get(code, code)} catalogue "
                                           "could not be loaded; run `make translations`."))
        self.settings.language = self.translations.language
        self.lang_actions[self.translations.language].setChecked(True)
        if self._translated_for != self.translations.language:
            self.retranslate()   # at once; the LanguageChange event then finds it done
        self.languageChanged.emit(self.translations.language)

    # -- torch and devices ------------------------------------------------------------------------
    def _on_torch_ready(self, info: dict, notify_tabs: bool = True) -> None:
        self.versions = info["versions"]
        wanted = self.settings.device
        self.device_combo.blockSignals(True)
        self.device_combo.clear()
        for d in info["devices"]:
            self.device_combo.addItem(d.label, d.name)
        self.device_combo.setEnabled(True)
        names = [d.name for d in info["devices"]]
        if wanted not in names:
            if wanted != "cpu":
                self.statusBar().showMessage(translate(
                    "MainWindow", "The saved device {0} is not available here; using cpu."
                ).format(wanted), 10000)
            wanted = "cpu"
        self.device_combo.setCurrentIndex(names.index(wanted))
        self.device_combo.blockSignals(False)
        self.device_name = wanted
        self.torch_is_ready = True
        self.collector.freeze_startup()
        self._update_device_label()
        self._notify_tabs = notify_tabs
        for tab in self.built_tabs():
            if notify_tabs:
                tab.on_torch_ready()
            else:
                tab.torch_ready = True
        self.torchReady.emit()

    def _on_torch_failed(self, exc: BaseException, details: str) -> None:
        self.report_error(exc, details)

    def _on_device_combo(self, index: int) -> None:
        name = self.device_combo.itemData(index)
        if name:
            self.set_device(name)

    def set_device(self, name: str) -> None:
        names = [self.device_combo.itemData(i) for i in range(self.device_combo.count())]
        if name not in names:
            from models.errors import DeviceUnavailableError

            self.report_error(DeviceUnavailableError(
                f"The device '{name}' is not available on this machine "
                f"(available: {', '.join(names)})."), None)
            return
        if self.device_combo.currentIndex() != names.index(name):
            self.device_combo.setCurrentIndex(names.index(name))  # re-enters via the signal
            return
        self.device_name = name
        self.settings.device = name
        self._update_device_label()
        for tab in self.built_tabs():      # a tab built later reads the device then
            tab.on_device_changed(name)

    def _update_device_label(self) -> None:
        if self.torch_is_ready:
            self.device_label.setText(translate("MainWindow", "Device: {0}").format(self.device_name))
        else:
            self.device_label.setText(translate("MainWindow", "Loading PyTorch…"))

    # -- actions ---------------------------------------------------------------------------------
    def _update_open_action(self) -> None:
        tab = self.current_built_tab()     # a tab still being prepared opens nothing yet
        can_open = tab is not None and tab.file_filter() is not None
        self.act_open.setEnabled(can_open)
        self.act_open.setToolTip("" if can_open else
                                 translate("MainWindow", "This tab opens no files."))

    def open_dialog(self) -> None:
        tab = self.current_tab()
        if tab.file_filter() is None:
            return
        if tab.opens_folders():        # a model folder, say: the filter names what it holds
            path = QFileDialog.getExistingDirectory(
                self, translate("MainWindow", "Open"), self.settings.last_dir("open"))
        else:
            path, _ = QFileDialog.getOpenFileName(
                self, translate("MainWindow", "Open"), self.settings.last_dir("open"),
                tab.file_filter())
        if not path:
            return
        if path.lower().endswith(".archscope"):     # a session chosen here opens as one
            self.start_open_session(path)
            return
        # read in the background (progress, Cancel); the tab's view stays until accepted
        try:
            tab.start_open(path)
        except Exception as exc:  # noqa: BLE001 - refused before reading: shown to the user
            self.report_error(exc, None)

    def _tab_built(self, tab: BaseTab) -> None:
        if tab is self.current_built_tab():
            self._update_open_action()

    def _auto_range(self) -> None:
        for tab in self.built_tabs():
            for v in tab.views:
                if hasattr(v.panel.graphics, "plotItem"):
                    v.panel.graphics.plotItem.autoRange()

    def report_error(self, error: BaseException, details: str | None = None) -> None:
        show_error(self, error, details)

    def export_figure(self, tab: BaseTab, view_key: str, path: str,
                      width: int | None = None, scale: float | None = None) -> str:
        """Export a view ('' = the whole tab) to ``path``; returns the written path."""
        fmt = export.format_of(path, figure.FORMATS)
        # a view's panel: its title above its graphics, as in the window
        widget = tab.view(view_key).panel if view_key else tab
        title = f"ArchScope — {tab.key}.{view_key or 'tab'}"
        written = export.atomic_write(
            path, lambda tmp: figure.render(widget, tmp, fmt, width=width, title=title,
                                            scale=scale))
        return str(written)

    def export_figure_dialog(self) -> ExportFigureDialog:
        """Open the (window-modal, non-blocking) export dialog; Save writes the file."""
        dialog = ExportFigureDialog(self.current_tab(), self.settings, self)
        dialog.setObjectName("ExportFigureDialog")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._export_from_dialog(dialog))
        dialog.open()
        return dialog

    def _export_from_dialog(self, dialog: ExportFigureDialog) -> None:
        path, tab, view = dialog.path.text().strip(), dialog.tab, dialog.view.currentData()
        try:
            fmt = export.format_of(path, figure.FORMATS)
            if fmt == "pdf":                  # a PNG or an SVG is finished in the background
                self._saved(self.export_figure(tab, view, path))
            elif fmt == "png":
                self.start_png_export(tab, view, path, *dialog.png_size())
            else:
                data_export.start_svg(self, tab, view, path)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report_error(exc, None)

    def _saved(self, written: str) -> None:
        self.settings.set_last_dir("export", written)
        self.statusBar().showMessage(translate("MainWindow", "Saved {0}").format(written), 8000)

    def start_png_export(self, tab: BaseTab, view_key: str, path: str,
                         width: int | None = None, scale: float | None = None
                         ) -> PngExportJob:
        """Export a view ('' = the whole tab) to the PNG ``path`` in the background, with
        progress and Cancel in the status bar; raises (nothing written) if the size or
        the folder will not do. Export figure… is off until it ends."""
        data_export.refuse_if_exporting(self)
        widget = tab.view(view_key).panel if view_key else tab
        job = PngExportJob(tab, widget, path, width, scale, self.export_runner, self)
        name = Path(path).name
        job.progressed.connect(lambda fraction, paused: self._png_progress(name, fraction,
                                                                          paused))
        for signal in (job.finished, job.failed, job.cancelled):
            signal.connect(lambda *_: self._png_job_ended(job))
        job.finished.connect(self._saved)
        job.failed.connect(lambda exc: self.report_error(exc, None))
        job.cancelled.connect(lambda: self.statusBar().showMessage(translate(
            "MainWindow", "Export cancelled: {0} was not changed.").format(path), 8000))
        try:
            job.start()
        except BaseException:
            job.deleteLater()
            raise
        self.png_job = job
        self.act_export_fig.setEnabled(False)
        self.export_bar.setVisible(True)
        self._png_progress(name, 0.0, False)
        return job

    def cancel_png_export(self) -> None:
        """Cancel the export running (a PNG, or data)."""
        for job in (self.png_job, self.data_job):
            if job is not None:
                job.cancel()

    def _png_progress(self, name: str, fraction: float, paused: bool) -> None:
        percent = int(100 * fraction)
        text = (translate("MainWindow", "Exporting {0}: {1} % (training paused until the "
                                        "figure is painted)") if paused else
                translate("MainWindow", "Exporting {0}: {1} %")).format(name, percent)
        self.export_bar.show_progress(fraction, text)

    def _png_job_ended(self, job: PngExportJob) -> None:
        if self.png_job is job:
            self.png_job = None
        self.act_export_fig.setEnabled(True)
        self.export_bar.setVisible(False)
        job.deleteLater()

    def export_data(self, tab: BaseTab, view_key: str, path: str) -> str:
        data = tab.view(view_key).data()
        if data is None:
            raise export.ExportError(translate("MainWindow", "This view has no data yet."))
        return str(export.write_data(path, data.primary, data.arrays, data.meta,
                                     data.row_labels, data.col_labels))

    def export_data_dialog(self) -> None:
        data_export.dialog(self)

    def start_data_export(self, tab: BaseTab, key: str, path: str) -> DataExportJob:
        return data_export.start(self, tab, key, path)

    def about_text(self) -> str:
        import pyqtgraph
        from PySide6 import __version__ as pyside_version
        from PySide6.QtCore import qVersion

        v = self.versions
        loading = translate("MainWindow", "loading…")
        rows = [("ArchScope", "0.1.0"),
                ("Python", platform.python_version()),
                ("PyTorch", v.get("torch", loading)),
                ("PyTorch Geometric", v.get("torch_geometric", loading)),
                ("Qt", qVersion()), ("PySide6", pyside_version),
                ("pyqtgraph", pyqtgraph.__version__),
                (translate("MainWindow", "Device"), self.device_combo.currentText()),
                (translate("MainWindow", "Platform"), f"{platform.system()} {platform.machine()}")]
        return "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{val}</td></tr>"
                                   for k, val in rows) + "</table>"

    def show_about(self) -> None:
        box = QMessageBox(self)
        box.setObjectName("AboutBox")
        box.setWindowTitle(translate("MainWindow", "About ArchScope"))
        box.setText(translate("MainWindow", "ArchScope runs the models of an advanced deep-learning "
                                     "course live and shows them."))
        box.setInformativeText(self.about_text())
        box.setModal(False)
        box.show()

    # -- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802
        from app.jobs import wait_for_workers

        self._closing = True               # a tab whose packages arrive now is not built
        self._abandon_opening()            # a session on its way is not applied
        # an export is cancelled (no half file; the old one stays); a session being saved
        # is written to the end: the user asked for it, then closed
        saving = self.data_job if self.data_job is not None and self.data_job.saving else None
        if saving is None:
            self.cancel_png_export()
        for tab in self.built_tabs():     # a tab never opened has nothing to save
            tab.shutdown()
        self.collector.stop()
        self.settings.set_geometry(self.saveGeometry(), self.saveState())
        self.settings.sync()
        if saving is not None and not saving.done.wait(120):
            sys.stderr.write(f"archscope: the session {saving.path} was not saved in 120 s\n")
        if not wait_for_workers(1.0):    # a step that cannot be cut: main() leaves anyway
            sys.stderr.write("archscope: a background job did not stop within 1 s\n")
        event.accept()
