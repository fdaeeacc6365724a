"""The ArchScope shell: main window, tab controllers, jobs, export, settings, CLI."""

import time as _time

#: perf_counter() when the shell package was first imported (start-up figures count
#: from here, plus the interpreter's own start, measured in app.main).
IMPORT_T0 = _time.perf_counter()

# before anything else of the shell is imported (numpy, pyqtgraph, then torch and PyG):
# PySide would keep the source of every module imported from here on (app.torch_loader)
from app.torch_loader import lighten_pyside_import_check as _lighten  # noqa: E402

_lighten()
