"""The efficient-attention tab's frozen request: a request that exists is a valid one."""

from __future__ import annotations

import math

import pytest

from models.efficient_attention.options import (
    EFFICIENT_PART_FIELDS,
    EFFICIENT_RANGES,
    EfficientRequest,
)
from models.errors import InvalidParameterError


def test_efficient_request_defaults_are_its_ranges_defaults():
    ask = EfficientRequest()
    for key, r in EFFICIENT_RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum


def test_every_setting_belongs_to_a_part():
    from dataclasses import fields

    parts = set().union(*EFFICIENT_PART_FIELDS.values())
    assert parts == {f.name for f in fields(EfficientRequest)}


@pytest.mark.parametrize("values, words", [
    ({"n": 5000}, "n must be between 8 and 1024"),
    ({"n": 16.5}, "n must be a whole number"),
    ({"window": True}, "window must be a whole number"),
    ({"scale": math.nan}, "scale must be a finite number"),
    ({"time_budget": "x"}, "time_budget must be a number"),
    ({"pattern": "diagonal"}, "pattern must be one of local"),
    ({"method": "reformer"}, "method must be one of performer"),
    ({"max_n": "3000"}, "max_n must be one of 1024"),
    ({"causal": "maybe"}, "causal must be true or false"),
    ({"global_tokens": 3}, "global_tokens must be text"),
])
def test_a_bad_value_is_refused_naming_its_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        EfficientRequest(**values)


def test_values_as_a_command_line_gives_them_are_taken():
    ask = EfficientRequest.from_values({"n": "32", "scale": "1.5", "causal": "true",
                                        "max_n": 1024, "unknown": 1})
    assert (ask.n, ask.scale, ask.causal, ask.max_n) == (32, 1.5, True, "1024")
    assert ask.measured_ns == (256, 512, 1024)
    assert EfficientRequest().memory_budget_bytes == 2048 * 2 ** 20


def test_a_part_holds_only_its_settings():
    a, b = EfficientRequest(), EfficientRequest(n=32)
    assert a.part("approx") == b.part("approx") and a.part("mask") != b.part("mask")
    assert "seed" in a.part("mask") and "seed" in a.part("approx")


def test_the_probe_takes_the_request_and_refuses_a_part_alone():
    from models.efficient_attention import efficient_trace

    ask = EfficientRequest(pattern="global", global_tokens="zero", n=16, seq_len=16,
                           features=8)
    wanted = {part: ask.part(part) for part in EFFICIENT_PART_FIELDS}
    t = efficient_trace(ask, None, wanted)
    assert t.mask is None and "Global tokens" in t.errors["mask"]
    assert t.approx.exact.shape == (16, 16) and t.theory is not None
