"""The files a monkey's File dialogs answer with, and the dialogs that answer.

``build_corpus(folder)`` writes the corpus once: the good files (the Gephi graphs in
tests/data/graphs, a point cloud, a saved Transformer model) and the hostile ones
(tests/data/make_hostile.py: the committed text files, the ``.pt`` files with hostile
hyper-parameters, pickles that would run code and, with ``large``, the zip bombs; and
tests/data/hostile_sessions.py's session files, a named pipe among them).

``FileDialogs`` replaces ``QFileDialog``'s static methods while a monkey runs: an Open
dialog answers with a corpus file (most of the time one the tab's filter shows, now and
then any file, a folder, a missing file, or Cancel); a Save dialog answers with a path
in the run's output folder (a valid extension, an odd one, none, a missing folder or
Cancel). Every answer is written to the action log by the caller's ``note``.
"""

from __future__ import annotations

import fnmatch
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import QFileDialog

DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Corpus:
    good: list[Path] = field(default_factory=list)
    hostile: list[Path] = field(default_factory=list)

    def all(self) -> list[Path]:
        return self.good + self.hostile


def _good_points(path: Path, n: int = 400, seed: int = 0) -> Path:
    """Two noisy half-moons, one "x,y" line per point, with a header."""
    import math

    rng = random.Random(seed)
    rows = ["x,y"]
    for i in range(n):
        t = math.pi * rng.random()
        x, y = (math.cos(t), math.sin(t)) if i % 2 else (1 - math.cos(t), 0.5 - math.sin(t))
        rows.append(f"{x + rng.gauss(0, 0.05):.5f},{y + rng.gauss(0, 0.05):.5f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def build_corpus(folder: Path, large: bool = True, big: bool = False) -> Corpus:
    """Write the corpus into ``folder`` (good files under ``good/``, hostile ones under
    ``hostile/``; ``large``: the zip bombs, ``big``: 80 MB of large text files) and list
    it. Imports torch (the ``.pt`` files follow its format)."""
    from models.transformer import Seq2SeqSession
    from tests.data.hostile_sessions import write_sessions
    from tests.data.make_hostile import write_corpus

    good = Path(folder) / "good"
    good.mkdir(parents=True, exist_ok=True)
    files = sorted((DATA / "graphs").rglob("*.*"))
    files = [f for f in files if f.suffix.lower() in (".graphml", ".gexf", ".gml", ".net",
                                                      ".json", ".csv", ".edges", ".txt")]
    files.append(_good_points(good / "moons.csv"))
    session = Seq2SeqSession()
    session.save(good / "model.pt")
    files.append(good / "model.pt")
    hostile = write_corpus(Path(folder) / "hostile", large=large, big=big)
    hostile += write_sessions(Path(folder) / "sessions")
    return Corpus(good=files, hostile=sorted(hostile))


def _patterns(file_filter: str) -> list[str]:
    """``"Graphs (*.graphml *.gexf);;All files (*)"`` -> ["*.graphml", "*.gexf", "*"]."""
    return re.findall(r"\*[^\s;)]*", file_filter or "")


class FileDialogs:
    """Answers QFileDialog's static methods from a corpus, as a clumsy user would.

    Use as a context manager; ``note(text)`` receives a line per answer for the log."""

    def __init__(self, rng: random.Random, corpus: Corpus, out_dir: Path,
                 note: Callable[[str], None]) -> None:
        self.rng, self.corpus, self.out_dir, self.note = rng, corpus, Path(out_dir), note
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._saved: dict[str, object] = {}
        self.opened: list[str] = []
        self.saved: list[str] = []

    def __enter__(self) -> FileDialogs:
        for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory",
                     "getOpenFileNames"):
            self._saved[name] = QFileDialog.__dict__.get(name)
        QFileDialog.getOpenFileName = staticmethod(self.get_open_file_name)
        QFileDialog.getOpenFileNames = staticmethod(self.get_open_file_names)
        QFileDialog.getSaveFileName = staticmethod(self.get_save_file_name)
        QFileDialog.getExistingDirectory = staticmethod(self.get_existing_directory)
        return self

    def __exit__(self, *exc) -> None:
        for name, value in self._saved.items():
            if value is None:
                delattr(QFileDialog, name)
            else:
                setattr(QFileDialog, name, value)

    # -- the answers -------------------------------------------------------------------------------
    def pick_open(self, file_filter: str) -> str:
        roll = self.rng.random()
        if roll < 0.06:
            return ""                                           # Cancel
        if roll < 0.09:
            return str(self.out_dir / "no such file.csv")
        if roll < 0.11:
            return str(self.out_dir)                            # a folder
        pats = _patterns(file_filter)
        candidates = self.corpus.all() + sorted(p for p in self.out_dir.glob("*") if p.is_file())
        shown = [p for p in candidates if any(fnmatch.fnmatch(p.name.lower(), pat.lower())
                                              for pat in pats)]
        pool = shown if shown and roll < 0.8 else candidates     # now and then: any file
        return str(self.rng.choice(pool)) if pool else ""

    def pick_save(self, directory: str, file_filter: str) -> str:
        roll = self.rng.random()
        if roll < 0.08:
            return ""
        pats = [p for p in _patterns(file_filter) if p != "*"]
        suggested = Path(directory or "x.dat")
        stem = self.rng.choice([suggested.stem or "out", "out", "名字 with spaces", "a" * 120])
        if roll < 0.14:
            ext = self.rng.choice([".bmp", ".xyz", "", ".PNG", ".csv.gz"])
        else:
            ext = self.rng.choice(pats)[1:] if pats else suggested.suffix
        if roll < 0.18:
            return str(self.out_dir / "missing folder" / f"{stem}{ext}")
        return str(self.out_dir / f"{stem}{ext}")

    def get_open_file_name(self, parent=None, caption="", directory="", file_filter="",
                           *args, **kwargs) -> tuple[str, str]:
        path = self.pick_open(file_filter)
        self.note(f"open dialog -> {path or 'Cancel'}")
        if path:
            self.opened.append(path)
        return path, ""

    def get_open_file_names(self, parent=None, caption="", directory="", file_filter="",
                            *args, **kwargs) -> tuple[list[str], str]:
        path, chosen = self.get_open_file_name(parent, caption, directory, file_filter)
        return ([path] if path else []), chosen

    def get_save_file_name(self, parent=None, caption="", directory="", file_filter="",
                           *args, **kwargs) -> tuple[str, str]:
        path = self.pick_save(directory, file_filter)
        self.note(f"save dialog -> {path or 'Cancel'}")
        chosen = ""
        if path:
            self.saved.append(path)
            pats = _patterns(file_filter)
            chosen = next((f for f in (file_filter or "").split(";;")
                           if any(path.lower().endswith(p[1:].lower()) for p in pats
                                  if p in f and p != "*")), "")
        return path, chosen

    def get_existing_directory(self, parent=None, caption="", directory="", *args,
                               **kwargs) -> str:
        path = "" if self.rng.random() < 0.1 else str(self.out_dir)
        self.note(f"folder dialog -> {path or 'Cancel'}")
        return path
