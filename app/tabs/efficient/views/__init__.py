"""The efficient-attention tab's views: three of the sparse pattern (``pattern``), three
of the approximation (``approx``), three of the cost (``cost``; the measured ones see
a ``Measured``) and three of chunked attention with an online softmax (``chunked``). ``names`` words the models' names in the tab's language."""

from app.tabs.efficient.views.approx import ErrorView, MatricesView, ScaleView
from app.tabs.efficient.views.chunked import ChunkEqualView, ChunkMemoryView, OnlineView
from app.tabs.efficient.views.cost import Measured, MemoryView, TheoryView, TimeView
from app.tabs.efficient.views.pattern import ConventionsView, FieldView, PatternView

__all__ = ["PatternView", "FieldView", "ConventionsView", "MatricesView", "ErrorView",
           "ScaleView", "TheoryView", "TimeView", "MemoryView", "Measured", "ChunkEqualView",
           "OnlineView", "ChunkMemoryView"]
