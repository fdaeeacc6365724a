"""One wrapper around QSettings: geometry, language, device, last folders, tab state.

``ARCHSCOPE_SETTINGS_DIR`` (used by the tests) puts the settings in an INI file there.

The file is the user's to edit (or to find corrupted), so every value read back is
checked before use: a value of the wrong type, not finite or out of range is removed
from the file, its default applies, and its key is kept in ``problems`` for the window to
name in one note at start-up (``reject``). A tab checks its own keys the same way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

ORG, APP = "ArchScope", "ArchScope"
#: a device name as torch writes it ("cpu", "cuda:1", "mps"); whether it exists here is
#: the window's question once torch is loaded
DEVICE_NAME = re.compile(r"(cpu|cuda|mps|xpu)(:[0-9]{1,3})?")


class Settings:
    def __init__(self, path: str | os.PathLike | None = None) -> None:
        folder = path or os.environ.get("ARCHSCOPE_SETTINGS_DIR")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self._q = QSettings(str(Path(folder) / "archscope.ini"), QSettings.Format.IniFormat)
        else:
            self._q = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)
        #: keys whose saved value could not be used (reset to their defaults), in order
        self.problems: list[str] = []

    # -- typed accessors -------------------------------------------------------------
    def get(self, key: str, default=None, type_=None):
        value = self._q.value(key, default)
        if type_ is None or value is None:
            return value
        try:
            if type_ is bool:
                return value in (True, "true", "1", 1) if not isinstance(value, bool) else value
            return type_(value)
        except (TypeError, ValueError, OverflowError):
            return default

    def set(self, key: str, value) -> None:
        self._q.setValue(key, value)

    def reject(self, key: str) -> None:
        """The saved value of ``key`` cannot be used: it is removed (its default applies
        now and is what the file holds next time) and ``key`` joins ``problems``."""
        self._q.remove(key)
        if key not in self.problems:
            self.problems.append(key)

    def take_problems(self) -> list[str]:
        """The keys rejected since the last call (for one note naming them all)."""
        keys, self.problems = self.problems, []
        return keys

    def _checked(self, key: str, default, valid):
        """The saved value of ``key`` if ``valid(value)``; else ``default`` (and the key is
        rejected; a key never saved is just the default)."""
        value = self._q.value(key)
        if value is None:
            return default
        try:
            ok = bool(valid(value))
        except (TypeError, ValueError, OSError):
            ok = False
        if ok:
            return value
        self.reject(key)
        return default

    def sync(self) -> None:
        self._q.sync()

    def file_name(self) -> str:
        return self._q.fileName()

    @property
    def language(self) -> str:
        from app.i18n import LANGUAGES

        return self._checked("language", "en", lambda v: isinstance(v, str) and v in LANGUAGES)

    @language.setter
    def language(self, code: str) -> None:
        self.set("language", code)

    @property
    def device(self) -> str:
        return self._checked("device", "cpu",
                             lambda v: isinstance(v, str) and DEVICE_NAME.fullmatch(v))

    @device.setter
    def device(self, name: str) -> None:
        self.set("device", name)

    def max_parameters(self, default: int) -> int:
        """The most parameters a model folder may have for the pretrained tab to load it
        (``pretrained/max_parameters``; a whole number from 1 million to 100 billion,
        anything else is rejected and ``default`` applies)."""
        def valid(v) -> bool:
            n = float(v)
            return 1e6 <= n <= 1e11 and n == int(n)       # (NaN and ±inf fail the range)
        return int(float(self._checked("pretrained/max_parameters", default, valid)))

    def geometry(self) -> QByteArray | None:
        """The window's saved geometry (``QWidget.saveGeometry``); None if there is none.
        Whether Qt can read the bytes is known only when restoring them: the window
        rejects the key if ``restoreGeometry`` refuses them."""
        return self._checked("window/geometry", None, lambda v: isinstance(v, QByteArray))

    def set_geometry(self, geometry: QByteArray, state: QByteArray) -> None:
        self.set("window/geometry", geometry)
        self.set("window/state", state)

    def window_state(self) -> QByteArray | None:
        return self._checked("window/state", None, lambda v: isinstance(v, QByteArray))

    def last_dir(self, purpose: str) -> str:
        """The folder last used for ``purpose`` ("open", "export"), or the home folder.
        A folder since removed is not a problem (the home folder is used); a value that
        cannot be a folder (not text, relative, too long, a NUL) is rejected."""
        folder = self._checked(f"dirs/{purpose}", "", lambda v: isinstance(v, str) and (
            not v or (Path(v).is_absolute() and "\0" not in v and len(v) < 4096)))
        try:
            return folder if folder and Path(folder).is_dir() else str(Path.home())
        except OSError:           # a name too long for this file system
            return str(Path.home())

    def set_last_dir(self, purpose: str, path: str) -> None:
        self.set(f"dirs/{purpose}", str(Path(path).parent if Path(path).suffix else path))

    def tab_state(self, tab: str) -> dict:
        self._q.beginGroup(f"tabs/{tab}")
        try:
            return {k: self._q.value(k) for k in self._q.childKeys()}
        finally:
            self._q.endGroup()

    def set_tab_state(self, tab: str, state: dict) -> None:
        self._q.beginGroup(f"tabs/{tab}")
        try:
            for k, v in state.items():
                self._q.setValue(k, v)
        finally:
            self._q.endGroup()
