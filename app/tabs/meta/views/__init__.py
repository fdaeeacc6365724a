"""The meta-learning tab's views: the adaptation to a test task (``adapt``), the
evaluation's MSE and the meta-training curves (``curves``), and the prototypical
network's two planes (``proto``)."""

from app.tabs.meta.views.adapt import TRAIN_AMP_MAX, AdaptView
from app.tabs.meta.views.common import method_labels, short_labels
from app.tabs.meta.views.curves import EvalShown, LossShown, LossView, MSEView, zero_predictor_mse
from app.tabs.meta.views.proto import ProtoEmbeddingView, ProtoInputView

__all__ = ["AdaptView", "MSEView", "LossView", "ProtoInputView", "ProtoEmbeddingView",
           "EvalShown", "LossShown", "TRAIN_AMP_MAX", "method_labels", "short_labels",
           "zero_predictor_mse"]
