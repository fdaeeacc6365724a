"""Drawing the Transformer tab: a trace into its views, the overview mosaic, the
step-through, and the training curves. Strings translate in the tab's context
("TransformerTab"), as they did when these were the tab's methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.transformer.steps import step_title
from models.traces import TransformerTrace
from models.transformer.analysis import attention_rollout, head_average

if TYPE_CHECKING:
    from app.tabs.transformer.tab import TransformerTab


def show_trace(tab: TransformerTab, t: TransformerTrace) -> None:
    """Every view from one trace: the heads of its layer, the overview, the chosen head's
    panels, the step-through, the output line and the training curves."""
    tab.trace = t
    titles = [QCoreApplication.translate("TransformerTab", "head {0}").format(h)
              for h in range(t.weights.shape[1])]
    tab.heads_view.set_heads(t.weights[t.layer], t.q_tokens, t.k_tokens, titles,
                             selected=t.head, swatches=True)
    tab.head_lines.set_heads(t.weights[t.layer], t.q_tokens, t.k_tokens, titles,
                             selected=t.head, titles=(
                                 QCoreApplication.translate("TransformerTab", "queries"),
                                 QCoreApplication.translate("TransformerTab", "keys")))
    if not tab.view("head_view").panel.readout.text().strip():
        tab._hover_head_view(-1, -1)
    draw_overview(tab, t)
    p = t.panels
    tab.panels_view.set_panels(
        p.mask, p.raw, p.masked, p.softmax, t.q_tokens, t.k_tokens,
        [QCoreApplication.translate("TransformerTab", "mask (grey = blocked)"),
         QCoreApplication.translate("TransformerTab", "raw scores QKᵀ/√d_k"),
         QCoreApplication.translate("TransformerTab", "masked scores"),
         QCoreApplication.translate("TransformerTab", "softmax")])
    draw_forward(tab, t)
    for key in ("heads", "head_steps", "forward", "head_view"):
        tab.view(key).panel.set_title(tab.view(key).title())
    ok = "✓" if t.correct else "✗"
    colour = "#2a7" if t.correct else "#c33"
    tab.output_label.setText(
        QCoreApplication.translate("TransformerTab", "model output: {0}").format(
            f"<span style='font-family:monospace'>{' '.join(t.predicted)}</span> "
            f"<b style='color:{colour}'>{ok}</b>"))
    n_full = int(p.fully_masked.sum())
    if t.course is not None and n_full:
        note = QCoreApplication.translate(
            "TransformerTab", "{0} rows of this head have every key blocked: the course's "
            "masked_fill(mask == 0, -1e9) gives them 1/{1} per key (ours: 0).").format(
                n_full, p.mask.shape[1])
    else:
        note = QCoreApplication.translate(
            "TransformerTab", "{0} rows of this head have every key blocked (their "
            "weights are set to 0).").format(n_full) if n_full else ""
    sdpa = course_sdpa_readout(t)       # also here: always in sight, beside the switch
    note = " ".join(x for x in (note, sdpa) if x)
    tab.mask_note.setText(note)
    tab.mask_note.setVisible(bool(note))
    if t.course is not None or getattr(tab, "_course_shown", False):
        # the comparison, or (switched off) no stale one; a hover read-out stays otherwise
        tab.view("heads").panel.set_readout(course_readout(tab, t))
        tab.view("head_steps").panel.set_readout(course_sdpa_readout(t))
    tab._course_shown = t.course is not None
    redraw_training(tab)


def rows_text(rows) -> str:
    """Row indices as runs: [4, 5, 6, 9] → "4–6, 9"."""
    runs: list[list[int]] = []
    for r in (int(x) for x in rows):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def course_readout(tab: TransformerTab, t: TransformerTrace | None) -> str:
    """"As the course writes it": how far the chapter's code is from ours on this layer
    (the heads' read-out when no cell is hovered); empty when the switch is off."""
    c = None if t is None else t.course
    if c is None:
        return ""
    if not c.rows.size:
        text = QCoreApplication.translate(
            "TransformerTab", "Course's code: the same weights as ours (max |Δweight| "
            "{0:.1e}).").format(c.max_delta)
    else:
        text = QCoreApplication.translate(
            "TransformerTab", "Course's code: max |Δweight| {0:.3f} vs ours, rows {1}.").format(
                c.max_delta, rows_text(c.rows))
    if c.blocked_rows.size:
        text += " " + QCoreApplication.translate(
            "TransformerTab", "Rows {0} fully blocked: 1/{1} = {2:.3f} each (ours 0).").format(
                rows_text(c.blocked_rows), c.keys, 1 / c.keys)
    return text


def course_sdpa_readout(t: TransformerTrace | None) -> str:
    """The chapter's F.scaled_dot_product_attention example on the shown head (decoder
    self-attention with the switch on; else empty)."""
    c = None if t is None else t.course
    if c is None or not c.sdpa.size:
        return ""
    return QCoreApplication.translate(
        "TransformerTab", "Course's SDPA example, head {0}: each query sees only later keys, "
        "max |Δweight| {1:.3f}; as written (no key): TypeError.").format(c.head, c.sdpa_max_delta)


def overview_columns(t: TransformerTrace) -> tuple[np.ndarray, list[str], int]:
    """Thumbnails: each layer's heads, its head average and, for self-attention, the
    rollout up to that layer. Returns (float[layers·cols, q, k], titles, cols)."""
    w = t.weights
    layers, heads = w.shape[:2]
    extra = [head_average(w)]
    names = [QCoreApplication.translate("TransformerTab", "avg")]
    if t.kind != "cross":
        extra.append(attention_rollout(w))
        names.append(QCoreApplication.translate("TransformerTab", "rollout"))
    cols = heads + len(extra)
    tiles, titles = [], []
    for layer in range(layers):
        for h in range(heads):
            tiles.append(w[layer, h])
            titles.append(f"L{layer} H{h}")
        for arr, name in zip(extra, names, strict=True):
            tiles.append(arr[layer])
            titles.append(f"L{layer} {name}")
    return np.stack(tiles), titles, cols


def draw_overview(tab: TransformerTab, t: TransformerTrace) -> None:
    """The mosaic of ``overview_columns``, the shown head selected."""
    tiles, titles, cols = overview_columns(t)
    heads = t.weights.shape[1]
    selected = t.layer * cols + t.head
    headers = [title.split(" ", 1)[1] for title in titles[:cols]]
    tab.overview_view.set_tiles(tiles, cols, headers,
                                [f"L{i}" for i in range(len(tiles) // cols)], selected)
    tab._overview_cols, tab._overview_heads = cols, heads
    tab._overview_titles = titles


def draw_forward(tab: TransformerTab, t: TransformerTrace) -> None:
    """The step-through at the chosen step (the same sub-step when the stack changes)."""
    steps = t.steps
    if steps is None:
        return
    keys = steps.keys()
    if tab._step_key not in keys:      # e.g. a cross-attention step, now on the encoder
        sub = tab._step_key.partition(".")[2]
        tab._step_key = next((k for k in keys if k.partition(".")[2] == sub), keys[0])
    index = keys.index(tab._step_key)
    tab.step_combo.blockSignals(True)
    if [tab.step_combo.itemData(i) for i in range(tab.step_combo.count())] != list(keys):
        tab.step_combo.clear()
        for i, key in enumerate(keys):
            tab.step_combo.addItem(f"{i + 1}. {step_title(key, steps.stack)}", key)
    else:
        for i, key in enumerate(keys):
            tab.step_combo.setItemText(i, f"{i + 1}. {step_title(key, steps.stack)}")
    tab.step_combo.setCurrentIndex(index)
    tab.step_combo.blockSignals(False)
    step = steps.steps[index]
    shape = "\u00a0×\u00a0".join(map(str, step.shape))     # wraps before it, not inside
    # the step's name is in the panel's title; the plot names the tensor's shape
    tab.step_view.set_step(step, f"{step.dims} = ({shape})", step_axis_label(step))
    tab.prev_step.setEnabled(index > 0)
    tab.next_step.setEnabled(index < len(keys) - 1)
    tab.step_note.setText(QCoreApplication.translate(
        "TransformerTab", "Rows are the tokens of batch item 0; per-head steps show head "
        "{0}. Hover a cell for its value.").format(steps.head))
    tab.view("forward").panel.set_title(tab._forward_title())


def step_axis_label(step) -> str:
    if step.kind == "ids":
        return QCoreApplication.translate("TransformerTab", "position")
    if step.col_labels:
        return QCoreApplication.translate("TransformerTab", "key")
    return QCoreApplication.translate("TransformerTab", "feature")


def redraw_training(tab: TransformerTab) -> None:
    """The shown model's loss, token error and held-out sequence error, and the status."""
    session = tab.current_session()
    if session is None or not session.step:
        # the untrained state as it is: no steps yet, and the loss a model starts near,
        # that of a uniform guess over the output tokens (cross-entropy ln V)
        if session is not None:
            v = session.task.vocab_size
            tab.train_plot.set_curves(
                [np.array([0.0, 100.0], np.float32)],
                [np.full(2, np.log(v), np.float32)],
                [QCoreApplication.translate(
                    "TransformerTab", "uniform guess: loss ln {0} = {1:.2f}").format(
                        v, np.log(v))])
        else:
            tab.train_plot.set_curves([], [], [])
        # losses run from about ln V down to 10⁻³: the line at the top, the hint below it
        tab.train_plot.plotItem.setYRange(-3.0, 1.0, padding=0)
        tab.train_plot.set_hint(QCoreApplication.translate(
            "TransformerTab", "Untrained: no steps yet.\nPress “Train” to train this model "
            "live."))
        tab.status.setText(tab.status_text())
        return
    tab.train_plot.set_hint("")
    tab.train_plot.plotItem.enableAutoRange(y=True)
    losses = np.asarray(session.losses, np.float32)
    steps = np.arange(1, len(losses) + 1, dtype=np.float32)
    acc = session.accuracy_history
    xs = np.array([s for s, _ in acc], np.float32)
    # an error of 0 stays 0: drawn as a mark on the log axis's bottom edge, not as 10⁻³
    err = np.array([max(0.0, 1.0 - a) for _, a in acc], np.float32)
    tok_err = np.maximum(1.0 - np.asarray(session.token_accuracy, np.float32), 0.0)
    tok_steps = np.arange(1, len(tok_err) + 1, dtype=np.float32)
    tab.train_plot.set_zero_label(QCoreApplication.translate(
        "TransformerTab", "0 errors (no place on a log scale)"))
    tab.train_plot.set_curves(
        [steps, tok_steps, xs], [np.maximum(losses, 1e-6), tok_err, err],
        [QCoreApplication.translate("TransformerTab", "training loss"),
         QCoreApplication.translate("TransformerTab", "token error (training batch)"),
         QCoreApplication.translate("TransformerTab", "held-out sequence error")],
        symbols=[None, None, "o"])
    tab.status.setText(tab.status_text())

