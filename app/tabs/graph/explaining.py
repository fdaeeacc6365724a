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

The "explain_best" job (the tour's step, ``--set explain_best=1``) chooses the node by
rule instead of taking the selected one: it explains every correctly predicted test
node and keeps the most faithful explanation (``models.explain.explain_best``: the
largest fidelity+ − fidelity−, ties by the probability drop), selects that node and
says in the readout why it was chosen.
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
from models.explain.options import (
    DEFAULT_EPOCHS,
    MAX_EPOCHS,
    METHODS,
    THRESHOLDS,
    ExplanationPick,
)
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
#: the job that explains the correctly predicted test nodes and shows the best one
PICK_JOB = "explain_best"
#: features listed in the readout's bars
TOP_FEATURES = 5
BAR_COLOUR = "#4c72b0"
BAR_PX = 90
#: the wait before the readout is scrolled into view (see ``show_readout``)
READOUT_SETTLE_MS = 250


# -- controls ------------------------------------------------------------------------------
def build_controls(tab: GraphTab, layout) -> None:
    tab.explanation = None              # (key, NodeExplanation) of the last explanation
    tab.explanation_pick = None         # (key, ExplanationPick) when explain_best chose it
    tab.explain_after_training = ""     # the job to run once the training running now ends
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


def current_pick(tab: GraphTab) -> ExplanationPick | None:
    """How ``explain_best`` chose the explanation shown, if it did."""
    x = current(tab)
    if x is None or tab.explanation_pick is None:
        return None
    key, pick = tab.explanation_pick
    return pick if pick.explanation is x and key == tab.explanation[0] else None


class _Stopped(Exception):
    """Raised from GNNExplainer's epoch callback once the job was stopped."""


def _in_thread(work):
    """The ``Progress`` reports of ``work(report, check)`` run in a thread of its own:
    ``report(progress)`` hands one over a queue, ``check()`` raises once the job was
    stopped (the generator closed); an error in the thread is raised here."""
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    done = object()

    def check() -> None:
        if stop.is_set():
            raise _Stopped

    def run() -> None:
        try:
            work(reports.put, check)
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


def _job(session, node: int, method: str, epochs: int, seed: int):
    """Progress per GNNExplainer epoch, then one with the ``NodeExplanation``; the
    explanation runs in a thread of its own that holds the session's lock."""
    from models.explain import explain_node

    def work(report, check) -> None:
        def on_epoch(epoch: int, loss: float) -> None:
            check()
            report(Progress(step=epoch, total=epochs, loss=loss))

        with session.lock:
            data = session.data
            result = explain_node(session.model, data.x, data.edge_index, node, method,
                                  labels=data.y, epochs=epochs, seed=seed, on_epoch=on_epoch)
        report(Progress(step=epochs, total=epochs, loss=float(result.loss[-1]),
                        trace=result))

    yield from _in_thread(work)


def _pick_job(session, method: str, epochs: int, seed: int):
    """The "explain_best" job: every correctly predicted test node explained (progress
    per epoch, ``metrics`` naming the node), then one report with the
    ``ExplanationPick``."""
    from models.explain import explain_best

    def work(report, check) -> None:
        trace = session.evaluate()
        candidates = np.flatnonzero(trace.test_mask.astype(bool) &
                                    (trace.predictions == trace.labels))
        if not len(candidates):         # translate() is thread-safe
            raise InvalidParameterError(QCoreApplication.translate(
                "GraphTab", "No test node is predicted correctly: there is no prediction "
                "worth explaining yet. Train more, or click a node and press “Explain”."))
        count, total = len(candidates), max(1, len(candidates)) * epochs
        at = {"index": 0, "node": -1}

        def tell(epoch: int, loss: float) -> None:
            report(Progress(step=at["index"] * epochs + epoch, total=total, loss=loss,
                            metrics={"node": at["node"], "index": at["index"] + 1,
                                     "count": count, "epoch": epoch, "epochs": epochs}))

        def on_node(index: int, node: int) -> None:
            check()
            at.update(index=index, node=node)
            tell(0, float("nan"))

        def on_epoch(epoch: int, loss: float) -> None:
            check()
            tell(epoch, loss)

        with session.lock:
            data = session.data
            pick = explain_best(session.model, data.x, data.edge_index, candidates, method,
                                labels=data.y, epochs=epochs, seed=seed, on_epoch=on_epoch,
                                on_node=on_node)
        report(Progress(step=total, total=total, loss=float(pick.explanation.loss[-1]),
                        trace=pick))

    yield from _in_thread(work)


def start_jobs(tab: GraphTab, jobs: list[str]) -> list[str]:
    """The jobs a state asks for (``apply_state``), with an explanation of an untrained
    classifier (a tour's step, ``--set explain=1`` or ``explain_best=1``) turned into:
    train it first, then explain (``on_training_stopped``), instead of the refusal the
    button gives."""
    for job in (JOB, PICK_JOB):
        if job in jobs and "node" not in jobs and tab.trained_steps() == 0:
            tab.explain_after_training = job
            return [j for j in jobs if j != job] + ["node"]
    return jobs


def on_training_stopped(tab: GraphTab, completed: bool, failed: bool) -> None:
    """The node classifier's training ended: an explanation asked for before it (see
    ``start_jobs``) starts now if the training ran to its end."""
    waiting, tab.explain_after_training = tab.explain_after_training, ""
    if waiting and completed and not failed and tab.trained_steps() > 0:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, tab, lambda: tab.running() or tab.toggle_job(waiting))


def make_job(tab: GraphTab, name: str = JOB):
    """The job ``name`` (``JOB``: the selected node; ``PICK_JOB``: the node chosen by
    rule), or a clear refusal (``InvalidParameterError``, shown in the tab's error
    note)."""
    p, e = tab.params(), tab.explain_form.values()
    session = tab.current_session()
    if session is None or tab.trained_steps() == 0:
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "Train the node classifier first: an untrained model's "
            "predictions have nothing to explain."))
    node = int(p["node"])
    if name == JOB and not 0 <= node < int(session.data.num_nodes):
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "Select a node first: click it on the graph."))
    if e["explain_method"] == "attention" and p["model"] != "gat":
        raise InvalidParameterError(QCoreApplication.translate(
            "GraphTab", "The attention explanation needs a GAT: choose GAT and train it, "
            "or use GNNExplainer."))
    if name == PICK_JOB:                # the node is known at the end (``on_progress``)
        tab.explain_pending = (tab._session_key(), None, tab.trained_steps())
        return partial(_pick_job, session, e["explain_method"], e["explain_epochs"],
                       p["seed"])
    tab.explain_pending = explanation_key(tab, node)
    return partial(_job, session, node, e["explain_method"], e["explain_epochs"],
                   p["seed"])


def job_text(progress) -> str:
    m = progress.metrics
    if progress.trace is None and "count" in m:
        return QCoreApplication.translate(
            "GraphTab", "Explaining the {0} correctly predicted test nodes: node {1} "
            "({2}/{0}) · epoch {3}/{4}").format(m["count"], m["node"], m["index"],
                                                m["epoch"], m["epochs"])
    if progress.trace is None:
        return QCoreApplication.translate(
            "GraphTab", "GNNExplainer: epoch {0}/{1} · loss {2:.3f}").format(
            progress.step, progress.total, progress.loss)
    return QCoreApplication.translate("GraphTab", "Explanation ready")


def on_progress(tab: GraphTab, progress) -> None:
    trace = progress.trace
    if isinstance(trace, ExplanationPick):
        session_key, _, steps = tab.explain_pending
        key = (session_key, trace.node, steps)
        tab.explanation = (key, trace.explanation)
        tab.explanation_pick = (key, trace)
        tab.show_form.set_values({"node": trace.node})      # select the node chosen
        redraw(tab)
        show_readout(tab)
    elif trace is not None:
        tab.explanation = (tab.explain_pending, trace)
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


def threshold_rule(x) -> str:
    """How the explanation's edges were cut from the mask, said as the readout says it:
    the method's threshold (``options.THRESHOLDS``) when the marked edges are exactly
    those it gives, else "the top k" (attention; an older session file's top edges)."""
    kind, value = THRESHOLDS.get(x.method, ("", 0))
    if kind == "hard" and np.array_equal(x.explanation_edges, x.edge_mask > value):
        return QCoreApplication.translate("GraphTab", "mask > {0:g}").format(value)
    return QCoreApplication.translate("GraphTab", "the top {0} by importance").format(
        int(x.explanation_edges.sum()))


def _changes(fidelity: float) -> str:
    return QCoreApplication.translate("GraphTab", "changes") if fidelity >= 0.5 \
        else QCoreApplication.translate("GraphTab", "stays the same")


def _meaning(x) -> list[str]:
    """What the fidelities (and a wrong prediction) mean for this explanation."""
    lines = []
    if x.label >= 0 and x.predicted != x.label:
        lines.append(QCoreApplication.translate(
            "GraphTab", "This prediction is wrong: the explanation shows what the model's "
            "error rests on, not the node's community."))
    if x.fidelity_plus < 0.5:
        lines.append(QCoreApplication.translate(
            "GraphTab", "Fidelity+ 0 means these edges were not needed: the model predicts "
            "the same without them, so they do not show why it decided."))
    if x.fidelity_minus >= 0.5:
        lines.append(QCoreApplication.translate(
            "GraphTab", "Fidelity− 1 means these edges alone do not give the prediction."))
    if x.fidelity_plus >= 0.5 and x.fidelity_minus < 0.5:
        lines.append(QCoreApplication.translate(
            "GraphTab", "Fidelity+ 1 and fidelity− 0: the prediction needs these edges, "
            "and they suffice for it."))
    return lines


def readout(tab: GraphTab) -> str:
    x = current(tab)
    if x is None:
        return QCoreApplication.translate(
            "GraphTab", "No explanation yet: train the classifier, click a node, press "
            "“Explain”.")
    k = int(x.explanation_edges.sum())
    node = tab.result.doc.node_ids[x.node] if tab.result is not None else x.node
    lines = [QCoreApplication.translate(
        "GraphTab", "{0} for node {1}: predicted class “{2}”").format(
        method_name(x.method), node, class_name(tab, x.predicted)) + (
        "" if x.label < 0 else QCoreApplication.translate(
            "GraphTab", " (its label: “{0}”)").format(class_name(tab, x.label)))]
    pick = current_pick(tab)
    if pick is not None:
        at = pick.candidates.index(pick.node)
        lines.append(QCoreApplication.translate(
            "GraphTab", "Node chosen by rule among the {0} correctly predicted test nodes: "
            "the largest fidelity+ − fidelity− ({1:+.0f}, reached by {2}), ties broken by "
            "the largest drop of the predicted class's probability without the "
            "explanation (here {3:.2f}).").format(
            len(pick.candidates), pick.gaps[at], pick.best_count, pick.drops[at]))
    lines += [
        QCoreApplication.translate(
            "GraphTab", "The explanation: {0} edges ({1}), of the {2} edges (each "
            "direction counted) with any importance.").format(
            k, threshold_rule(x), int((x.edge_mask > 0).sum())),
        QCoreApplication.translate(
            "GraphTab", "Fidelity+ {0:.0f}: without those {1} edges the prediction "
            "{2}.").format(x.fidelity_plus, k, _changes(x.fidelity_plus)),
        QCoreApplication.translate(
            "GraphTab", "Fidelity− {0:.0f}: with only those edges the prediction "
            "{1}.").format(x.fidelity_minus, _changes(x.fidelity_minus)),
        *_meaning(x),
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
    rule = threshold_rule(x)
    tab.canvas.set_overlay_edges(x.edge_index.T[top], x.edge_mask[top],
                                 title=QCoreApplication.translate(
                                     "GraphTab", "the explanation ({0})").format(rule))
    tab.view("graph").panel.set_readout(QCoreApplication.translate(   # the count first
        "GraphTab", "dashed: the explanation, {1} edges ({2}); width and colour of each "
        "edge: {0}'s importance").format(method_name(x.method), int(top.sum()), rule))
    return True


def redraw(tab: GraphTab) -> None:
    tab.explain_readout.setText(readout(tab))
    if tab.result is not None:
        tab.redraw_edges()


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
