"""The graph tab's depth study as a panel: the "Depth and over-smoothing" group (the run's
layers 1–8, GCN normalisation on or off, what the view shows, the "Depth study" button),
the "depth" job's parts and its view (``views.depth``).

The study of the current settings as initialised comes with the tab's trace
(``GraphResult.depth``, kept in ``untrained`` per setting); "Depth study" trains the run
and the baseline side by side (their curves redrawn every few epochs) and then a model of
every depth (``models.graphs.depth.depth_study``). Trained studies are kept per setting in
``studies``: a study belongs to the settings it was run with and comes back with them.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QPushButton

from app.tabs.graph.params import DEPTH_PARAMS
from app.tabs.graph.views.depth import DepthShown, DepthView
from app.tabs.kept import Kept
from viz.controls import ParamForm

__all__ = ["DepthPanel", "JOB", "DEPTH_ACTIONS", "study_key"]

JOB = "depth"
# what ``apply_state`` takes for the study besides the form's keys: start it
DEPTH_ACTIONS = ("depth_study",)

translate = QCoreApplication.translate


class DepthHost(Protocol):
    torch_ready: bool

    def params(self) -> dict: ...
    def graph_key(self) -> tuple: ...
    def job_button_text(self, job: str, idle: str) -> str: ...


def study_key(graph_key: tuple, p: dict) -> tuple:
    """What a study depends on: the graph and its attributes, the model's settings, the
    split, the epochs, the depth and the normalisation."""
    return (*graph_key, *(p[k] for k in ("model", "hidden", "heads", "aggr", "edge_weights",
                                         "lr", "seed", "train_per_class", "epochs", "depth",
                                         "gcn_norm")))


def _job(*args, **options):
    """``depth_study`` imported in the worker."""
    from models.graphs.depth import depth_study

    yield from depth_study(*args, **options)


class DepthPanel(QObject):
    toggled = Signal(str)      # start or stop the job (``JOB``)

    def __init__(self, host: DepthHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.studies = Kept(8, pinned=lambda: {self.key(), self._running_key})
        self.untrained = Kept(8, pinned=lambda: {self.key()}, precious=lambda s: False)
        self._running_key: tuple | None = None
        self.form = form = ParamForm(DEPTH_PARAMS)
        form.setObjectName("DepthForm")
        self.button = QPushButton()
        self.button.setObjectName("DepthButton")
        self.button.clicked.connect(lambda: self.toggled.emit(JOB))
        form.layout().addRow(self.button)
        self.view = DepthView(self)
        self.views = (self.view,)
        self._result = None
        self._ask = None

    def key(self) -> tuple:
        return study_key(self.host.graph_key(), self.host.params())

    def values(self) -> dict:
        return self.form.values()

    def apply_state(self, state: dict) -> list[str]:
        return self.form.set_values(state)

    def set_model(self, kind: str) -> None:
        """The normalisation switch is GCN's: shown for a GCN only."""
        self.form.set_visible_rows({"depth", "depth_show"}
                                   | ({"gcn_norm"} if kind == "gcn" else set()))

    # -- the job ---------------------------------------------------------------------------
    def make_job(self, data, device: str):
        from models.graphs.options import session_kwargs

        p = self.host.params()
        self._running_key = self.key()
        return partial(_job, data, p["model"], p["depth"], p["gcn_norm"], p["seed"],
                       p["train_per_class"], p["epochs"], device, **session_kwargs(p))

    def on_progress(self, progress) -> None:
        if progress.trace is not None and self._running_key is not None:
            self.studies[self._running_key] = progress.trace
            self.redraw()

    @staticmethod
    def job_text(progress) -> str:
        return translate("GraphTab", "Depth study: {0}/{1} epochs").format(
            progress.step, progress.total)

    # -- drawing ---------------------------------------------------------------------------
    def keep_untrained(self, key: tuple, study) -> None:
        """``study``, computed for the settings ``key`` (a result's ``depth_key``: an
        earlier computation's result can arrive after the settings changed), kept."""
        if study is not None and key:
            self.untrained.setdefault(key, study)

    def shown(self) -> DepthShown:
        key = self.key()
        study = self.studies.get(key) or self.untrained.get(key)
        result = self._result
        if study is None and result is not None and result.depth_key == key:
            study = result.depth
        error = "" if study is not None else (
            result.depth_error if result is not None and result.depth_error else
            translate("GraphTab", "Working out the depth study…"))
        return DepthShown(study, error)

    def show(self, result, ask) -> None:
        self._result, self._ask = result, ask
        self.redraw()

    def redraw(self) -> None:
        if self._ask is None:
            return
        shown = self.shown()
        for view in self.views:
            view.show(shown, self._ask)

    def retranslate(self) -> None:
        self.form.setTitle(translate("GraphTab", "Depth and over-smoothing"))
        self.form.set_texts({"depth": translate("GraphTab", "Layers"),
                             "gcn_norm": translate("GraphTab", "GCN normalisation"),
                             "depth_show": translate("GraphTab", "Show")},
                            {"depth_show": [
                                translate("GraphTab", "energy and distance per layer"),
                                translate("GraphTab", "test accuracy against depth")]})
        self.form.widgets["gcn_norm"].setToolTip(translate(
            "GraphTab", "On: D̂^-1/2 (A+I) D̂^-1/2, GCNConv(normalize=True). Off: the plain "
                        "sum over A+I, GCNConv(normalize=False)"))
        self.button.setToolTip(translate(
            "GraphTab", "Train the run and a 2-layer baseline side by side, then a model of "
                        "every depth 1–8"))

    def update_button(self) -> None:
        self.button.setText(self.host.job_button_text(JOB, translate("GraphTab",
                                                                     "Depth study")))
        self.button.setEnabled(self.host.torch_ready)
