"""The Flows tab's note on the user's own points, the offer to standardise them, and
reading a file of points in the background.

A file of points (or points drawn) can be impossible to learn a density from (all one
point, no spread, a line: ``FlowSession.data_problem``) or so far from unit scale
that training diverges (1e30) or crawls. The tab says so before Train is pressed, and
where standardising would help offers "Standardise the points".

A file is read, and the points judged (``points.point_statistics``: their spread and
k-NN entropy, a second for a million points), in the background job of File → Open; the
session made for them later takes those figures instead of computing them on the GUI
thread.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication

from models.flows.options import CUSTOM
from models.reading import LoadWatch

translate = QCoreApplication.translate


def read_points(path: str, progress=None, cancelled=None):
    """``(points, statistics)`` of a file of points (any thread): ``load_points_csv``,
    then ``points.point_statistics`` of what it read."""
    from models.flows.points import load_points_csv, point_statistics

    watch = LoadWatch(Path(path).name, progress, cancelled)
    points = load_points_csv(path, watch.span(0.0, 0.8).tick, cancelled)
    watch.tick(0.8)
    statistics = point_statistics(points)
    watch.tick(1.0)
    return points, statistics


class UserPointsNote:
    """Mixed into ``FlowsTab`` (which has ``custom_points``, ``custom_name``,
    ``_custom_id``, ``error_note``, ``standardise_button``, ``session()``, ``params()``
    and ``_model_changed()``); its strings are in the FlowsTab context."""

    def points_statistics(self):
        """``points.point_statistics`` of ``custom_points`` if it was computed with the
        file (``_known_statistics``, kept with the very array it describes: points drawn
        or standardised since are other arrays, judged afresh), else None."""
        known = getattr(self, "_known_statistics", None)
        if known is not None and known[0] is self.custom_points:
            return known[1]
        return None

    def _show_data_problem(self) -> None:
        """Before Train is pressed: why the user's points cannot be trained on (the
        session's ``data_problem``: all one point, no spread, a line) or that they lie far
        from unit scale, with "Standardise the points" offered where that would help."""
        note, offer = "", False
        if self.params()["density"] == CUSTOM and self.custom_points is not None:
            # (imported here: torch with them, never on the GUI thread at start-up)
            from models.flows.points import spread_problem, standardise
            from models.flows.session import UNIT_SCALE

            session = self.session()
            scale = session.data_scale()
            if session.data_problem:        # the detail is the model's (English) text
                note = translate("FlowsTab", "These points cannot be trained on as they "
                                 "are.") + " " + session.data_problem
            elif not UNIT_SCALE[0] <= scale <= UNIT_SCALE[1]:
                note = translate(
                    "FlowsTab", "The points reach {0:.3g} from their mean, far from the unit "
                    "scale the flow starts at: training would diverge or crawl. Standardise "
                    "them first.").format(scale)
            offer = bool(note) and not spread_problem(standardise(self.custom_points))
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
