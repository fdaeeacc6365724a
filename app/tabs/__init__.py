"""Tab controllers, one module per topic; ``catalog.TABS`` lists them for the window."""

from app.tabs.catalog import TABS, TabSpec, tab_specs

__all__ = ["TABS", "TabSpec", "tab_specs"]
