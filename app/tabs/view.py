"""A tab's view as a class of its own: it builds its plot, draws what it is handed and
gives back the arrays behind what it drew.

The rule (``app/tabs/<topic>/views/``): a view never imports its tab. What it draws comes
in ``show(trace, request)``: ``trace`` is the frozen record the models computed (or a small
frozen record the tab puts together from several), ``request`` the tab's parameters as
the models' frozen request of the topic (or None where the view needs none). What it has
to say to the window goes out through its ``status`` signal; what the user does in it
(hover, a click) it handles itself or emits. So a view can be made, drawn and exported in
a test with nothing but a trace, and the tab is left with wiring.

Titles and labels are translated with ``QCoreApplication.translate("<Tab class>", …)``
and a literal string: the catalogue keeps one context per tab, and lupdate sees them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from viz.panel import ViewPanel

__all__ = ["ViewData", "View", "TabView"]


@dataclass
class ViewData:
    """The arrays behind a view, for Export data."""

    primary: str
    arrays: dict[str, np.ndarray]
    meta: dict
    row_labels: list | None = None
    col_labels: list | None = None


@dataclass
class View:
    """A view as the tab's grid and the exporters see it."""

    key: str                                  # "pe" -> exported as "positional.pe"
    title: Callable[[], str]                  # translated title
    panel: ViewPanel
    data: Callable[[], ViewData | None]


class TabView(QObject):
    """One view: ``build`` (its plot, once), ``title``, ``label`` (axis labels in the
    current language), ``draw(trace, request)`` and ``data`` (from what was drawn last).

    ``show`` is what a tab calls: it keeps the trace and request, draws them and sets the
    title, which may depend on them. ``retranslate`` re-labels and redraws what is shown.
    """

    key = ""
    #: a line for the window's status bar
    status = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.trace: Any = None
        self.request: Any = None
        self.plot = self.build()
        self.panel = self.make_panel(self.plot)

    # -- what a view says of itself ------------------------------------------------------
    def build(self) -> QWidget:
        raise NotImplementedError

    def make_panel(self, plot: QWidget) -> ViewPanel:
        return ViewPanel(plot)

    def title(self) -> str:
        raise NotImplementedError

    def label(self) -> None:
        """Axis labels and other fixed words, in the current language."""

    def draw(self, trace, request) -> None:
        raise NotImplementedError

    def data(self) -> ViewData | None:
        return None

    # -- what a tab calls --------------------------------------------------------------
    def show(self, trace, request=None) -> None:
        self.trace, self.request = trace, request
        if trace is not None:
            self.draw(trace, request)
        self.panel.set_title(self.title())

    def redraw(self) -> None:
        self.show(self.trace, self.request)

    def retranslate(self) -> None:
        self.label()
        self.redraw()

    def set_readout(self, text: str) -> None:
        self.panel.set_readout(text)

    def as_view(self) -> View:
        return View(self.key, self.title, self.panel, self.data)
