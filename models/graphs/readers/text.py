"""What the text formats (edge lists, GML, Pajek, JSON) share: decoding, number tests."""

from __future__ import annotations


def _decode(data: bytes) -> str:
    """UTF-8 (with or without BOM), falling back to latin-1 (which never fails)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
