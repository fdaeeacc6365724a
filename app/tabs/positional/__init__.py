"""The positional-encoding tab: ``tab`` (wiring, the views and the fit), ``params`` (the
declared parameters), ``state`` (its part of a session file)."""

from app.tabs.positional.params import DEFAULTS, FIT_STEPS, RELATIVE_MODES
from app.tabs.positional.tab import PositionalTab, parse_dims

__all__ = ["PositionalTab", "DEFAULTS", "FIT_STEPS", "RELATIVE_MODES", "parse_dims"]
