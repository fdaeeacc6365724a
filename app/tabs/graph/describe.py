"""The graph's description under the attribute box, in the tab's language: its size, its
features, where the built-in data sets' labels come from and what reading it noticed.

``models.graphs`` words these in English inside the document (``summary()``,
``features_note``, ``warnings``); here they are worded again from the document's own
fields, so the sentence frame is translated while the data's names (attribute names,
their values) stay as they are, quoted. A warning about a user's file that is not worded
here (reader-specific notes) is shown as the reader wrote it.
"""

from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import QCoreApplication

#: English warnings of models.graphs that ``describe_document`` words itself
_WORDED_HERE = re.compile(
    r"^(Labels \(|\d+ self-loops? kept|\d+ isolated nodes? |Node ids are not integers"
    r"|Directed graph:|\d+ parallel edges? merged)")


def _quoted(name: str) -> str:
    return f"“{name}”"


def size_sentence(doc) -> str:
    """``34 nodes, 78 edges, undirected, weighted, 2 attributes.``"""
    n, e, k = doc.num_nodes, doc.num_edges, len(doc.node_attributes)
    parts = [(QCoreApplication.translate("GraphTab", "{0} node") if n == 1 else QCoreApplication.translate("GraphTab", "{0} nodes")).format(n),
             (QCoreApplication.translate("GraphTab", "{0} edge") if e == 1 else QCoreApplication.translate("GraphTab", "{0} edges")).format(e),
             QCoreApplication.translate("GraphTab", "directed") if doc.directed else QCoreApplication.translate("GraphTab", "undirected")]
    if doc.edge_weight is not None:
        parts.append(QCoreApplication.translate("GraphTab", "weighted"))
    parts.append((QCoreApplication.translate("GraphTab", "{0} attribute") if k == 1 else QCoreApplication.translate("GraphTab", "{0} attributes")).format(k))
    return QCoreApplication.translate("GraphTab", "{0}.").format(QCoreApplication.translate("GraphTab", ", ").join(parts))


def feature_sentence(doc) -> str:
    """Which features the models get: identity, one-hot degree, or the chosen attributes."""
    columns = int(doc.data.num_features)
    if not doc.feature_attrs:
        if columns == doc.num_nodes and doc.num_nodes <= 64:
            return QCoreApplication.translate("GraphTab", "No feature attributes: identity features (one column per node, "
                      "{0} columns).").format(columns)
        if doc.num_nodes and int(doc.degree.max()) >= 64:
            return QCoreApplication.translate("GraphTab", "No feature attributes: one-hot degree features ({0} columns, degree "
                      "capped at 63).").format(columns)
        return QCoreApplication.translate("GraphTab", "No feature attributes: one-hot degree features ({0} columns).").format(
            columns)
    described = []
    for name in doc.feature_attrs:
        column = doc.node_attributes[name]
        if column.dtype.kind == "f":
            described.append(_quoted(name))
        else:
            described.append(QCoreApplication.translate("GraphTab", "{0} (one-hot, {1})").format(
                _quoted(name), len(doc.categorical(name)[1])))
    shown = QCoreApplication.translate("GraphTab", ", ").join(described[:6]) + (QCoreApplication.translate("GraphTab", ", …") if len(described) > 6 else "")
    return QCoreApplication.translate("GraphTab", "Features from {0} attributes ({1} columns): {2}.").format(
        len(doc.feature_attrs), columns, shown)


def label_sentence(dataset: str, seed: int) -> str:
    """Where a built-in data set's labels come from ("" for a file)."""
    if dataset == "karate":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): the 4 communities of PyG's KarateClub; {1} is the split "
                  "after the conflict (2 classes).").format(_quoted("community"),
                                                            _quoted("club"))
    if dataset in ("les_miserables", "florentine"):
        return QCoreApplication.translate("GraphTab", "Labels ({0}) are Louvain communities found by networkx (weighted, "
                  "seed = {1}); they are not part of the data set.").format(
                      _quoted("community"), seed)
    if dataset == "davis":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): the side of the bipartite graph ({1} or {2}).").format(
            _quoted("bipartite"), _quoted("woman"), _quoted("event"))
    if dataset == "sbm":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): the block of the stochastic block model each node was "
                  "drawn in.").format(_quoted("block"))
    if dataset == "ba_house":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): 0 base graph, 1 house top, 2 house middle, 3 house "
                  "bottom, as in GNNExplainer's BA-Shapes.").format(_quoted("role"))
    if dataset == "grid":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): the quarter of the grid a node lies in.").format(
            _quoted("quadrant"))
    if dataset == "football":
        return QCoreApplication.translate("GraphTab", "American college football, fall 2000 "
                  "(Girvan and Newman): 115 teams, an edge per game. Labels ({0}): the 12 "
                  "groups of Gephi's file, most likely a fitted block model, not the "
                  "conferences.").format(_quoted("partition"))
    if dataset == "geometric":
        return QCoreApplication.translate("GraphTab", "Labels ({0}): which quarter of the unit square's width the node lies "
                  "in (x-coordinate bucket, 4 classes).").format(_quoted("region"))
    return ""


def structure_sentences(doc) -> list[str]:
    """Self-loops, isolated nodes, non-integer ids, direction, merged parallel edges."""
    out = []
    if doc.multigraph_collapsed:
        out.append(QCoreApplication.translate("GraphTab", "{0} parallel edges merged into one each (other edge attributes "
                      "from the first edge).").format(doc.multigraph_collapsed))
    edges = doc.edges
    loops = int(np.sum(edges[:, 0] == edges[:, 1])) if len(edges) else 0
    if loops:
        out.append(QCoreApplication.translate("GraphTab", "{0} self-loops kept.").format(loops))
    isolated = doc.num_nodes - (len(np.unique(edges)) if len(edges) else 0)
    if isolated:
        out.append(QCoreApplication.translate("GraphTab", "{0} isolated nodes (no edges).").format(isolated))
    if not all(s.isdigit() for s in doc.node_ids[:1000]):
        out.append(QCoreApplication.translate("GraphTab", "Node ids are not integers: node i of the tensors is the i-th node "
                      "of the file (see node_ids)."))
    if doc.directed:
        out.append(QCoreApplication.translate("GraphTab", "Directed graph: data.edge_index keeps the direction as read "
                      "(messages flow source → target); data.edge_index_undirected is the "
                      "symmetric version."))
    return out


def describe_document(doc, dataset: str, seed: int = 0) -> str:
    """The whole note: size, features, labels, structure, then the reader's own notes."""
    parts = [size_sentence(doc), feature_sentence(doc)]
    parts += [label_sentence(dataset, seed), *structure_sentences(doc)]
    parts += [w for w in doc.warnings if not _WORDED_HERE.match(w)]
    return " ".join(p for p in parts if p)


def job_text(name: str, progress) -> str:
    """The bottom bar's line for the graph tab's job ``name`` at ``progress``."""
    from app.tabs.graph import communities, depth, explaining

    m = progress.metrics
    if name == communities.JOB:
        return communities.CommunitiesPanel.job_text(progress)
    if name in (explaining.JOB, explaining.PICK_JOB):
        return explaining.ExplanationPanel.job_text(progress)
    if name == depth.JOB:
        return depth.DepthPanel.job_text(progress)
    if name == "compare":
        return QCoreApplication.translate("GraphTab", "Comparing: {0}").format(progress.message)
    if name == "node":
        return QCoreApplication.translate(
            "GraphTab", "Training: epoch {0} · loss {1:.3f} · val {2:.2f} · test {3:.2f} "
            "· {4:.0f} epochs/s").format(
            progress.step, progress.loss, m.get("val_acc", float("nan")),
            m.get("test_acc", float("nan")), m.get("epochs_per_s", float("nan")))
    if name == "graphs":
        return QCoreApplication.translate(
            "GraphTab", "Graph classifier: epoch {0} · loss {1:.3f} · test {2:.2f}").format(
            progress.step, progress.loss, m.get("test_acc", float("nan")))
    return QCoreApplication.translate(
        "GraphTab", "Link predictor: epoch {0} · loss {1:.3f} · test AUC {2:.3f}").format(
        progress.step, progress.loss, m.get("test_auc", float("nan")))
