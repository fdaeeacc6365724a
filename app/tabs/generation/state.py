"""The graph-generation tab's part of a session file (File → Save session… / Open session…).

Beyond the controls, a session keeps:

* the GraphRNN training session of the family shown (``main``: weights, Adam state, loss
  curve, the best scored weights and their step);
* the graphs of a folder the student opened (``folder_*``), so the session opens without
  the folder;
* the comparison shown (``view_*``: the baselines' samples, laid out, their MMD² and wall
  times; ``learned_*``: GraphRNN's row), as it was: fitting again would give other wall
  times, and sampling again would need the weights of that moment.

A family made in code is made again from its name, count and seed (the same graphs).
Everything is checked before the tab changes; a refusal names the file.
"""

from __future__ import annotations

import numpy as np

from models.errors import SessionFileError
from models.traces.generation import GenerationTrace, GraphSet

GRAPHSET_ARRAYS = ("num_nodes", "edges", "edge_offsets", "positions")


def graphset_arrays(graphs: GraphSet, prefix: str) -> dict[str, np.ndarray]:
    return {f"{prefix}_{k}": getattr(graphs, k) for k in GRAPHSET_ARRAYS}


def graphset_from(arrays: dict, prefix: str, name: str, laid_out: bool) -> GraphSet:
    """A saved ``GraphSet`` checked: counts ≥ 1, edges within their graph, offsets in
    order, positions finite and one per node (when ``laid_out``)."""
    where = f"{name}: the generation tab's graphs {prefix}"
    got = {}
    for k in GRAPHSET_ARRAYS:
        a = arrays.get(f"{prefix}_{k}")
        if a is None:
            raise SessionFileError(f"{where} have no {k}.")
        got[k] = np.asarray(a)
    n, edges, offsets, pos = (got[k] for k in GRAPHSET_ARRAYS)
    if n.dtype.kind not in "iu" or edges.dtype.kind not in "iu" or \
            offsets.dtype.kind not in "iu" or n.ndim != 1 or edges.ndim != 2 or \
            edges.shape[1] != 2 or offsets.shape != (len(n) + 1,):
        raise SessionFileError(f"{where} are malformed (counts, edges or offsets).")
    if len(n) and (n.min() < 1 or n.max() > 100_000):
        raise SessionFileError(f"{where} have a graph of {int(n.min())} nodes.")
    if offsets[0] != 0 or offsets[-1] != len(edges) or np.any(np.diff(offsets) < 0):
        raise SessionFileError(f"{where} have edge offsets out of order.")
    for i in range(len(n)):
        e = edges[offsets[i]:offsets[i + 1]]
        if len(e) and (e.min() < 0 or e.max() >= n[i]):
            raise SessionFileError(f"{where}: graph {i} has an edge to a node it lacks.")
    if laid_out and (pos.dtype.kind != "f" or pos.shape != (int(n.sum()), 2)
                     or not np.isfinite(pos).all()):
        raise SessionFileError(f"{where} have no finite position for every node.")
    return GraphSet(num_nodes=n.astype(np.int64), edges=edges.astype(np.int64),
                    edge_offsets=offsets.astype(np.int64),
                    positions=pos.astype(np.float32) if laid_out else
                    np.zeros((0, 2), np.float32))


def trace_state(t: GenerationTrace, prefix: str) -> tuple[dict, dict[str, np.ndarray]]:
    meta = {"dataset": t.dataset, "methods": list(t.methods),
            "statistics": list(t.statistics), "held_out": t.held_out,
            "train_count": t.train_count, "kernel": t.kernel, "best_step": t.best_step,
            "seed": t.seed}
    arrays = {f"{prefix}_mmd": t.mmd, f"{prefix}_reference_mmd": t.reference_mmd,
              f"{prefix}_seconds": t.seconds, f"{prefix}_losses": t.losses,
              **graphset_arrays(t.training, f"{prefix}_training")}
    for i, s in enumerate(t.samples):
        arrays.update(graphset_arrays(s, f"{prefix}_sample{i}"))
    return meta, arrays


def trace_from(meta, arrays: dict, prefix: str, name: str, methods: tuple[str, ...],
               statistics: tuple[str, ...]) -> GenerationTrace:
    """A saved comparison, checked (its methods among ``methods``)."""
    where = f"{name}: the generation tab's comparison"
    if not isinstance(meta, dict):
        raise SessionFileError(f"{where} is malformed.")
    rows = meta.get("methods")
    if not isinstance(rows, list) or any(m not in methods for m in rows) or \
            len(set(rows)) != len(rows):
        raise SessionFileError(f"{where} names unknown methods {rows!r}.")
    saved = meta.get("statistics")
    # a file written before orbit counts were computed holds the first columns only
    if not isinstance(saved, list) or not saved or saved != list(statistics[:len(saved)]):
        raise SessionFileError(f"{where} is of the statistics {saved!r}.")
    ints = {}
    for key in ("held_out", "train_count", "best_step", "seed"):
        v = meta.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise SessionFileError(f"{where}: {key} must be a whole number ≥ 0.")
        ints[key] = v
    m, s = len(rows), len(saved)
    shapes = {"mmd": (m, s), "reference_mmd": (s,), "seconds": (m,)}
    got = {}
    for key, shape in (*shapes.items(), ("losses", None)):
        a = arrays.get(f"{prefix}_{key}")
        if a is None or np.asarray(a).dtype.kind != "f" or \
                (shape is not None and np.asarray(a).shape != shape) or \
                (shape is None and np.asarray(a).ndim != 1):
            raise SessionFileError(f"{where}: {key} is missing or has the wrong shape.")
        got[key] = np.asarray(a)
    for key in ("mmd", "reference_mmd"):     # NaN: not computed; never infinite
        a = got[key]
        if np.isinf(a).any():
            raise SessionFileError(f"{where}: {key} holds an infinite distance.")
        got[key] = np.concatenate(               # the columns it lacks: not computed
            [a, np.full((*a.shape[:-1], len(statistics) - s), np.nan, a.dtype)], axis=-1)
    if not np.isfinite(got["seconds"]).all() or (got["seconds"] < 0).any():
        raise SessionFileError(f"{where}: the wall times must be finite and ≥ 0.")
    training = graphset_from(arrays, f"{prefix}_training", name, laid_out=True)
    samples = tuple(graphset_from(arrays, f"{prefix}_sample{i}", name, laid_out=True)
                    for i in range(m))
    return GenerationTrace(
        dataset=str(meta.get("dataset", "")), methods=tuple(rows),
        statistics=tuple(statistics), training=training, samples=samples, mmd=got["mmd"],
        reference_mmd=got["reference_mmd"], seconds=got["seconds"],
        kernel=str(meta.get("kernel", "emd")), losses=got["losses"], **ints)


class GenerationSessionFile:
    """Mixed into ``GenerationTab`` (which has ``folder``, ``folder_name``, ``result``,
    ``learned``, ``_data()``, ``_apply_result()`` and the session helpers)."""

    _opened: dict | None = None

    def session_inputs(self) -> tuple[dict, dict]:
        data: dict = {}
        arrays: dict[str, np.ndarray] = {}
        if self.folder is not None:
            data["folder"] = {"name": self.folder_name}
            arrays.update(graphset_arrays(self.folder, "folder"))
        view = self.current_view()
        if view is not None:
            data["view"], more = trace_state(view.baselines, "view")
            arrays.update(more)
            learned = self.learned.get(view.data.key)
            if learned is not None:
                data["learned"], more = trace_state(learned, "learned")
                arrays.update(more)
        return data, arrays

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        from models.generation.metrics import STATISTICS
        from models.generation.options import LEARNED_METHODS, METHODS

        sessions = data.get("sessions", {})
        if not isinstance(sessions, dict) or set(sessions) - {"main"}:
            raise SessionFileError(f"{name}: the generation tab has one training session, "
                                   "'main'.")
        folder = folder_name = None
        if "folder" in data:
            info = data["folder"]
            if not isinstance(info, dict) or not isinstance(info.get("name"), str):
                raise SessionFileError(f"{name}: the generation tab's folder is malformed.")
            folder = graphset_from(arrays, "folder", name, laid_out=False)
            folder_name = info["name"]
        baselines = tuple(m for m in METHODS if m not in LEARNED_METHODS)
        view = learned = None
        if "view" in data:
            view = trace_from(data["view"], arrays, "view", name, baselines, STATISTICS)
        if "learned" in data:
            learned = trace_from(data["learned"], arrays, "learned", name, LEARNED_METHODS,
                                 STATISTICS)
        self.stop_jobs()
        self.loads.stop()
        self._opened = {"view": view, "learned": learned, "file": name,
                        "sessions": bool(sessions)}
        self.folder, self.folder_name = folder, folder_name or ""
        if folder is not None:
            self.folder_token += 1

    def session_named(self, name: str):
        """A fresh session for the family the opened settings show (its weights follow)."""
        if name != "main":
            raise SessionFileError(f"the generation tab has no training session {name!r}.")
        data = self._data()
        self.sessions.pop(data.key, None)
        self.learned.pop(data.key, None)
        return self._session_for(data)

    def after_session_opened(self) -> None:
        from models.traces.generation import GenerationView

        opened, self._opened = self._opened or {}, None
        self.compute.invalidate()
        data = self._data()
        if not opened.get("sessions"):
            self.sessions.pop(data.key, None)
        view, learned = opened.get("view"), opened.get("learned")
        self.learned.pop(data.key, None)
        if learned is not None:
            self.learned[data.key] = learned
        if view is not None:
            self._apply_result(self._params_key(),
                               GenerationView(data=data, baselines=view))
        super().after_session_opened()
