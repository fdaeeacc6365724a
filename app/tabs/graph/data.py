"""Export data of the graph tab's views: the arrays behind each view, from what the tab
holds (its ``GraphResult``, the training histories and the comparisons)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab


def node_name(tab: GraphTab, i: int) -> str:
    """Node ``i``'s id in the drawn graph (its index when there is none)."""
    r = tab.result
    if r is None or not 0 <= i < len(r.doc.node_ids):
        return str(i)
    return r.doc.node_ids[i]


def graph_data(tab: GraphTab) -> ViewData | None:
    r = tab.result
    if r is None:
        return None
    doc, node = r.doc, r.node
    table = np.column_stack([r.pos, doc.labels, node.predictions, doc.degree]
                            ).astype(np.float32)
    return ViewData("nodes", {"nodes": table, "edges": doc.edges},
                    {"graph": r.name, "directed": doc.directed},
                    row_labels=list(doc.node_ids),
                    col_labels=["x", "y", "label", "prediction", "degree"])


def messages_data(tab: GraphTab) -> ViewData | None:
    m = tab.result.message if tab.result is not None else None
    if m is None:
        return None
    return ViewData("messages", {"messages": m.messages, "aggregate": m.aggregate,
                                 "update": m.update, "coefficients": m.coefficients},
                    {"node": int(m.node), "layer": int(m.layer) + 1,
                     "aggregation": m.aggregation},
                    row_labels=[node_name(tab, int(j)) for j in m.neighbors])


def embedding_data(tab: GraphTab) -> ViewData | None:
    r = tab.result
    if r is None:
        return None
    return ViewData("embedding", {"embedding": r.node.embedding},
                    {"epoch": int(r.node.epoch)}, row_labels=list(r.doc.node_ids),
                    col_labels=["pc1", "pc2"])


def training_data(tab: GraphTab) -> ViewData | None:
    history = tab.histories.get(tab._session_key())
    node = tab.result.node if tab.result is not None else None
    if not history and node is not None:        # untrained: the one point drawn
        history = [{"epoch": node.epoch, "loss": node.loss, "train_acc": node.train_acc,
                    "val_acc": node.val_acc, "test_acc": node.test_acc}]
    if not history:
        return None
    cols = ["loss", "train_acc", "val_acc", "test_acc"]
    table = np.asarray([[row[c] for c in cols] for row in history], np.float32)
    return ViewData("history", {"history": table}, {"model": tab.params()["model"]},
                    row_labels=[int(row["epoch"]) for row in history], col_labels=cols)


def trained_here(tab: GraphTab) -> tuple[str, int, float] | None:
    """The model the Train button trained on this graph and split, as it is now:
    (its kind, its epoch, its test accuracy); None before its first epoch."""
    history = tab.histories.get(tab._session_key())
    if not history:
        return None
    last = history[-1]
    return tab.params()["model"], int(last["epoch"]), float(last["test_acc"])


def compare_data(tab: GraphTab) -> ViewData | None:
    """The bars drawn: test accuracy per model, untrained, the model trained with
    Train (its kind only) and (once compared) all trained."""
    untrained = tab.result.untrained if tab.result is not None else None
    trained = tab.comparisons.get(tab._compare_key())
    shown = [(name, c.as_dict()) for name, c in (("untrained", untrained),
                                                 ("trained", trained)) if c is not None]
    if not shown:
        return None
    here = trained_here(tab)
    if here is not None:
        shown.insert(1, ("trained_here", {here[0]: here[2]}))
    kinds = [k for k in ("gcn", "sage", "gat", "baseline")
             if any(k in c for _n, c in shown)]
    table = np.array([[c.get(k, np.nan) for _n, c in shown] for k in kinds], np.float32)
    return ViewData("accuracy", {"accuracy": table}, {
        "epochs": tab.params()["epochs"],
        "trained_here_epoch": here[1] if here is not None else 0},
        row_labels=kinds, col_labels=[f"test_accuracy_{n}" for n, _c in shown])


def batch_data(tab: GraphTab) -> ViewData | None:
    b = tab.result.batch if tab.result is not None else None
    if b is None:
        return None
    return ViewData("adjacency", {"adjacency": b.adjacency, "batch": b.batch, "ptr": b.ptr},
                    {"graphs": int(len(b.ptr) - 1)})


def pooled_data(tab: GraphTab) -> ViewData | None:
    g = tab.result.graphs if tab.result is not None else None
    if g is None:
        return None
    return ViewData("pooled", {"pooled": g.embedding, "predictions": g.predictions,
                               "labels": g.labels}, {"pooling": g.pooling},
                    col_labels=["pc1", "pc2"])


def links_data(tab: GraphTab) -> ViewData | None:
    link = tab.result.link if tab.result is not None else None
    if link is None:
        return None
    return ViewData("roc", {"roc": link.roc, "top_pairs": link.top_pairs,
                            "top_scores": link.top_scores},
                    {"test_auc": link.test_auc, "val_auc": link.val_auc},
                    col_labels=["false_positive_rate", "true_positive_rate"])
