"""``Adam``: ``torch.optim.Adam`` without importing ``torch._dynamo``.

PyTorch's optimizers import its compiler, ``torch._dynamo``, the first time one is built
or stepped, only to tell that compiler to leave them alone: ``Optimizer.add_param_group``,
``zero_grad``, ``state_dict`` and ``load_state_dict`` are wrapped by
``torch._disable_dynamo``, which imports ``torch._dynamo`` on its first call, and every
``step`` runs in a wrapper (``_use_grad_for_differentiable``) that imports it to mark two
graph breaks. Nothing in ArchScope compiles, but the import costs ~70 MB of resident
memory (36 MB for sympy and torch's symbolic shapes, which it pulls in, 36 MB for the
rest), ~800 modules and 1.5 s of GIL-held import (after torch, measured).

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
structure it recognises (torch's wrappers, by their code's qualified names, as in the
pinned torch), and otherwise leaves torch as it is, so a different torch costs memory,
never correctness. ``LEAN`` says whether it took.

Once ``torch._dynamo`` is in ``sys.modules`` it is imported again by name rather than
used from there: while another thread is still importing it, the import statement waits
for it to finish, as torch's own import would.
"""

from __future__ import annotations

import torch
import torch.optim

from models.optional_imports import compiler

__all__ = ["LEAN", "Adam", "install"]

#: the version this patch of torch.optim's wrappers was written and checked against
#: (``tests/test_patches.py`` fails on another)
WRITTEN_FOR = {"torch": "2.13.0"}

#: the ``Optimizer`` methods torch wraps with ``torch._disable_dynamo``
_DISABLED_METHODS = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")
#: the attribute ``torch._disable_dynamo`` caches the disabled function under
_CACHE = "__dynamo_disable"
#: the qualified names of torch's wrappers: ``torch._disable_dynamo``'s, the step's, the
#: profiling hook ``Optimizer`` puts on a class's step once one is built
_DISABLE_WRAPPER = "_disable_dynamo.<locals>.inner"
_GRAD_WRAPPER = "_use_grad_for_differentiable.<locals>._use_grad"
_HOOK_WRAPPER = "Optimizer.profile_hook_step.<locals>.wrapper"


def _qualname(fn) -> str:
    return getattr(getattr(fn, "__code__", None), "co_qualname", "")


def _disabled_lazily(fn):
    """``fn`` itself while ``torch._dynamo`` is not imported; once it is,
    ``torch._dynamo.disable(fn)``, what ``torch._disable_dynamo`` would have cached."""
    disabled = None

    def call(*args, **kwargs):
        nonlocal disabled
        dynamo = compiler()
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
    while getattr(step, "hooked", False) and _qualname(step) == _HOOK_WRAPPER:
        step = getattr(step, "__wrapped__", None)
    if _qualname(step) != _GRAD_WRAPPER or not callable(getattr(step, "__wrapped__", None)):
        return None
    return step


def install() -> bool:
    """Seed the four methods' caches (once); True if the lean path is in place."""
    for name in _DISABLED_METHODS:
        wrapper = getattr(torch.optim.Optimizer, name)
        fn = getattr(wrapper, "__wrapped__", None)
        if _qualname(wrapper) != _DISABLE_WRAPPER or not callable(fn):
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

    if _RAW_STEP is not None:   # else torch's own step, inherited
        def step(self, closure=None):
            if compiler() is not None:
                return _TORCH_STEP(self, closure)
            previous = torch.is_grad_enabled()
            try:
                torch.set_grad_enabled(self.defaults["differentiable"])
                return _RAW_STEP(self, closure)
            finally:
                torch.set_grad_enabled(previous)
