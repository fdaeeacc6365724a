"""The pretrained tab's declared parameters: the settings' defaults as tours, the command
line and session files give them (those of the models' ``PretrainedRequest``, written as
the controls hold them: the similarity's sentences one per line, "" for no pair, [] for
every head on and every token kept), and the ranges the number controls are built from
(``PRETRAINED_RANGES``)."""

from __future__ import annotations

from models.pretrained.options import PRETRAINED_RANGES, PretrainedRequest

__all__ = ["DEFAULTS", "RANGES", "TEXTS", "MAX_TEXT", "APPROX_KEYS"]

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
    # the attention inside the model for the approximation view
    "attention": _ASK.attention, "features": _ASK.features, "projected": _ASK.projected,
    "window": _ASK.window,
}
#: the approximation's settings (a --set gives them as texts; the request checks them)
APPROX_KEYS = ("attention", "features", "projected", "window")
#: the settings that are texts
TEXTS = ("sentence", "pair", "sentences")
#: the longest text a sentence box takes
MAX_TEXT = 4000
