"""Languages: Qt ``.ts`` catalogues compiled to ``.qm`` with PySide6's own lrelease.

``python -m app.i18n --update`` re-extracts the English strings from the sources
into ``resources/i18n/archscope_zh_CN.ts`` (keeping existing translations);
``python -m app.i18n --compile`` writes the ``.qm`` files (build outputs, not in git).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
CATALOGUE = "archscope"
ROOT = Path(__file__).resolve().parent.parent
I18N_DIR = Path(__file__).resolve().parent.parent / "resources" / "i18n"
SOURCES = ["app", "viz"]


def resources_dir() -> Path:
    from importlib.resources import files

    return Path(str(files("resources")))


def _tool(name: str) -> str:
    """Path of pyside6-lrelease / pyside6-lupdate (next to this Python, or on PATH)."""
    candidates = [Path(sys.executable).parent / f"pyside6-{name}", shutil.which(f"pyside6-{name}")]
    import PySide6

    candidates.append(Path(PySide6.__file__).parent / name)
    for c in candidates:
        if c and Path(c).exists():
            return str(c)
    raise FileNotFoundError(f"pyside6-{name} was not found; reinstall PySide6-Essentials.")


def ts_path(code: str) -> Path:
    return resources_dir() / "i18n" / f"{CATALOGUE}_{code}.ts"


def compile_catalogue(code: str, out_dir: Path | None = None) -> Path:
    ts = ts_path(code)
    out = (out_dir or ts.parent) / f"{CATALOGUE}_{code}.qm"
    subprocess.run([_tool("lrelease"), "-silent", str(ts), "-qm", str(out)], check=True,
                   capture_output=True)
    return out


def qm_path(code: str) -> Path | None:
    """The compiled catalogue, compiling it now if it is missing or stale."""
    ts = ts_path(code)
    if not ts.exists():
        return None
    qm = ts.with_suffix(".qm")
    if qm.exists() and qm.stat().st_mtime >= ts.stat().st_mtime:
        return qm
    for folder in (ts.parent, Path(tempfile.gettempdir()) / "archscope-i18n"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return compile_catalogue(code, folder)
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


class Translations:
    """Installs and removes translators on the running application."""

    def __init__(self) -> None:
        self._installed: list[QTranslator] = []
        self.language = "en"

    def set_language(self, code: str) -> bool:
        """Switch to ``code``; Qt then sends LanguageChange to every widget."""
        if code not in LANGUAGES:
            code = "en"
        previous = self.language
        self.language = code   # set first: LanguageChange handlers read it
        app = QCoreApplication.instance()
        for t in self._installed:
            app.removeTranslator(t)
            t.deleteLater()     # children of the application: kept for ever otherwise
        self._installed = []
        ok = True
        if code != "en":
            ours = QTranslator(app)
            qm = qm_path(code)
            ok = bool(qm and ours.load(str(qm)))
            if ok:
                app.installTranslator(ours)
                self._installed.append(ours)
            else:
                ours.deleteLater()
            qt_own = QTranslator(app)   # Qt's own dialogs (OK / Cancel ...)
            if qt_own.load(QLocale(code), "qtbase", "_",
                           QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
                app.installTranslator(qt_own)
                self._installed.append(qt_own)
            else:
                qt_own.deleteLater()
        QLocale.setDefault(QLocale(code if code != "en" else "en_US"))
        if not ok:
            self.language = previous if previous == "en" else "en"
        return ok


def _update() -> None:
    files = [str(p) for d in SOURCES for p in sorted((ROOT / d).rglob("*.py"))]
    for code in LANGUAGES:
        if code == "en":
            continue
        ts = I18N_DIR / f"{CATALOGUE}_{code}.ts"
        subprocess.run([_tool("lupdate"), "-no-obsolete", "-locations", "none", *files,
                        "-ts", str(ts)], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--compile", action="store_true", help="write the .qm files")
    parser.add_argument("--update", action="store_true", help="re-extract strings into .ts")
    args = parser.parse_args(argv)
    if args.update:
        _update()
    if args.compile:
        for code in LANGUAGES:
            if code != "en":
                print(f"compiled {compile_catalogue(code)}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main())
