"""The Chinese catalogue is complete and compiles; every source string is in it."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from app import i18n
from app.tabs.catalog import tab_specs
from app.tours import load_tour, tour_path


def _messages(ts: Path):
    root = ET.parse(ts).getroot()
    for ctx in root.iter("context"):
        name = ctx.findtext("name")
        for msg in ctx.iter("message"):
            yield name, msg.findtext("source"), msg.find("translation")


def test_catalogue_has_no_unfinished_entries():
    bad = [(c, s) for c, s, t in _messages(i18n.ts_path("zh_CN"))
           if t is None or t.get("type") in ("unfinished", "vanished", "obsolete")
           or not (t.text or "").strip()]
    assert not bad, f"untranslated: {bad[:10]}"


def test_catalogue_covers_every_string_in_the_sources(tmp_path):
    """Re-extract into a copy: a new tr() string would appear there as unfinished."""
    copy = tmp_path / "check_zh_CN.ts"
    shutil.copy(i18n.ts_path("zh_CN"), copy)
    files = [str(p) for d in i18n.SOURCES for p in sorted((i18n.ROOT / d).rglob("*.py"))]
    subprocess.run([i18n._tool("lupdate"), "-no-obsolete", "-locations", "none", *files,
                    "-ts", str(copy)], check=True, capture_output=True)
    missing = [(c, s) for c, s, t in _messages(copy)
               if t is None or t.get("type") == "unfinished"]
    assert not missing, f"strings without a Chinese translation: {missing[:10]}"


def test_placeholders_survive_translation():
    for ctx, source, t in _messages(i18n.ts_path("zh_CN")):
        want = sorted(re.findall(r"\{[^}]*\}", source or ""))
        got = sorted(re.findall(r"\{[^}]*\}", (t.text if t is not None else "") or ""))
        assert want == got, f"{ctx}: {source!r}"


def test_compiled_catalogue_translates_at_runtime(qapp):
    translations = i18n.Translations()
    try:
        assert translations.set_language("zh_CN")
        assert QCoreApplication.translate("MainWindow", "&File") == "文件(&F)"
        assert QCoreApplication.translate("Tabs", "Positional encoding") == "位置编码"
    finally:
        translations.set_language("en")
    assert QCoreApplication.translate("MainWindow", "&File") == "&File"


def test_switching_back_and_forth_keeps_no_old_translator(qapp):
    """Every switch loaded fresh translators (children of the application) and only
    uninstalled the old ones, which stayed in memory with their catalogues."""
    from PySide6.QtCore import QEvent, QTranslator

    def alive() -> int:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        return len(qapp.findChildren(QTranslator))

    translations = i18n.Translations()
    before = alive()
    try:
        for _ in range(5):
            assert translations.set_language("zh_CN")
            translations.set_language("en")
        assert translations.set_language("zh_CN")
        assert alive() - before == len(translations._installed) <= 2
    finally:
        translations.set_language("en")
    assert alive() == before


@pytest.mark.parametrize("spec", tab_specs(), ids=lambda s: s.key)
def test_every_tab_has_a_bilingual_tour(spec):
    assert tour_path(spec.key).exists(), f"no tour for {spec.key}"
    steps = load_tour(spec.key)
    assert len(steps) >= 3
    for step in steps:
        for lang in i18n.LANGUAGES:
            assert step.title_in(lang).strip() and step.text_in(lang).strip()
        assert re.search(r"[\u4e00-\u9fff]", step.text["zh_CN"]), step.id
    # numbered 1, 2, 3 … in both languages where the tour numbers its steps (a step
    # added or removed once left a tour going from 13 to 15)
    for lang in i18n.LANGUAGES:
        numbers = [re.match(r"(\d+)\.", s.title_in(lang)) for s in steps]
        if any(numbers):
            assert [int(m.group(1)) if m else None for m in numbers] == \
                list(range(1, len(steps) + 1)), (spec.key, lang)


def test_translated_strings_are_literals_the_extractor_can_see():
    """lupdate finds ``self.tr("...")`` and ``QCoreApplication.translate(ctx, "...")`` only
    with a literal string: a helper like ``def _tr(text): return translate(ctx, text)``
    hides every string passed to it, and they stay English in Chinese. A non-literal is
    allowed only where the strings are marked with QT_TRANSLATE_NOOP."""
    import ast

    hidden = []
    for folder in ("app", "viz"):
        for path in sorted((i18n.ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if "QT_TRANSLATE_NOOP" in source or path.name == "tab_pages.py":  # catalog titles
                continue
            for node in ast.walk(ast.parse(source)):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                owner = ast.unparse(node.func.value)
                if node.func.attr == "translate" and owner.endswith("QCoreApplication"):
                    text = node.args[1] if len(node.args) > 1 else None
                elif node.func.attr == "tr" and owner == "self":
                    text = node.args[0] if node.args else None
                else:
                    continue
                if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                    hidden.append(f"{path.relative_to(i18n.ROOT)}:{node.lineno}")
    assert not hidden, hidden
