"""``torchdiffeq._impl.scipy_wrapper`` that imports scipy when it is used, not when
torchdiffeq is imported: loaded under that name by ``models.optional_imports``.

torchdiffeq's ``odeint`` module imports its wrapper of scipy's solvers (the method
"scipy_solver"), and the wrapper imports ``scipy.integrate`` at its top: 12 MB of
modules, and scipy's sparse ones it brings (12 MB more), in a window that never uses
them (the ODE tab offers torchdiffeq's own solvers, ``models.ode.options.SOLVERS``).
Here ``ScipyWrapperODESolver(...)`` loads torchdiffeq's module itself (under the name
``OWN``) and makes its solver: "scipy_solver" works as in torchdiffeq, scipy comes in
then (``tests/test_lean_torch.py`` compares the two).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

__all__ = ["ScipyWrapperODESolver", "OWN"]

#: the name torchdiffeq's own module is loaded under, beside this one
OWN = "torchdiffeq._impl._scipy_wrapper_own"
_lock = threading.Lock()


def own():
    """torchdiffeq's ``scipy_wrapper`` module, loaded on first use."""
    with _lock:
        module = sys.modules.get(OWN)
        if module is None:
            import torchdiffeq._impl as package

            path = Path(package.__file__).with_name("scipy_wrapper.py")
            spec = importlib.util.spec_from_file_location(OWN, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[OWN] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[OWN]
                raise
        return module


class _Deferred(type):
    """What torchdiffeq asks of the class itself (``valid_callbacks()``) is its own
    class's answer."""

    def __getattr__(cls, name):
        return getattr(own().ScipyWrapperODESolver, name)


class ScipyWrapperODESolver(metaclass=_Deferred):
    """torchdiffeq's solver for the method "scipy_solver" (made by its own class)."""

    def __new__(cls, *args, **kwargs):
        return own().ScipyWrapperODESolver(*args, **kwargs)
