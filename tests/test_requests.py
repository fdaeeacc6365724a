"""The frozen requests of the topics: a request that exists is a valid one."""

from __future__ import annotations

import math

import pytest

from models.errors import InvalidParameterError
from models.transformer.options import POSITIONAL_RANGES, PositionalRequest


def test_positional_request_defaults_are_its_ranges_defaults():
    ask = PositionalRequest()
    for key, r in POSITIONAL_RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum


@pytest.mark.parametrize("values, words", [
    ({"d_model": 0}, "d_model must be between 2 and 1024"),
    ({"d_model": 2.5}, "d_model must be a whole number"),
    ({"d_model": True}, "d_model must be a whole number"),
    ({"base": math.nan}, "base must be a finite number"),
    ({"base": "x"}, "base must be a number"),
    ({"max_len": 10, "offset": 10}, "offset = 10 must be between 0 and 9"),
    ({"init": "xavier"}, "init must be one of normal, scaled"),
    ({"relative_mode": "maybe"}, "relative_mode must be one of"),
    ({"sentence": 3}, "sentence must be text"),
])
def test_positional_request_refuses_and_names_the_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        PositionalRequest(**values)


def test_requests_take_what_a_set_option_writes_and_are_frozen():
    ask = PositionalRequest.from_values({"d_model": "64", "base": "100", "speed": 3})
    assert (ask.d_model, ask.base) == (64, 100.0)
    assert isinstance(ask.d_model, int) and isinstance(ask.base, float)
    with pytest.raises(AttributeError):
        ask.d_model = 8
    assert PositionalRequest(dims="0, 3-4, 99", d_model=8).curve_dims == [0, 3, 4]
    assert PositionalRequest(dims="0, 3-4, 99", d_model=8).ignored_dims == ["99"]


def test_flow_request_switches_read_words_strictly():
    from models.flows.options import FlowRequest

    assert FlowRequest(grid="false").grid is False
    assert FlowRequest(course=1).course is True
    with pytest.raises(InvalidParameterError, match="grid must be true or false"):
        FlowRequest(grid="maybe")
