"""Drawing the pretrained-model tab: a ``Shown`` into its eight views. Strings translate
in the tab's context ("PretrainedTab")."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.pretrained.compute import Shown

if TYPE_CHECKING:
    from app.tabs.pretrained.tab import PretrainedTab


def readable(text: str) -> str:
    """Tokens joined as text: SentencePiece's space (▁) and the new line a byte-level
    token is shown with (↵, ``models.pretrained.text.readable_token``) as the characters
    they stand for."""
    return text.replace("▁", " ").replace("↵", "\n")


def chosen(tab: PretrainedTab, shown: Shown) -> tuple[int, int, int]:
    """(layer, head, query) shown: the controls', within the trace's sizes."""
    layers, heads, n = shown.attention.weights.shape[:3]
    layer = min(max(tab.layer.value(), 0), layers - 1)
    head = min(max(tab.head.value(), 0), heads - 1)
    query = min(max(tab.query.currentIndex(), 0), n - 1)
    return layer, head, query


def head_names(shown: Shown, layer: int) -> list[str]:
    mask = shown.attention.head_mask[layer]
    return [QCoreApplication.translate("PretrainedTab", "head {0}").format(h) + ("" if mask[h] > 0.5 else " " + QCoreApplication.translate("PretrainedTab", "(off)"))
            for h in range(len(mask))]


def steps(tab: PretrainedTab, shown: Shown) -> list:
    """Drawing ``shown`` as steps, one view each: the tab runs one per event-loop turn
    (a real model's views together held the window still for a few hundred ms)."""
    return [partial(draw_heads, tab, shown), partial(draw_overview, tab, shown),
            partial(draw_neuron, tab, shown), partial(draw_stats, tab, shown),
            partial(draw_similarity, tab, shown), partial(draw_next, tab, shown),
            partial(draw_generation, tab), partial(set_titles, tab)]


def show(tab: PretrainedTab, shown: Shown) -> None:
    """Every view from ``shown``, at once."""
    for step in steps(tab, shown):
        step()


def set_titles(tab: PretrainedTab) -> None:
    for view in tab.all_views.values():
        view.panel.set_title(view.title())


def draw_heads(tab: PretrainedTab, shown: Shown) -> None:
    """The chosen layer's heads, as heatmaps and as the head view's lines."""
    a = shown.attention
    layer, head, _ = chosen(tab, shown)
    tokens = a.tokens
    names = head_names(shown, layer)
    # a dozen heads: thumbnails without axes and short titles (the head view and the
    # neuron view name the tokens; hovering a cell here names its query and key)
    few = len(names) <= 4
    mask = a.head_mask[layer]
    short = names if few else [f"h{h}" + ("" if mask[h] > 0.5 else " ✕")
                               for h in range(len(names))]
    tab.heads_view.set_heads(a.weights[layer], tokens, tokens, short, selected=head,
                             swatches=True, ticks=few)
    tab.head_lines.set_heads(a.weights[layer], tokens, tokens, names, selected=head,
                             titles=(QCoreApplication.translate("PretrainedTab", "queries"), QCoreApplication.translate("PretrainedTab", "keys")))
    follow_head(tab, head, a.weights[layer])
    clear_readout(tab, "heads")
    # the token the head view keeps hovered, named from these tokens (a new sentence
    # left 'query 9 “because”' under a sentence without it)
    tab._hover_head_view(*tab.head_lines.lines.hover)


def clear_readout(tab: PretrainedTab, key: str) -> None:
    """A hovered cell's read-out describes the picture drawn before: a new one (other
    tokens, masks, layer, or language) clears it until the mouse moves."""
    tab.view(key).panel.set_readout("")


def follow_head(tab: PretrainedTab, head: int, weights: np.ndarray) -> None:
    """The head view shows every head of the layer, as BertViz's does (it once showed
    the chosen head alone above 800 lines; above 1,500 the view draws them aliased, a
    dozen heads over 15 tokens in about 30 ms): a new model shows all its heads again;
    heads hidden from the legend stay hidden until then."""
    heads = len(tab.head_lines.shown_heads())
    key = (heads, tab._serial)
    if getattr(tab, "_followed", None) != key:
        tab.head_lines.set_shown_heads(np.ones(heads, bool))
    tab._followed = key


def overview_columns(shown: Shown) -> tuple[np.ndarray, list[str], int]:
    """Thumbnails: each layer's heads, the average of its heads that are on and the
    rollout through it. Returns (float[layers·cols, n, n], titles, cols)."""
    a = shown.attention
    w = a.weights
    layers, heads = w.shape[:2]
    on = a.head_mask.sum(axis=1)
    average = w.sum(axis=1) / np.maximum(on, 1)[:, None, None]
    cols = heads + 2
    tiles, titles = [], []
    for layer in range(layers):
        for h in range(heads):
            tiles.append(w[layer, h])
            titles.append(f"L{layer} H{h}")
        tiles.append(average[layer])
        titles.append(f"L{layer} " + QCoreApplication.translate("PretrainedTab", "avg"))
        tiles.append(a.rollout[layer])
        titles.append(f"L{layer} " + QCoreApplication.translate("PretrainedTab", "rollout"))
    return np.stack(tiles).astype(np.float32), titles, cols


def draw_overview(tab: PretrainedTab, shown: Shown) -> None:
    layer, head, _ = chosen(tab, shown)
    tiles, titles, cols = overview_columns(shown)
    headers = [title.split(" ", 1)[1] for title in titles[:cols]]
    tab.overview_view.set_tiles(tiles, cols, headers,
                                [f"L{i}" for i in range(len(tiles) // cols)],
                                layer * cols + head)
    tab._overview_cols = cols
    tab._overview_titles = titles
    clear_readout(tab, "overview")


def draw_neuron(tab: PretrainedTab, shown: Shown) -> None:
    """The chosen query's row of the neuron trace (its layer and head as computed)."""
    nv = shown.neuron
    _, _, query = chosen(tab, shown)
    query = min(query, len(nv.tokens) - 1)
    tab.neuron_view.set_neurons(
        nv.q[query], nv.k, nv.scores[query], nv.weights[query], nv.tokens,
        nv.tokens[query],
        [QCoreApplication.translate("PretrainedTab", "q (query)"), QCoreApplication.translate("PretrainedTab", "k (keys)"), QCoreApplication.translate("PretrainedTab", "q ⊙ k"), QCoreApplication.translate("PretrainedTab", "q·k/√d"), QCoreApplication.translate("PretrainedTab", "softmax")])
    clear_readout(tab, "neuron")


def stats_tiles(shown: Shown) -> tuple[np.ndarray, list[str]]:
    """The per-head statistics of Clark et al. as five layers × heads maps in [0, 1]:
    attention to [CLS], [SEP], punctuation and the token itself, and entropy divided by
    its largest value, ln(number of keys a query may see)."""
    a = shown.attention
    keys = max(int(a.keep.sum()), 1)
    top = np.log(keys) if keys > 1 else 1.0
    maps = np.stack([a.to_cls, a.to_sep, a.to_punct, a.to_self,
                     np.clip(a.entropy / top, 0.0, 1.0)]).astype(np.float32)
    titles = [QCoreApplication.translate("PretrainedTab", "to [CLS]"), QCoreApplication.translate("PretrainedTab", "to [SEP]"), QCoreApplication.translate("PretrainedTab", "to punctuation"),
              QCoreApplication.translate("PretrainedTab", "to itself"), QCoreApplication.translate("PretrainedTab", "entropy ÷ ln {0}").format(keys)]
    return maps, titles


def draw_stats(tab: PretrainedTab, shown: Shown) -> None:
    maps, titles = stats_tiles(shown)
    layers, heads = maps.shape[1:]
    tab.stats_view.set_heads(maps, [f"L{i}" for i in range(layers)],
                             [str(h) for h in range(heads)], titles, ticks=True)
    clear_readout(tab, "stats")


def sentence_labels(n: int) -> list[str]:
    return [f"S{i + 1}" for i in range(n)]


def draw_similarity(tab: PretrainedTab, shown: Shown) -> None:
    sim = shown.similarity
    panel = tab.view("similarity").panel
    if sim is None:
        tab.similarity_view.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
        panel.set_readout(QCoreApplication.translate("PretrainedTab", "Sentence similarity needs an encoder (BERT-style) model.")
                          if shown.kind != "encoder" else
                          " ".join(shown.notes) or
                          QCoreApplication.translate("PretrainedTab", "Type 2 to 6 sentences, one per line, in the box on the left."))
        return
    n = len(sim.sentences)
    both = np.stack([sim.similarity, sim.reference]).astype(np.float32)
    low = float(min(0.0, np.nanmin(both)))
    off = int((sim.head_mask < 0.5).sum())
    labels = sentence_labels(n)
    tab.similarity_view.set_heads(
        both, labels, labels,
        [QCoreApplication.translate("PretrainedTab", "{0} heads off").format(off), QCoreApplication.translate("PretrainedTab", "all heads on")], levels=(low, 1.0))
    # a cell's read-out named the matrix drawn before (other sentences or heads, or the
    # language of then); hovering a cell of this one names it again
    panel.set_readout(QCoreApplication.translate("PretrainedTab", "Cosine similarity of the mean-pooled embeddings; hover a cell."))


def draw_next(tab: PretrainedTab, shown: Shown) -> None:
    nt = shown.next
    clear_readout(tab, "next")
    if nt is None:
        tab.next_view.set_bars([], np.zeros(0), np.zeros(0, bool), np.zeros(0),
                               (QCoreApplication.translate("PretrainedTab", "probability"), QCoreApplication.translate("PretrainedTab", "sampled from")))
        tab.next_view.set_hint(QCoreApplication.translate("PretrainedTab", "Next-token probabilities come from a decoder: open a "
                                  "GPT-2 folder with File → Open…"))
        return
    tab.next_view.set_hint("")
    tab.next_view.set_bars(nt.candidates, nt.probs, nt.kept, nt.filtered,
                           (QCoreApplication.translate("PretrainedTab", "probability at T = {0:g}").format(nt.temperature),
                            QCoreApplication.translate("PretrainedTab", "after top-k / top-p")))


def draw_generation(tab: PretrainedTab) -> None:
    """Each generated token's attention row (the chosen layer and head) over the text
    it was chosen from; the text so far under the Generate button."""
    steps = tab.generated
    panel = tab.view("generation").panel
    if not steps:
        tab.generation_view.set_heads(np.zeros((0, 1, 1), np.float32), [], [], [])
        decoder = tab.model is not None and tab.model.kind == "decoder"
        panel.set_readout(QCoreApplication.translate("PretrainedTab", "Press Generate: each new token's attention row appears here.")
                          if decoder else
                          QCoreApplication.translate("PretrainedTab", "Generation needs a decoder (GPT-2) model: File → Open…"))
        tab.generated_label.setText("")
        return
    last = steps[-1]
    context = list(last.context)       # the last token chosen is attended by none
    layers, heads = last.attention.shape[:2]
    layer = min(max(tab.layer.value(), 0), layers - 1)
    head = min(max(tab.head.value(), 0), heads - 1)
    rows = np.full((len(steps), len(context)), np.nan, np.float32)
    for i, step in enumerate(steps):
        row = step.attention[layer, head]
        rows[i, :len(row)] = row
    tab.generation_view.set_heads(rows[None], [s.token for s in steps], context,
                                  [QCoreApplication.translate("PretrainedTab", "layer {0}, head {1}").format(layer, head)])
    tab.generated_label.setText(QCoreApplication.translate("PretrainedTab", "Generated: {0}").format(
        readable("".join(s.token for s in steps))))
    panel.set_readout(QCoreApplication.translate("PretrainedTab", "{0} tokens generated; row = new token, columns = the text it "
                         "attended to.").format(len(steps)))
