"""``detect_communities``: one call for every method, on a ``GraphDocument``; and the
whole result (``community_result``) or, for the tab, the same run as a generator of
``Progress`` whose last item carries the ``CommunityResult`` (``community_job``).

Every method sees the graph ``partition.undirected_edges`` gives (undirected, positive
weights). Labels are renumbered 0..k-1 by community size, largest first.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import numpy as np

from models.community import classical
from models.community.options import DEFAULT_EPOCHS, METHODS
from models.community.partition import (
    modularity_of_edges,
    nmi,
    renumber_by_size,
    undirected_edges,
)
from models.errors import InvalidParameterError
from models.traces import Progress
from models.traces.community import CommunityResult

__all__ = ["detect_communities", "community_result", "community_job"]

#: the options each method takes (besides ``seed``)
OPTIONS = {
    "louvain": {"resolution"},
    "label_propagation": set(),
    "spectral": {"k", "restarts"},
    "dmon": {"k", "epochs", "hidden", "layers", "lr", "dropout", "collapse", "features",
             "device"},
}


def _check(doc, method: str, options: dict) -> None:
    if method not in METHODS:
        raise InvalidParameterError(f"Unknown community detection method {method!r}; "
                                    f"choose one of {', '.join(METHODS)}.")
    unknown = set(options) - OPTIONS[method]
    if unknown:
        raise InvalidParameterError(
            f"{method} takes no option {', '.join(sorted(unknown))}; it takes "
            f"{', '.join(sorted(OPTIONS[method])) or 'none'}.")
    if doc.num_nodes == 0:
        raise InvalidParameterError("The graph has no nodes.")


def community_job(doc, method: str = "louvain", seed: int = 0, nmi_attribute: str = "",
                  **options) -> Iterator[Progress]:
    """The run as the tab shows it: for DMoN a ``Progress`` per epoch (loss, its history,
    the hard assignment's modularity), for the others one at the start; the last item
    carries the ``CommunityResult`` (NMI against ``nmi_attribute`` when one is named).

    DMoN's k = 0 (the default) takes the eigengap's choice, as spectral clustering does.
    """
    _check(doc, method, options)
    if nmi_attribute and nmi_attribute not in doc.node_attributes:
        raise InvalidParameterError(f"The graph has no node attribute {nmi_attribute!r}.")
    n = doc.num_nodes
    edges, weight = undirected_edges(doc)
    start = time.perf_counter()
    soft = loss = loss_mod = None
    k_rule = ""
    if method == "dmon":
        from models.community.dmon import train_dmon

        k = int(options.pop("k", 0))
        k_rule = "option"
        if k == 0:
            values, _ = classical.spectral_embedding(n, edges, weight,
                                                     min(n, classical.MAX_K + 1))
            k, k_rule = max(2, classical.eigengap_k(values)), "eigengap"
        options.setdefault("epochs", DEFAULT_EPOCHS)
        outcome = None
        for progress in train_dmon(doc, edges, weight, k, seed=seed, **options):
            if progress.trace is not None:
                outcome = progress.trace
            else:
                yield progress
        if outcome is None:
            return
        raw, k_asked = outcome.labels, outcome.k
        # the soft columns in the order of the renumbered labels; empty ones dropped
        labels = renumber_by_size(raw)
        k = int(labels.max()) + 1
        column_of = np.zeros(k, np.int64)
        column_of[labels] = raw
        soft = outcome.soft[:, column_of]
        soft = soft / np.maximum(soft.sum(axis=1, keepdims=True), 1e-12)
        loss, loss_mod = outcome.loss, outcome.loss_modularity
        del k_asked
    else:
        yield Progress(step=0, total=1, loss=math.nan, message=method)
        if method == "louvain":
            raw = classical.louvain(n, edges, weight, seed=seed, **options)
        elif method == "label_propagation":
            raw = classical.label_propagation(n, edges, weight, seed=seed)
        else:
            raw, _k, k_rule = classical.spectral(n, edges, weight, seed=seed, **options)
        labels = renumber_by_size(raw)
        k = int(labels.max()) + 1
    result = CommunityResult(
        method=method, seed=int(seed), labels=labels, k=k,
        modularity=modularity_of_edges(edges, weight, labels),
        nmi=nmi(labels, doc.node_attributes[nmi_attribute]) if nmi_attribute else math.nan,
        nmi_attribute=nmi_attribute, k_rule=k_rule, seconds=time.perf_counter() - start,
        soft=soft, loss=loss, loss_modularity=loss_mod)
    yield Progress(step=1, total=1, loss=float(loss[-1]) if loss is not None else math.nan,
                   metrics={"modularity": result.modularity}, trace=result)


def community_result(doc, method: str = "louvain", seed: int = 0, nmi_attribute: str = "",
                     **options) -> CommunityResult:
    """The whole run at once (``community_job`` consumed)."""
    result = None
    for progress in community_job(doc, method, seed, nmi_attribute, **options):
        if isinstance(progress.trace, CommunityResult):
            result = progress.trace
    assert result is not None
    return result


def detect_communities(doc, method: str = "louvain", seed: int = 0,
                       **options) -> np.ndarray:
    """A community per node of ``doc``: int64[n], 0..k-1 ordered by size (0 the largest).

    Methods: "louvain" (networkx, option ``resolution``), "label_propagation" (networkx's
    asynchronous one), "spectral" (normalised Laplacian eigenvectors + k-means; option
    ``k``, 0 or absent: chosen by the eigengap; ``restarts``), "dmon" (PyG's DMoNPooling
    over GCN layers trained unsupervised, see ``models.community.dmon``; options ``k``
    (0: the eigengap's), ``epochs``, ``hidden``, ``layers``, ``lr``, ``dropout``,
    ``collapse``, ``features``, ``device``). The same seed gives the same partition.
    """
    return community_result(doc, method, seed, **options).labels.copy()
