"""Why a GNN decided: PyG's ``torch_geometric.explain`` (GNNExplainer, and GAT's attention)
for one node of the graph tab's node classifier, with PyG's fidelity metric; ``options``
is torch-free."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    "METHODS": "options",
    "DEFAULT_EPOCHS": "options",
    "THRESHOLDS": "options",
    "ExplanationPick": "options",
    "explain_node": "node",
    "explain_best": "node",
})
