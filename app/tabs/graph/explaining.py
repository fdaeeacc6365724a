"""The graph tab's explanations as a panel: the "Explain a prediction" control group
(method, GNNExplainer's epochs, Explain/Stop), the "explain" job's parts (made, reported)
run in the tab's ``JobRunner`` and the readout (prediction, fidelity, probabilities, the
feature mask as bars); the edge mask is drawn by the graph view (``views.graph``), which
the tab hands ``current()``.

An explanation belongs to one node of one trained classifier: it is kept with the
session key, the node and the epochs trained (``explanation``) and shown only while
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

The panel sees the tab through ``ExplanationHost``; it asks for a job with ``toggled``,
selects the node it chose with ``node_chosen`` and says with ``changed`` that the
explanation shown changed (the tab draws the graph's edges again).
"""

from __future__ import annotations

import html
import queue
import threading
from functools import partial
from typing import Protocol

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton

from app.tabs.graph.params import EXPLAIN_PARAMS
from app.tabs.graph.views.graph import method_name, threshold_rule
from models.errors import InvalidParameterError
from models.explain.options import METHODS, ExplanationPick
from models.traces import Progress
from viz.controls import ParamForm
from viz.theme import muted_style

__all__ = ["ExplanationPanel", "ExplanationHost", "JOB", "PICK_JOB"]

translate = QCoreApplication.translate

JOB = "explain"
#: the job that explains the correctly predicted test nodes and shows the best one
PICK_JOB = "explain_best"
#: features listed in the readout's bars
TOP_FEATURES = 5
BAR_COLOUR = "#4c72b0"
BAR_PX = 90
#: the wait before the readout is scrolled into view (see ``show_readout``)
READOUT_SETTLE_MS = 250


class ExplanationHost(Protocol):
    """What the panel asks of the tab."""

    torch_ready: bool
    result: object                           # the GraphResult drawn, or None

    def request(self): ...                   # the tab's GraphRequest
    def session_key(self) -> tuple: ...
    def trained_steps(self) -> int: ...
    def current_session(self): ...
    def document(self): ...
    def running(self) -> str: ...
    def job_button_text(self, job: str, idle: str) -> str: ...
    def ensure_visible(self, widget) -> None: ...


# -- the jobs, each in a thread of its own -------------------------------------------
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
            raise InvalidParameterError(translate(
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


# -- the readout's parts ----------------------------------------------------------------
def feature_names(doc, count: int) -> list[str]:
    """A name per input feature column, as ``models.graphs.features`` builds them: the
    identity (one column per node), one-hot degree, or the chosen attributes (a number
    each, or one column per value of a categorical one)."""
    names: list[str] = []
    if not doc.feature_attrs:
        if count == doc.num_nodes:
            names = [translate("GraphTab", "identity of node {0}").format(n)
                     for n in doc.node_ids]
        else:
            names = [translate("GraphTab", "degree {0}").format(d)
                     for d in range(count)]
    else:
        for name in doc.feature_attrs:
            if doc.node_attributes[name].dtype.kind == "f":
                names.append(name)
            else:
                names += [f"{name} = {value}" for value in doc.categorical(name)[1]]
    if len(names) != count:
        names = [translate("GraphTab", "feature {0}").format(i)
                 for i in range(count)]
    return names


def feature_bars(doc, mask: np.ndarray) -> str:
    """The feature mask's largest entries as bars (rich text: a table, one row each)."""
    if mask.size == 0:
        return html.escape(translate(
            "GraphTab", "No feature mask: the attention explanation weighs edges only."))
    names = feature_names(doc, mask.size)
    top = np.argsort(-mask, kind="stable")[:TOP_FEATURES]
    peak = float(max(mask.max(), 1e-6))
    rows = "".join(
        f'<tr><td><table cellspacing="0" cellpadding="0"><tr>'
        f'<td bgcolor="{BAR_COLOUR}" width="{max(2, round(BAR_PX * float(mask[i]) / peak))}"'
        f' height="9"></td></tr></table></td>'
        f'<td>&nbsp;{html.escape(names[i])}</td><td align="right">&nbsp;{mask[i]:.2f}</td>'
        f'</tr>' for i in top)
    return html.escape(translate(
        "GraphTab", "Feature mask (the features the prediction relies on most):")) + \
        f'<table cellspacing="1" cellpadding="0">{rows}</table>'


def _changes(fidelity: float) -> str:
    return translate("GraphTab", "changes") if fidelity >= 0.5 \
        else translate("GraphTab", "stays the same")


def _meaning(x) -> list[str]:
    """What the fidelities (and a wrong prediction) mean for this explanation."""
    lines = []
    if x.label >= 0 and x.predicted != x.label:
        lines.append(translate(
            "GraphTab", "This prediction is wrong: the explanation shows what the model's "
            "error rests on, not the node's community."))
    if x.fidelity_plus < 0.5:
        lines.append(translate(
            "GraphTab", "Fidelity+ 0 means these edges were not needed: the model predicts "
            "the same without them, so they do not show why it decided."))
    if x.fidelity_minus >= 0.5:
        lines.append(translate(
            "GraphTab", "Fidelity− 1 means these edges alone do not give the prediction."))
    if x.fidelity_plus >= 0.5 and x.fidelity_minus < 0.5:
        lines.append(translate(
            "GraphTab", "Fidelity+ 1 and fidelity− 0: the prediction needs these edges, "
            "and they suffice for it."))
    return lines


class ExplanationPanel(QObject):
    toggled = Signal(str)          # start or stop a job (``JOB``, ``PICK_JOB``, "node")
    node_chosen = Signal(int)      # ``PICK_JOB`` chose this node: select it
    changed = Signal()             # the explanation shown changed: the edges again

    def __init__(self, host: ExplanationHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.explanation = None         # (key, NodeExplanation) of the last explanation
        self.pick = None                # (key, ExplanationPick) when explain_best chose it
        self.pending = None             # the key of the explanation being computed
        self.after_training = ""        # the job to run once the training running now ends
        self.form = form = ParamForm(EXPLAIN_PARAMS)
        form.setObjectName("ExplainForm")
        self.button = QPushButton()
        self.button.setObjectName("ExplainButton")
        self.button.clicked.connect(lambda: self.toggled.emit(JOB))
        form.layout().addRow(self.button)
        self.readout = QLabel()
        self.readout.setObjectName("ExplainReadout")
        self.readout.setWordWrap(True)
        self.readout.setTextFormat(Qt.TextFormat.RichText)   # the feature mask's bars
        self.readout.setStyleSheet(muted_style())
        form.layout().addRow(self.readout)
        form.changed.connect(self._method_changed)
        self._method_changed()

    def _method_changed(self) -> None:
        method = self.form.values()["explain_method"]
        self.form.set_visible_rows(
            {"explain_method"} | ({"explain_epochs"} if method == "gnnexplainer" else set()))

    def values(self) -> dict:
        return self.form.values()

    def apply_state(self, state: dict) -> list[str]:
        return self.form.set_values(state)

    # -- what is shown ---------------------------------------------------------------------
    def key(self, node: int) -> tuple:
        """What an explanation of ``node`` belongs to: the classifier, the node, its
        epochs trained."""
        return self.host.session_key(), int(node), self.host.trained_steps()

    def current(self):
        """The explanation of the selected node by the classifier shown, or None."""
        if self.explanation is None:
            return None
        key, explanation = self.explanation
        return explanation if key == self.key(self.host.request().node) else None

    def current_pick(self) -> ExplanationPick | None:
        """How ``explain_best`` chose the explanation shown, if it did."""
        x = self.current()
        if x is None or self.pick is None:
            return None
        key, pick = self.pick
        return pick if pick.explanation is x and key == self.explanation[0] else None

    # -- the jobs --------------------------------------------------------------------------
    def start_jobs(self, jobs: list[str]) -> list[str]:
        """The jobs a state asks for (``apply_state``), with an explanation of an
        untrained classifier (a tour's step, ``--set explain=1`` or ``explain_best=1``)
        turned into: train it first, then explain (``on_training_stopped``), instead of
        the refusal the button gives."""
        for job in (JOB, PICK_JOB):
            if job in jobs and "node" not in jobs and self.host.trained_steps() == 0:
                self.after_training = job
                return [j for j in jobs if j != job] + ["node"]
        return jobs

    def on_training_stopped(self, completed: bool, failed: bool) -> None:
        """The node classifier's training ended: an explanation asked for before it (see
        ``start_jobs``) starts now if the training ran to its end."""
        waiting, self.after_training = self.after_training, ""
        if waiting and completed and not failed and self.host.trained_steps() > 0:
            QTimer.singleShot(0, self, lambda: self.host.running() or
                              self.toggled.emit(waiting))

    def make_job(self, name: str = JOB):
        """The job ``name`` (``JOB``: the selected node; ``PICK_JOB``: the node chosen by
        rule), or a clear refusal (``InvalidParameterError``, shown in the tab's error
        note)."""
        ask, e = self.host.request(), self.form.values()
        session = self.host.current_session()
        if session is None or self.host.trained_steps() == 0:
            raise InvalidParameterError(translate(
                "GraphTab", "Train the node classifier first: an untrained model's "
                "predictions have nothing to explain."))
        node = int(ask.node)
        if name == JOB and not 0 <= node < int(session.data.num_nodes):
            raise InvalidParameterError(translate(
                "GraphTab", "Select a node first: click it on the graph."))
        if e["explain_method"] == "attention" and ask.model != "gat":
            raise InvalidParameterError(translate(
                "GraphTab", "The attention explanation needs a GAT: choose GAT and train "
                "it, or use GNNExplainer."))
        if name == PICK_JOB:                # the node is known at the end (``on_progress``)
            self.pending = (self.host.session_key(), None, self.host.trained_steps())
            return partial(_pick_job, session, e["explain_method"], e["explain_epochs"],
                           ask.seed)
        self.pending = self.key(node)
        return partial(_job, session, node, e["explain_method"], e["explain_epochs"],
                       ask.seed)

    @staticmethod
    def job_text(progress) -> str:
        m = progress.metrics
        if progress.trace is None and "count" in m:
            return translate(
                "GraphTab", "Explaining the {0} correctly predicted test nodes: node {1} "
                "({2}/{0}) · epoch {3}/{4}").format(m["count"], m["node"], m["index"],
                                                    m["epoch"], m["epochs"])
        if progress.trace is None:
            return translate(
                "GraphTab", "GNNExplainer: epoch {0}/{1} · loss {2:.3f}").format(
                progress.step, progress.total, progress.loss)
        return translate("GraphTab", "Explanation ready")

    def on_progress(self, progress) -> None:
        trace = progress.trace
        if isinstance(trace, ExplanationPick):
            session_key, _, steps = self.pending
            key = (session_key, trace.node, steps)
            self.explanation = (key, trace.explanation)
            self.pick = (key, trace)
            self.node_chosen.emit(trace.node)       # select the node chosen
            self.redraw()
            self.show_readout()
        elif trace is not None:
            self.explanation = (self.pending, trace)
            self.redraw()
            self.show_readout()

    def show_readout(self) -> None:
        """The fidelities and the feature bars, below the Explain button, scrolled into
        view (a tour's step starts the explanation with the column at its top). After a
        short wait: the readout takes the height of its new text over a few layout passes
        (form, column, scroll area), and scrolled at once only its first line came into
        view."""
        QTimer.singleShot(READOUT_SETTLE_MS, self,
                          lambda: self.host.ensure_visible(self.readout))

    # -- the readout -----------------------------------------------------------------------
    def _class_name(self, c: int) -> str:
        result = self.host.result
        names = list(result.doc.label_names) if result is not None else []
        return names[c] if 0 <= c < len(names) else str(c)

    def text(self) -> str:
        x = self.current()
        if x is None:
            return translate(
                "GraphTab", "No explanation yet: train the classifier, click a node, press "
                "“Explain”.")
        k = int(x.explanation_edges.sum())
        result = self.host.result
        node = result.doc.node_ids[x.node] if result is not None else x.node
        lines = [translate(
            "GraphTab", "{0} for node {1}: predicted class “{2}”").format(
            method_name(x.method), node, self._class_name(x.predicted)) + (
            "" if x.label < 0 else translate(
                "GraphTab", " (its label: “{0}”)").format(self._class_name(x.label)))]
        pick = self.current_pick()
        if pick is not None:
            at = pick.candidates.index(pick.node)
            lines.append(translate(
                "GraphTab", "Node chosen by rule among the {0} correctly predicted test "
                "nodes: the largest fidelity+ − fidelity− ({1:+.0f}, reached by {2}), ties "
                "broken by the largest drop of the predicted class's probability without "
                "the explanation (here {3:.2f}).").format(
                len(pick.candidates), pick.gaps[at], pick.best_count, pick.drops[at]))
        lines += [
            translate(
                "GraphTab", "The explanation: {0} edges ({1}), of the {2} edges (each "
                "direction counted) with any importance.").format(
                k, threshold_rule(x), int((x.edge_mask > 0).sum())),
            translate(
                "GraphTab", "Fidelity+ {0:.0f}: without those {1} edges the prediction "
                "{2}.").format(x.fidelity_plus, k, _changes(x.fidelity_plus)),
            translate(
                "GraphTab", "Fidelity− {0:.0f}: with only those edges the prediction "
                "{1}.").format(x.fidelity_minus, _changes(x.fidelity_minus)),
            *_meaning(x),
            translate(
                "GraphTab", "Probability of the predicted class: whole graph {0:.2f}, the "
                "explanation only {1:.2f}, everything but it {2:.2f}.").format(
                x.prob_full, x.prob_explanation, x.prob_complement),
        ]
        return "<br>".join(html.escape(line) for line in lines) + "<br>" + \
            feature_bars(self.host.document(), x.feature_mask)

    def redraw(self) -> None:
        """The readout, and the graph's edges (``changed``)."""
        self.readout.setText(self.text())
        self.changed.emit()

    def retranslate(self) -> None:
        form = self.form
        form.setTitle(translate("GraphTab", "Explain a prediction"))
        form.set_texts({"explain_method": translate("GraphTab", "Method"),
                        "explain_epochs": translate("GraphTab", "GNNExplainer epochs")},
                       {"explain_method": [method_name(m) for m in METHODS]})
        self.button.setToolTip(translate(
            "GraphTab", "Why did the trained classifier predict this class for the selected "
            "node? The important edges are drawn on the graph"))
        self.readout.setText(self.text())

    def update_button(self) -> None:
        self.button.setText(self.host.job_button_text(JOB, translate("GraphTab", "Explain")))
        self.button.setEnabled(self.host.torch_ready)
