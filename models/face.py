"""Lazy public faces for the topic packages of ``models/``.

A topic package's ``__init__.py`` names its public objects and the module each lives
in, and imports none of them until one is asked for (PEP 562 module ``__getattr__``)::

    from models.face import lazy_face

    __getattr__, __dir__, __all__ = lazy_face(__name__, {
        "FlowSession": "session",        # models.flows.session.FlowSession
        "build_flow": "flow",
    })

So ``from models.flows import FlowSession`` works as with eager imports, while
``import models.flows.options`` (a torch-free module of option names shared with the
GUI) does not load torch: the window paints before torch has loaded, and ``app/`` may
import such option modules at its top. The table doubles as a map for a newcomer:
every public name, and the file to open for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_face(package: str, names: Mapping[str, str]
              ) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``: ``names`` maps each public
    name to the submodule (relative to ``package``) that defines it."""
    table = dict(names)

    def __getattr__(name: str) -> object:  # noqa: N807 - PEP 562 hook
        sub = table.get(name)
        if sub is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{sub}"), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value        # later look-ups skip this function
        return value

    def __dir__() -> list[str]:  # noqa: N807 - PEP 562 hook
        return sorted(set(table) | set(importlib.import_module(package).__dict__))

    return __getattr__, __dir__, sorted(table)
