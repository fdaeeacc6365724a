"""The positional-encoding tab in a session file: its controls (the sentence and the
dimensions typed among them) and what "Learn M_k by gradient descent" learned: the
learned W, the exact M_k, the loss at every step and the error at each report, so the
fit's curves and the "learned W" / "W − M_k" maps come back as they were.

A fit always starts from W = 0 (``fit_offset_map``), so there is no optimizer state to
keep: pressing the button again learns from scratch, as it does before saving.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from app.tabs.positional.params import FIT_STEPS

if TYPE_CHECKING:
    from app.tabs.positional.tab import PositionalTab

NUMBERS = ("d_model", "max_len", "base", "offset")
TEXTS = ("dims", "sentence")


def inputs(tab: PositionalTab) -> tuple[dict, dict]:
    """The fit shown (nothing if none): ``data["fit"]`` and its arrays."""
    fit = tab.fit
    if fit is None:
        return {}, {}
    data = {"fit": {"d_model": fit.d_model, "max_len": fit.max_len, "base": fit.base,
                    "offset": fit.offset},
            "fit_errors": [[int(s), float(e)] for s, e in tab.fit_errors]}
    return data, {"fit_learned": fit.learned, "fit_analytic": fit.analytic,
                  "fit_loss": np.asarray(tab.fit_history, np.float32)}


def open_state(tab: PositionalTab, state, name: str) -> None:
    """Check the controls and the fit, then show them; a refusal changes nothing."""
    from app.tabs.training import TrainingTab
    from models.errors import InvalidParameterError, SessionFileError

    def refuse(why: str) -> SessionFileError:
        return SessionFileError(f"{name}: the positional tab's part cannot be used: {why}")

    params = state.params
    if "learn" in params:
        raise refuse("unknown setting learn.")
    fields = {"d_model": tab.d_model, "max_len": tab.max_len, "base": tab.base}
    for key in NUMBERS:
        value = params.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value):
            raise refuse(f"{key} = {value!r} is not a number.")
        # as its control holds it (the base is a whole number too), not rounded to one
        off_grid = (key in fields and key in params and fields[key].problem(value) is None
                    and fields[key]._snap(value) != value)
        if off_grid or (key == "offset" and value % 1):
            raise refuse(f"{key} = {value!r} is not a value its control can hold.")
    for key, edit in (("dims", tab.dims), ("sentence", tab.sentence)):
        text = params.get(key, "")
        if not isinstance(text, str) or len(text) > edit.maxLength():
            raise refuse(f"{key} is not a text of at most {edit.maxLength()} characters.")
    try:
        tab._check_state(params)
    except InvalidParameterError as exc:
        raise refuse(str(exc)) from exc
    fit = _read_fit(state.data, state.arrays, refuse)
    TrainingTab.open_session_state(tab, state, name)     # stops learning, sets controls
    tab.fit, tab.fit_history, tab.fit_errors = fit or (None, np.zeros(0, np.float32), [])
    tab._redraw_fit()
    tab._show_relative()


def _read_fit(data: dict, arrays: dict, refuse):
    """(OffsetFitTrace, loss per step, [(step, max error)]) from the file, or None."""
    from models.traces import OffsetFitTrace

    meta = data.get("fit")
    if meta is None:
        if any(k.startswith("fit_") for k in arrays):
            raise refuse("it holds a fit's arrays without the fit.")
        return None
    if not isinstance(meta, dict):
        raise refuse("the fit is malformed.")
    whole = {k: meta.get(k) for k in ("d_model", "max_len", "offset")}
    if any(isinstance(v, bool) or not isinstance(v, int) for v in whole.values()) or \
            not (2 <= whole["d_model"] <= 1024 and 2 <= whole["max_len"] <= 4096
                 and 1 <= whole["offset"] < whole["max_len"]):
        raise refuse(f"the fit's table ({whole}) is not one the tab can show.")
    base = meta.get("base")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or \
            not (math.isfinite(base) and base > 1):
        raise refuse(f"the fit's base ({base!r}) is not a number above 1.")
    d = whole["d_model"]
    mats = {}
    for key in ("fit_learned", "fit_analytic"):
        a = arrays.get(key)
        if not isinstance(a, np.ndarray) or a.shape != (d, d) or a.dtype.kind != "f" \
                or not np.isfinite(a).all():
            raise refuse(f"the array {key} is not {d}×{d} finite numbers "
                         f"({_shape(a)}).")
        mats[key] = np.ascontiguousarray(a, np.float32)
    loss = arrays.get("fit_loss")
    if not isinstance(loss, np.ndarray) or loss.ndim != 1 or loss.dtype.kind != "f" or \
            len(loss) > FIT_STEPS or not np.isfinite(loss).all() or (loss < 0).any():
        raise refuse(f"the array fit_loss is not at most {FIT_STEPS} finite losses "
                     f"({_shape(loss)}).")
    errors = data.get("fit_errors", [])
    if not isinstance(errors, list) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], int)
            and not isinstance(e[0], bool) and 0 <= e[0] <= len(loss)
            and isinstance(e[1], (int, float)) and math.isfinite(e[1]) and e[1] >= 0
            for e in errors):
        raise refuse("the fit's errors are not (step, error) pairs of its steps.")
    fit = OffsetFitTrace(d_model=d, max_len=whole["max_len"], base=float(base),
                         offset=whole["offset"], learned=mats["fit_learned"],
                         analytic=mats["fit_analytic"])
    return fit, np.ascontiguousarray(loss, np.float32), [(s, float(e)) for s, e in errors]


def _shape(a) -> str:
    return f"{a.dtype} {'×'.join(map(str, a.shape))}" if isinstance(a, np.ndarray) else \
        "missing"
