"""Checks a person makes by looking at the window, written down: nothing covers data,
no text is cut off, nothing stays English in Chinese. Each returns a list of findings
(empty = good) so a test can print them all at once.

Used by tests/test_figures.py on the real window; the geometry comes from the items
themselves (viz.legend.drawn_geometry maps what curves, scatters, bars and images draw
into scene coordinates).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QFontMetrics, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QCheckBox,
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGroupBox,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QStyleOptionComboBox,
    QTabBar,
    QWidget,
)

from viz.legend import covered, drawn_geometry

# -- 1. nothing covers data ---------------------------------------------------------------


def _legend_has_entries(legend: pg.LegendItem) -> bool:
    return bool(getattr(legend, "items", None))


def covering_items(scene) -> list[tuple[str, QRectF]]:
    """Legends and annotation text in ``scene``: (a name for the message, scene rect)."""
    out = []
    for item in scene.items():
        if not item.isVisible():
            continue
        if isinstance(item, pg.LegendItem) and _legend_has_entries(item):
            names = ", ".join(lab.text for _s, lab in item.items)[:60]
            out.append((f"legend [{names}]", item.sceneBoundingRect()))
        elif isinstance(item, pg.TextItem) and item.toPlainText().strip() \
                and not getattr(item, "_archscope_data_label", False):
            out.append((f"text '{item.toPlainText().strip()[:40]}'", item.sceneBoundingRect()))
    return out


def overlaps_in_scene(scene) -> list[str]:
    """Every legend or annotation of ``scene`` that lies over drawn data of a view box."""
    found = []
    boxes = [it for it in scene.items() if isinstance(it, pg.ViewBox) and it.isVisible()]
    for name, rect in covering_items(scene):
        for vb in boxes:
            area = vb.sceneBoundingRect()
            if not area.intersects(rect):
                continue
            points, rects = drawn_geometry(vb.addedItems, None)
            if len(points):
                keep = ((points[:, 0] >= area.left()) & (points[:, 0] <= area.right())
                        & (points[:, 1] >= area.top()) & (points[:, 1] <= area.bottom()))
                points = points[keep]
            rects = [r.intersected(area) for r in rects if r.intersects(area)]
            hits = covered(rect.intersected(area), points, rects)
            if hits:
                found.append(f"{name} covers {hits} data marks")
    return found


def legend_overlaps(window) -> tuple[int, list[str]]:
    """(views checked, findings) over every registered view of every tab."""
    checked, found = 0, []
    for tab in window.tabs:
        for view in tab.views:
            checked += 1
            scene = view.panel.graphics.scene()
            found += [f"{tab.key}.{view.key}: {f}" for f in overlaps_in_scene(scene)]
    return checked, found


# -- 2. no clipped text -----------------------------------------------------------------------


def _text_size(widget: QWidget, text: str, rich: bool, wrap_width: int | None) -> QSize:
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(widget.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        if wrap_width is not None:
            doc.setTextWidth(wrap_width)
            return QSize(int(doc.idealWidth()), int(doc.size().height()))
        return QSize(int(doc.idealWidth()), int(doc.size().height()))
    fm = QFontMetrics(widget.font())
    lines = text.split("\n")
    return QSize(max(fm.horizontalAdvance(line) for line in lines),
                 fm.lineSpacing() * len(lines))


def _label_clipped(label: QLabel) -> str | None:
    text = QLabel.text(label)          # what shows (a FitLabel's text() is the whole text)
    if not text.strip() or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    if label.property("archscope_elided"):       # shows "…" and the whole text on hover
        return None
    rect = label.contentsRect()
    rich = label.textFormat() == label.textFormat().RichText or (
        label.textFormat() == label.textFormat().AutoText and bool(re.search(r"<\w", text)))
    if label.wordWrap():
        need = label.heightForWidth(rect.width() + 2 * label.margin()) - 2 * label.margin()
        if need > rect.height() + 2:
            return f"needs {need} px of height, has {rect.height()}"
        return None
    size = _text_size(label, text, rich, None)
    if size.width() > rect.width() + 1:
        return f"needs {size.width()} px, has {rect.width()}"
    if size.height() > rect.height() + 3:
        return f"needs {size.height()} px of height, has {rect.height()}"
    return None


def _button_clipped(button: QAbstractButton) -> str | None:
    text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    if not text.strip():
        return None
    fm = QFontMetrics(button.font())
    need = fm.horizontalAdvance(text)
    style = button.style()
    opt = QStyleOptionButton()
    button.initStyleOption(opt)
    if isinstance(button, (QCheckBox, QRadioButton)):
        element = (QStyle.SubElement.SE_CheckBoxContents if isinstance(button, QCheckBox)
                   else QStyle.SubElement.SE_RadioButtonContents)
        has = style.subElementRect(element, opt, button).width()
    elif isinstance(button, QPushButton):
        has = button.width() - 2 * style.pixelMetric(QStyle.PixelMetric.PM_ButtonMargin,
                                                     opt, button) + 4
        if not button.icon().isNull():
            has -= button.iconSize().width() + 4
    else:
        has = button.width() - 4
    return f"needs {need} px, has {has}" if need > has + 1 else None


def _combo_clipped(combo: QComboBox) -> str | None:
    text = combo.currentText()
    if not text.strip() or combo.property("archscope_elided"):   # "…", whole on hover
        return None
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    need = QFontMetrics(combo.font()).horizontalAdvance(text)
    return f"needs {need} px, has {field.width()}" if need > field.width() + 1 else None


def _scene_text_clipped(scene) -> list[tuple[str, str]]:
    """Notes and hints drawn inside a plot that run past its edges (the view box clips
    them): (text, problem). A node's label at the edge of the view is data, not a note."""
    out = []
    for item in scene.items():
        if not isinstance(item, pg.TextItem) or not item.isVisible() \
                or getattr(item, "_archscope_data_label", False):
            continue
        text = item.toPlainText().strip()
        if not text:
            continue
        parent = item.parentItem()
        while parent is not None and not isinstance(parent, pg.ViewBox):
            parent = parent.parentItem()
        if parent is None:
            continue
        box = parent.sceneBoundingRect().adjusted(-1, -1, 1, 1)
        rect = item.sceneBoundingRect()
        if not box.contains(rect):
            out.append((text, f"runs {max(box.left() - rect.left(), rect.right() - box.right(), box.top() - rect.top(), rect.bottom() - box.bottom()):.0f} px past its plot"))
    return out


def _visible_rect(view) -> QRectF:
    """The part of ``view``'s scene its viewport shows (what is outside is cut)."""
    return view.mapToScene(view.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)


def _past(box: QRectF, rect: QRectF) -> float:
    return max(box.left() - rect.left(), rect.right() - box.right(),
               box.top() - rect.top(), rect.bottom() - box.bottom())


def _tick_texts(axis: pg.AxisItem) -> list[tuple[str, QRectF]]:
    """(text, scene rect) of every tick value ``axis`` draws, from its own draw specs
    (worked out without resizing the axis)."""
    image = QImage(4, 4, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        painter.setFont(axis.font())
        axis._updateMaxTextSize = lambda _x: None      # no side effect on the layout
        try:
            specs = axis.generateDrawSpecs(painter)
        finally:
            del axis._updateMaxTextSize
    finally:
        painter.end()
    if not specs:
        return []
    return [(text, axis.mapRectToScene(QRectF(rect))) for rect, _flags, text in specs[2]
            if str(text).strip()]


def _view_texts_clipped(view) -> list[tuple[str, str]]:
    """Text of a plot scene that its view cuts, or that is squeezed: axis labels and
    tick values (colour bars' included) past the view's edge, legends past the edge,
    and legend names wider than their cell or over one another."""
    out = []
    box = _visible_rect(view)
    for item in view.scene().items():
        if not item.isVisible():
            continue
        if isinstance(item, pg.AxisItem):
            label = item.label
            if label is not None and label.isVisible() and label.toPlainText().strip():
                m = label.document().documentMargin()     # the text, not its margin
                rect = label.mapRectToScene(label.boundingRect().adjusted(m, m, -m, -m))
                if not box.contains(rect):
                    out.append((f"axis label '{label.toPlainText().strip()}'",
                                f"runs {_past(box, rect):.0f} px past the view"))
            if item.style.get("showValues", True):
                for text, rect in _tick_texts(item):
                    # a line's height holds leading above and below the digits
                    if not box.adjusted(0, -3, 0, 3).contains(rect):
                        out.append((f"tick '{text}'",
                                    f"runs {_past(box, rect):.0f} px past the view"))
        elif isinstance(item, pg.LegendItem) and _legend_has_entries(item):
            rect = item.sceneBoundingRect()
            names = [lab for _s, lab in item.items if lab.isVisible()]
            if not box.contains(rect):
                out.append((f"legend [{', '.join(lab.text for lab in names)[:60]}]",
                            f"runs {_past(box, rect):.0f} px past the view"))
            shown = []
            for lab in names:
                text = lab.item
                cell = lab.sceneBoundingRect()
                need = text.mapRectToScene(text.boundingRect())
                doc = text.document().clone()
                doc.setTextWidth(text.textWidth())
                if doc.idealWidth() > cell.width() + 1 or not rect.adjusted(
                        -1, -1, 1, 1).contains(need):
                    out.append((f"legend entry '{text.toPlainText()[:40]}'",
                                f"needs {doc.idealWidth():.0f} px, its cell has "
                                f"{cell.width():.0f} inside the legend"))
                for other_name, other in shown:
                    overlap = need.intersected(other)
                    if overlap.width() > 1 and overlap.height() > 1:
                        out.append((f"legend entry '{text.toPlainText()[:40]}'",
                                    f"drawn over '{other_name}'"))
                shown.append((text.toPlainText()[:40], need))
    return out


def _name(widget: QWidget, text: str) -> str:
    owner = widget
    while owner is not None and not hasattr(owner, "key"):
        owner = owner.parentWidget()
    where = getattr(owner, "key", "window")
    return f"{where}: {type(widget).__name__} '{text[:50]}'"


def clipped_texts(window) -> tuple[int, list[str]]:
    """(widgets checked, findings): every visible label, button and combo box whose text
    does not fit its geometry, and every scroll area that cuts its content sideways."""
    checked, found = 0, []
    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window) or not widget.isVisible():
            continue
        if isinstance(widget, QTabBar):
            continue
        problem = None
        if isinstance(widget, QLabel):
            problem, text = _label_clipped(widget), widget.text()
        elif isinstance(widget, QAbstractButton):
            problem, text = _button_clipped(widget), widget.text()
        elif isinstance(widget, QComboBox):
            problem, text = _combo_clipped(widget), widget.currentText()
        elif isinstance(widget, pg.GraphicsView):
            for item_text, problem in _scene_text_clipped(widget.scene()):
                checked += 1
                found.append(f"{_name(widget, item_text)}: {problem}")
            checked += 1
            found += [f"{_name(widget, item_text)}: {problem}"
                      for item_text, problem in _view_texts_clipped(widget)]
            continue
        elif isinstance(widget, QAbstractScrollArea) and hasattr(widget, "widget") \
                and widget.widget() is not None:
            inner = widget.widget()
            if (widget.horizontalScrollBarPolicy().name == "ScrollBarAlwaysOff"
                    and inner.minimumSizeHint().width() > widget.viewport().width() + 1):
                problem, text = (f"content needs {inner.minimumSizeHint().width()} px, "
                                 f"shows {widget.viewport().width()} and cannot scroll"), ""
            else:
                continue
        else:
            continue
        checked += 1
        if problem:
            found.append(f"{_name(widget, text)}: {problem}")
    return checked, found


# -- 3. nothing stays English -------------------------------------------------------------

#: words that are names, not English: models, libraries, units, symbols the course uses
ALLOWED = {
    "gcn", "gat", "graphsage", "sage", "gin", "pyg", "pytorch", "torch", "softmax", "relu",
    "gelu", "tanh", "adam", "sgd", "performer", "linformer", "longformer", "bigbird", "favor",
    "realnvp", "nice", "maf", "iaf", "maml", "fomaml", "reptile", "sdpa", "nan", "inf", "cpu",
    "cuda", "mps", "gpu", "png", "svg", "pdf", "csv", "npy", "json", "graphml", "gexf", "gml",
    "pajek", "roc", "auc", "pca", "nll", "mse", "nfe", "ode", "odes", "rk", "dopri", "euler",
    "rtol", "atol", "jvp", "cnf", "ffjord", "bos", "eos", "pad", "unk", "sbm", "karate", "cora",
    "qkv", "mha", "attn", "mask", "api", "apis", "nn", "fn", "sinusoidal", "argmax", "logits",
    "layernorm", "batchnorm", "xavier", "seed", "transformer", "bert", "minilm", "gpt", "id", "ids", "url",
    "avg", "max", "min", "std", "log", "det", "exp", "sin", "cos", "dmon", "pos", "rope",
    "dim", "w_q", "w_k", "w_v", "w_o", "d_k", "d_model", "k_len", "q_len", "num_heads",
    "batch", "heads", "tsv", "xml", "zip", "ms", "ok", "mb", "gb", "kb", "flops", "ngram",
    "tokenizer", "digits", "dopri5", "rk4", "adjoint", "jacobian", "hutchinson", "graphrnn",
    # names of people, graphs, datasets, layers and arguments the course writes as they are
    "zachary", "davis", "kamada", "kawai", "barab", "albert", "erd", "nyi", "watts", "strogatz",
    "karateclub", "actnorm", "dropout", "data", "ptr", "memory", "rollout", "add", "norm", "elu", "mib",
    "bosh", "midpoint", "embedding", "heun", "fehlberg", "dormand", "prince", "fruchterman",
    "reingold", "spectral", "louvain", "gephi", "cytoscape", "networkx", "bertviz", "glorot",
    "clark", "abnar", "zuidema", "hugging", "face", "roberta", "distilbert", "gnnexplainer",
    # top-k and top-p sampling, named so in Chinese texts too
    "top",
    # code names and formula symbols the tabs show as they are
    "attn_mask", "true", "false", "node_ids", "edge_index", "edge_weight", "base", "pe",
    "xformers",
}


def _words(text: str) -> list[str]:
    """English words of ``text``: not names from ``ALLOWED``, not acronyms, not code
    identifiers (``max_len``, ``M_k``, ``W_q``: they have an underscore or a digit)."""
    text = re.sub(r"<[^>]+>", " ", text)            # HTML tags
    text = re.sub(r"&\w+;", " ", text)             # entities
    text = re.sub(r"“[^”]*”", " ", text)            # the data's own names, quoted
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_0-9]*", text)
            if len(w) >= 3 and "_" not in w and not re.search(r"\d", w)
            and w.lower() not in ALLOWED and not w.isupper()]


def visible_texts(window) -> list[tuple[str, str]]:
    """(where, text) of what the window shows: widgets' texts, combo items, group titles,
    and the pyqtgraph text (titles, axis labels, legend entries, annotations)."""
    out = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.property("archscope_data"):
            continue     # a widget that lists names from the user's file shows data
        if isinstance(widget, (QLabel, QAbstractButton)):
            out.append((_name(widget, widget.text()), widget.text()))
        elif isinstance(widget, QComboBox):
            out += [(_name(widget, widget.itemText(i)), widget.itemText(i))
                    for i in range(widget.count())]
        elif isinstance(widget, QGroupBox):
            out.append((_name(widget, widget.title()), widget.title()))
        elif isinstance(widget, pg.GraphicsView):
            for item in widget.scene().items():
                if not item.isVisible():
                    continue
                if isinstance(item, pg.LabelItem):
                    out.append((_name(widget, item.text), item.text))
                elif isinstance(item, pg.TextItem):
                    out.append((_name(widget, item.toPlainText()), item.toPlainText()))
                elif isinstance(item, pg.AxisItem) and item.label.isVisible():
                    out.append((_name(widget, item.labelString()), item.labelString()))
    return out


def english_words(window, tab_key: str, names=()) -> list[str]:
    """Visible texts of tab ``tab_key`` with English words outside ``ALLOWED`` and
    ``names`` (the data's own: attribute names, values)."""
    allowed = {str(n).lower() for n in names}
    found = []
    for where, text in visible_texts(window):
        if not where.startswith(f"{tab_key}:"):
            continue
        words = [w for w in _words(text) if w.lower() not in allowed]
        if words:
            found.append(f"{where}: {', '.join(sorted(set(words)))}")
    return sorted(set(found))


def untranslated(window) -> tuple[int, list[str]]:
    """(texts checked, findings): visible texts with English words outside ``ALLOWED``."""
    texts = visible_texts(window)
    found = []
    for where, text in texts:
        words = _words(text)
        if words:
            found.append(f"{where}: {', '.join(sorted(set(words))[:6])}")
    return len(texts), sorted(set(found))


# -- 4. no empty view ---------------------------------------------------------------------------


def drawn_marks(scene) -> int:
    """How many points and rectangles of data the view boxes of ``scene`` draw (text,
    legends and hints are not data)."""
    total = 0
    boxes = [it for it in scene.items() if isinstance(it, pg.ViewBox) and it.isVisible()]
    for vb in boxes:
        points, rects = drawn_geometry(vb.addedItems, None)
        # a bar of height 0 (a layer that is the identity) is drawn: it counts
        total += len(points) + sum(r.width() > 0 or r.height() > 0 for r in rects)
    if not boxes:       # a view drawn with plain graphics items, or painting its own
        total = sum(1 for it in scene.items() if it.isVisible() and isinstance(
            it, (QGraphicsLineItem, QGraphicsPathItem, QGraphicsRectItem,
                 QGraphicsEllipseItem, QGraphicsPolygonItem)))
        total += sum(it.drawn_lines() for it in scene.items()
                     if it.isVisible() and hasattr(it, "drawn_lines"))
    return total


def view_marks(view) -> int:
    """Data marks drawn in a tab's ``view`` (0 for an empty axis box or a bare hint)."""
    return drawn_marks(view.panel.graphics.scene())


def empty_views(window) -> tuple[int, list[str]]:
    """(views checked, findings): views whose plots draw nothing at all."""
    checked, found = 0, []
    for tab in window.tabs:
        for view in tab.views:
            checked += 1
            if drawn_marks(view.panel.graphics.scene()) == 0:
                found.append(f"{tab.key}.{view.key}: nothing drawn")
    return checked, found


# -- 5. a tour's Back shows what each step says ------------------------------------------------


def tour_back_mismatches(tab) -> list[str]:
    """Walk ``tab``'s tour to its end, then Back to the start: at each step, the controls
    its ``state`` names must hold the values it names (Back re-applies them). Returns
    (step id, key, shown, wanted) findings."""
    import pytest

    steps = tab.tour_steps()
    tab.tour.go_to(0)
    for _ in range(len(steps) - 1):
        tab.tour.next()
    found = []
    for i in range(len(steps) - 1, -1, -1):
        if tab.tour.index() != i:
            found.append(f"Back from step {i + 1} went to {tab.tour.index()}")
            break
        params = tab.params()
        for k, v in steps[i].state.items():
            if k in params and params[k] != (pytest.approx(v) if isinstance(v, float) else v):
                found.append(f"{steps[i].id}: {k} = {params[k]!r}, the step wants {v!r}")
        tab.tour.back()
    return found


# -- 6. pictures as arrays ----------------------------------------------------------------------


def read_rgb(path) -> np.ndarray:
    """An image file as uint8[h, w, 3] in RGB order (Qt reads it; the buffer is copied
    while the QImage that owns it is alive)."""
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    buf = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes()).copy()
    rows = buf.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4)[..., 2::-1]


# -- 7. every token or row of an axis named (LABELS, issue 32 item 2) -------------------------


def _expected_ticks(axis) -> list[str] | None:
    """The labels an axis stands for: a ``TokenAxis``'s tokens, or the explicit ticks
    (``setTicks``) inside its range; None for pyqtgraph's own numbered ticks."""
    if hasattr(axis, "shown_labels") and hasattr(axis, "rotated"):
        if axis._key is None:
            return None
        return [t for _, t in axis._ticks]
    levels = getattr(axis, "_tickLevels", None)
    if not levels:
        return None
    lo, hi = sorted(axis.range)
    return [str(t) for level in levels for v, t in level
            if lo - 1e-9 <= float(v) <= hi + 1e-9 and str(t).strip()]


def _drawn_ticks(axis) -> list[tuple[QRectF, str]]:
    """(rect in the axis' coordinates, text) of every tick label the axis draws."""
    if hasattr(axis, "rotated_label_rects") and axis.rotated():
        return axis.rotated_label_rects()
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    from PySide6.QtGui import QPainter

    painter = QPainter(image)
    if axis.style.get("tickFont") is not None:
        painter.setFont(axis.style["tickFont"])
    specs = axis.generateDrawSpecs(painter)
    painter.end()
    return [] if specs is None else [(QRectF(r), t) for r, _f, t in specs[2]]


def axis_label_problems(axis, view: QWidget | None = None) -> tuple[int, list[str]]:
    """(labels checked, problems) of one token or row axis: a label it stands for that
    is not drawn (thinned, culled by pyqtgraph at the axis' ends), two labels that
    overlap, a label outside the axis or the visible part of ``view``."""
    expected = _expected_ticks(axis)
    if expected is None or not axis.isVisible() or not axis.style.get("showValues", True):
        return 0, []
    drawn = _drawn_ticks(axis)
    found = []
    missing = Counter(expected) - Counter(t for _, t in drawn)
    if missing:
        found.append(f"{len(missing)} of {len(expected)} labels not drawn: "
                     + " ".join(sorted(missing.elements())[:8]))
    rects = sorted(drawn, key=lambda d: (d[0].top(), d[0].left()))
    for i, (a, ta) in enumerate(rects):
        for b, tb in rects[i + 1:]:
            inter = a.intersected(b)
            if inter.width() > 0.5 and inter.height() > 0.5:
                found.append(f"'{ta}' and '{tb}' overlap")
                break
    area = axis.boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    visible = None
    if view is not None:
        visible = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(
            -0.5, -0.5, 0.5, 0.5)
    for rect, text in drawn:
        if not area.contains(rect) or visible is not None and not visible.contains(
                axis.mapRectToScene(rect)):
            found.append(f"'{text}' is cut")
    return len(expected), found[:6]


def _painted_token_problems(item, view) -> tuple[int, list[str]]:
    """The same for a view that paints its tokens itself (the head view's columns)."""
    rects = item.token_rects()
    found = []
    expected = [*item.q_labels, *item.k_labels]
    if len(rects) != len(expected):
        found.append(f"{len(rects)} of {len(expected)} tokens drawn")
    visible = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
    columns: dict[float, list[tuple[QRectF, str]]] = {}
    for rect, text in rects:
        columns.setdefault(round(rect.right() if rect.left() < item.size().width() / 2
                                 else rect.left(), 0), []).append((rect, text))
        if not visible.contains(item.mapRectToScene(rect)):
            found.append(f"'{text}' is cut")
    for column in columns.values():
        column.sort(key=lambda d: d[0].top())
        for (a, ta), (b, tb) in zip(column, column[1:], strict=False):
            if a.bottom() - b.top() > 0.5:
                found.append(f"'{ta}' and '{tb}' overlap")
    return len(expected), found[:6]


def scene_label_problems(view: QWidget) -> tuple[int, list[str]]:
    """(labels checked, problems) over every token or row axis drawn in graphics view
    ``view``'s scene, and every view that paints its own tokens."""
    checked, found = 0, []
    for item in view.scene().items():
        if not item.isVisible():
            continue
        if isinstance(item, pg.AxisItem):
            n, f = axis_label_problems(item, view)
        elif hasattr(item, "token_rects") and hasattr(item, "q_labels"):
            n, f = _painted_token_problems(item, view)
        else:
            continue
        checked += n
        found += [f"{item.orientation} axis: {p}" if isinstance(item, pg.AxisItem) else p
                  for p in f]
    return checked, found


def unlabelled_ticks(window) -> tuple[int, list[str]]:
    """(labels checked, findings) over the views of the tab in front: every token or
    row a token/row axis stands for is named, no two names overlap, none is cut."""
    tab = window.tabs_widget.currentWidget()
    checked, found = 0, []
    for view in getattr(tab, "views", ()):
        n, f = scene_label_problems(view.panel.graphics)
        checked += n
        found += [f"{tab.key}.{view.key}: {p}" for p in f]
    return checked, found


# -- 8. the three formats alike ------------------------------------------------------------------
# Each view exported as PNG, SVG and PDF; the SVG drawn by librsvg (rsvg-convert) and the PDF
# by poppler (pdftoppm) at the PNG's pixel size, all three turned grey (0 white .. 1 black is
# as good as 0 .. 1 here) and blurred over FORMAT_BLUR x FORMAT_BLUR pixels, for what
# renderers may differ by: antialiasing, hinting, a heatmap cell's edge sampled a pixel
# apart. Measured at 1500 x 940 in en and zh_CN (/tmp command in the commit): the views
# drawn right differ by at most 0.033 (the layers x heads mosaic, an image of 1.2-pixel
# cells that each renderer samples its own way; all other views under 0.025), and the PDFs
# of the small heatmaps that came out as a dot in the corner by 0.16-0.49 (0.035-0.05 for
# the two whose heatmap is a small part of the figure).

#: side of the box blur before the comparison, in pixels
FORMAT_BLUR = 5
#: the largest mean |PNG - other| (grey, 0..1, after the blur) a view may show
FORMAT_LIMIT = 0.04


def format_tools() -> tuple[str | None, str | None]:
    """(pdftoppm, rsvg-convert): their paths, None where missing."""
    import shutil

    return shutil.which("pdftoppm"), shutil.which("rsvg-convert")


def grey(path) -> np.ndarray:
    """An image file as float32[h, w] in 0..1 (ITU-R 601 luma)."""
    return read_rgb(path).astype(np.float32) @ np.array([0.299, 0.587, 0.114],
                                                        np.float32) / 255.0


def box_blur(a: np.ndarray, k: int = FORMAT_BLUR) -> np.ndarray:
    """``a`` (float[h, w]) averaged over k x k pixels (edges repeated)."""
    if k <= 1:
        return a
    f = np.pad(a, k // 2, mode="edge")
    c = np.cumsum(np.cumsum(f, axis=0, dtype=np.float64), axis=1)
    c = np.pad(c, ((1, 0), (1, 0)))
    h, w = a.shape
    return ((c[k:k + h, k:k + w] - c[:h, k:k + w] - c[k:k + h, :w] + c[:h, :w])
            / (k * k)).astype(np.float32)


def rendered(path, width: int, height: int, out) -> np.ndarray:
    """The SVG or PDF ``path`` drawn by librsvg or poppler at width x height pixels on
    white, as ``grey`` gives it."""
    import subprocess
    from pathlib import Path

    pdftoppm, rsvg = format_tools()
    path, out = Path(path), Path(out)
    if path.suffix == ".pdf":
        cmd = [pdftoppm, "-png", "-singlefile", "-scale-to-x", str(width), "-scale-to-y",
               str(height), str(path), str(out.with_suffix(""))]
    else:
        cmd = [rsvg, "-w", str(width), "-h", str(height), "-b", "white", "-o", str(out),
               str(path)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return grey(out)


def format_differences(png, svg, pdf, folder) -> dict[str, float]:
    """{"svg": d, "pdf": d}: mean |PNG - SVG| and |PNG - PDF| (grey, blurred; see
    FORMAT_BLUR), the SVG and the PDF drawn by librsvg and poppler at the PNG's size."""
    from pathlib import Path

    base = box_blur(grey(png))
    h, w = base.shape
    out = {}
    for name, path in (("svg", svg), ("pdf", pdf)):
        drawn = rendered(path, w, h, Path(folder) / f"{Path(path).name}.png")
        out[name] = float(np.abs(base - box_blur(drawn)).mean())
    return out


def format_mismatches(window, folder, wait, language: str = "") -> tuple[
        list[tuple[str, dict[str, float]]], list[str]]:
    """Every registered view of every tab of ``window`` exported as PNG (at its size on
    screen), SVG and PDF into ``folder`` and compared (``format_differences``): (each
    view's differences, findings over FORMAT_LIMIT). ``wait(ms)`` runs the event loop
    (a tab shown is laid out first). The three files of a view are written in one turn
    of the event loop, so they show the same moment whatever the tab still computes."""
    from pathlib import Path

    rows, found = [], []
    for tab in window.tabs:
        window.tabs_widget.setCurrentWidget(tab)
        wait(300)
        for view in tab.views:
            name = f"{tab.key}.{view.key}{'.' + language if language else ''}"
            files = [str(Path(folder) / f"{name}.{fmt}") for fmt in ("png", "svg", "pdf")]
            for path in files:
                window.export_figure(tab, view.key, path, scale=1.0)
            diff = format_differences(*files, folder)
            rows.append((name, diff))
            found += [f"{name}: mean |PNG - {fmt.upper()}| {d:.3f} > {FORMAT_LIMIT}"
                      for fmt, d in diff.items() if d > FORMAT_LIMIT]
    return rows, found
