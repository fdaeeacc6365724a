"""The efficient-attention tab: ``tab`` (wiring, controls and jobs), ``data`` (Export
data), ``state`` (its part of a session file)."""

from app.tabs.efficient.tab import EfficientTab

__all__ = ["EfficientTab"]
