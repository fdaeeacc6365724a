"""The meta-learning tab: ``tab`` (wiring and jobs), ``controls`` (the forms, their
values and the controls column), ``drawing`` (the views), ``data`` (Export data)."""

from app.tabs.meta.tab import MetaTab
from models.meta.options import ADAPT_STEPS, EVAL_TASKS, METHODS

__all__ = ["MetaTab", "ADAPT_STEPS", "EVAL_TASKS", "METHODS"]
