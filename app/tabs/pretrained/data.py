"""Export data of the pretrained-model tab's views: the arrays behind each view, with
the model, the text, the masks and the layer and head shown as metadata."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData

if TYPE_CHECKING:
    from app.tabs.pretrained.tab import PretrainedTab


def meta(tab: PretrainedTab) -> dict:
    from app.tabs.pretrained.drawing import chosen

    s = tab.trace
    if s is None:
        return {}
    a = s.attention
    layer, head, query = chosen(tab, s)
    off = [[int(layer_), int(h)] for layer_, h in zip(*np.nonzero(a.head_mask < 0.5),
                                                       strict=True)]
    return {"model": s.model, "kind": s.kind, "text": s.request.sentence,
            "pair": s.request.pair or "", "layer": layer, "head": head,
            "query": a.tokens[query], "heads_off": off,
            "tokens_masked": [t for t, k in zip(a.tokens, a.keep, strict=True) if not k]}


def _rows(heads: int, tokens) -> list[str]:
    return [f"h{h}:{q}" for h in range(heads) for q in tokens]


def heads(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None:
        return None
    from app.tabs.pretrained.drawing import chosen

    layer = chosen(tab, s)[0]
    w = s.attention.weights[layer]
    return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                "all_layers": s.attention.weights}, meta(tab),
                    row_labels=_rows(w.shape[0], s.attention.tokens),
                    col_labels=list(s.attention.tokens))


def head_view(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None:
        return None
    from app.tabs.pretrained.drawing import chosen

    w = s.attention.weights[chosen(tab, s)[0]]
    shown = tab.head_lines.shown_heads()
    return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]),
                                "line_alpha": tab.head_lines.line_alpha(),
                                "heads_shown": shown.astype(np.int8)},
                    meta(tab) | {"heads_shown": [int(h) for h in np.flatnonzero(shown)]},
                    row_labels=_rows(w.shape[0], s.attention.tokens),
                    col_labels=list(s.attention.tokens))


def overview(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None:
        return None
    from app.tabs.pretrained.drawing import overview_columns

    tiles, titles, _ = overview_columns(s)
    rows = [f"{name}:{q}" for name in titles for q in s.attention.tokens]
    return ViewData("tiles", {"tiles": tiles.reshape(-1, tiles.shape[2]),
                              "rollout": s.attention.rollout}, meta(tab),
                    row_labels=rows, col_labels=list(s.attention.tokens))


def neuron(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None:
        return None
    q, k, qk, scores, weights = tab.neuron_view.values()
    nv = s.neuron
    return ViewData("q_times_k", {"q_times_k": qk, "q": q, "k": k, "scores": scores,
                                  "softmax": weights},
                    meta(tab) | {"neuron_layer": nv.layer, "neuron_head": nv.head},
                    row_labels=list(nv.tokens),
                    col_labels=[f"d{i}" for i in range(qk.shape[1])])


def stats(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None:
        return None
    a = s.attention
    names = ("to_cls", "to_sep", "to_punct", "to_self", "entropy")
    arrays = {name: getattr(a, name) for name in names}
    table = np.concatenate([arrays[n] for n in names])
    layers, heads = a.to_cls.shape
    return ViewData("stats", {"stats": table, **arrays}, meta(tab) | {
        "entropy_unit": "nats"},
        row_labels=[f"{n}:L{layer}" for n in names for layer in range(layers)],
        col_labels=[f"h{h}" for h in range(heads)])


def similarity(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None or s.similarity is None:
        return None
    sim = s.similarity
    labels = list(sim.sentences)
    return ViewData("similarity", {"similarity": sim.similarity, "reference": sim.reference,
                                   "head_mask": sim.head_mask},
                    meta(tab) | {"sentences": labels}, row_labels=labels, col_labels=labels)


def next_tokens(tab: PretrainedTab) -> ViewData | None:
    s = tab.trace
    if s is None or s.next is None:
        return None
    nt = s.next
    table = np.stack([nt.probs, nt.kept.astype(np.float32), nt.filtered], axis=1)
    return ViewData("choice", {"choice": table, "ids": nt.ids}, meta(tab) | {
        "temperature": nt.temperature, "top_k": nt.top_k, "top_p": nt.top_p,
        "kept_count": nt.kept_count},
        row_labels=list(nt.candidates), col_labels=["probability", "kept", "filtered"])


def generation(tab: PretrainedTab) -> ViewData | None:
    steps = tab.generated
    if not steps:
        return None
    rows = tab.generation_view.weights()[0]
    last = steps[-1]
    return ViewData("attention", {"attention": rows,
                                  "token_ids": np.array([s.token_id for s in steps],
                                                        np.int64)},
                    meta(tab) | {"prompt": list(steps[0].context)},
                    row_labels=[s.token for s in steps],
                    col_labels=list(last.context))
