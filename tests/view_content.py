"""What a person sees in a view, counted: the data marks its plots draw (curve samples,
scatter spots, bar and image rectangles; hints, legends and annotations are not data),
and the English words a tab's visible texts keep in Chinese. Used by the graph,
efficient-attention and positional tab tests."""

from __future__ import annotations

import figure_checks
import pyqtgraph as pg

from viz.legend import drawn_geometry

#: names in code and formulas the tabs show as they are (beside figure_checks.ALLOWED)
CODE_NAMES = {"attn_mask", "true", "false", "node_ids", "edge_index", "edge_index_undirected",
              "edge_weight", "data", "base", "d_model", "max_len", "m_k", "pe", "nn", "xformers"}


def drawn_marks(view) -> int:
    """Data marks drawn in ``view``'s plots (0 for an empty axis box or a bare hint)."""
    scene = view.panel.graphics.scene()
    count = 0
    for box in scene.items():
        if isinstance(box, pg.ViewBox) and box.isVisible():
            points, rects = drawn_geometry(box.addedItems, None)
            count += len(points) + sum(r.width() > 0 and r.height() > 0 for r in rects)
    return count


def english_words(window, tab_key: str, names=()) -> list[str]:
    """Visible texts of tab ``tab_key`` with English words outside the allowed names,
    the code names above and ``names`` (the data's own: attribute names, values)."""
    allowed = {n.lower() for n in CODE_NAMES} | {str(n).lower() for n in names}
    found = []
    for where, text in figure_checks.visible_texts(window):
        if not where.startswith(f"{tab_key}:"):
            continue
        words = [w for w in figure_checks._words(text) if w.lower() not in allowed]
        if words:
            found.append(f"{where}: {', '.join(sorted(set(words)))}")
    return sorted(set(found))
