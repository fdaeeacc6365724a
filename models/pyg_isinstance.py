"""``torch_geometric.isinstance`` without the compiler: loaded under that name by
``models.optional_imports`` while ``torch._dynamo`` is not imported.

PyG's module imports ``torch._dynamo`` when it is imported (~70 MB with sympy, see
``models/optim.py``), only to see through ``torch.compile``'s wrapper,
``OptimizedModule``. Such a wrapper exists only once ``torch._dynamo`` is imported, so
this ``is_torch_instance`` looks it up when called and answers as PyG's does
(``tests/test_lean_torch.py`` compares the two on a compiled module).
"""

from __future__ import annotations

from typing import Any

from models.optional_imports import compiler

__all__ = ["is_torch_instance"]


def is_torch_instance(obj: Any, cls: type | tuple[type, ...]) -> bool:
    """``isinstance(obj, cls)``, looking through ``torch.compile``'s ``OptimizedModule``
    to the module it compiled (as PyG's ``is_torch_instance``)."""
    dynamo = compiler()
    if dynamo is not None and isinstance(obj, dynamo.OptimizedModule):
        return isinstance(obj._orig_mod, cls)
    return isinstance(obj, cls)
