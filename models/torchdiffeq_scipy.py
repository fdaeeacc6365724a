"""``torchdiffeq._impl.scipy_wrapper`` that imports scipy when it is used, not when
torchdiffeq is imported: loaded under that name by ``models.optional_imports``.

torchdiffeq's ``odeint`` module imports its wrapper of scipy's solvers (the method
"scipy_solver"), and the wrapper imports ``scipy.integrate`` at its top: 12 MB of
modules, and scipy's sparse ones it brings (12 MB more), in a window that never uses
them (the ODE tab offers torchdiffeq's own solvers, ``models.ode.options.SOLVERS``).

Here ``ScipyWrapperODESolver(...)`` makes torchdiffeq's own solver, from torchdiffeq's
own module (``own()``: imported under the name ``OWN``, which the same finder resolves
to torchdiffeq's file), and scipy comes in then. "scipy_solver" works as in torchdiffeq
(``tests/test_ode_adjoint.py`` compares the two); what the class is asked (its
``valid_callbacks()``), ``isinstance`` and the module's other names are torchdiffeq's.
Tracebacks and ``inspect.getsource`` of this module show this copy.
"""

from __future__ import annotations

import importlib
import sys

from models.optional_imports import SCIPY_WRAPPER_OWN as OWN

__all__ = ["ScipyWrapperODESolver", "OWN", "own"]


def own():
    """torchdiffeq's ``scipy_wrapper`` module, imported on first use."""
    return importlib.import_module(OWN)


def __getattr__(name: str):
    """The module's other names (``convert_func_to_numpy``, ``solve_ivp``) are its own."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(own(), name)


class _Deferred(type):
    """The class answers for torchdiffeq's: its attributes (``valid_callbacks()``), and
    ``isinstance``/``issubclass`` once that class exists (before, nothing is one)."""

    def __getattr__(cls, name: str):
        if name.startswith("__"):          # inspect, pydoc: no scipy for a probe
            raise AttributeError(name)
        return getattr(own().ScipyWrapperODESolver, name)

    def __instancecheck__(cls, obj) -> bool:
        real = sys.modules.get(OWN)
        return real is not None and isinstance(obj, real.ScipyWrapperODESolver)

    def __subclasscheck__(cls, sub) -> bool:
        real = sys.modules.get(OWN)
        return sub is cls or (real is not None
                              and issubclass(sub, real.ScipyWrapperODESolver))


class ScipyWrapperODESolver(metaclass=_Deferred):
    """torchdiffeq's solver for the method "scipy_solver" (made by its own class)."""

    def __new__(cls, *args, **kwargs):
        if cls is not ScipyWrapperODESolver:
            raise TypeError("Subclass torchdiffeq's own class, "
                            "models.torchdiffeq_scipy.own().ScipyWrapperODESolver.")
        return own().ScipyWrapperODESolver(*args, **kwargs)
