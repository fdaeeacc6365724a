"""The tab registry: a tab module registers a ``TabSpec``; the shell builds what is here.

Adding a topic means adding a module under ``app/tabs/`` that calls ``register`` and
importing it in ``app/tabs/__init__.py``; the main window is not edited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.tabs.base import BaseTab, TabContext


@dataclass(frozen=True)
class TabSpec:
    key: str                                   # "positional"; also the tour and view prefix
    title: str                                 # English, translated in context "Tabs"
    factory: Callable[[TabContext], BaseTab]
    order: int = 100


_REGISTRY: dict[str, TabSpec] = {}


def register(spec: TabSpec) -> TabSpec:
    if spec.key in _REGISTRY and _REGISTRY[spec.key] != spec:
        raise ValueError(f"A tab with key '{spec.key}' is already registered.")
    _REGISTRY[spec.key] = spec
    return spec


def tab_specs() -> list[TabSpec]:
    import app.tabs  # noqa: F401 - importing the package registers every tab

    return sorted(_REGISTRY.values(), key=lambda s: (s.order, s.key))
