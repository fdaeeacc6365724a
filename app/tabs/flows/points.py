"""The Flows tab's note on the user's own points, the offer to standardise them, and
reading a file of points in the background.

A file of points (or points drawn) can be impossible to learn a density from (all one
point, no spread, a line: ``FlowSession.data_problem``) or so far from unit scale
that training diverges (1e30) or crawls. The tab says so before Train is pressed, and
where standardising would help offers "Standardise the points".

A file is read, and the points judged (``points.point_statistics``: their spread and
k-NN entropy, a second for a million points; ``points.scale_judgement``: their scale and
whether standardising would help), in the background job of File → Open. The note takes
those figures, and the session made for them later (in a worker) takes the statistics,
instead of computing them on the GUI thread: the note never makes a session.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication

from models.flows.options import CUSTOM
from models.reading import LoadWatch

translate = QCoreApplication.translate


def read_points(path: str, progress=None, cancelled=None):
    """``(points, statistics, judgement)`` of a file of points (any thread):
    ``load_points_csv``, then ``points.point_statistics`` of what it read and the note's
    ``(spread problem, scale, standardising helps)``."""
    from models.flows.points import load_points_csv, point_statistics, scale_judgement

    watch = LoadWatch(Path(path).name, progress, cancelled)
    points = load_points_csv(path, watch.span(0.0, 0.8).tick, cancelled)
    watch.tick(0.8)
    statistics = point_statistics(points)
    watch.tick(0.95)
    judgement = (statistics[0], *scale_judgement(points, statistics[0]))
    watch.tick(1.0)
    return points, statistics, judgement


class UserPointsNote:
    """Mixed into ``FlowsTab`` (which has ``custom_points``, ``custom_name``,
    ``_custom_id``, ``error_note``, ``standardise_button``, ``session()``, ``params()``
    and ``_model_changed()``); its strings are in the FlowsTab context."""

    def points_statistics(self):
        """``points.point_statistics`` of ``custom_points`` if it was computed with the
        file (``_known_statistics``: ``(points, statistics or None, judgement)``, kept
        with the very array it describes: points drawn or standardised since are other
        arrays, judged afresh), else None."""
        known = getattr(self, "_known_statistics", None)
        if known is not None and known[0] is self.custom_points:
            return known[1]
        return None

    def _points_judgement(self) -> tuple[str | None, float, bool]:
        """``(spread problem, scale, standardising helps)`` of ``custom_points``: the
        file's, judged in the background, when they are its very points; else worked out
        now and kept with the array (points drawn are few; points standardised were just
        made by a click)."""
        from models.flows.points import scale_judgement, spread_problem

        known = getattr(self, "_known_statistics", None)
        if known is None or known[0] is not self.custom_points:
            problem = spread_problem(self.custom_points)     # no entropy: the session's
            known = self._known_statistics = (
                self.custom_points, None, (problem, *scale_judgement(self.custom_points,
                                                                     problem)))
        return known[2]

    def _show_data_problem(self) -> None:
        """Before Train is pressed: why the user's points cannot be trained on (the
        session's ``data_problem``: all one point, no spread, a line) or that they lie far
        from unit scale, with "Standardise the points" offered where that would help."""
        note, offer = "", False
        if self.params()["density"] == CUSTOM and self.custom_points is not None:
            from models.flows.points import UNIT_SCALE

            problem, scale, offer = self._points_judgement()
            if problem:                     # the detail is the model's (English) text
                note = translate("FlowsTab", "These points cannot be trained on as they "
                                 "are.") + " " + problem
            elif not UNIT_SCALE[0] <= scale <= UNIT_SCALE[1]:
                note = translate(
                    "FlowsTab", "The points reach {0:.3g} from their mean, far from the unit "
                    "scale the flow starts at: training would diverge or crawl. Standardise "
                    "them first.").format(scale)
        if note or self.error_note.text() == self._data_note:
            self.error_note.setText(note)   # (a training failure shown is left alone)
        self._data_note = note
        self.standardise_button.setVisible(offer)

    def standardise_points(self) -> None:
        """The user's points replaced by ``points.standardise`` of them (mean 0 and
        standard deviation 1 in each coordinate): a new point set, so a new model; opening
        the file again brings the original points back."""
        from models.flows.points import standardise

        if self.custom_points is None:
            return
        self.stop_jobs()
        self.custom_points = standardise(self.custom_points)
        self._custom_id += 1
        self._model_changed()
        self.ctx.status(translate(
            "FlowsTab", "Standardised the points of {0}: mean 0 and standard deviation 1 in "
            "each coordinate. Open the file again for the original points.").format(
                self.custom_name))
