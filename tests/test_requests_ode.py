"""The neural-ODE tab's frozen request: defaults of its ranges, refusals naming the key."""

from __future__ import annotations

import math

import pytest

from models.errors import InvalidParameterError
from models.ode.options import RANGES, TASK_DEFAULTS, ODERequest


def test_ode_request_defaults_are_its_ranges_defaults():
    ask = ODERequest()
    for key, r in RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum
    for values in TASK_DEFAULTS.values():
        ODERequest(**values)                      # every task's start is a valid setting
    assert ask.session_key == ("spiral", "", 50, 0)
    assert ODERequest(task="classify", augment=2).session_key == ("classify", "moons", 50, 2)


@pytest.mark.parametrize("values, words", [
    ({"task": "fit"}, "task must be one of spiral, classify, cnf"),
    ({"method": "rk45"}, "method must be one of"),
    ({"hidden": 2}, "hidden must be between 4 and 256"),
    ({"augment": 1.5}, "augment must be a whole number"),
    ({"rtol": math.inf}, "rtol must be a finite number"),
    ({"max_nfe": 5}, "max_nfe must be between 10 and 100000"),
    ({"adjoint": "maybe"}, "adjoint must be true or false"),
])
def test_ode_request_refuses_and_names_the_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        ODERequest(**values)


def test_ode_request_takes_what_a_set_option_writes_and_is_frozen():
    ask = ODERequest.from_values({"hidden": "64", "rtol": "1e-4", "adjoint": "true",
                                  "train": True, "starts": "1,2"})
    assert (ask.hidden, ask.rtol, ask.adjoint) == (64, 1e-4, True)
    assert ask.solver_kwargs == {"method": "dopri5", "rtol": 1e-4, "atol": 1e-4,
                                 "step_size": 0.05, "adjoint": True, "max_nfe": 5000}
    with pytest.raises(AttributeError):
        ask.hidden = 8
