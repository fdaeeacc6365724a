"""The graph tab's community detection as a panel: the "Communities" control group
(method, seed, number of communities, DMoN's epochs, the attribute NMI is measured
against, Run/Stop, the readout), the "communities" job's parts (made, reported, stopped)
and the communities view (the Laplacian's spectrum, DMoN's loss).

Results are kept per graph (``results``, keyed by the graph's key): a result belongs to
the graph it was found on and comes back when that graph is shown again. The job is
``models.community.community_job``; while DMoN trains, each report's loss history is
drawn live (``live``).

DMoN's soft assignment is drawn as node opacity (``GraphCanvas.set_node_opacity``): the
fill keeps the community's colour, so the hard partition reads as with the other methods,
and a node DMoN is unsure of (its largest soft assignment low) fades. Rings or pies would
need a pen or glyph per node, which pyqtgraph draws one item at a time; opacity steps stay
a handful of items however large the graph.

The panel sees the tab through ``CommunitiesHost``; it asks for its job with ``toggled``
and says with ``found`` that a partition of the graph shown arrived (the tab colours the
nodes by it) and with ``changed`` that the result shown changed (the canvas redraws the
nodes if they show communities).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton

from app.jobs import ComputeRunner, Failure
from app.tabs.graph.params import COMMUNITY_PARAMS
from app.tabs.graph.views import CommunitiesShown, CommunitiesView
from app.tabs.graph.views.communities import community_readout
from app.tabs.graph.views.graph import community_method_name as method_name
from app.tabs.kept import Kept
from models.community.options import K_METHODS, METHODS
from viz.controls import ParamForm
from viz.theme import muted_style

__all__ = ["CommunitiesPanel", "CommunitiesHost", "JOB", "COMMUNITY_ACTIONS"]

#: what ``apply_state`` takes for communities besides the form's keys
COMMUNITY_ACTIONS = ("find_communities", "nmi_attribute")
JOB = "communities"

translate = QCoreApplication.translate


class CommunitiesHost(Protocol):
    """What the panel asks of the tab."""

    torch_ready: bool

    def doc_key(self) -> tuple: ...          # the graph the controls name
    def drawn_key(self) -> tuple | None: ...  # the graph the canvas draws (None: none yet)
    def base_document(self): ...
    def device(self) -> str: ...
    def running(self) -> str: ...
    def job_button_text(self, job: str, idle: str) -> str: ...


def _spectrum(key, doc):
    from models.community.probe import laplacian_spectrum

    return key, laplacian_spectrum(doc)


def _job(*args, **options):
    """``community_job`` imported in the worker (scipy's and PyG's modules it needs take
    a fraction of a second to import the first time: not on the GUI thread)."""
    from models.community.detect import community_job

    yield from community_job(*args, **options)


class CommunitiesPanel(QObject):
    toggled = Signal(str)      # start or stop the job (``JOB``)
    found = Signal()           # a partition of the graph shown arrived
    changed = Signal()         # the result shown changed (another NMI attribute)

    def __init__(self, host: CommunitiesHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.results = Kept(8, pinned=lambda: {host.doc_key()})
        # the normalised Laplacian's spectrum of each graph shown, computed in the background
        self.spectra = Kept(8, pinned=lambda: {host.doc_key()})
        self.spectrum_runner = ComputeRunner(self)
        self.spectrum_runner.done.connect(self._spectrum_arrived)
        self.live = None                     # (graph key, Progress) while DMoN trains
        self.form = form = ParamForm(COMMUNITY_PARAMS)
        form.setObjectName("CommunityForm")
        self.nmi_combo = QComboBox()
        self.nmi_combo.setObjectName("NmiAttribute")
        self.nmi_combo.setProperty("archscope_data", True)  # the file's own attribute names
        self.nmi_text = QLabel()
        form.layout().addRow(self.nmi_text, self.nmi_combo)
        self.button = QPushButton()
        self.button.setObjectName("CommunityButton")
        self.button.clicked.connect(lambda: self.toggled.emit(JOB))
        form.layout().addRow(self.button)
        self.readout = QLabel()
        self.readout.setObjectName("CommunityReadout")
        self.readout.setWordWrap(True)
        self.readout.setStyleSheet(muted_style())
        form.layout().addRow(self.readout)
        form.changed.connect(self._method_changed)
        self.nmi_combo.currentIndexChanged.connect(lambda _i: self._nmi_changed())
        self.view = CommunitiesView(self)
        self._method_changed()

    # -- controls --------------------------------------------------------------------------
    def _method_changed(self) -> None:
        method = self.form.values()["community_method"]
        self.form.set_visible_rows(
            {"community_method", "community_seed"}
            | ({"communities"} if method in K_METHODS else set())
            | ({"community_epochs"} if method == "dmon" else set()))

    def _spectrum_arrived(self, got) -> None:
        if isinstance(got, Failure):          # a solver that did not converge: no spectrum
            return
        key, spectrum = got
        self.spectra[key] = spectrum
        if key == self.host.doc_key():
            self.draw_view()

    def fill_nmi_box(self, doc) -> None:
        """The attributes of ``doc`` NMI can be measured against, keeping the choice; the
        graph's Laplacian spectrum is asked for (in the background) if not known yet."""
        from models.community.partition import categorical_attributes

        key = self.host.doc_key()
        if key not in self.spectra:
            self.spectrum_runner.request(partial(_spectrum, key, doc))
        current = self.nmi_combo.currentData()
        self.nmi_combo.blockSignals(True)
        try:
            self.nmi_combo.clear()
            self.nmi_combo.addItem(translate("GraphTab", "(none)"), "")
            names = categorical_attributes(doc)
            for name in names:
                self.nmi_combo.addItem(name, name)
            if current not in names:   # a new graph: its label attribute, if categorical
                current = doc.label_attr if doc.label_attr in names else \
                    (names[0] if names else "")
            self.nmi_combo.setCurrentIndex(max(0, self.nmi_combo.findData(current)))
        finally:
            self.nmi_combo.blockSignals(False)

    def _nmi_changed(self) -> None:
        """NMI of the shown result against the newly chosen attribute (numpy, instant)."""
        from models.community.partition import nmi

        result = self.current()
        attribute = self.nmi_combo.currentData() or ""
        if result is None or result.nmi_attribute == attribute:
            return
        doc = self.host.base_document()
        value = nmi(result.labels, doc.node_attributes[attribute]) if attribute else math.nan
        self.results[self.host.doc_key()] = replace(result, nmi=value,
                                                    nmi_attribute=attribute)
        self.redraw()
        self.changed.emit()

    def values(self) -> dict:
        return self.form.values()

    def apply_state(self, state: dict) -> list[str]:
        """The community keys of ``state``: the form, ``nmi_attribute``."""
        problems = self.form.set_values(state)
        if "nmi_attribute" in state:
            index = self.nmi_combo.findData(state["nmi_attribute"] or "")
            if index < 0:
                problems.append(f"nmi_attribute: this graph has no categorical attribute "
                                f"'{state['nmi_attribute']}'.")
            self.nmi_combo.setCurrentIndex(max(0, index))
        return problems

    def nmi_attribute(self) -> str:
        return self.nmi_combo.currentData() or ""

    # -- the results -----------------------------------------------------------------------
    def current(self):
        """The community result of the graph the controls name, or None."""
        return self.results.get(self.host.doc_key())

    def drawn(self):
        """The community result of the graph the canvas draws now (the controls may
        already name another graph whose trace is still being computed), or None."""
        key = self.host.drawn_key()
        return None if key is None else self.results.get(key)

    # -- the job ---------------------------------------------------------------------------
    def make_job(self):
        p = self.form.values()
        method = p["community_method"]
        options: dict = {}
        if method in K_METHODS:
            options["k"] = p["communities"]
        if method == "dmon":
            options.update(epochs=p["community_epochs"], device=self.host.device())
        self.live = (self.host.doc_key(), None)
        return partial(_job, self.host.base_document(), method, p["community_seed"],
                       self.nmi_attribute(), **options)

    @staticmethod
    def job_text(progress) -> str:
        m = progress.metrics
        if progress.trace is None and progress.step > 0 and progress.history.size:
            return translate("GraphTab", "DMoN: epoch {0}/{1} · loss {2:.3f} · modularity "
                                         "{3:.3f}").format(
                progress.step, progress.total, progress.loss, m.get("modularity", math.nan))
        return translate("GraphTab", "Finding communities: {0}").format(
            method_name(progress.message) if progress.message else "…")

    def on_progress(self, progress) -> None:
        """A report of the running job: the result (kept, the nodes coloured by it), or a
        DMoN epoch (the loss curve drawn live)."""
        from models.traces.community import CommunityResult

        key = self.live[0] if self.live else self.host.doc_key()
        if isinstance(progress.trace, CommunityResult):
            self.results[key] = progress.trace
            self.live = None
            self.redraw()
            if key == self.host.doc_key():
                self.found.emit()
            else:
                self.changed.emit()
        elif progress.history.size:
            self.live = (key, progress)
            self.draw_view()

    def on_stopped(self, completed: bool) -> None:
        """Stopped before the end: the curve so far stays, said to be unfinished."""
        if not completed and self.live and self.live[1] is not None:
            self.draw_view()
        else:
            self.live = None

    # -- drawing ---------------------------------------------------------------------------
    def shown(self) -> CommunitiesShown:
        key = self.host.doc_key()
        live = self.live if self.live and self.live[0] == key else None
        result = self.current()
        node_ids = tuple(self.host.base_document().node_ids) if result is not None else ()
        return CommunitiesShown(
            live=live[1].history if live is not None and live[1] is not None else None,
            result=result, spectrum=self.spectra.get(key),
            running=self.host.running() == JOB, node_ids=node_ids)

    def draw_view(self) -> None:
        self.view.show(self.shown())

    def redraw(self) -> None:
        """The group's readout and the view."""
        self.readout.setText(community_readout(self.current()))
        self.draw_view()

    def retranslate(self) -> None:
        form = self.form
        form.setTitle(translate("GraphTab", "Communities"))
        form.set_texts(
            {"community_method": translate("GraphTab", "Method"),
             "community_seed": translate("GraphTab", "Seed"),
             "communities": translate("GraphTab", "Communities (0: eigengap)"),
             "community_epochs": translate("GraphTab", "DMoN epochs")},
            {"community_method": [method_name(m) for m in METHODS]})
        self.nmi_text.setText(translate("GraphTab", "NMI against"))
        if self.nmi_combo.count():
            self.nmi_combo.setItemText(0, translate("GraphTab", "(none)"))
        self.button.setToolTip(translate("GraphTab", "Run the method on the graph shown; "
                                                     "the nodes are coloured by community"))
        self.readout.setText(community_readout(self.current()))

    def update_button(self) -> None:
        self.button.setText(self.host.job_button_text(
            JOB, translate("GraphTab", "Find communities")))
        self.button.setEnabled(self.host.torch_ready)
