"""Export data of the neural-ODE tab's views: the arrays behind each view, from what the
tab holds (its ``ODEResult``, its comparisons and its sessions' records)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.ode.drawing import _paths_until
from app.tabs.view import ViewData

if TYPE_CHECKING:
    from app.tabs.ode.tab import ODETab


def field_data(tab: ODETab) -> ViewData | None:
    r = tab.result
    if r is None:
        return None
    t = tab.current_t()
    f = r.fields
    k = int(np.argmin(np.abs(f.times - t)))
    sign = -1.0 if r.task == "cnf" else 1.0
    table = np.stack([f.x, f.y, sign * f.u[k], sign * f.v[k]], 1)
    shown, now = _paths_until(r.paths, r.times, t, r.task == "cnf")
    arrays = {"field": table.astype(np.float32), "positions": now.astype(np.float32),
              "paths": r.paths, "times": r.times}
    if tab.user_paths is not None and tab.user_paths.key == r.key:
        arrays["your_paths"] = tab.user_paths.paths
    return ViewData("field", arrays,
                    {"task": r.task, "t": t, "t_fraction": tab.t_fraction(),
                     "arrows": "-f(t, z)" if r.task == "cnf" else "f(t, y)"},
                    col_labels=["x", "y", "u", "v"])


def task_data(tab: ODETab) -> ViewData | None:
    r = tab.result
    if r is None or r.trace is None:       # nothing solved within the settings
        return None
    tr = r.trace
    if r.task == "spiral":
        table = np.concatenate([tr.t[:, None], tr.true, tr.observed, tr.fitted], 1)
        return ViewData("trajectory", {"trajectory": table},
                        {"error_l1": tr.error_l1, **{f"trivial_{k}": v for k, v in
                                                     tr.trivial.items()}},
                        col_labels=["t", "true_x", "true_y", "observed_x", "observed_y",
                                    "fitted_x", "fitted_y"])
    if r.task == "classify":
        return ViewData("prob", {"prob": tr.prob, "points": tr.points,
                                 "labels": tr.labels, "predictions": tr.predictions},
                        {"extent": list(tr.extent), "accuracy": tr.accuracy,
                         "augment": tr.augment})
    t = tab.current_t()
    k = int(np.argmin(np.abs(tr.times - t)))
    return ViewData("density", {"density": tr.density[k], "all_densities": tr.density,
                                "times": tr.times, "samples": tr.samples[-1]},
                    {"extent": list(tr.extent), "t": float(tr.times[k]), "nll": tr.nll,
                     "entropy": tr.entropy})


def nfe_data(tab: ODETab) -> ViewData | None:
    session = tab.sessions.get(tab._session_key())
    if session is None or not session.nfe_forward:
        return None
    h = session.history()
    table = np.stack([h["nfe_forward"], h["nfe_backward"]], 1)
    marks = tab.switches.get(tab._session_key(), [])
    return ViewData("nfe", {"nfe": table.astype(np.float32)},
                    {"solvers": "; ".join(f"from step {s + 1}: {label}"
                                          for s, label in marks)},
                    row_labels=list(range(1, len(table) + 1)),
                    col_labels=["nfe_forward", "nfe_backward"])


def steps_data(tab: ODETab) -> ViewData | None:
    r = tab.result
    if r is None or r.steps is None:
        return None
    s = r.steps
    acc = np.stack([s.accepted_t, s.accepted_dt], 1)
    return ViewData("accepted", {"accepted": acc,
                                 "rejected": np.stack([s.rejected_t, s.rejected_dt], 1)},
                    {"method": s.method, "nfe": s.nfe, "t0": s.t0, "t1": s.t1,
                     "rejected": s.n_rejected},
                    col_labels=["t", "dt"])


def loss_data(tab: ODETab) -> ViewData | None:
    session = tab.sessions.get(tab._session_key())
    if session is None or not session.losses:
        return None
    h = session.history()
    return ViewData("loss", {"loss": h["loss"], "step_seconds": h["step_seconds"]},
                    {"task": session.task, "metric": session.metric_name,
                     "last_metric": session.last_metric},
                    row_labels=list(range(1, len(h["loss"]) + 1)),
                    col_labels=["loss"])


def adjoint_data(tab: ODETab) -> ViewData | None:
    c = tab.comparisons.get(tab._session_key())
    if c is None:
        return None
    a = c["result"]
    table = np.array([[a.seconds_direct, a.saved_bytes_direct, a.nfe_forward_direct,
                       a.nfe_backward_direct, a.loss_direct],
                      [a.seconds_adjoint, a.saved_bytes_adjoint, a.nfe_forward_adjoint,
                       a.nfe_backward_adjoint, a.loss_adjoint]], np.float64)
    return ViewData("comparison", {"comparison": table},
                    {"grad_rel_diff": a.grad_rel_diff, "solver": c["solver"],
                     "step": c["step"], "cuda_peak_direct": a.cuda_peak_direct,
                     "cuda_peak_adjoint": a.cuda_peak_adjoint},
                    row_labels=["direct", "adjoint"],
                    col_labels=["seconds", "saved_bytes", "nfe_forward", "nfe_backward",
                                "loss"])
