"""The meta-learning tab's frozen request: defaults of its ranges, refusals naming the key."""

from __future__ import annotations

import math

import pytest

from models.errors import InvalidParameterError
from models.meta.options import RANGES, MetaRequest


def test_meta_request_defaults_are_its_ranges_defaults():
    ask = MetaRequest()
    for key, r in RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum
    assert ask.shown_methods == ["maml", "fomaml", "reptile", "pretrained"]
    assert ask.task_key == (9, 10, 5.0)


@pytest.mark.parametrize("values, words", [
    ({"k": 7}, "k must be one of 5, 10"),
    ({"k": 2.5}, "k must be a whole number"),
    ({"amp_max": 11}, "amp_max must be between 5 and 10"),
    ({"inner_lr": math.nan}, "inner_lr must be a finite number"),
    ({"steps_shown": 11}, "steps_shown must be between 0 and 10"),
    ({"meta_batch": "x"}, "meta_batch must be a whole number"),
    ({"family": "moons"}, "family must be one of blobs, rings, anisotropic"),
    ({"input_regions": "both"}, "input_regions must be one of learned, baseline"),
    ({"trail": "maybe"}, "trail must be true or false"),
])
def test_meta_request_refuses_and_names_the_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        MetaRequest(**values)


def test_meta_request_takes_what_a_set_option_writes_and_is_frozen():
    ask = MetaRequest.from_values({"k": "5", "amp_max": "7.5", "show_reptile": "false",
                                   "support": "task", "train": True})
    assert (ask.k, ask.amp_max) == (5, 7.5) and isinstance(ask.k, int)
    assert ask.shown_methods == ["maml", "fomaml", "pretrained"]
    assert ask.session_options == {"k": 5, "inner_lr": 0.01, "inner_steps": 1,
                                   "reptile_inner_steps": 5, "meta_batch": 25,
                                   "meta_lr": 1e-3}
    with pytest.raises(AttributeError):
        ask.k = 10
