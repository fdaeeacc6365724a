"""Session files: round trips through the window, and the format's refusals."""

from __future__ import annotations

import pytest

from tests.session_checks import assert_same_views, round_trip, train_steps, view_arrays


@pytest.mark.parametrize("key, state", [
    ("positional", {"d_model": 48, "max_len": 70, "base": 5000, "offset": 7}),
])
def test_a_tab_without_training_comes_back_with_its_controls(qtbot, tmp_path, key, state):
    a, b, _ = round_trip(qtbot, key, tmp_path, lambda tab: tab.apply_state(state, strict=True))
    assert b.params() == a.params()
    assert {k: b.params()[k] for k in state} == state
    assert_same_views(view_arrays(a), view_arrays(b))


def test_a_trained_flow_comes_back_and_trains_on_from_where_it_was(qtbot, tmp_path):
    def prepare(tab):
        tab.apply_state({"layers": 4, "lr": 0.003}, strict=True)
        train_steps(tab, 40)

    a, b, _ = round_trip(qtbot, "flows", tmp_path, prepare)
    assert b.current_session().step == 40
    assert_same_views(view_arrays(a), view_arrays(b))
    assert train_steps(a, 5) == train_steps(b, 5)
