"""``Adam``: ``torch.optim.Adam`` without importing ``torch._dynamo``.

PyTorch's optimizers import its compiler, ``torch._dynamo``, the first time one is built
or stepped, only to tell that compiler to leave them alone: ``Optimizer.add_param_group``,
``zero_grad``, ``state_dict`` and ``load_state_dict`` are wrapped by
``torch._disable_dynamo``, which imports ``torch._dynamo`` on its first call, and every
``step`` runs in a wrapper (``_use_grad_for_differentiable``) that imports it to mark two
graph breaks. Nothing in ArchScope compiles, but the import costs ~70 MB of resident
memory (with sympy, which it pulls in) and ~800 modules, and half a second of start-up.

Both are no-ops while ``torch._dynamo`` is not imported: nothing can be compiling then,
so there is no compiler to disable and no graph to break. This module keeps them out
of the process until something else imports the compiler, and behaves exactly as torch
does from then on:

* the four ``Optimizer`` methods: ``_disable_dynamo`` caches the disabled function on the
  wrapped function's ``__dynamo_disable`` attribute on its first call and reuses it.
  ``install()`` seeds that cache with a function that calls the method directly while
  ``torch._dynamo`` is not in ``sys.modules``, and through ``torch._dynamo.disable`` (as
  torch would) once it is.
* ``Adam.step``: the same ``torch.optim.Adam.step`` body (torch's own function, unwrapped)
  with the gradient mode set as torch's wrapper sets it, and torch's wrapper itself once
  ``torch._dynamo`` is imported.

``install()`` runs when this module is imported; it touches only functions whose
structure it recognises (the pinned torch's), and otherwise leaves torch as it is, so a
different torch costs memory, never correctness. ``LEAN`` says whether it took.
"""

from __future__ import annotations

import sys

import torch
import torch.optim

__all__ = ["LEAN", "Adam", "install"]

_DYNAMO = "torch._dynamo"
#: the ``Optimizer`` methods torch wraps with ``torch._disable_dynamo``
_DISABLED_METHODS = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")
#: the attribute ``torch._disable_dynamo`` caches the disabled function under
_CACHE = "__dynamo_disable"


def _disabled_lazily(fn):
    """``fn`` itself while ``torch._dynamo`` is not imported; once it is,
    ``torch._dynamo.disable(fn)``, what ``torch._disable_dynamo`` would have cached."""
    disabled = None

    def call(*args, **kwargs):
        nonlocal disabled
        dynamo = sys.modules.get(_DYNAMO)
        if dynamo is None:
            return fn(*args, **kwargs)
        if disabled is None:
            disabled = dynamo.disable(fn, True, wrapping=False)
        return disabled(*args, **kwargs)

    call.lean = True
    return call


def _torch_step():
    """``torch.optim.Adam.step`` as torch defines it (its ``_use_grad`` wrapper), under
    the profiling hook ``Optimizer`` puts on the class once one is built; ``None`` if it
    is not shaped so."""
    step = torch.optim.Adam.__dict__.get("step")
    while getattr(step, "hooked", False):  # Optimizer._patch_step_function's wrapper
        step = getattr(step, "__wrapped__", None)
    if step is None or getattr(step, "__wrapped__", None) is None:
        return None
    return step


def install() -> bool:
    """Seed the four methods' caches (once); True if the lean path is in place."""
    for name in _DISABLED_METHODS:
        fn = getattr(getattr(torch.optim.Optimizer, name), "__wrapped__", None)
        if fn is None or not callable(fn):
            return False
        cached = getattr(fn, _CACHE, None)
        if cached is None:
            setattr(fn, _CACHE, _disabled_lazily(fn))
        elif not getattr(cached, "lean", False):
            return False  # torch._dynamo was imported and cached it already: nothing to save
    return _torch_step() is not None


LEAN = install()
_TORCH_STEP = _torch_step()
_RAW_STEP = None if _TORCH_STEP is None else _TORCH_STEP.__wrapped__


class Adam(torch.optim.Adam):
    """``torch.optim.Adam``, the same update and state (``isinstance`` of it, its state
    dicts interchangeable), stepping without importing ``torch._dynamo``; see the
    module's docstring."""

    def step(self, closure=None):
        if _RAW_STEP is None or _DYNAMO in sys.modules:
            return _TORCH_STEP(self, closure) if _TORCH_STEP is not None \
                else super().step(closure)
        previous = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(self.defaults["differentiable"])
            return _RAW_STEP(self, closure)
        finally:
            torch.set_grad_enabled(previous)
