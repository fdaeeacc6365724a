"""The graph tab's explanations: the "Explain a prediction" control group (method,
GNNExplainer's epochs, Explain/Stop), the "explain" job run in the tab's ``JobRunner``,
the readout (prediction, fidelity, probabilities, the feature mask as bars) and the
edge mask drawn on the canvas.

An explanation belongs to one node of one trained classifier: it is kept with the
session key, the node and the epochs trained (``tab.explanation``) and shown only while
all three are still those of the tab; another graph, model, node or more training
hides it. The edge mask is drawn with the canvas's edge values (width and colour by
importance, each direction as a half edge, since the mask of j→i and i→j differ) and
the hard explanation, its top edges, on top as the dashed overlay.

``explain_node`` reports GNNExplainer's epochs through a callback, not by yielding: it
runs in a thread of its own inside the job's generator, holding the session's lock,
and hands each epoch over a queue; Stop (the generator closed) makes the callback raise
at the next epoch.
"""

from __future__ import annotations

import html
import queue
import threading
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QPushButton

from models.errors import InvalidParameterError
from models.explain.options import DEFAULT_EPOCHS, MAX_EPOCHS, METHODS
from models.traces import Progress
from viz.controls import Param, ParamForm
from viz.theme import muted_style

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab

EXPLAIN_PARAMS = (
    Param("explain_method", "choice", "gnnexplainer", choices=tuple(METHODS)),
    Param("explain_epochs", "int", DEFAULT_EPOCHS, 10, MAX_EPOCHS, step=50),
)
JOB = "explain"
#: features listed in the readout's bars
TOP_FEATURES = 5
BAR_COLOUR = "#4c72b0"
BAR_PX = 90
#: the wait before the readout is scrolled into view (see ``show_readout``)
READOUT_SETTLE_MS = 250


# -- controls ------------------------------------------------------------------------------
def build_controls(tab: GraphTab, layout) -> None:
    tab.explanation = None              # (key, NodeExplanation) of the last explanation
    tab.explain_after_training = False  # explain once the training running now ends
    tab.explain_form = form = ParamForm(EXPLAIN_PARAMS)
    form.setObjectName("ExplainForm")
    tab.explain_button = QPushButton()
    tab.explain_button.setObjectName("ExplainButton")
    tab.explain_button.clicked.connect(lambda: tab.toggle_job(JOB))
    form.layout().addRow(tab.explain_button)
    tab.explain_readout = QLabel()
    tab.explain_readout.setObjectName("ExplainReadout")
    tab.explain_readout.setWordWrap(True)
    tab.explain_readout.setTextFormat(Qt.TextFormat.RichText)   # the feature mask's bars
    tab.explain_readout.setStyleSheet(muted_style())
    form.layout().addRow(tab.explain_readout)
    form.changed.connect(lambda: method_changed(tab))
    layout.addWidget(form)
    method_changed(tab)


def method_changed(tab: GraphTab) -> None:
    method = tab.explain_form.values()["explain_method"]
    tab.explain_form.set_visible_rows(
        {"explain_method"} | ({"explain_epochs"} if method == "gnnexplainer" else set()))


def method_name(method: str) -> str:
    return {"gnnexplainer": QCoreApplication.translate("GraphTab", "GNNExplainer"),
            "attention": QCoreApplication.translate("GraphTab", "GAT attention")
            }.get(method, method)


# -- the job -------------------------------------------------------------------------------
def explanation_key(tab: GraphTab, node: int) -> tuple:
    return tab._session_key(), int(node), tab.trained_steps()


def current(tab: GraphTab):
    """The explanation of the selected node by the classifier shown, or None."""
    if tab.explanation is None:
        return None
    key, explanation = tab.explanation
    return explanation if key == explanation_key(tab, tab.params()["node"]) else None


class _Stopped(Exception):
    """Raised from GNNExplainer's epoch callback once the job was stopped."""


def _job(session, node: int, method: str, epochs: int, seed: int):
    """Progress per GNNExplainer epoch, then one with the ``NodeExplanation``; the
    explanation runs in a thread of its own that holds the session's lock."""
    from models.explain import explain_node

    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    done = object()

    def on_epoch(epoch: int, loss: float) -> None:
        if stop.is_set():
            raise _Stopped
        reports.put(Progress(step=epoch, total=epochs, loss=loss))

    def run() -> None:
        try:
            with session.lock:
                data = session.data
                result = explain_node(session.model, data.x, data.edge_index, node, method,
                                      labels=data.y, epochs=epochs, seed=seed,
                                      on_epoch=on_epoch)
            reports.put(Progress(step=epochs, total=epochs, loss=float(result.loss[-1]),
                                 trace=result))
        except BaseException as exc:  # noqa: BLE001 - handed to the generator, raised there
            reports.put(exc)
        finally:
            reports.put(done)

    worker = threading.Thread(target=run, name="explain", daemon=True)
    worker.start()
    try:
        while (item := reports.get()) is not done:
            if isinstance(item, _Stopped):
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:                            # Stop closes the generator: the thread gives up
        stop.set()
        worker.join()


def start_jobs(tab: GraphTab, jobs: list[str]) -> list[str]:
    """The jobs a state asks for (``apply_state``), with an explanation of an untrained
    classifier (a tour's step, ``--set explain=1``) turned into: train it first, then
    explain (``on_training_stopped``), instead of the refusal the button gives."""
    if JOB in jobs and "node" not in jobs and tab.trained_steps() == 0:
        tab.explain_after_training = True
        return [j for j in jobs if j != JOB] + ["node"]
    return jobs


def on_training_stopped(tab: GraphTab, completed: bool, failed: bool) -> None:
    """The node classifier's training ended: an explanation asked for before it (see
    ``start_jobs``) starts now if the training ran to its end."""
    waiting, tab.explain_after_training = tab.explain_after_training, False
    if waiting and completed and not failed and tab.trained_steps() > 0:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, tab, lambda: tab.running() or tab.toggle_job(JOB))


def make_job(tab: GraphTab):
    """The job for the selected node, or a clear refusal (``InvalidParameterError``,
    shown in the tab's error note)."""
    p, e = tab.params(), tab.explain_form.values()
    session = tab.current_session()
    if session is None or tab.trained_steps() == 0:
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "Train the node classifier first: an untrained model's "
            "predictions have nothing to explain."))
    node = int(p["node"])
    if not 0 <= node < int(session.data.num_nodes):
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "Select a node first: click it on the graph."))
    if e["explain_method"] == "attention" and p["model"] != "gat":
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "The attention explanation needs a GAT: choose GAT and train it, "
            "or use GNNExplainer."))
    tab.explain_pending = explanation_key(tab, node)
    return partial(_job, session, node, e["explain_method"], e["explain_epochs"],
                   p["seed"])


def job_text(progress) -> str:
    if progress.trace is None:
        return QCoreApplication.translate(
            "GraphTab", "GNNExplainer: epoch {0}/{1} · loss {2:.3f}").format(
            progress.step, progress.total, progress.loss)
    return QCoreApplication.translate("GraphTab", "Explanation ready")


def on_progress(tab: GraphTab, progress) -> None:
    if progress.trace is not None:
        tab.explanation = (tab.explain_pending, progress.trace)
        redraw(tab)
        show_readout(tab)


def show_readout(tab: GraphTab) -> None:
    """The fidelities and the feature bars, below the Explain button, scrolled into view
    (a tour's step starts the explanation with the column at its top). After a short
    wait: the readout takes the height of its new text over a few layout passes (form,
    column, scroll area), and scrolled at once only its first line came into view."""
    from PySide6.QtCore import QTimer

    QTimer.singleShot(READOUT_SETTLE_MS, tab, lambda: tab.controls_scroll.ensureWidgetVisible(
        tab.explain_readout, 0, 0))


# -- drawing -------------------------------------------------------------------------------
def class_name(tab: GraphTab, c: int) -> str:
    names = list(tab.result.doc.label_names) if tab.result is not None else []
    return names[c] if 0 <= c < len(names) else str(c)


def feature_names(tab: GraphTab, count: int) -> list[str]:
    """A name per input feature column, as ``models.graphs.features`` builds them: the
    identity (one column per node), one-hot degree, or the chosen attributes (a number
    each, or one column per value of a categorical one)."""
    doc = tab.document()
    names: list[str] = []
    if not doc.feature_attrs:
        if count == doc.num_nodes:
            names = [QCoreApplication.translate("GraphTab", "identity of node {0}").format(n)
                     for n in doc.node_ids]
        else:
            names = [QCoreApplication.translate("GraphTab", "degree {0}").format(d)
                     for d in range(count)]
    else:
        for name in doc.feature_attrs:
            if doc.node_attributes[name].dtype.kind == "f":
                names.append(name)
            else:
                names += [f"{name} = {value}" for value in doc.categorical(name)[1]]
    if len(names) != count:
        names = [QCoreApplication.translate("GraphTab", "feature {0}").format(i)
                 for i in range(count)]
    return names


def feature_bars(tab: GraphTab, mask: np.ndarray) -> str:
    """The feature mask's largest entries as bars (rich text: a table, one row each)."""
    if mask.size == 0:
        return html.escape(QCoreApplication.translate(
            "GraphTab", "No feature mask: the attention explanation weighs edges only."))
    names = feature_names(tab, mask.size)
    top = np.argsort(-mask, kind="stable")[:TOP_FEATURES]
    peak = float(max(mask.max(), 1e-6))
    rows = "".join(
        f'<tr><td><table cellspacing="0" cellpadding="0"><tr>'
        f'<td bgcolor="{BAR_COLOUR}" width="{max(2, round(BAR_PX * float(mask[i]) / peak))}"'
        f' height="9"></td></tr></table></td>'
        f'<td>&nbsp;{html.escape(names[i])}</td><td align="right">&nbsp;{mask[i]:.2f}</td>'
        f'</tr>' for i in top)
    return html.escape(QCoreApplication.translate(
        "GraphTab", "Feature mask (the features the prediction relies on most):")) + \
        f'<table cellspacing="1" cellpadding="0">{rows}</table>'


def readout(tab: GraphTab) -> str:
    x = current(tab)
    if x is None:
        return QCoreApplication.translate(
            "GraphTab", "No explanation yet: train the classifier, click a node, press "
            "“Explain”.")
    k = int(x.explanation_edges.sum())
    lines = [
        QCoreApplication.translate("GraphTab", "{0} for node {1}: predicted class “{2}”").format(
            method_name(x.method), tab.result.doc.node_ids[x.node]
            if tab.result is not None else x.node, class_name(tab, x.predicted))
        + ("" if x.label < 0 else QCoreApplication.translate(
            "GraphTab", " (its label: “{0}”)").format(class_name(tab, x.label))),
        QCoreApplication.translate(
            "GraphTab", "Fidelity+ {0:.0f}: without the {1} most important edges the "
            "prediction {2}.").format(
            x.fidelity_plus, k,
            QCoreApplication.translate("GraphTab", "changes") if x.fidelity_plus >= 0.5
            else QCoreApplication.translate("GraphTab", "stays the same")),
        QCoreApplication.translate(
            "GraphTab", "Fidelity− {0:.0f}: with only those edges the prediction {1}."
            ).format(x.fidelity_minus,
                     QCoreApplication.translate("GraphTab", "changes")
                     if x.fidelity_minus >= 0.5
                     else QCoreApplication.translate("GraphTab", "stays the same")),
        QCoreApplication.translate(
            "GraphTab", "Probability of the predicted class: whole graph {0:.2f}, the "
            "explanation only {1:.2f}, everything but it {2:.2f}.").format(
            x.prob_full, x.prob_explanation, x.prob_complement),
    ]
    return "<br>".join(html.escape(line) for line in lines) + "<br>" + \
        feature_bars(tab, x.feature_mask)


def draw_edges(tab: GraphTab) -> bool:
    """The explanation's edge mask on the canvas (called inside the canvas's batch by
    ``drawing.draw_edges``); False when there is none for what is shown."""
    x = current(tab)
    if x is None or tab.result is None or x.edge_index.shape[1] != \
            tab.result.doc.data.edge_index.shape[1]:
        return False
    peak = float(max(x.edge_mask.max(initial=0.0), 1e-6))
    tab.canvas.set_edge_values(x.edge_mask, edges=x.edge_index.T, half=True,
                               levels=(0.0, peak), cmap="magma", width_range=(0.5, 5.0),
                               title=QCoreApplication.translate(
                                   "GraphTab", "importance"))
    top = x.explanation_edges
    tab.canvas.set_overlay_edges(x.edge_index.T[top], x.edge_mask[top],
                                 title=QCoreApplication.translate(
                                     "GraphTab", "the explanation (top edges)"))
    tab.view("graph").panel.set_readout(QCoreApplication.translate(
        "GraphTab", "Edges: width and colour by {0}'s importance; dashed: the top {1}"
        ).format(method_name(x.method), int(top.sum())))
    return True


def redraw(tab: GraphTab) -> None:
    tab.explain_readout.setText(readout(tab))
    if tab.result is not None:
        from app.tabs.graph import drawing

        with tab.canvas.batch():
            drawing.draw_edges(tab)


def saved(tab: GraphTab):
    """The explanation to save with the graph (the one shown), or None."""
    return current(tab)


def retranslate(tab: GraphTab) -> None:
    form = tab.explain_form
    form.setTitle(QCoreApplication.translate("GraphTab", "Explain a prediction"))
    form.set_texts({"explain_method": QCoreApplication.translate("GraphTab", "Method"),
                    "explain_epochs": QCoreApplication.translate("GraphTab",
                                                                 "GNNExplainer epochs")},
                   {"explain_method": [method_name(m) for m in METHODS]})
    tab.explain_button.setToolTip(QCoreApplication.translate(
        "GraphTab", "Why did the trained classifier predict this class for the selected "
        "node? The important edges are drawn on the graph"))
    tab.explain_readout.setText(readout(tab))


def update_button(tab: GraphTab) -> None:
    tab.explain_button.setText(tab.job_button_text(
        JOB, QCoreApplication.translate("GraphTab", "Explain")))
    tab.explain_button.setEnabled(tab.torch_ready)
