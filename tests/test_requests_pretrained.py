"""The pretrained tab's frozen request: its defaults are the tab's, and a value outside
its ranges is refused naming it when the request is made."""

from __future__ import annotations

import pytest

from models.errors import InvalidParameterError
from models.pretrained.options import PRETRAINED_RANGES, PretrainedRequest


def test_defaults_come_from_the_ranges_and_the_tab_declares_them():
    from app.tabs.pretrained.params import DEFAULTS

    ask = PretrainedRequest()
    for key, r in PRETRAINED_RANGES.items():
        assert getattr(ask, key) == r.default == DEFAULTS[key]
    assert DEFAULTS["sentences"].splitlines() == list(ask.sentences)
    assert ask.mask_array() is None and ask.keep_array() is None


@pytest.mark.parametrize("key, value", [("temperature", 0.0), ("top_p", 1.5), ("top_k", -1),
                                         ("steps", 0), ("layer", 2.5), ("seed", "x")])
def test_a_value_outside_its_range_is_refused_naming_it(key, value):
    with pytest.raises(InvalidParameterError, match=key):
        PretrainedRequest(**{key: value})


def test_masks_become_arrays():
    ask = PretrainedRequest(keep=(True, False), head_mask=((1.0, 0.0),), steps="3")
    assert ask.steps == 3
    assert ask.keep_array().tolist() == [True, False]
    assert ask.mask_array().shape == (1, 2)
