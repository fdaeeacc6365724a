"""Settings files written by hand, as a damaged or hostile ``archscope.ini`` is."""

from __future__ import annotations

from pathlib import Path


def write_ini(folder: Path, values: dict[str, str]) -> None:
    """``values`` (key -> raw text) as an INI file QSettings reads: a key's first part is
    its section ([General] for keys without one), the rest joined by backslashes."""
    sections: dict[str, list[str]] = {}
    for key, raw in values.items():
        section, _, rest = key.partition("/")
        if not rest:
            section, rest = "General", key
        sections.setdefault(section, []).append(f"{rest.replace('/', chr(92))}={raw}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "archscope.ini").write_text(
        "".join(f"[{s}]\n" + "\n".join(lines) + "\n\n" for s, lines in sections.items()))
