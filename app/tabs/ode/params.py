"""The neural-ODE tab's declared parameters: the controls' defaults (those of the models'
``ODERequest``, whose ``RANGES`` the forms are built from), what a task starts with and
the choices."""

from __future__ import annotations

from dataclasses import asdict

from models.ode.options import (
    ADAPTIVE,
    CLASSIFY_DATA,
    DENSITIES,
    RANGES,
    SOLVERS,
    TASK_DEFAULTS,
    TASKS,
    ODERequest,
)

__all__ = ["DEFAULTS", "RANGES", "TASK_DEFAULTS", "TASKS", "CLASSIFY_DATA", "DENSITIES",
           "SOLVERS", "ADAPTIVE"]

DEFAULTS = asdict(ODERequest())
