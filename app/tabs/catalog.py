"""The tab list: every tab of the main window, declared once, in order.

Adding a topic is one entry in ``TABS`` (and its module under ``app/tabs/``); the main
window is not edited. Tab modules import nothing from here: the list names them (a
``"module:Class"`` path imported when the tab is built), so the list, the tabs and the
window import one way only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from app.tabs.base import BaseTab, TabContext


@dataclass(frozen=True)
class TabSpec:
    key: str                                   # "positional"; also the tour and view prefix
    title: str                                 # English, translated in context "Tabs"
    factory: str | Callable[[TabContext], BaseTab]   # "module:Class", or the callable itself
    order: int = 100
    #: the modules the tab's first trace imports (its models, and through them PyG, scipy,
    #: tokenizers...), imported off the GUI thread before it is built for a user who opens
    #: it once PyTorch is ready (PyG alone held the GUI thread 1.3 s; ``TabPages``)
    preload: tuple[str, ...] = ()

    def make(self, ctx: TabContext) -> BaseTab:
        """Build the tab, importing its module first when ``factory`` is a path."""
        factory = self.factory
        if isinstance(factory, str):
            module, _, name = factory.partition(":")
            factory = getattr(import_module(module), name)
        return factory(ctx)


TABS: tuple[TabSpec, ...] = (
    TabSpec("positional", QT_TRANSLATE_NOOP("Tabs", "Positional encoding"),
            "app.tabs.positional:PositionalTab", order=10),
    TabSpec("transformer", QT_TRANSLATE_NOOP("Tabs", "Transformer"),
            "app.tabs.transformer:TransformerTab", order=20,
            preload=("models.transformer.session", "models.transformer.probe",
                     "models.transformer.seq2seq")),
    TabSpec("pretrained", QT_TRANSLATE_NOOP("Tabs", "Pretrained models"),
            "app.tabs.pretrained:PretrainedTab", order=25,
            preload=("models.pretrained.loader", "models.pretrained.probe")),
    TabSpec("efficient", QT_TRANSLATE_NOOP("Tabs", "Efficient attention"),
            "app.tabs.efficient:EfficientTab", order=30,
            preload=("models.efficient_attention.probe", "models.efficient_attention.sweeps")),
    TabSpec("graph", QT_TRANSLATE_NOOP("Tabs", "Graph neural networks"),
            "app.tabs.graph:GraphTab", order=40,
            preload=("models.graphs.sessions", "models.graphs.probe", "models.community.probe")),
    TabSpec("generation", QT_TRANSLATE_NOOP("Tabs", "Graph generation"),
            "app.tabs.generation:GenerationTab", order=45,
            preload=("models.generation.view", "models.generation.baselines")),
    TabSpec("flows", QT_TRANSLATE_NOOP("Tabs", "Normalizing flows"),
            "app.tabs.flows:FlowsTab", order=50,
            preload=("models.flows.session", "models.flows.probe", "PIL.Image")),
    TabSpec("ode", QT_TRANSLATE_NOOP("Tabs", "Neural ODEs"),
            "app.tabs.ode:ODETab", order=60,
            preload=("models.ode.spiral", "models.ode.classify", "models.ode.cnf",
                     "models.ode.probe")),
    TabSpec("meta", QT_TRANSLATE_NOOP("Tabs", "Meta-learning"),
            "app.tabs.meta:MetaTab", order=70,
            preload=("models.meta.session", "models.meta.probe")),
)


def tab_specs(extra: Iterable[TabSpec] = ()) -> list[TabSpec]:
    """``TABS`` plus ``extra`` (a tab that is not in the list, e.g. a test's), sorted by
    ``order`` then ``key``; a key given twice is an error."""
    specs = [*TABS, *extra]
    keys = [s.key for s in specs]
    for key in keys:
        if keys.count(key) > 1:
            raise ValueError(f"A tab with key '{key}' is already in the tab list.")
    return sorted(specs, key=lambda s: (s.order, s.key))
