"""PyG's optional Hugging Face helpers and its use of PyTorch's compiler stay out of
ArchScope's process.

``import torch_geometric`` imports all of its sub-packages, among them
``torch_geometric.llm``, whose models import ``transformers`` when it is installed and
fall back to plain types when it is not. ArchScope never uses them. ``transformers`` is
installed beside the app only as the test suite's reference for the pretrained models
(the ``dev`` extra, which ``make run`` and ``make test`` share), and when PyG found it,
the graph tab's first visit also imported transformers, huggingface_hub, requests' and
httpx's stacks and PIL: 235 more modules, 21 MB of resident memory, measured.

``install()`` (called by ``models/__init__``) puts a finder at the front of
``sys.meta_path`` that answers "not installed" to an import of one of ``HIDDEN`` made by
PyG's own code, so PyG takes the path it takes where transformers is absent. Any other
importer (a test, a user's script) gets the real package, and once it is imported PyG
gets it too (its submodules included).

The finder also loads ``models/pyg_isinstance.py`` as ``torch_geometric.isinstance``
while ``torch._dynamo`` is not imported: PyG's module imports the compiler only to see
through ``torch.compile``'s wrapper, which cannot exist before the compiler is imported
(~70 MB with sympy; ``models/optim.py`` keeps the optimizers from importing it too).

And it loads ``models/torchdiffeq_scipy.py`` as ``torchdiffeq._impl.scipy_wrapper``:
torchdiffeq imports scipy.integrate when it is imported, for a solver ArchScope does not
offer; that copy imports it when that solver is made.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

__all__ = ["DEFERRED", "DYNAMO", "HIDDEN", "OWN", "REPLACED", "SCIPY_WRAPPER_OWN", "compiler",
           "install"]

#: the versions whose import graphs this steers, and whose modules
#: ``models/pyg_isinstance.py`` and ``models/torchdiffeq_scipy.py`` copy
#: (``tests/test_patches.py`` fails on another)
WRITTEN_FOR = {"torch_geometric": "2.8.1", "torchdiffeq": "0.2.5", "torch": "2.13.0",
               "transformers": "5.24.0"}

#: top-level packages PyG imports only for helpers ArchScope does not use
HIDDEN = frozenset({"transformers"})
#: the importers refused: PyG's own modules
_REFUSED_FOR = ("torch_geometric.",)
_MACHINERY = ("importlib", "_frozen_importlib")
#: PyTorch's compiler, kept out of the process (models/optim.py)
DYNAMO = "torch._dynamo"
#: PyG modules loaded from ArchScope's copy while ``DYNAMO`` is not imported
REPLACED = {"torch_geometric.isinstance": Path(__file__).with_name("pyg_isinstance.py")}
#: modules always loaded from ArchScope's copy, which defers what they import to their
#: first use (``models/torchdiffeq_scipy.py``: scipy.integrate) ...
DEFERRED = {"torchdiffeq._impl.scipy_wrapper": Path(__file__).with_name("torchdiffeq_scipy.py")}
#: ... and the names their own modules are loaded under when the copy needs them
SCIPY_WRAPPER_OWN = "torchdiffeq._impl._scipy_wrapper_own"
OWN = {SCIPY_WRAPPER_OWN: "torchdiffeq._impl.scipy_wrapper"}


def compiler():
    """``torch._dynamo`` if it is imported (or being imported: then this waits for it,
    as the import statement waits for another thread's import), else None."""
    if DYNAMO not in sys.modules:
        return None
    import torch._dynamo

    return torch._dynamo


def _importer() -> str:
    """The module that asked for the import: the first frame outside the import
    machinery, above the finder's own."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_MACHINERY):
        frame = frame.f_back
    return "" if frame is None else str(frame.f_globals.get("__name__", ""))


class _HideFromPyG:
    """A ``sys.meta_path`` finder; see the module's docstring."""

    def find_spec(self, name, path=None, target=None):  # noqa: ARG002 - the finder API
        if name in REPLACED and DYNAMO not in sys.modules:
            return importlib.util.spec_from_file_location(name, REPLACED[name])
        if name in DEFERRED and DEFERRED[name].is_file():
            return importlib.util.spec_from_file_location(name, DEFERRED[name])
        if name in OWN:         # the package's own module, found where it lies
            package = OWN[name].rpartition(".")[0]
            spec = importlib.machinery.PathFinder.find_spec(
                OWN[name], importlib.import_module(package).__path__)
            if spec is not None and spec.origin:
                return importlib.util.spec_from_file_location(name, spec.origin)
        top = name.partition(".")[0]
        if top in HIDDEN and top not in sys.modules and _importer().startswith(_REFUSED_FOR):
            raise ModuleNotFoundError(f"No module named {name!r} (not used by ArchScope)",
                                      name=name)
        return None


def install() -> bool:
    """Put the finder in front of ``sys.meta_path`` once; True if this call did."""
    if any(isinstance(f, _HideFromPyG) for f in sys.meta_path):
        return False
    sys.meta_path.insert(0, _HideFromPyG())
    return True
