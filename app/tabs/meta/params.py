"""The meta-learning tab's declared parameters: the controls' defaults (those of the
models' ``MetaRequest``, whose ``RANGES`` the controls are built from), the choices, and
how many support points a student may place."""

from __future__ import annotations

from dataclasses import asdict

from models.meta.options import FAMILIES, INPUT_REGIONS, K_CHOICES, RANGES, MetaRequest

__all__ = ["DEFAULTS", "RANGES", "K_CHOICES", "FAMILIES", "INPUT_REGIONS", "MAX_SUPPORT"]

DEFAULTS = asdict(MetaRequest())
#: support points a student may place
MAX_SUPPORT = 50
