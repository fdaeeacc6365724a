"""Qt + pyqtgraph widgets that draw traces. No torch: a widget never computes a model."""

from viz.light_plot import install as _light_plot_options

_light_plot_options()       # pyqtgraph's plots without their hidden option widgets
