"""The pretrained tab's ten views: one layer's heads as heatmaps and as lines, every
layer's thumbnails and the neuron view (``heads``); Clark et al.'s statistics, sentence
similarities, the next-token choice and generation (``figures``); an encoder with
approximate attention against exact (``approx``). They see a ``Picked``
(the computed traces with the layer, head and query shown) or, generation, a
``Generated`` (``shown``)."""

from app.tabs.pretrained.views.approx import ApproxSimilarityView, ApproxView
from app.tabs.pretrained.views.figures import (
    GenerationView,
    NextTokenView,
    SimilarityView,
    StatsView,
)
from app.tabs.pretrained.views.heads import (
    HeadLinesView,
    HeadsView,
    NeuronView,
    OverviewView,
    PretrainedView,
)
from app.tabs.pretrained.views.shown import Generated, Picked, readable, sentence_labels

__all__ = ["HeadsView", "HeadLinesView", "OverviewView", "NeuronView", "StatsView",
           "SimilarityView", "NextTokenView", "GenerationView", "PretrainedView", "Picked",
           "Generated", "readable", "sentence_labels", "ApproxView", "ApproxSimilarityView"]
