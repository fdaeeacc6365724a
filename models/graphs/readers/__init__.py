"""Graph file readers, one module per format (as networkx's ``readwrite/`` and PyG's
``io/``), and :func:`load_graph`, which picks one by extension and content."""

from models.graphs.readers.load import MAX_FILE_BYTES, SUPPORTED_FORMATS, load_graph

__all__ = ["MAX_FILE_BYTES", "SUPPORTED_FORMATS", "load_graph"]
