"""Qt + pyqtgraph widgets that draw traces. No torch: a widget never computes a model."""
