"""The graph-generation tab's frozen request: a request that exists is a valid one."""

from __future__ import annotations

from dataclasses import fields

import pytest

from models.errors import InvalidParameterError
from models.generation.options import (
    GENERATION_RANGES,
    METHODS,
    GenerationRequest,
)


def test_generation_request_defaults_are_its_ranges_defaults():
    ask = GenerationRequest()
    for key, r in GENERATION_RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum
    assert ask.methods == METHODS and ask.baselines == ("er", "ba", "sbm")


def test_a_switch_per_method():
    assert {f.name for f in fields(GenerationRequest) if f.name.startswith("show_")} == {
        f"show_{m}" for m in METHODS}


@pytest.mark.parametrize("values, words", [
    ({"count": 5}, "count must be between 20 and 500"),
    ({"shown": 13}, "shown must be between 2 and 12"),
    ({"steps": 2.5}, "steps must be a whole number"),
    ({"seed": "x"}, "seed must be a whole number"),
    ({"dataset": "lattice"}, "dataset must be one of community, grid, ego, folder"),
    ({"show_er": "maybe"}, "show_er must be true or false"),
])
def test_a_bad_value_is_refused_naming_its_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        GenerationRequest(**values)


def test_the_methods_compared_follow_the_switches():
    ask = GenerationRequest.from_values({"show_graphrnn": "false", "show_ba": 0, "other": 1})
    assert ask.methods == ("er", "sbm") == ask.baselines
    assert GenerationRequest(dataset="folder").is_folder


def test_the_view_of_a_request_is_reused_for_the_same_family():
    from models.generation.view import generation_view

    ask = GenerationRequest(dataset="grid", count=20, seed=1, show_ba=False, show_sbm=False)
    view = generation_view(ask)
    assert view.data.count == 20 and view.baselines.methods == ("er",)
    assert generation_view(GenerationRequest(dataset="grid", count=20, seed=1, shown=3,
                                             show_ba=False, show_sbm=False),
                           reuse=view) is view
