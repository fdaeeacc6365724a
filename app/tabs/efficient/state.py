"""The efficient-attention tab in a session file.

Its views are computed from its controls (the seed among them), except two:

* the measured time and peak memory differ from run to run and from machine to
  machine, so the measurements themselves are kept (arrays) and shown again as they
  were, with a note saying where and when they were measured; "Measure time and
  memory" replaces them, as before;
* with "q, k, v" taken from a head of the Transformer tab, the q/k/v shown are kept
  too: a session of this tab alone then opens with the same picture in a window whose
  Transformer tab shows another model. They are used until that head changes (the
  Transformer tab trains, another head is chosen) or "q, k, v" is set to random.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from app.tabs.efficient.tab import EfficientTab
    from models.efficient_attention.options import EfficientRequest

#: the cost arrays a session keeps (``CostTrace`` fields)
COST_ARRAYS = ("n_theory", "flops", "memory", "measured_n", "measured_method", "seconds",
               "peak_bytes")
MAX_TEXT = 1000


class SavedCost:
    """A measurement opened from a session: the trace, where and when it was saved."""

    def __init__(self, cost, saved_at: str, quick: bool) -> None:
        self.cost, self.saved_at, self.quick = cost, saved_at, quick


class SourcePin:
    """q/k/v opened from a session, and the Transformer tab's q/k/v when it was opened
    (None: it had none): the pin holds while those stay the same."""

    def __init__(self, qkv: tuple, live_at_open) -> None:
        self.qkv, self.live_at_open = qkv, live_at_open


# -- saving --------------------------------------------------------------------------------
def inputs(tab: EfficientTab) -> tuple[dict, dict]:
    data: dict = {}
    arrays: dict = {}
    t = tab.cost
    if t is not None:
        saved = getattr(tab, "_saved_cost", None)
        opened = saved is not None and saved.cost is t
        data["cost"] = {
            "methods": list(t.methods), "status": list(t.status), "device": t.device,
            "d": t.d, "params": t.params, "quick": bool(tab.cost_is_quick),
            "saved_at": saved.saved_at if opened else
            datetime.now(timezone.utc).isoformat(timespec="seconds")}
        arrays.update({f"cost_{k}": getattr(t, k) for k in COST_ARRAYS})
    ask = tab.request()
    if ask.source == "transformer":
        qkv = source(tab, ask, tab._source_qkv(ask.source))
        if qkv is not None:
            arrays.update({f"source_{x}": a for x, a in zip("qkv", qkv, strict=True)})
    return data, arrays


# -- opening -------------------------------------------------------------------------------
def open_state(tab: EfficientTab, state, name: str) -> None:
    """Check the controls, the measurement and the q/k/v, then show them; a refusal
    changes nothing (a measurement that runs goes on)."""
    from app.tabs.training import TrainingTab
    from models.errors import SessionFileError

    def refuse(why: str) -> SessionFileError:
        return SessionFileError(f"{name}: the efficient-attention tab's part cannot be "
                                f"used: {why}")

    _check_params(tab, state.params, refuse)
    cost = _read_cost(state.data.get("cost"), state.arrays, refuse)
    qkv = _read_source(state.arrays, refuse)
    tab._source_pin = None if qkv is None else \
        SourcePin(qkv, tab._source_qkv("transformer"))
    TrainingTab.open_session_state(tab, state, name)   # stops a measurement, controls
    tab._quick_started = True      # the session's measurement (or none) is what is shown
    tab._saved_cost = cost
    tab.cost = cost.cost if cost else None
    tab.cost_is_quick = bool(cost and cost.quick)
    tab._cost_params = tab._cost_key()
    tab.cost_note.setText("")
    tab._write_cost_note()
    tab._draw_cost()
    tab.request_update()


def _check_params(tab: EfficientTab, params: dict, refuse) -> None:
    """Each control's value as given: known, the right type, in range (nothing clamped)."""
    specs = {}
    for form in tab._forms():
        specs.update(form.params)
    unknown = sorted(set(params) - set(specs))
    if unknown:
        raise refuse(f"unknown setting {', '.join(map(str, unknown))}.")
    for key, value in params.items():
        p = specs[key]
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        if p.kind == "int":
            ok = number and float(value).is_integer() and p.minimum <= value <= p.maximum
        elif p.kind == "float":
            ok = number and math.isfinite(value) and p.minimum <= value <= p.maximum
        elif p.kind == "choice":
            ok = value in p.choices
        elif p.kind == "bool":
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, str) and len(value) <= MAX_TEXT
        if not ok:
            what = (f"one of {', '.join(p.choices)}" if p.kind == "choice" else
                    f"from {p.minimum:g} to {p.maximum:g}" if p.kind in ("int", "float")
                    else p.kind)
            raise refuse(f"{key} = {value!r} is not {what}.")


def _read_cost(meta, arrays: dict, refuse) -> SavedCost | None:
    from models.efficient_attention.options import COST_METHODS as METHODS
    from models.traces import CostTrace

    if meta is None:
        if any(k.startswith("cost_") for k in arrays):
            raise refuse("it holds measurements without their description.")
        return None
    if not isinstance(meta, dict):
        raise refuse("the measurement is malformed.")
    methods, status = meta.get("methods"), meta.get("status")
    if not isinstance(methods, list) or not methods or not all(m in METHODS for m in methods):
        raise refuse(f"the measured methods ({methods!r}) are not among "
                     f"{', '.join(METHODS)}.")
    a = {}
    for key in COST_ARRAYS:
        x = arrays.get(f"cost_{key}")
        kinds = "i" if key in ("measured_n", "measured_method") else "fi"
        if not isinstance(x, np.ndarray) or x.dtype.kind not in kinds:
            raise refuse(f"the array cost_{key} is missing or not numbers of its kind.")
        a[key] = x
    t, r = len(a["n_theory"]), len(a["measured_n"])
    shapes = {"n_theory": (t,), "flops": (len(methods), t), "memory": (len(methods), t),
              "measured_n": (r,), "measured_method": (r,), "seconds": (r,),
              "peak_bytes": (r,)}
    for key, shape in shapes.items():
        if a[key].shape != shape:
            raise refuse(f"the array cost_{key} has the shape {a[key].shape}, not {shape}.")
    if not all(np.isfinite(a[k]).all() for k in ("n_theory", "flops", "memory")) or \
            (a["measured_n"] < 1).any() or (a["measured_method"] < 0).any() or \
            (a["measured_method"] >= len(methods)).any() or \
            (a["seconds"] < 0).any() or (a["peak_bytes"] < 0).any() or \
            np.isinf(a["seconds"]).any() or np.isinf(a["peak_bytes"]).any():
        raise refuse("a measurement is out of range (a negative or infinite time, size "
                     "or N, or a method it does not have).")
    if not isinstance(status, list) or len(status) != r or \
            not all(isinstance(s, str) and len(s) <= MAX_TEXT for s in status):
        raise refuse("the measurements' status lines do not match them.")
    device, d, params = meta.get("device"), meta.get("d"), meta.get("params", {})
    if not isinstance(device, str) or len(device) > 64 or isinstance(d, bool) or \
            not isinstance(d, int) or d < 1 or not isinstance(params, dict):
        raise refuse("the measurement's device, head size or settings are malformed.")
    saved_at = meta.get("saved_at", "")
    cost = CostTrace(
        methods=tuple(methods), n_theory=a["n_theory"].astype(np.float32),
        flops=a["flops"].astype(np.float32), memory=a["memory"].astype(np.float32),
        measured_n=a["measured_n"].astype(np.int64),
        measured_method=a["measured_method"].astype(np.int64),
        seconds=a["seconds"].astype(np.float32), peak_bytes=a["peak_bytes"].astype(np.float32),
        status=tuple(status), device=device, d=d, params=params)
    return SavedCost(cost, saved_at if isinstance(saved_at, str) else "",
                     meta.get("quick") is True)


def _read_source(arrays: dict, refuse):
    qkv = [arrays.get(f"source_{x}") for x in "qkv"]
    if all(x is None for x in qkv):
        return None
    if not all(isinstance(x, np.ndarray) and x.ndim == 2 and x.dtype.kind == "f"
               and np.isfinite(x).all() for x in qkv):
        raise refuse("the saved q, k and v are not three tables of finite numbers.")
    q, k, v = qkv
    if not (1 <= q.shape[0] == k.shape[0] == v.shape[0] <= 4096
            and 1 <= q.shape[1] == k.shape[1] <= 1024 and 1 <= v.shape[1] <= 1024):
        raise refuse(f"the saved q, k and v do not fit together ({q.shape}, {k.shape}, "
                     f"{v.shape}).")
    return tuple(np.ascontiguousarray(x, np.float32) for x in qkv)


# -- what the tab shows --------------------------------------------------------------------
def source(tab: EfficientTab, ask: EfficientRequest, live):
    """The q/k/v to compare: those opened from a session while the Transformer tab still
    shows the head it showed then, else ``live`` (its q/k/v now, or None: random)."""
    pin = getattr(tab, "_source_pin", None)
    if pin is None:
        return live
    if ask.source != "transformer" or not _same(live, pin.live_at_open):
        tab._source_pin = None
        return live
    q = pin.qkv[0]
    tab.source_note.setText(QCoreApplication.translate(
        "EfficientTab", "q/k/v of the Transformer tab as saved in the session ({0} queries, "
        "d_k = {1}); its head now is used once it changes.").format(q.shape[0], q.shape[1]))
    return pin.qkv


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def cost_note(tab: EfficientTab) -> str | None:
    """The measured panels' note for a measurement opened from a session (None for one
    measured here)."""
    saved = getattr(tab, "_saved_cost", None)
    if saved is None or saved.cost is not tab.cost:
        return None
    when = saved.saved_at.replace("T", " ")[:16] + " UTC" if saved.saved_at else "–"
    if saved.quick:
        return QCoreApplication.translate(
            "EfficientTab", "A quick measurement on {0}, as saved in the session ({1}). "
            "“Measure time and memory” measures on this machine.").format(saved.cost.device,
                                                                          when)
    return QCoreApplication.translate(
        "EfficientTab", "Measured on {0}, as saved in the session ({1}). “Measure time and "
        "memory” measures on this machine.").format(saved.cost.device, when)
