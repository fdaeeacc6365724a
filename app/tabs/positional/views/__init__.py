"""The positional tab's views: four of the encoding table (``table``) and two of the
relative-position map and its fit (``relative``)."""

from app.tabs.positional.views.relative import FitShown, FitView, RelativeView
from app.tabs.positional.views.table import CurvesView, EmbeddingsView, PEView, SimilarityView

__all__ = ["PEView", "CurvesView", "SimilarityView", "EmbeddingsView", "RelativeView",
           "FitView", "FitShown"]
