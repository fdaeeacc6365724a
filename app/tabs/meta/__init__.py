"""The meta-learning tab: ``tab`` (wiring and jobs), ``controls`` (the forms, their
values and the controls column), ``params`` (the defaults and limits, of the models'
``MetaRequest``), ``views`` (one class per view: drawing and Export data), ``state``
(its part of a session file)."""

from app.tabs.meta.tab import MetaTab
from models.meta.options import ADAPT_STEPS, EVAL_TASKS, METHODS

__all__ = ["MetaTab", "ADAPT_STEPS", "EVAL_TASKS", "METHODS"]
