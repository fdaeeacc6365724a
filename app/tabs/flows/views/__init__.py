"""The flow tab's views: the samples through the layers with their animation row
(``samples``), the data's density beside the learned one, the NLL of training and each
layer's log|det J| (``figures``)."""

from app.tabs.flows.views.figures import LearnedDensityView, LogDetView, NllShown, NllView
from app.tabs.flows.views.samples import SamplesView

__all__ = ["SamplesView", "LearnedDensityView", "NllView", "NllShown", "LogDetView"]
