"""The efficient-attention tab: ``tab`` (wiring, controls and jobs), ``params`` (its
declared parameters), ``views`` (one class per view), ``state`` (its part of a session
file)."""

from app.tabs.efficient.tab import EfficientTab

__all__ = ["EfficientTab"]
