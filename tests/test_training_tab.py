"""The training tab base of app/tabs/: Train/Stop, progress, status, error note, device
change and the bottom bar cleared when a job ends, driven with clicks on a small tab whose
session is the least-squares one of tests/test_session.py."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.settings import Settings
from app.tabs.base import TabContext
from app.tabs.training import TrainingTab
from models.errors import InvalidParameterError
from tests.test_session import Regression


class _RegressionTab(TrainingTab):
    key = "regression_for_tests"

    def __init__(self, ctx, session):
        super().__init__(ctx)
        self.session = session
        self.add_training_controls()
        self.stopped: list[tuple[str, bool, bool]] = []
        self.refuse = False
        self.torch_ready = True
        self.update_buttons()

    def make_job(self, name):
        if self.refuse:
            raise InvalidParameterError("Choose a label first.")
        return partial(self.session.train, 1_000_000, 50)

    def job_text(self, name, progress):
        return f"Training: step {progress.step}"

    def on_job_stopped(self, name, completed, failed):
        self.stopped.append((name, completed, failed))

    def training_sessions(self):
        return (self.session,)

    def trained_steps(self):
        return self.session.step

    def status_text(self):
        return f"{self.session.step} steps trained" if self.session.step else ""

    def compute_fn(self):
        return lambda: None

    def show_trace(self, trace):
        pass

    def apply_state(self, state, strict=False):
        pass


@pytest.fixture
def make_tab(qtbot):
    errors, statuses = [], []

    def make(session):
        ctx = TabContext(settings=Settings(), device=lambda: "cpu", language=lambda: "en",
                         report_error=lambda e, d: errors.append(e), status=statuses.append)
        tab = _RegressionTab(ctx, session)
        tab.errors, tab.statuses = errors, statuses
        qtbot.addWidget(tab)
        return tab

    return make


def test_train_stop_resume_and_the_bar_cleared(qtbot, make_tab):
    tab = make_tab(Regression())
    assert tab.train_button.text() == "Train" and tab.status.text() == ""
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    assert tab.running() == "train" and tab.train_button.text() == "Stop"
    qtbot.waitUntil(lambda: tab.session.step > 20, timeout=20_000)
    qtbot.waitUntil(lambda: tab.job_bar.label.text().startswith("Training: step"),
                    timeout=5_000)
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(tab.stopped), timeout=10_000)
    assert tab.stopped == [("train", False, False)]
    assert tab.running() == "" and tab.train_button.text() == "Resume training"
    # nothing stale in the bottom bar once the job has ended
    assert tab.job_bar.label.text() == "" and tab.job_bar.bar.value() == 0
    assert tab.status.text() == f"{tab.session.step} steps trained"


def test_divergence_shows_what_was_restored(qtbot, make_tab):
    tab = make_tab(Regression(poison_at=30))
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(tab.stopped), timeout=20_000)
    assert tab.stopped == [("train", False, True)]
    # step 30 diverges before it can become a rollback point: back to step 20
    assert "weights of step 20 were restored" in tab.error_note.text()
    assert any("diverged" in str(e) for e in tab.errors)        # and the error dialog
    assert tab.session.step == 20 and np.isfinite(tab.session.losses).all()
    tab.session.poison_at = None
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)   # trains on, note cleared
    assert tab.error_note.text() == ""
    tab.stop_jobs()
    qtbot.waitUntil(lambda: len(tab.stopped) == 2, timeout=10_000)


def test_a_refusal_goes_to_the_error_note_and_nothing_runs(qtbot, make_tab):
    tab = make_tab(Regression())
    tab.refuse = True
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    assert tab.error_note.text() == "Choose a label first." and tab.running() == ""


def test_device_change_stops_the_job_and_moves_the_session(qtbot, make_tab):
    tab = make_tab(Regression())
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.session.step > 5, timeout=20_000)
    tab.on_device_changed("cpu")
    qtbot.waitUntil(lambda: bool(tab.stopped), timeout=10_000)
    # the move never waited for the step in flight: that step's end makes it
    qtbot.waitUntil(lambda: tab.session.moved_data_to is not None, timeout=10_000)
    assert tab.running() == ""
    assert tab.statuses == ["The job was stopped: the device changed to cpu."]
    tab.on_device_changed("cuda:7")                # not on this machine: said, nothing lost
    assert "not available" in tab.error_note.text()
    assert str(tab.session.device) == "cpu" and tab.session.step > 5
