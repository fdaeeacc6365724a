"""Write the true spiral ArchScope ships (run from the repository root):

    .venv/bin/python resources/ode/make_spiral.py

``spiral.npy``: y float64[1000, 2], the ode_demo spiral from (2, 0) at 1000 evenly spaced
times in [0, 25], integrated by scipy's DOP853 exactly as ``models.ode.spiral`` does
for any other spiral (``_integrated``). The ODE tab reads it instead of importing
scipy.integrate; ``tests/test_ode_adjoint.py`` checks that the file is still what scipy
gives.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from models.ode.spiral import SHIPPED, SHIPPED_FILE, _integrated  # noqa: E402

if __name__ == "__main__":
    _, y = _integrated(*SHIPPED)
    part = SHIPPED_FILE.with_suffix(".part.npy")      # whole or not at all
    np.save(part, y, allow_pickle=False)
    os.replace(part, SHIPPED_FILE)
    print(f"{SHIPPED_FILE}: {y.shape} {y.dtype}, {SHIPPED_FILE.stat().st_size} bytes")
