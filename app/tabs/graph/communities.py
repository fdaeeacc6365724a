"""The graph tab's community detection: the "Communities" control group (method, seed,
number of communities, DMoN's epochs, the attribute NMI is measured against, Run/Stop),
the "communities" job run in the tab's ``JobRunner``, the readout, the loss view and the
node colouring the canvas takes from the result.

Results are kept per graph (``tab.community_results``, keyed by the graph's key): a result
belongs to the graph it was found on and comes back when that graph is shown again. The
job is ``models.community.community_job``; while DMoN trains, each report's loss history
is drawn live (``tab.community_live``).

DMoN's soft assignment is drawn as node opacity (``GraphCanvas.set_node_opacity``): the
fill keeps the community's colour, so the hard partition reads as with the other methods,
and a node DMoN is unsure of (its largest soft assignment low) fades. Rings or pies would
need a pen or glyph per node, which pyqtgraph draws one item at a time; opacity steps stay
a handful of items however large the graph.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton

from app.jobs import ComputeRunner, Failure
from app.tabs.base import View, ViewData
from app.tabs.kept import Kept
from models.community.options import DEFAULT_EPOCHS, K_METHODS, MAX_K, METHODS
from viz.controls import Param, ParamForm
from viz.panel import ViewPanel
from viz.plots import CurvesPlot
from viz.theme import muted_style

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab

COMMUNITY_PARAMS = (
    Param("community_method", "choice", "louvain", choices=METHODS),
    Param("community_seed", "int", 0, 0, 99999),
    Param("communities", "int", 0, 0, MAX_K),            # 0: chosen by the eigengap
    Param("community_epochs", "int", DEFAULT_EPOCHS, 10, 5000, step=50),
)
#: what ``apply_state`` takes for communities besides the form's keys
COMMUNITY_ACTIONS = ("find_communities", "nmi_attribute")
JOB = "communities"


# -- controls ------------------------------------------------------------------------------
def build_controls(tab: GraphTab, layout) -> None:
    """The "Communities" group (form, NMI combo, Run button, readout) in ``layout``."""
    tab.community_results = Kept(8, pinned=lambda: {tab._doc_key()})
    # the normalised Laplacian's spectrum of each graph shown, computed in the background
    tab.spectra = Kept(8, pinned=lambda: {tab._doc_key()})
    tab.spectrum_runner = ComputeRunner(tab)
    tab.spectrum_runner.done.connect(lambda got: spectrum_arrived(tab, got))
    tab.community_live = None                     # (graph key, Progress) while DMoN trains
    tab.community_form = form = ParamForm(COMMUNITY_PARAMS)
    form.setObjectName("CommunityForm")
    tab.nmi_combo = QComboBox()
    tab.nmi_combo.setObjectName("NmiAttribute")
    tab.nmi_combo.setProperty("archscope_data", True)   # the file's own attribute names
    tab.nmi_text = QLabel()
    form.layout().addRow(tab.nmi_text, tab.nmi_combo)
    tab.community_button = QPushButton()
    tab.community_button.setObjectName("CommunityButton")
    tab.community_button.clicked.connect(lambda: tab.toggle_job(JOB))
    form.layout().addRow(tab.community_button)
    tab.community_readout = QLabel()
    tab.community_readout.setObjectName("CommunityReadout")
    tab.community_readout.setWordWrap(True)
    tab.community_readout.setStyleSheet(muted_style())
    form.layout().addRow(tab.community_readout)
    form.changed.connect(lambda: method_changed(tab))
    tab.nmi_combo.currentIndexChanged.connect(lambda _i: nmi_changed(tab))
    layout.addWidget(form)
    method_changed(tab)


def method_changed(tab: GraphTab) -> None:
    method = tab.community_form.values()["community_method"]
    tab.community_form.set_visible_rows(
        {"community_method", "community_seed"} | ({"communities"} if method in K_METHODS
                                                   else set())
        | ({"community_epochs"} if method == "dmon" else set()))


def _spectrum(key, doc):
    from models.community.probe import laplacian_spectrum

    return key, laplacian_spectrum(doc)


def spectrum_arrived(tab: GraphTab, got) -> None:
    if isinstance(got, Failure):          # a solver that did not converge: no spectrum
        return
    key, spectrum = got
    tab.spectra[key] = spectrum
    if key == tab._doc_key():
        draw_view(tab)


def fill_nmi_box(tab: GraphTab, doc) -> None:
    """The attributes of ``doc`` NMI can be measured against, keeping the choice; the
    graph's Laplacian spectrum is asked for (in the background) if not known yet."""
    from models.community.partition import categorical_attributes

    if tab._doc_key() not in tab.spectra:
        tab.spectrum_runner.request(partial(_spectrum, tab._doc_key(), doc))

    current = tab.nmi_combo.currentData()
    tab.nmi_combo.blockSignals(True)
    try:
        tab.nmi_combo.clear()
        tab.nmi_combo.addItem(QCoreApplication.translate("GraphTab", "(none)"), "")
        names = categorical_attributes(doc)
        for name in names:
            tab.nmi_combo.addItem(name, name)
        if current not in names:      # a new graph: its label attribute, if categorical
            current = doc.label_attr if doc.label_attr in names else \
                (names[0] if names else "")
        tab.nmi_combo.setCurrentIndex(max(0, tab.nmi_combo.findData(current)))
    finally:
        tab.nmi_combo.blockSignals(False)


def nmi_changed(tab: GraphTab) -> None:
    """NMI of the shown result against the newly chosen attribute (numpy, instant)."""
    from models.community.partition import nmi

    result = current(tab)
    attribute = tab.nmi_combo.currentData() or ""
    if result is None or result.nmi_attribute == attribute:
        return
    doc = tab.base_document()
    value = nmi(result.labels, doc.node_attributes[attribute]) if attribute else math.nan
    tab.community_results[tab._doc_key()] = replace(result, nmi=value,
                                                    nmi_attribute=attribute)
    redraw(tab)


def apply_state(tab: GraphTab, state: dict) -> list[str]:
    """The community keys of ``state``: the form, ``nmi_attribute``."""
    problems = tab.community_form.set_values(state)
    if "nmi_attribute" in state:
        index = tab.nmi_combo.findData(state["nmi_attribute"] or "")
        if index < 0:
            problems.append(f"nmi_attribute: this graph has no categorical attribute "
                            f"'{state['nmi_attribute']}'.")
        tab.nmi_combo.setCurrentIndex(max(0, index))
    return problems


# -- the job -------------------------------------------------------------------------------
def current(tab: GraphTab):
    """The community result of the graph shown, or None."""
    return tab.community_results.get(tab._doc_key())


def _job(*args, **options):
    """``community_job`` imported in the worker (scipy's and PyG's modules it needs take
    a fraction of a second to import the first time: not on the GUI thread)."""
    from models.community.detect import community_job

    yield from community_job(*args, **options)


def drawn(tab: GraphTab):
    """The community result of the graph the canvas draws now (the controls may already
    name another graph whose trace is still being computed), or None."""
    if tab.result is None:
        return None
    return tab.community_results.get(tab.result.layout_key[0])


def make_job(tab: GraphTab):
    p = tab.community_form.values()
    method = p["community_method"]
    options: dict = {}
    if method in K_METHODS:
        options["k"] = p["communities"]
    if method == "dmon":
        options.update(epochs=p["community_epochs"], device=tab.ctx.device())
    tab.community_live = (tab._doc_key(), None)
    return partial(_job, tab.base_document(), method, p["community_seed"],
                   tab.nmi_combo.currentData() or "", **options)


def job_text(progress) -> str:
    m = progress.metrics
    if progress.trace is None and progress.step > 0 and progress.history.size:
        return QCoreApplication.translate("GraphTab", "DMoN: epoch {0}/{1} · loss {2:.3f} · modularity {3:.3f}").format(
            progress.step, progress.total, progress.loss, m.get("modularity", math.nan))
    return QCoreApplication.translate("GraphTab", "Finding communities: {0}").format(method_name(progress.message)
                                                  if progress.message else "…")


def on_progress(tab: GraphTab, progress) -> None:
    """A report of the running job: the result (kept, the nodes coloured by it), or a
    DMoN epoch (the loss curve drawn live)."""
    from models.traces.community import CommunityResult

    key = tab.community_live[0] if tab.community_live else tab._doc_key()
    if isinstance(progress.trace, CommunityResult):
        tab.community_results[key] = progress.trace
        tab.community_live = None
        if key == tab._doc_key():
            # the nodes (and the embedding) coloured by community: only they are redrawn,
            # no model is run again (the colour plays no part in the tab's trace)
            tab.show_form.blockSignals(True)
            tab.show_form.set_values({"colour": "community"})
            tab.show_form.blockSignals(False)
            tab.colour_combo.setEnabled(False)       # as ``_show_changed`` would
        redraw(tab)
    elif progress.history.size:
        tab.community_live = (key, progress)
        draw_view(tab)


def on_stopped(tab: GraphTab, completed: bool) -> None:
    """Stopped before the end: the curve so far stays, said to be unfinished."""
    if not completed and tab.community_live and tab.community_live[1] is not None:
        draw_view(tab)
    else:
        tab.community_live = None


# -- drawing -------------------------------------------------------------------------------
def method_name(method: str) -> str:
    return {"louvain": QCoreApplication.translate("GraphTab", "Louvain"), "label_propagation": QCoreApplication.translate("GraphTab", "label propagation"),
            "spectral": QCoreApplication.translate("GraphTab", "spectral clustering"), "dmon": QCoreApplication.translate("GraphTab", "DMoN (GCN)")}.get(
                method, method)


def node_colours(tab: GraphTab) -> dict:
    """Keyword arguments of ``set_node_colors`` for "Colour nodes by: community"."""
    result = drawn(tab)
    if result is None:          # no partition yet: one colour (a -1 per node)
        return {"values": np.full(tab.result.doc.num_nodes, -1, np.int64),
                "categorical": True, "title": QCoreApplication.translate("GraphTab", "community (none found yet)")}
    return {"values": result.labels, "categorical": True,
            "names": [str(c) for c in range(result.k)],
            "title": QCoreApplication.translate("GraphTab", "communities: {0}").format(method_name(result.method))}


def opacity(tab: GraphTab) -> np.ndarray | None:
    """DMoN's confidence per node when the nodes show its communities, else None."""
    result = drawn(tab)
    if result is None or tab.params()["colour"] != "community":
        return None
    return result.confidence


def readout(tab: GraphTab) -> str:
    result = current(tab)
    if result is None:
        return QCoreApplication.translate("GraphTab", "No communities yet: choose a method and press “Find communities”.")
    text = QCoreApplication.translate("GraphTab", "{0}: {1} communities · modularity {2:.3f}").format(
        method_name(result.method), result.k, result.modularity)
    if result.nmi_attribute:
        text += " · " + QCoreApplication.translate("GraphTab", "NMI against “{0}” {1:.3f}").format(result.nmi_attribute,
                                                                result.nmi)
    if result.k_rule == "eigengap":
        text += " · " + QCoreApplication.translate("GraphTab", "k by the eigengap")
    if result.confidence is not None:
        text += " · " + QCoreApplication.translate("GraphTab", "opacity: DMoN's confidence (largest soft assignment)")
    return text


def build_view(tab: GraphTab, row: int, col: int) -> None:
    tab.community_plot = CurvesPlot(legend="top-right")
    tab.add_view(View("communities", partial(title, tab), ViewPanel(tab.community_plot),
                      partial(view_data, tab)), row, col, 1, 1)


def _shows_loss(tab: GraphTab) -> bool:
    live = tab.community_live
    result = current(tab)
    return bool(live and live[0] == tab._doc_key() and live[1] is not None) or \
        (result is not None and result.loss.size > 0)


def title(tab: GraphTab) -> str:
    if _shows_loss(tab):
        return QCoreApplication.translate("GraphTab", "Communities: DMoN's loss and modularity while it trains")
    return QCoreApplication.translate("GraphTab", "Communities: the normalised Laplacian's smallest eigenvalues")


def draw_view(tab: GraphTab) -> None:
    """The loss curve (live while DMoN trains; with the modularity of its hard assignment
    once done) and the readout."""
    plot, panel = tab.community_plot, tab.view("communities").panel
    live = tab.community_live if tab.community_live and tab.community_live[0] == \
        tab._doc_key() else None
    result = current(tab)
    plot.set_axis_labels(QCoreApplication.translate("GraphTab", "epoch"),
                         QCoreApplication.translate("GraphTab", "loss"),
                         QCoreApplication.translate("GraphTab", "modularity"))
    if live is not None and live[1] is not None:
        loss = live[1].history
        plot.set_curves([np.arange(1, len(loss) + 1, dtype=np.float32)], [loss],
                        [QCoreApplication.translate("GraphTab", "loss (spectral + collapse)")])
        plot.set_hint("")
        stopped = tab.running() != JOB
        panel.set_readout((QCoreApplication.translate("GraphTab", "Stopped at epoch {0}: no partition kept.") if stopped else
                           QCoreApplication.translate("GraphTab", "Training: epoch {0}")).format(len(loss)))
        panel.set_title(title(tab))
        return
    spectrum = tab.spectra.get(tab._doc_key())
    if result is not None and result.loss.size:
        x = np.arange(1, len(result.loss) + 1, dtype=np.float32)
        plot.set_curves([x, x], [result.loss, result.loss_modularity],
                        [QCoreApplication.translate("GraphTab", "loss (spectral + collapse)"),
                         QCoreApplication.translate("GraphTab", "modularity of the hard assignment")],
                        right=[False, True])           # two quantities: two axes
        plot.set_hint("")
    elif spectrum is not None:
        lam = spectrum.eigenvalues
        x = np.arange(1, len(lam) + 1, dtype=np.float32)
        k = spectrum.eigengap_k
        plot.set_curves([x, x[k - 1:k + 1]], [lam, lam[k - 1:k + 1]],
                        [QCoreApplication.translate("GraphTab", "eigenvalue λᵢ"), QCoreApplication.translate("GraphTab", "largest gap: k = {0}").format(k)],
                        symbols=["o", "o"])
        plot.set_axis_labels("i", QCoreApplication.translate("GraphTab", "eigenvalue of the normalised Laplacian"))
        plot.set_hint("")
    else:
        plot.set_curves([], [], [])
        plot.plotItem.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.02)   # no old axes
        plot.set_hint(QCoreApplication.translate("GraphTab", "DMoN trains a GCN to maximise modularity: its loss is drawn "
                          "here while it trains."))
    panel.set_readout(readout(tab))
    panel.set_title(title(tab))


def redraw(tab: GraphTab, canvas: bool = True) -> None:
    """The group's readout, the view and (when it shows communities) the canvas."""
    tab.community_readout.setText(readout(tab))
    draw_view(tab)
    if canvas and tab.result is not None and tab.params()["colour"] == "community":
        tab.redraw_node_colours()


def view_data(tab: GraphTab) -> ViewData | None:
    result = current(tab)
    if result is None:
        return None
    doc = tab.base_document()
    return ViewData("labels", {"labels": result.labels, "soft": result.soft,
                               "loss": result.loss,
                               "loss_modularity": result.loss_modularity},
                    {"method": result.method, "seed": result.seed, "k": result.k,
                     "modularity": result.modularity, "nmi": result.nmi,
                     "nmi_attribute": result.nmi_attribute, "k_rule": result.k_rule},
                    row_labels=list(doc.node_ids))


def retranslate(tab: GraphTab) -> None:
    form = tab.community_form
    form.setTitle(QCoreApplication.translate("GraphTab", "Communities"))
    form.set_texts(
        {"community_method": QCoreApplication.translate("GraphTab", "Method"), "community_seed": QCoreApplication.translate("GraphTab", "Seed"),
         "communities": QCoreApplication.translate("GraphTab", "Communities (0: eigengap)"),
         "community_epochs": QCoreApplication.translate("GraphTab", "DMoN epochs")},
        {"community_method": [method_name(m) for m in METHODS]})
    tab.nmi_text.setText(QCoreApplication.translate("GraphTab", "NMI against"))
    if tab.nmi_combo.count():
        tab.nmi_combo.setItemText(0, QCoreApplication.translate("GraphTab", "(none)"))
    tab.community_button.setToolTip(QCoreApplication.translate("GraphTab", "Run the method on the graph shown; the nodes "
                                        "are coloured by community"))
    tab.community_readout.setText(readout(tab))


def update_button(tab: GraphTab) -> None:
    tab.community_button.setText(tab.job_button_text(JOB, QCoreApplication.translate("GraphTab", "Find communities")))
    tab.community_button.setEnabled(tab.torch_ready)
