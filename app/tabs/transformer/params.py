"""The Transformer tab's declared parameters: what it shows first, and the fields a
session file's model and input are checked against."""

from __future__ import annotations

DEFAULTS = {"architecture": "encoder-decoder", "tokenizer": "digits", "task": "reverse",
            "sequence": "3 1 4 1 5 9 2 6", "pad_to": 10, "kind": "cross",
            "layer": 1, "head": 0, "padding": True, "look_ahead": True, "generated": 0,
            "step": "self.softmax", "course": False}
