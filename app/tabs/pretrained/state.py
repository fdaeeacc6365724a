"""The pretrained-model tab's settings as tours, the command line and session files give
them: checked (``check``) before any control changes, so a refused value leaves the tab
as it was; and the tab's part of a session file beyond its controls (the model folder).

Settings: the text (``sentence``, ``pair``), the similarity box (``sentences``, one per
line), ``layer``, ``head``, ``query`` (the neuron view's query token), the decoder's
``temperature``, ``top_k`` (0 = off), ``top_p`` (1 = off), ``steps`` and ``seed``;
``head_mask`` (layers × heads of 0/1, [] = every head on) and ``keep`` (one true/false per
token of the text, [] = every token kept); the approximation view's ``attention`` (exact,
performer, linformer, sparse) and its ``features`` (m), ``projected`` (k) and ``window``
(w), checked by ``PretrainedRequest`` (so "64" from a ``--set`` is 64).
"""

from __future__ import annotations

import math

from app.tabs.pretrained.params import APPROX_KEYS, DEFAULTS, MAX_TEXT, RANGES, TEXTS

__all__ = ["DEFAULTS", "check", "approximation", "head_mask", "keep", "session_model"]

#: whole-number settings and their ranges (layer, head and query: checked against the
#: model when it is loaded; here against generous bounds)
WHOLE = {key: (int(RANGES[key].minimum), int(RANGES[key].maximum))
         for key in ("layer", "head", "top_k", "steps", "seed")} | {"query": (0, 65535)}
REAL = {key: (RANGES[key].minimum, RANGES[key].maximum) for key in ("temperature", "top_p")}


def check(state: dict) -> None:
    """``InvalidParameterError`` naming the first setting that cannot be used as given."""
    from models.errors import InvalidParameterError

    unknown = sorted(set(state) - set(DEFAULTS))
    if unknown:
        raise InvalidParameterError(f"Unknown parameter {', '.join(map(str, unknown))}; "
                                    f"known: {', '.join(sorted(DEFAULTS))}.")
    for key in TEXTS:
        if key in state and (not isinstance(state[key], str) or len(state[key]) > MAX_TEXT):
            raise InvalidParameterError(f"{key} must be a text of at most {MAX_TEXT} "
                                        "characters.")
    for key, (lo, hi) in WHOLE.items():
        if key in state:
            value = state[key]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise InvalidParameterError(f"{key} = {value!r} is not a whole number from "
                                            f"{lo} to {hi}.")
    for key, (lo, hi) in REAL.items():
        if key in state:
            value = state[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or not lo <= value <= hi:
                raise InvalidParameterError(f"{key} = {value!r} is not a number from {lo:g} "
                                            f"to {hi:g}.")
    approximation(state)
    if "head_mask" in state:
        head_mask(state["head_mask"])
    if "keep" in state:
        keep(state["keep"])


def approximation(state: dict) -> dict:
    """The approximation's settings in ``state``, checked and typed as the request takes
    them (``InvalidParameterError`` naming the first that is not)."""
    from models.pretrained.options import PretrainedRequest

    given = {key: state[key] for key in APPROX_KEYS if key in state}
    if isinstance(given.get("attention"), str):
        given["attention"] = given["attention"].strip().lower()
    ask = PretrainedRequest(**given)
    return {key: getattr(ask, key) for key in given}


def head_mask(value) -> list[list[int]]:
    """A head mask as settings hold it: rows of 0/1 of one length ([] = all on)."""
    from models.errors import InvalidParameterError

    ok = isinstance(value, list) and len(value) <= 128 and all(
        isinstance(row, list) and 0 < len(row) <= 256 and
        all(v in (0, 1) and not isinstance(v, float) for v in row) for row in value)
    if not ok or len({len(row) for row in value}) > 1:
        raise InvalidParameterError("head_mask must be rows (one per layer) of 0 or 1 (one "
                                    "per head), all of one length, or [] for every head on.")
    return [[int(bool(v)) for v in row] for row in value]


def keep(value) -> list[bool]:
    from models.errors import InvalidParameterError

    if not isinstance(value, list) or len(value) > 65536 or \
            not all(isinstance(v, bool) for v in value):
        raise InvalidParameterError("keep must be a list of true/false, one per token, or [] "
                                    "for every token kept.")
    if value and not any(value):
        raise InvalidParameterError("keep masks every token; at least one must stay.")
    return list(value)


def session_model(data: dict, name: str) -> str:
    """The model folder a session names ("" = the bundled model), checked."""
    from models.errors import SessionFileError

    path = data.get("model", "")
    if not isinstance(path, str) or len(path) > 4096:
        raise SessionFileError(f"{name}: the pretrained tab's model folder is not a path.")
    return path
