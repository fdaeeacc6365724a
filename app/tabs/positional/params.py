"""The positional tab's declared parameters: the controls' defaults, the relative-position
modes, and the length of the M_k fit (which a session file is checked against)."""

from __future__ import annotations

DEFAULTS = {"d_model": 128, "max_len": 100, "base": 10000.0, "offset": 4,
            "dims": "2, 20, 60, 120", "sentence": "the cat sat on the mat",
            "init": "normal", "relative_mode": "analytic"}
RELATIVE_MODES = ("analytic", "learned", "difference")
#: Adam steps of one run of the M_k fit
FIT_STEPS = 2000
