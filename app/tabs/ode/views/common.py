"""What the neural-ODE tab's views share: the colours and axis names of the plane, how a
tolerance, a solver and a solver's error are worded, the part of the paths run through
by time t, and the views' base (a read-out with a tooltip; a title of a request)."""

from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView
from models.ode.options import ADAPTIVE

translate = QCoreApplication.translate

USER_COLOUR = "#7b2f9e"      # their trajectories (purple: not a class colour)
#: the plane's axes: the state's two coordinates (the spiral's y, the classifier's h, the
#: CNF's z), symbols the same in every language
STATE_AXES = {"spiral": ("y₁", "y₂"), "classify": ("h₁", "h₂"), "cnf": ("z₁", "z₂")}


class ODEView(TabView):
    """A view of the tab: its read-out is short, the whole sentence in its tooltip."""

    def say(self, text: str, full: str | None = None) -> None:
        self.set_readout(text)
        self.panel.readout.setToolTip(full if full is not None else text)

    def retitle(self, request) -> None:
        """The title of ``request`` (its task), what is drawn left as it is."""
        self.request = request
        self.panel.set_title(self.title())


def tolerance(value: float) -> str:
    """A tolerance as people write it: 0.05, 1e-3, 2.5e-4 (not 0.001000 or "0.000")."""
    v = float(value)
    if v == 0 or v >= 0.01:
        return f"{v:g}"
    mantissa, exponent = f"{v:.1e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def solve_note(message: str) -> tuple[str, str]:
    """A solver error of ``models.ode`` as a short translated note for a read-out and a
    full one for its tooltip: the NFE cap's message is worded here (the model's English
    sentence ran past the read-out and stayed English in Chinese); others are named as
    such, with the model's words in the tooltip."""
    if not message:
        return "", ""
    cap = re.match(r"The ODE solver needed more than (\d+) evaluations", message)
    if cap:
        n = cap.group(1)
        return (translate("ODETab", "Stopped at the NFE cap ({0}): raise it, loosen the "
                          "tolerances or use rk4.").format(n),
                translate("ODETab", "One solve needed more than {0} evaluations of f and was "
                          "stopped at the cap: the dynamics are stiff or change fast for these "
                          "tolerances. Raise the cap (NFE cap per solve), loosen the "
                          "tolerances, or use a fixed-step solver such as rk4.").format(n))
    return (translate("ODETab", "The solver could not finish: {0}").format(message), message)


def solver_label(cfg, short: bool = False) -> str:
    """"dopri5, rtol 1e-3, atol 1e-4 + adjoint"; short: "dopri5 1e-3/1e-4 +adj"."""
    if short:
        text = (f"{cfg.method} {tolerance(cfg.rtol)}/{tolerance(cfg.atol)}"
                if cfg.method in ADAPTIVE else f"{cfg.method} h={cfg.step_size:g}")
        return text + (translate("ODETab", " +adj") if cfg.adjoint else "")
    text = (translate("ODETab", "{0}, rtol {1}, atol {2}").format(
        cfg.method, tolerance(cfg.rtol), tolerance(cfg.atol))
            if cfg.method in ADAPTIVE else
            translate("ODETab", "{0}, step {1:g}").format(cfg.method, cfg.step_size))
    return text + (translate("ODETab", " + adjoint") if cfg.adjoint else "")


def faded(colour: str, alpha: int = 90) -> tuple[int, int, int, int]:
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), alpha)


def paths_until(paths: np.ndarray, times: np.ndarray, t: float, backwards: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The part of each path the animation has run through by time t (from times[0], or
    from times[-1] when ``backwards``), ending at the interpolated position at t; and
    those positions. paths: float[n, T, 2], times ascending float[T]."""
    n = paths.shape[0]
    if n == 0:
        return np.zeros((0, 1, 2), np.float32), np.zeros((0, 2), np.float32)
    t = float(np.clip(t, times[0], times[-1]))
    j = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)) \
        if len(times) > 1 else 0
    if len(times) > 1:
        w = (t - times[j]) / max(times[j + 1] - times[j], 1e-12)
        now = (1 - w) * paths[:, j] + w * paths[:, j + 1]
    else:
        now = paths[:, 0]
    if backwards:
        shown = np.concatenate([now[:, None], paths[:, j + 1:]], 1)
    else:
        shown = np.concatenate([paths[:, :j + 1], now[:, None]], 1)
    return shown, now


def bytes_text(n: float) -> str:
    for unit, size in (("MB", 2 ** 20), ("kB", 2 ** 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"

