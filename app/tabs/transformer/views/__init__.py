"""The Transformer tab's views: four of one trace's attention (``attention``: every head
of a layer, the head view, one head step by step, the overview of all layers), the
forward pass step by step (``forward``), the training curves (``training``, which see
a ``TrainingShown``) and the ablations (``ablation``: one idea off, beside the baseline)."""

from app.tabs.transformer.views.ablation import AblationView
from app.tabs.transformer.views.attention import (
    HeadLinesView,
    HeadStepsView,
    HeadsView,
    OverviewView,
    course_readout,
    course_sdpa_readout,
    overview_columns,
)
from app.tabs.transformer.views.forward import ForwardView, resolve_step
from app.tabs.transformer.views.training import TrainingShown, TrainingView

__all__ = ["AblationView", "HeadsView", "HeadLinesView", "HeadStepsView", "OverviewView", "ForwardView",
           "TrainingView", "TrainingShown", "course_readout", "course_sdpa_readout",
           "overview_columns", "resolve_step"]
