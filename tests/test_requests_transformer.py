"""The Transformer tab's frozen request: a request that exists is a valid one."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from models.errors import InvalidParameterError
from models.transformer.options import TRANSFORMER_RANGES, TransformerRequest


def test_transformer_request_defaults_are_its_ranges_defaults_and_the_tabs():
    ask = TransformerRequest()
    for key, r in TRANSFORMER_RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum
    assert asdict(ask) == {
        "architecture": "encoder-decoder", "tokenizer": "digits", "task": "reverse",
        "sequence": "3 1 4 1 5 9 2 6", "pad_to": 10, "kind": "cross", "layer": 1, "head": 0,
        "padding": True, "look_ahead": True, "generated": 0, "step": "self.softmax",
        "course": False, "ablation": "no_pe", "size_layers": 2, "size_heads": 4,
        "size_d_model": 64, "size_d_ff": 128, "size_dropout": 0.0, "size_activation": "relu",
        "size_norm": "post", "size_steps": 300}
    # the size study's variant starts as the baseline it is trained beside
    from dataclasses import replace

    from models.transformer.seq2seq import ModelConfig

    assert replace(ModelConfig(), **ask.size_values) == ModelConfig()


@pytest.mark.parametrize("values, words", [
    ({"architecture": "rnn"}, "architecture must be one of encoder-decoder"),
    ({"tokenizer": "bytes"}, "tokenizer must be one of digits, characters, words"),
    ({"task": "add"}, "task must be one of copy, reverse, sort, shift"),
    ({"kind": "sideways"}, "kind must be one of encoder, decoder, cross"),
    ({"pad_to": 0}, "pad_to must be between 1 and 64"),
    ({"layer": 1.5}, "layer must be a whole number"),
    ({"head": 64}, "head must be between 0 and 63"),
    ({"generated": -1}, "generated must be between 0 and 65"),
    ({"padding": "maybe"}, "padding must be true or false"),
    ({"sequence": 3}, "sequence must be text"),
    ({"step": None}, "step must be text"),
])
def test_transformer_request_refuses_and_names_the_key(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        TransformerRequest(**values)


def test_transformer_request_takes_what_a_set_option_writes_and_is_frozen():
    ask = TransformerRequest.from_values({"layer": "0", "head": 2.0, "course": "true",
                                          "look_ahead": 0, "train": True})
    assert (ask.layer, ask.head, ask.course, ask.look_ahead) == (0, 2, True, False)
    assert isinstance(ask.layer, int) and isinstance(ask.head, int)
    assert ask.model_key == ("encoder-decoder", "digits", "reverse")
    with pytest.raises(AttributeError):
        ask.layer = 0


def test_session_trace_clamps_the_request_to_the_model():
    from models.transformer import (
        ModelConfig,
        Seq2SeqSession,
        TaskConfig,
        parse_sequence,
        session_trace,
    )

    s = Seq2SeqSession(TaskConfig.for_alphabet("reverse", "digits"), ModelConfig(),
                       device="cpu")
    ask = TransformerRequest(kind="encoder", layer=11, head=63, pad_to=64, generated=2)
    t = session_trace(s, ask, parse_sequence("3 1 4", s.task))
    assert (t.kind, t.layer, t.head) == ("encoder", 1, 3)
    assert len(t.src_tokens) == s.task.max_len + 1          # padded to the model's longest
