"""Write the example sessions of Help → Examples (run from the repository root):

    .venv/bin/python resources/sessions/make_examples.py [gcn-karate ...]

(with names, only those examples are written again)

Each example trains one tab's model here, seeded, as its Train button would, then runs
the tab's other jobs the example names (each to its end, as its button would), so that
every view of the example shows a trained model, and saves that tab's session. To keep each file under ~1 MB the optimizer's moments are left
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

#: file name -> (tab, settings, steps to train, the tab's other jobs run after it)
EXAMPLES = {
    "transformer-reverse": ("transformer", {"task": "reverse", "tokenizer": "digits",
                                            "architecture": "encoder-decoder"}, 1500, ()),
    "realnvp-two-moons": ("flows", {"density": "two_moons", "model": "realnvp"}, 2000, ()),
    # the graph tab's defaults (seed 0, 1 labelled node per class, 32 hidden units, no
    # edge weights, 200 epochs); Compare, the graph classifier and the link predictor
    # too, so that none of its eight views is left untrained
    "gcn-karate": ("graph", {"dataset": "karate", "model": "gcn"}, 200,
                   ("compare", "graphs", "links")),
}


def run_job(tab, name: str) -> None:
    """Run the tab's job ``name`` to its end on this thread, as its button would."""
    make = tab.make_job(name)
    tab.running_job = name
    last = None
    try:
        for progress in make():
            last = progress
            if getattr(progress, "trace", None) is not None:
                tab.on_job_progress(name, progress)
    finally:
        tab.running_job = ""
    if last is not None and getattr(last, "trace", None) is None:
        tab.on_job_progress(name, last)
    tab.on_job_stopped(name, True, False)
    tab.update_buttons()


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
        chosen = sys.argv[1:] or list(EXAMPLES)
        unknown = set(chosen) - set(EXAMPLES)
        if unknown:
            raise SystemExit(f"no example {', '.join(sorted(unknown))}; the examples are "
                             f"{', '.join(EXAMPLES)}")
        for name, (key, settings, steps, jobs) in EXAMPLES.items():
            if name not in chosen:
                continue
            tab = next(t for t in window.tabs if t.key == key)
            window.tabs_widget.setCurrentWidget(tab)
            tab.apply_state(settings, strict=True)
            _train_headless(tab, steps, seed=0, tab_seed="seed" not in settings)
            for job in jobs:
                run_job(tab, job)
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
