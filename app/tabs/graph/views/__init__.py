"""The graph tab's views: the graph and the hidden embedding (``graph``), the messages
into a node (``messages``), the node classifier's training and the models compared
(``training``), the batch, the pooled embeddings and the ROC (``tasks``), and the
communities (``communities``)."""

from app.tabs.graph.views.communities import CommunitiesShown, CommunitiesView
from app.tabs.graph.views.graph import EmbeddingView, GraphShown, GraphView
from app.tabs.graph.views.messages import MessagesView
from app.tabs.graph.views.tasks import BatchView, LinksView, PooledView
from app.tabs.graph.views.training import CompareView, TrainingShown, TrainingView

__all__ = ["GraphView", "GraphShown", "EmbeddingView", "MessagesView", "TrainingView",
           "TrainingShown", "CompareView", "BatchView", "PooledView", "LinksView",
           "CommunitiesView", "CommunitiesShown"]
