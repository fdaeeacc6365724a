"""The Transformer tab's declared parameters: what it shows first (the defaults of the
models' ``TransformerRequest``, whose ``TRANSFORMER_RANGES`` the spin boxes start from),
and the fields a session file's model and input are checked against."""

from __future__ import annotations

from dataclasses import asdict

from models.transformer.options import TRANSFORMER_RANGES, TransformerRequest

__all__ = ["DEFAULTS", "RANGES"]

DEFAULTS = asdict(TransformerRequest())
RANGES = TRANSFORMER_RANGES
