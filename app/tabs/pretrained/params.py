"""The pretrained tab's declared parameters: the settings' defaults as tours, the command
line and session files give them (those of the models' ``PretrainedRequest``, written as
the controls hold them: the similarity's sentences one per line, "" for no pair, [] for
every head on and every token kept), and the ranges the number controls are built from
(``PRETRAINED_RANGES``)."""

from __future__ import annotations

from models.pretrained.options import PRETRAINED_RANGES, PretrainedRequest

__all__ = ["DEFAULTS", "RANGES", "TEXTS", "MAX_TEXT"]

RANGES = PRETRAINED_RANGES
_ASK = PretrainedRequest()

DEFAULTS = {
    "sentence": _ASK.sentence,
    "pair": _ASK.pair or "",
    "sentences": "\n".join(_ASK.sentences),
    "layer": _ASK.layer, "head": _ASK.head, "query": 0,
    "temperature": _ASK.temperature, "top_k": _ASK.top_k, "top_p": _ASK.top_p,
    "steps": _ASK.steps, "seed": _ASK.seed,
    "head_mask": [], "keep": [],
}
#: the settings that are texts
TEXTS = ("sentence", "pair", "sentences")
#: the longest text a sentence box takes
MAX_TEXT = 4000
