"""The Flows tab's part of a session file (File → Save session… / Open session…).

Beyond the controls and the training session on screen (``TrainingTab``), a flows
session keeps the user's own points (loaded from a file, drawn, or standardised: the
points the model was trained on, float32[n, 2]) with the name they came from, and the
animation's position (the layer slider). The direction, the number of points, the
grid, the speed and the seed are controls (``params``).

Opening checks the points as a file of points is checked (``points.check_points``:
n rows of (x, y), at least ``MIN_POINTS``, finite in float32) before anything changes;
points drawn but not yet used and a running animation are dropped, so the reopened tab
shows the saved picture, paused at the saved position.

The tab keeps a model per setting (``sessions``). Opening loads the saved state into a
fresh model for the saved settings, never into one the tab had: the job stopped by the
opening may still finish the step it was taking on that one, and if the window refuses
the file (another tab's part of it, say), ``app.sessions`` opens the state
``session_state`` gave just before, and the tab takes back its own models, untouched
(a refused file leaves no trained model behind under other settings).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate

#: the longest name of a point set kept (a file's name)
MAX_NAME = 260


class FlowSessionFile:
    """Mixed into ``FlowsTab`` (which has ``custom_points``, ``custom_name``,
    ``_custom_id``, ``sessions``, ``_session_key()``, ``_running_key``, ``slider``,
    ``play_button``, ``draw_button``, ``flow_view`` and ``_show_data_problem()``)."""

    _opened_position: float | None = None
    #: (state, models, point-set number) as ``session_state`` last gave them
    _state_given: tuple | None = None
    _going_back = False
    _models_before: dict | None = None

    def session_state(self):
        state = super().session_state()
        self._state_given = (state, dict(self.sessions), self._custom_id)
        return state

    def open_session_state(self, state, name: str) -> None:
        given = self._state_given
        self._going_back = given is not None and state is given[0]
        self._models_before = dict(self.sessions)
        try:
            super().open_session_state(state, name)
        finally:
            self._going_back, self._models_before = False, None

    def session_inputs(self) -> tuple[dict, dict]:
        data: dict = {"position": self.slider.value() / 100}
        arrays: dict[str, np.ndarray] = {}
        if self.custom_points is not None:
            arrays["custom_points"] = np.ascontiguousarray(self.custom_points, np.float32)
            data["custom_name"] = self.custom_name
        return data, arrays

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        from models.errors import InvalidParameterError, SessionFileError
        from models.flows.points import check_points

        points = arrays.get("custom_points")
        if points is not None:
            try:
                points = check_points(points)
            except InvalidParameterError as exc:
                raise SessionFileError(f"{name}: the flows tab's points cannot be used: "
                                       f"{exc}") from exc
        label = data.get("custom_name", "")
        if not isinstance(label, str) or len(label) > MAX_NAME:
            raise SessionFileError(f"{name}: the flows tab's name of the points is not a "
                                   f"name ({str(label)[:40]!r}).")
        position = data.get("position", 0.0)
        if isinstance(position, bool) or not isinstance(position, (int, float)) or \
                not math.isfinite(position) or position < 0:
            raise SessionFileError(f"{name}: the flows tab's animation position must be a "
                                   f"number ≥ 0, got {position!r}.")
        sessions = data.get("sessions", {})
        if isinstance(sessions, dict) and set(sessions) - {"main"}:
            raise SessionFileError(f"{name}: the flows tab has no training session "
                                   f"{sorted(set(sessions) - {'main'})[0]!r}.")
        # checked: now the tab changes
        self._leave_drawing()
        self.play_button.setChecked(False)
        same = points is not None and self.custom_points is not None and \
            np.array_equal(points, self.custom_points)
        if self._going_back:                # the models and point set the tab had
            self.sessions, self._custom_id = dict(self._state_given[1]), self._state_given[2]
        elif points is not None and not same:
            self._custom_id += 1            # a new point set: a model of its own
        if not same:                        # the same points: the same array, still judged
            self.custom_points = points
        self.custom_name = label if points is not None else ""
        self._opened_position, self._opened_file = float(position), name
        self._opened_sessions = set(sessions) if isinstance(sessions, dict) else set()

    def _leave_drawing(self) -> None:
        """Drawing mode off, the points drawn so far dropped (not made the data)."""
        if not self.draw_button.isChecked():
            return
        self.samples_view.drawn = []
        self.draw_button.blockSignals(True)
        self.draw_button.setChecked(False)
        self.draw_button.blockSignals(False)
        self.flow_view.set_drawing(False)
        self.draw_button.setText(translate("FlowsTab", "Draw points"))

    def session_named(self, name: str):
        from models.errors import SessionFileError

        if name != "main":
            raise SessionFileError(f"the flows tab has no training session {name!r}.")
        key = self._session_key()
        if not self._going_back and key in (self._models_before or {}) and \
                self.sessions.get(key) is self._models_before[key]:
            self.sessions.pop(key)          # a fresh model, the tab's own left as it was
        session = self.session()
        self._check_position(len(session.flow.layers))     # before the weights go in
        return session

    def _check_position(self, layers: int) -> None:
        from models.errors import SessionFileError

        if (self._opened_position or 0.0) > layers:
            raise SessionFileError(f"{self._opened_file}: the flows tab's animation position "
                                   f"{self._opened_position:g} is beyond its flow's {layers} "
                                   "layers.")

    def after_session_opened(self) -> None:
        if not self._opened_sessions:          # saved before the model was made
            self.sessions.pop(self._session_key(), None)
        layers = len(self.session().flow.layers)
        self._check_position(layers)
        position, self._opened_position = self._opened_position or 0.0, None
        # the slider's range follows the trace drawn next; until then it must hold the value
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(self.slider.maximum(), 100 * layers))
        self.slider.setValue(round(100 * position))
        self.slider.blockSignals(False)
        self._show_data_problem()
        super().after_session_opened()
