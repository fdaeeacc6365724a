"""One wrapper around QSettings: geometry, language, device, last folders, tab state.

``ARCHSCOPE_SETTINGS_DIR`` (used by the tests) puts the settings in an INI file there.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

ORG, APP = "ArchScope", "ArchScope"


class Settings:
    def __init__(self, path: str | os.PathLike | None = None) -> None:
        folder = path or os.environ.get("ARCHSCOPE_SETTINGS_DIR")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self._q = QSettings(str(Path(folder) / "archscope.ini"), QSettings.Format.IniFormat)
        else:
            self._q = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)

    # -- typed accessors -------------------------------------------------------------
    def get(self, key: str, default=None, type_=None):
        value = self._q.value(key, default)
        if type_ is None or value is None:
            return value
        try:
            if type_ is bool:
                return value in (True, "true", "1", 1) if not isinstance(value, bool) else value
            return type_(value)
        except (TypeError, ValueError):
            return default

    def set(self, key: str, value) -> None:
        self._q.setValue(key, value)

    def sync(self) -> None:
        self._q.sync()

    def file_name(self) -> str:
        return self._q.fileName()

    @property
    def language(self) -> str:
        return self.get("language", "en", str)

    @language.setter
    def language(self, code: str) -> None:
        self.set("language", code)

    @property
    def device(self) -> str:
        return self.get("device", "cpu", str)

    @device.setter
    def device(self, name: str) -> None:
        self.set("device", name)

    def geometry(self) -> QByteArray | None:
        value = self._q.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, geometry: QByteArray, state: QByteArray) -> None:
        self.set("window/geometry", geometry)
        self.set("window/state", state)

    def window_state(self) -> QByteArray | None:
        value = self._q.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def last_dir(self, purpose: str) -> str:
        folder = self.get(f"dirs/{purpose}", "", str)
        return folder if folder and Path(folder).is_dir() else str(Path.home())

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
