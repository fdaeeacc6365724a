"""The node classifier's views: its loss and accuracies while it trains, and the
comparison of GCN, GraphSAGE, GAT and a baseline on one split. Both see a
``TrainingShown``: the tab's result, the classifier's evaluations so far and the trained
comparison of this split (None before "Compare" ran)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.graphs.options import GraphRequest
from models.traces.graphs import GraphResult
from viz.plots import CurvesPlot, GroupedBarsPlot

translate = QCoreApplication.translate

__all__ = ["TrainingShown", "TrainingView", "CompareView"]

_COLUMNS = ("epoch", "loss", "train_acc", "val_acc", "test_acc")


@dataclass(frozen=True)
class TrainingShown:
    """The result drawn, the node classifier's evaluations so far (dicts of epoch, loss
    and the three accuracies; empty before its first epoch) and the comparison trained on
    this split (a ``ModelComparison``, or None)."""

    result: GraphResult
    history: tuple[dict, ...] = ()
    trained: Any = None

    def points(self) -> list[dict]:
        """The evaluations drawn: the history, or the model as initialised (one point)."""
        if self.history:
            return list(self.history)
        node = self.result.node
        return [{"epoch": node.epoch, "loss": node.loss, "train_acc": node.train_acc,
                 "val_acc": node.val_acc, "test_acc": node.test_acc}]

    def trained_here(self, model: str) -> tuple[str, int, float] | None:
        """The model the Train button trained on this graph and split, as it is now:
        (its kind, its epoch, its test accuracy); None before its first epoch."""
        if not self.history:
            return None
        last = self.history[-1]
        return model, int(last["epoch"]), float(last["test_acc"])


class TrainingView(TabView):
    key = "training"

    def build(self) -> CurvesPlot:
        plot = CurvesPlot(legend="bottom-right")
        plot.legend.setColumnCount(2)         # short: the curves end up there
        return plot

    def title(self) -> str:
        return translate("GraphTab", "Node classification: loss and accuracy")

    def draw(self, shown: TrainingShown, ask: GraphRequest) -> None:
        node, plot = shown.result.node, self.plot
        untrained = not shown.history
        labelled = bool((shown.result.doc.labels >= 0).any())
        # the model as initialised: one point per curve at its epoch
        history = shown.points() if shown.history or labelled else []
        h = {k: np.asarray([row[k] for row in history], np.float32).reshape(-1)
             for k in _COLUMNS}
        names = [translate("GraphTab", "loss"), translate("GraphTab", "train accuracy"),
                 translate("GraphTab", "validation accuracy"),
                 translate("GraphTab", "test accuracy")]
        plot.set_curves(
            [h["epoch"]] * 4 if history else [],
            [h["loss"], h["train_acc"], h["val_acc"], h["test_acc"]] if history else [],
            names if history else [], symbols=["o"] * 4 if untrained else (),
            right=[False, True, True, True])         # two quantities: two axes
        plot.set_axis_labels(translate("GraphTab", "epoch"), translate("GraphTab", "loss"),
                             translate("GraphTab", "accuracy"))
        plot.set_hint("")
        if untrained:             # what to press under the plot, the plot keeps to the data
            self.set_readout(translate(
                "GraphTab", "Untrained (epoch {0}): press “Train”.").format(node.epoch)
                if labelled else
                translate("GraphTab", "No labels: choose a label attribute to train."))
            top = max(1.0, float(np.nanmax([node.loss, 1.0])) * 1.1)
            plot.plotItem.setXRange(node.epoch, node.epoch + ask.epochs, padding=0.02)
            plot.plotItem.setYRange(0.0, top, padding=0.02)
        else:
            last = history[-1]
            self.set_readout(translate(
                "GraphTab", "epoch {0}: loss {1:.3f} · test accuracy {2:.2f}").format(
                    int(last["epoch"]), last["loss"], last["test_acc"]))

    def data(self) -> ViewData | None:
        shown = self.trace
        if shown is None:
            return None
        history = shown.points()
        cols = ["loss", "train_acc", "val_acc", "test_acc"]
        table = np.asarray([[row[c] for c in cols] for row in history], np.float32)
        return ViewData("history", {"history": table}, {"model": self.request.model},
                        row_labels=[int(row["epoch"]) for row in history], col_labels=cols)


def _names() -> dict[str, str]:
    return {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT",
            "baseline": translate("GraphTab", "baseline")}


class CompareView(TabView):
    """Test accuracy of the three models and the baseline: as initialised (computed with
    the graph) and, once "Compare" ran on this split, after training."""

    key = "compare"

    def build(self) -> GroupedBarsPlot:
        return GroupedBarsPlot()

    def title(self) -> str:
        return translate("GraphTab", "GCN, GraphSAGE, GAT and a baseline on one split")

    def draw(self, shown: TrainingShown, ask: GraphRequest) -> None:
        trained, result = shown.trained, shown.result
        untrained = result.untrained
        names = _names()
        keys = [k for k in ("gcn", "sage", "gat", "baseline")
                if any(c is not None and k in c.kinds for c in (untrained, trained))]
        series, rows = [], []
        for comparison, name in (
                (untrained, translate("GraphTab", "untrained")),
                (trained, translate("GraphTab", "after {0} epochs").format(ask.epochs))):
            if comparison is not None:
                c = comparison.as_dict()
                series.append(name)
                rows.append([c.get(k, np.nan) for k in keys])
        # the model trained with Train, as it is now (the bars said "untrained" only after
        # 200 epochs of GCN): beside the untrained ones, its kind's bar only
        here = shown.trained_here(ask.model)
        if here is not None and here[0] in keys:
            series.insert(1, translate("GraphTab", "{0} trained, epoch {1}")
                          .format(names[here[0]], here[1]))
            rows.insert(1, [here[2] if k == here[0] else np.nan for k in keys])
        plot = self.plot
        plot.set_bars([names[k] for k in keys],
                      np.array(rows, np.float32).reshape(len(rows), len(keys)), series)
        plot.plotItem.setYRange(0, 1, padding=0.02)
        plot.set_axis_labels("", translate("GraphTab", "test accuracy"))
        baseline = translate("GraphTab", "baseline = nearest labelled node")
        if trained is None:
            if untrained is not None:
                text = translate("GraphTab", "Press “Compare” to train all three on this "
                                 "split.") + " · " + baseline
                if here is not None:
                    text = translate(
                        "GraphTab", "{0} after {1} epochs: test accuracy {2:.2f}.").format(
                        names[here[0]], here[1], here[2]) + " " + text
            elif result.untrained_error:           # e.g. too few labels for a split
                text = result.untrained_error
            elif (result.doc.labels >= 0).any():   # worked out once the tab is seen
                text = translate("GraphTab", "Working out the untrained models' "
                                 "accuracies…")
            else:
                text = translate("GraphTab", "No labels: choose a label attribute to "
                                 "compare.")
            self.set_readout(text)
            return
        c = trained.as_dict()
        self.set_readout("  ".join(f"{names[k]} {c[k]:.2f}" for k in keys if k in c)
                         + " · " + baseline)

    def data(self) -> ViewData | None:
        """The bars drawn: test accuracy per model, untrained, the model trained with
        Train (its kind only) and (once compared) all trained."""
        shown, ask = self.trace, self.request
        if shown is None:
            return None
        shown_series = [(name, c.as_dict()) for name, c in (
            ("untrained", shown.result.untrained), ("trained", shown.trained))
            if c is not None]
        if not shown_series:
            return None
        here = shown.trained_here(ask.model)
        if here is not None:
            shown_series.insert(1, ("trained_here", {here[0]: here[2]}))
        kinds = [k for k in ("gcn", "sage", "gat", "baseline")
                 if any(k in c for _n, c in shown_series)]
        table = np.array([[c.get(k, np.nan) for _n, c in shown_series] for k in kinds],
                         np.float32)
        return ViewData("accuracy", {"accuracy": table}, {
            "epochs": ask.epochs,
            "trained_here_epoch": here[1] if here is not None else 0},
            row_labels=kinds, col_labels=[f"test_accuracy_{n}" for n, _c in shown_series])
