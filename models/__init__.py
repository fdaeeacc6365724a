"""Models, training loops and metrics of ArchScope. Torch only: no Qt, no pyqtgraph.

This package's ``__init__`` imports no torch, so that ``models.traces`` (the
torch-free contract between layers) can be imported by ``viz/`` and by the shell
before torch has finished loading.
"""

from models.optional_imports import install as _hide_optional_imports

_hide_optional_imports()
