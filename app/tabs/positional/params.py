"""The positional tab's declared parameters: the controls' defaults (those of the
models' ``PositionalRequest``, whose ``POSITIONAL_RANGES`` the sliders are built from),
the relative-position modes, and the length of the M_k fit (which a session file is
checked against)."""

from __future__ import annotations

from dataclasses import asdict

from models.transformer.options import POSITIONAL_RANGES, RELATIVE_MODES, PositionalRequest

__all__ = ["DEFAULTS", "RANGES", "RELATIVE_MODES", "FIT_STEPS"]

DEFAULTS = asdict(PositionalRequest())
RANGES = POSITIONAL_RANGES
#: Adam steps of one run of the M_k fit
FIT_STEPS = 2000
