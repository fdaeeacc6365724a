"""Write the example sessions of Help → Examples (run from the repository root):

    .venv/bin/python resources/sessions/make_examples.py

Each example trains one tab's model here, seeded, as its Train button would, and saves
that tab's session. To keep each file under ~1 MB the optimizer's moments are left
out (the weights, records, settings and random-generator states stay): training an
example further starts Adam afresh from the trained weights. Prints each file's size
and the final loss / accuracy, so a regenerated file can be compared with the last.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: file name -> (tab, settings, steps to train)
EXAMPLES = {
    "transformer-reverse": ("transformer", {"task": "reverse", "tokenizer": "digits",
                                            "architecture": "encoder-decoder"}, 1500),
    "realnvp-two-moons": ("flows", {"density": "two_moons", "model": "realnvp"}, 2000),
    "gcn-karate": ("graph", {"dataset": "karate", "model": "gcn"}, 200),
}


def without_optimizer_moments(doc):
    for state in doc.tabs.values():
        names = [k for k in state.tensors if "/optim" in k]
        for k in names:
            del state.tensors[k]
        for meta in state.data.get("sessions", {}).values():
            for opt in meta.get("optimizers", []):
                opt["scalars"] = {}
    return doc


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from app import export, sessions
    from app.i18n import Translations
    from app.main import _train_headless
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from models.sessionfile import write_session

    app = QApplication.instance() or QApplication(["make_examples"])
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Settings(tmp), Translations(), start_loader=False)
        window._on_torch_ready(window.loader.load_here(), notify_tabs=False)
        for name, (key, settings, steps) in EXAMPLES.items():
            tab = next(t for t in window.tabs if t.key == key)
            window.tabs_widget.setCurrentWidget(tab)
            tab.apply_state(settings, strict=True)
            _train_headless(tab, steps, seed=0, tab_seed="seed" not in settings)
            tab.compute_now()
            app.processEvents()
            doc = without_optimizer_moments(sessions.collect([tab], key, "cpu"))
            path = HERE / f"{name}{sessions.SUFFIX}"
            export.atomic_write(path, lambda target, doc=doc: write_session(target, doc))
            session = tab.current_session()
            print(f"{path.name}: {path.stat().st_size / 1024:.0f} KB, {session.step} steps, "
                  f"last loss {session.losses[-1]:.4f}")
        for tab in window.tabs:
            tab.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
