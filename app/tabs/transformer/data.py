"""Export data of the Transformer tab's views: the arrays behind each view, with the
input, the model and the attention shown as metadata."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData
from app.tabs.transformer.steps import step_title

if TYPE_CHECKING:
    from app.tabs.transformer.tab import TransformerTab


def meta(tab: TransformerTab) -> dict:
    """What the shown trace is of: model, attention, masks, input and output."""
    t = tab.trace
    return {} if t is None else {
        "architecture": tab.current_key()[0], "tokenizer": tab.current_key()[1],
        "task": tab.current_task(), "kind": t.kind, "layer": t.layer, "head": t.head,
        "padding_mask": t.use_padding_mask, "look_ahead_mask": t.use_look_ahead_mask,
        "input": " ".join(t.src_tokens), "output": " ".join(t.predicted)}


def heads(tab: TransformerTab) -> ViewData | None:
    t = tab.trace
    if t is None:
        return None
    w = t.weights[t.layer]
    rows = [f"h{h}:{q}" for h in range(w.shape[0]) for q in t.q_tokens]
    return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]), "all_layers":
                                t.weights}, meta(tab), row_labels=rows,
                    col_labels=list(t.k_tokens))


def head_view(tab: TransformerTab) -> ViewData | None:
    """The head view's lines: weights[head, query, key] of the shown layer (a line's
    opacity is its weight) and the opacities as drawn (hidden heads, a hovered token)."""
    t = tab.trace
    if t is None:
        return None
    w = t.weights[t.layer]
    rows = [f"h{h}:{q}" for h in range(w.shape[0]) for q in t.q_tokens]
    shown = tab.head_lines.shown_heads()
    return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                "line_alpha": tab.head_lines.line_alpha(),
                                "heads_shown": shown.astype(np.int8)},
                    meta(tab) | {"heads_shown": [int(h) for h in np.flatnonzero(shown)],
                                 "queries": list(t.q_tokens), "keys": list(t.k_tokens)},
                    row_labels=rows, col_labels=list(t.k_tokens))


def head_steps(tab: TransformerTab) -> ViewData | None:
    t = tab.trace
    if t is None:
        return None
    p = t.panels
    return ViewData("softmax", {"softmax": p.softmax, "raw": p.raw, "masked": p.masked,
                                "mask": p.mask.astype(np.int8)}, meta(tab),
                    row_labels=list(t.q_tokens), col_labels=list(t.k_tokens))


def training(tab: TransformerTab) -> ViewData | None:
    session = tab.current_session()
    if session is None or not session.losses:
        return None
    acc = session.accuracy_history
    return ViewData("loss", {"loss": np.asarray(session.losses, np.float32),
                             "accuracy_steps": np.array([s for s, _ in acc], np.int64),
                             "sequence_accuracy": np.array([a for _, a in acc], np.float32)},
                    {"task": tab.current_task(), "steps": session.step},
                    row_labels=list(range(1, len(session.losses) + 1)), col_labels=["loss"])


def overview(tab: TransformerTab) -> ViewData | None:
    t = tab.trace
    if t is None:
        return None
    tiles, titles, _ = tab.overview_columns(t)
    rows = [f"{name}:{q}" for name in titles for q in t.q_tokens]
    return ViewData("tiles", {"tiles": tiles.reshape(-1, tiles.shape[2])}, meta(tab),
                    row_labels=rows, col_labels=list(t.k_tokens))


def forward(tab: TransformerTab) -> ViewData | None:
    t = tab.trace
    if t is None or t.steps is None:
        return None
    steps = t.steps
    step = steps.get(tab._step_key) or steps.steps[0]
    info = meta(tab) | {"stack": steps.stack, "step": step.key,
                        "step_title": step_title(step.key, steps.stack),
                        "dims": step.dims, "shape": list(step.shape)}
    return ViewData("values", {"values": step.values}, info,
                    row_labels=list(step.row_labels),
                    col_labels=list(step.col_labels) or list(range(step.values.shape[1])))
