"""The graph-generation tab's views: the gallery and the MMD bars of the comparison shown
(``comparison``, seeing a ``Shown``) and GraphRNN's loss curve (``loss``, seeing a
``LossShown``)."""

from app.tabs.generation.views.comparison import (
    GalleryView,
    MMDView,
    Shown,
    family_label,
    row_labels,
)
from app.tabs.generation.views.loss import LossShown, LossView

__all__ = ["GalleryView", "MMDView", "LossView", "Shown", "LossShown", "family_label",
           "row_labels"]
