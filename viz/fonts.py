"""Chinese text in Simplified Chinese glyphs, on screen and in every figure.

The app's only CJK language is Simplified Chinese, but Qt takes the CJK glyphs its
Latin font lacks from the first CJK face fontconfig offers, here the Japanese variant
of Noto Sans CJK: "，" and "。" sat centred in their box (Japanese style) and zh PDFs
embedded ``NotoSansCJKjp``. :func:`prefer_simplified_chinese` puts a Simplified Chinese
face right after the app's Latin family in Qt's substitution table, so Qt falls back to
it (the Latin text keeps its font). :data:`SVG_CJK_FAMILIES` names the same kind of face
in an SVG's ``font-family``, for renderers that pick their own fallback.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

#: Simplified Chinese sans-serif faces, most portable first: Noto / Source Han (Linux,
#: Android, installed with LaTeX), then those of Windows, macOS and older Linux.
CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans CN",
                "Microsoft YaHei", "PingFang SC", "Hiragino Sans GB", "WenQuanYi Micro Hei",
                "WenQuanYi Zen Hei", "SimHei")
#: the few of them an SVG names (on every text element): Linux and Adobe, Windows, macOS
SVG_CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC")


def simplified_chinese_family() -> str | None:
    """The first of :data:`CJK_FAMILIES` installed here, or None."""
    installed = set(QFontDatabase.families())
    return next((f for f in CJK_FAMILIES if f in installed), None)


def prefer_simplified_chinese() -> str | None:
    """Make Qt fall back to a Simplified Chinese face for the text of the app's default
    font (a ``QFont()``, and every font made from it); returns that face, or None when
    none is installed, or no application is made yet (Qt has no fonts without one).
    Call before any text is drawn (Qt caches what it resolved)."""
    if QGuiApplication.instance() is None:
        return None
    cjk = simplified_chinese_family()
    if cjk is None:
        return None
    font = QFont()
    requested, resolved = font.family(), QFontInfo(font).family()
    # "Sans Serif" is an alias: its substitutes are tried in order, so the Latin face
    # fontconfig resolves it to comes first, then the Chinese one
    chain = [f for f in (resolved, cjk) if f and f != requested]
    if cjk.lower() not in QFont.substitutes(requested):       # (Qt lowercases them)
        QFont.insertSubstitutions(requested, chain)
    if resolved and resolved != requested and cjk.lower() not in QFont.substitutes(resolved):
        QFont.insertSubstitution(resolved, cjk)
    return cjk
