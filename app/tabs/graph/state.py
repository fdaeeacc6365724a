"""The graph tab in a session file (File → Save session… / Open session…).

What it keeps, beyond the controls (``params()``):

* the attribute choice as controls too (``label``, ``features``, ``colour_attribute``, which
  ``apply_state`` checks on the graph);
* the graph the user opened with File → Open…, if any (``models.graphs.saved``: arrays and
  JSON, rebuilt and checked on opening like a graph file);
* every training session the views show: the node classifier of the model chosen
  ("node"), the graph classifier of the pooling chosen ("graphs") and the link predictor
  of the graph shown ("links"), each with its own state (weights, Adam's moments,
  records, random generators, the link predictor's best weights);
* what the views draw beside them: the node classifier's training curves (the tab's
  history of evaluations), the model comparison before and after training, the
  layout drawn (so the canvas is the same even where a layout is slow or
  seed-dependent) and the communities found on the graph shown
  (``models.community.saved``: labels, DMoN's soft assignment and loss, the numbers),
  and the explanation shown (``models.explain.saved``: masks, fidelities; it belongs to
  the node classifier of the file and is refused without it).

Opening checks what it can before anything changes (the graph, array shapes and
dtypes); what depends on the graph shown (the layout's rows) is checked once the controls
are set, and a refusal there rolls the whole window back (``app.sessions.apply``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab

#: the training sessions a session file keeps, by name
SESSION_NAMES = ("node", "graphs", "links")
#: the columns of the node classifier's history of evaluations
HISTORY_COLUMNS = ("epoch", "loss", "train_acc", "val_acc", "test_acc")
#: the models a comparison may name
COMPARED = ("gcn", "sage", "gat", "baseline")


def session_params(tab: GraphTab) -> dict:
    """The attribute choice of the graph shown, as ``apply_state`` takes it (none before
    PyTorch has loaded: no graph is built then)."""
    if not tab.torch_ready:
        return {}
    doc = tab.base_document()
    label, features = tab._attr_choice.get(tab._doc_key(), (doc.label_attr,
                                                             doc.feature_attrs))
    out = {"label": label, "features": list(features)}
    if tab.colour_combo.currentData() is not None:
        out["colour_attribute"] = tab.colour_combo.currentData()
    out["nmi_attribute"] = tab.communities.nmi_attribute()
    return out


def session_inputs(tab: GraphTab) -> tuple[dict, dict]:
    from models.graphs.saved import document_state

    data: dict = {"file": None}
    arrays: dict[str, np.ndarray] = {}
    if tab.file_doc is not None:
        meta, graph_arrays = document_state(tab.file_doc, prefix="file")
        data["file"] = {**meta, "file_name": tab.file_name}
        arrays.update(graph_arrays)
    p = tab.params()
    r = tab.result
    if r is not None and not r.layout_error and \
            r.layout_key == (tab._doc_key(), p["layout"], p["seed"]):
        arrays["layout"] = np.ascontiguousarray(r.pos, np.float32)
    history = tab.histories.get(tab._session_key())
    if history:
        arrays["history"] = np.array([[row[c] for c in HISTORY_COLUMNS] for row in history],
                                     np.float64)
    compared = {}
    for which, store, key in (("trained", tab.comparisons, tab._compare_key()),
                              ("untrained", tab.untrained, tab._untrained_key())):
        c = store.get(key)
        if c is not None:
            compared[which] = list(c.kinds)
            arrays[f"compared_{which}"] = np.asarray(c.test_acc, np.float32)
    data["compared"] = compared
    community = tab.communities.current()
    if community is not None:
        from models.community.saved import result_state

        data["community"], community_arrays = result_state(community)
        arrays.update(community_arrays)
    explanation = tab.explaining.current()
    if explanation is not None:
        from models.explain.saved import explanation_state

        data["explanation"], explanation_arrays = explanation_state(explanation)
        arrays.update(explanation_arrays)
    return data, arrays


def saved_sessions(tab: GraphTab) -> dict[str, object]:
    found = {"node": tab.sessions.get(tab._session_key()),
             "graphs": tab.graph_sessions.get(tab.params()["pooling"]),
             "links": tab.link_sessions.get(tab._graph_key())}
    return {k: s for k, s in found.items() if s is not None}


def session_named(tab: GraphTab, name: str):
    from models.errors import SessionFileError

    if name == "node":
        return tab.session()
    if name == "graphs":
        return tab.graph_session()
    if name == "links":
        return tab.link_session()
    file = getattr(tab, "_opened_extras", {}).get("name", "the session")
    raise SessionFileError(f"{file}: the graph tab has no training session {name!r} (it "
                           f"has {', '.join(SESSION_NAMES)}).")


# -- opening --------------------------------------------------------------------------------
def _checked_file(tab: GraphTab, meta, arrays: dict, name: str):
    """The opened graph of the session: the tab's own when it is the same (a refused
    session rolled back, the same session opened twice), else rebuilt and checked."""
    from models.errors import SessionFileError
    from models.graphs.saved import document_from_state, document_state

    if not isinstance(meta, dict) or not isinstance(meta.get("file_name"), str) \
            or len(meta["file_name"]) > 1000:
        raise SessionFileError(f"{name}: the graph tab's opened graph is malformed.")
    described = {k: v for k, v in meta.items() if k != "file_name"}
    if tab.file_doc is not None:
        own_meta, own_arrays = document_state(tab.file_doc, prefix="file")
        if own_meta == described and all(
                k in arrays and np.asarray(arrays[k]).dtype == v.dtype
                and np.array_equal(arrays[k], v, equal_nan=v.dtype.kind == "f")
                for k, v in own_arrays.items()) and \
                not {k for k in arrays if k.startswith("file.")} - set(own_arrays):
            return tab.file_doc
    return document_from_state(described, {k: v for k, v in arrays.items()
                                           if k.startswith("file.")}, name, prefix="file")


def _checked_history(arrays: dict, name: str) -> np.ndarray | None:
    from models.errors import SessionFileError

    history = arrays.get("history")
    if history is None:
        return None
    history = np.asarray(history)
    if history.dtype != np.float64 or history.ndim != 2 or \
            history.shape[1] != len(HISTORY_COLUMNS) or not len(history):
        raise SessionFileError(f"{name}: the node classifier's history should be float64 "
                               f"[epochs, {len(HISTORY_COLUMNS)}].")
    epochs = history[:, 0]
    if not np.isfinite(epochs).all() or (epochs < 0).any() or \
            (epochs != np.round(epochs)).any() or (np.diff(epochs) <= 0).any():
        raise SessionFileError(f"{name}: the node classifier's history has epochs that are "
                               "not whole numbers counting up.")
    return history


def _checked_comparisons(data: dict, arrays: dict, name: str) -> dict:
    from models.errors import SessionFileError
    from models.traces import ModelComparison

    compared = data.get("compared", {})
    if not isinstance(compared, dict) or set(compared) - {"trained", "untrained"}:
        raise SessionFileError(f"{name}: the graph tab's model comparison is malformed.")
    out = {}
    for which, kinds in compared.items():
        acc = np.asarray(arrays.get(f"compared_{which}"))
        if not isinstance(kinds, list) or not kinds or len(set(kinds)) != len(kinds) or \
                any(k not in COMPARED for k in kinds) or acc.dtype != np.float32 or \
                acc.shape != (len(kinds),) or \
                ((acc < 0) | (acc > 1))[np.isfinite(acc)].any() or np.isinf(acc).any():
            raise SessionFileError(f"{name}: the graph tab's {which} comparison should name "
                                   f"some of {', '.join(COMPARED)} with an accuracy from 0 "
                                   "to 1 each.")
        out[which] = ModelComparison(kinds=tuple(kinds), test_acc=acc)
    return out


def restore_inputs(tab: GraphTab, data: dict, arrays: dict, name: str) -> None:
    """Check the session's graph and extras; take the graph (the controls come next)."""
    from models.errors import SessionFileError

    if not isinstance(data, dict):
        raise SessionFileError(f"{name}: the graph tab's part is malformed.")
    meta = data.get("file")
    doc = None if meta is None else _checked_file(tab, meta, arrays, name)
    layout = arrays.get("layout")
    if layout is not None:
        layout = np.asarray(layout)
        if layout.dtype != np.float32 or layout.ndim != 2 or layout.shape[1] != 2 \
                or not np.isfinite(layout).all():
            raise SessionFileError(f"{name}: the graph tab's layout should be finite "
                                   "float32 [nodes, 2].")
    sessions = data.get("sessions", {})
    community = data.get("community")
    if community is not None:        # checked against the graph once the controls are set
        community = (community, {k: v for k, v in arrays.items()
                                 if k.startswith("community.")})
    explanation = data.get("explanation")
    if explanation is not None:      # checked against the classifier once it is loaded
        explanation = (explanation, {k: v for k, v in arrays.items()
                                     if k.startswith("explanation.")})
    extras = {"name": name, "layout": layout, "community": community,
              "explanation": explanation,
              "sessions": set(sessions) if isinstance(sessions, dict) else set(), "history": _checked_history(arrays, name),
              "compared": _checked_comparisons(data, arrays, name)}
    # checked: now the tab changes
    if doc is not tab.file_doc:
        tab.file_doc, tab.file_name = doc, (meta["file_name"] if meta else "")
        tab._file_id += 1
    tab._opened_extras = extras


def after_opened(tab: GraphTab) -> None:
    """The extras the controls now point at: the layout of the graph shown, the node
    classifier's curves, the comparisons; stale results of before are dropped."""
    from models.errors import SessionFileError

    extras = tab.__dict__.pop("_opened_extras", None)
    if extras is None:
        return
    p = tab.params()
    # a session the file does not hold starts afresh, as it did for whoever saved it
    for name, (store, key) in {"node": (tab.sessions, tab._session_key()),
                               "graphs": (tab.graph_sessions, p["pooling"]),
                               "links": (tab.link_sessions, tab._graph_key())}.items():
        if name not in extras["sessions"] and getattr(store.get(key), "step", 0):
            del store[key]
    layout = extras["layout"]
    if layout is not None:
        rows = tab.document().num_nodes
        if layout.shape[0] != rows:
            raise SessionFileError(f"{extras['name']}: the graph tab's layout has "
                                   f"{layout.shape[0]:,} rows; the graph shown has {rows:,} "
                                   "nodes.")
        tab.layouts[(tab._doc_key(), p["layout"], p["seed"])] = layout
    key = tab._session_key()
    history = extras["history"]
    session = tab.sessions.get(key)
    if history is not None and session is not None:
        names = HISTORY_COLUMNS
        tab.histories[key] = [dict(zip(names, (int(row[0]), *map(float, row[1:])),
                                       strict=True))
                              for row in history if row[0] <= session.step]
    else:
        tab.histories.pop(key, None)
    for which, store, store_key in (("trained", tab.comparisons, tab._compare_key()),
                                    ("untrained", tab.untrained, tab._untrained_key())):
        if which in extras["compared"]:
            store[store_key] = extras["compared"][which]
        else:
            store.pop(store_key, None)
    if extras["community"] is not None:
        from models.community.saved import result_from_state

        meta, community_arrays = extras["community"]
        tab.communities.results[tab._doc_key()] = result_from_state(
            meta, community_arrays, tab.base_document().num_nodes, extras["name"])
    else:
        tab.communities.results.pop(tab._doc_key(), None)
    _restore_explanation(tab.explaining, extras["explanation"], session, extras["name"])
    tab.compute.invalidate()              # a result for the state before opening


def _restore_explanation(panel, explanation, session, name: str) -> None:
    """The explanation the file holds, of the node classifier it holds (trained as far
    as when it was explained), or none (``panel``: the tab's ``ExplanationPanel``)."""
    from models.errors import SessionFileError
    from models.explain.saved import explanation_from_state

    panel.explanation = None
    if explanation is None:
        return
    if session is None or not session.step:
        raise SessionFileError(f"{name}: the explanation is of a trained node classifier, "
                               "and the file holds none.")
    meta, arrays = explanation
    x = explanation_from_state(meta, arrays, int(session.data.num_nodes),
                               int(session.data.num_features), name,
                               num_edges=int(session.data.num_edges))
    # drawn with the graph's next result (the one shown now may be another graph's)
    panel.explanation = (panel.key(x.node), x)
