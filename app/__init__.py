"""The ArchScope shell: main window, tab controllers, jobs, export, settings, CLI."""

import time as _time

#: perf_counter() when the shell package was first imported (start-up figures count
#: from here, plus the interpreter's own start, measured in app.main).
IMPORT_T0 = _time.perf_counter()
