"""Names shared by the community detection models and the graph tab (torch-free: ``app/``
imports this module at its top, before torch has loaded)."""

from __future__ import annotations

__all__ = ["METHODS", "K_METHODS", "DEFAULT_EPOCHS", "MAX_DMON_NODES", "MAX_K"]

#: the methods of ``detect_communities``, in the order the tab lists them
METHODS: tuple[str, ...] = ("louvain", "label_propagation", "spectral", "dmon")
#: the methods that take a number of communities (0: chosen by the eigengap)
K_METHODS: tuple[str, ...] = ("spectral", "dmon")
#: DMoN's training epochs unless told otherwise
DEFAULT_EPOCHS = 300
#: DMoN works on the dense n x n adjacency (its modularity loss is PyG's dense one):
#: 5,000 nodes are 100 MB in float32; beyond that it is refused with a message
MAX_DMON_NODES = 5000
#: the most communities spectral clustering and DMoN are asked for
MAX_K = 64
