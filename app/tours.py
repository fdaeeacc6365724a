"""Guided tours, read from ``resources/tours/<tab>.json`` (English and Chinese).

Format::

    {"tab": "positional",
     "steps": [{"id": "table",
                "title": {"en": "...", "zh_CN": "..."},
                "text":  {"en": "...", "zh_CN": "..."},
                "state": {"d_model": 128, "highlight": "pe"}}]}

``text`` may use simple HTML (<b>, <i>, <sub>, <sup>). ``state`` is applied by the
tab's controller (slider values, toggles, the highlighted view).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from app.i18n import LANGUAGES, resources_dir
from models.errors import ArchScopeError


class TourError(ArchScopeError):
    pass


@dataclass(frozen=True)
class TourStep:
    id: str
    title: dict[str, str]
    text: dict[str, str]
    state: dict = field(default_factory=dict)

    def title_in(self, lang: str) -> str:
        return self.title.get(lang) or self.title["en"]

    def text_in(self, lang: str) -> str:
        return self.text.get(lang) or self.text["en"]


def tour_path(tab: str) -> Path:
    return resources_dir() / "tours" / f"{tab}.json"


def load_tour(tab: str, path: Path | None = None) -> list[TourStep]:
    path = path or tour_path(tab)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TourError(f"The guided tour of the '{tab}' tab is missing ({path}).") from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise TourError(f"The tour file {path.name} cannot be read: {exc}") from exc
    steps = []
    for i, raw in enumerate(doc.get("steps", [])):
        for key in ("title", "text"):
            missing = [lang for lang in LANGUAGES if not str(raw.get(key, {}).get(lang, ""))
                       .strip()]
            if missing:
                raise TourError(f"Tour '{tab}' step {i + 1} has no {key} in "
                                + ", ".join(missing) + ".")
        steps.append(TourStep(id=str(raw.get("id", i)), title=dict(raw["title"]),
                              text=dict(raw["text"]), state=dict(raw.get("state", {}))))
    return steps
