"""The pretrained-model tab's words: control labels, view titles, the model's
description, hover read-outs. Translated in the tab's context ("PretrainedTab")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.pretrained.drawing import chosen, readable, sentence_labels
from models.pretrained.options import BUNDLED_NAME, INSTALL_COMMAND

if TYPE_CHECKING:
    from app.tabs.pretrained.tab import PretrainedTab


def tr(text: str) -> str:
    return QCoreApplication.translate("PretrainedTab", text)


def count(n: int) -> str:
    """A parameter count as people say it: 22.7 M, 1.5 B."""
    if n >= 1e9:
        return f"{n / 1e9:.1f} B"
    if n >= 1e6:
        return f"{n / 1e6:.1f} M"
    return f"{n:,}"


def size(nbytes: int) -> str:
    if nbytes >= 1e9:
        return f"{nbytes / 1e9:.1f} GB"
    return f"{nbytes / 1e6:.0f} MB" if nbytes >= 1e6 else f"{nbytes / 1e3:.0f} kB"


# -- the model ----------------------------------------------------------------------------------
def describe_model(tab: PretrainedTab) -> None:
    model = tab.model
    if model is not None:
        c = model.config
        kind = tr("encoder") if model.kind == "encoder" else tr("decoder")
        tab.model_label.setText(tr(
            "<b>{0}</b> · {1} {2} · {3} layers × {4} heads · d_model {5} · {6} parameters "
            "({7} as float32)").format(model.name, c.model_type, kind, c.layers, c.heads,
                                      c.d_model, count(model.num_parameters),
                                      size(4 * model.num_parameters)))
    elif tab.is_opening():
        tab.model_label.setText(tr("Loading the model…"))
    else:
        tab.model_label.setText(tr("No model loaded."))
    if tab._missing and model is None:
        tab.model_note.setText(tr(
            "The bundled model {0} is not installed. Install it with:\n{1}\nor open a Hugging "
            "Face model folder with File → Open…").format(BUNDLED_NAME, INSTALL_COMMAND))
    tab.model_note.setVisible(tab._missing and model is None)


def enable_for_model(tab: PretrainedTab) -> None:
    """What the model can do: a sentence pair (token types), similarities (an encoder),
    next-token choice and generation (a decoder)."""
    model = tab.model
    decoder = model is not None and model.kind == "decoder"
    pair = model is not None and model.config.type_vocab_size >= 2
    tab.pair.setEnabled(pair)
    tab.box_similarity.setEnabled(model is not None and not decoder)
    for w in (tab.temperature, tab.top_k, tab.top_p, tab.steps, tab.seed,
              tab.generate_button):
        w.setEnabled(decoder)
    note_decoder(tab)


def note_decoder(tab: PretrainedTab) -> None:
    model = tab.model
    decoder = model is not None and model.kind == "decoder"
    tab.decoder_note.setText("" if decoder else tr(
        "For a decoder (GPT-2): open its folder with File → Open… ({0} is an encoder).")
        .format(model.name if model is not None else BUNDLED_NAME))
    tab.decoder_note.setVisible(not decoder)
    tab.pair.setPlaceholderText(
        tr("optional: BERT's second sentence") if tab.pair.isEnabled() else
        tr("this model reads one text"))


def fill_queries(tab: PretrainedTab, tokens) -> None:
    """The neuron view's query choice: one entry per token ("3 · cat")."""
    items = [f"{i} · {t}" for i, t in enumerate(tokens)]
    combo = tab.query
    if [combo.itemText(i) for i in range(combo.count())] == items:
        return
    wanted = getattr(tab, "_wanted_query", None)
    index = wanted if wanted is not None else max(0, combo.currentIndex())
    tab._wanted_query = None
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(items)
    combo.setCurrentIndex(min(max(index, 0), len(items) - 1))
    combo.blockSignals(False)


# -- titles --------------------------------------------------------------------------------------
def heads_title(tab: PretrainedTab) -> str:
    layer = chosen(tab, tab.trace)[0] if tab.trace is not None else tab.layer.value()
    return tr("Layer {0}: every head (rows = queries, columns = keys)").format(layer)


def head_view_title(tab: PretrainedTab) -> str:
    layer = chosen(tab, tab.trace)[0] if tab.trace is not None else tab.layer.value()
    return tr("Head view, layer {0}: line opacity = weight").format(layer)


def neuron_title(tab: PretrainedTab) -> str:
    s = tab.trace
    if s is None:
        return tr("Neuron view: one head for one query")
    nv = s.neuron
    query = min(max(tab.query.currentIndex(), 0), len(nv.tokens) - 1)
    return tr("Neuron view: layer {0}, head {1}, query “{2}”").format(nv.layer, nv.head,
                                                                     nv.tokens[query])


# -- hover read-outs ---------------------------------------------------------------------------
def hover_overview(tab: PretrainedTab, index, row, col, value) -> None:
    s, panel = tab.trace, tab.view("overview").panel
    if index < 0 or s is None:
        panel.set_readout("")
        return
    t = s.attention.tokens
    panel.set_readout(f"{tab._overview_titles[index]}: “{t[row]}” → “{t[col]}”: {value:.3f}")


def hover_heads(tab: PretrainedTab, head, row, col, value) -> None:
    s, panel = tab.trace, tab.view("heads").panel
    if head < 0 or s is None:
        panel.set_readout("")
        return
    t = s.attention.tokens
    panel.set_readout(tr("head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}").format(
        head, row, t[row], col, t[col], value))


def hover_head_view(tab: PretrainedTab, side, index) -> None:
    s, panel = tab.trace, tab.view("head_view").panel
    if s is None:
        return
    if side < 0:
        panel.set_readout(tr("Hover a token to keep only its lines; click a head above to "
                             "hide it."))
        return
    a = s.attention
    w = a.weights[chosen(tab, s)[0]]
    parts = []
    for h in np.flatnonzero(tab.head_lines.shown_heads()):
        line = w[h, index] if side == 0 else w[h, :, index]
        j = int(np.argmax(line))
        parts.append(f"h{h} → “{a.tokens[j]}” {line[j]:.2f}")
    what = tr("query {0} “{1}”") if side == 0 else tr("key {0} “{1}”")
    panel.set_readout(what.format(index, a.tokens[index]) + ": " + " · ".join(parts))


def hover_neuron(tab: PretrainedTab, panel_index, row, col, value) -> None:
    s, panel = tab.trace, tab.view("neuron").panel
    if panel_index < 0 or s is None:
        panel.set_readout("")
        return
    names = ("q", "k", "q ⊙ k", "q·k/√d", "softmax")
    token = s.neuron.tokens[row] if panel_index else tab.query.currentText()
    where = f"[{col}]" if panel_index <= 2 else ""
    shown = "−∞" if not np.isfinite(value) else f"{value:.3f}"
    panel.set_readout(f"{names[panel_index]}{where} “{token}”: {shown}")


def hover_stats(tab: PretrainedTab, panel_index, row, col, value) -> None:
    s, panel = tab.trace, tab.view("stats").panel
    if panel_index < 0 or s is None:
        panel.set_readout("")
        return
    a = s.attention
    names = ("to_cls", "to_sep", "to_punct", "to_self", "entropy")
    raw = float(getattr(a, names[panel_index])[row, col])
    unit = tr(" nats") if panel_index == 4 else ""
    off = "" if a.head_mask[row, col] > 0.5 else " " + tr("(off)")
    panel.set_readout(tr("layer {0}, head {1}{2}: {3}").format(row, col, off,
                                                               f"{raw:.3f}{unit}"))


def hover_similarity(tab: PretrainedTab, panel_index, row, col, value) -> None:
    s, panel = tab.trace, tab.view("similarity").panel
    if panel_index < 0 or s is None or s.similarity is None:
        return
    sim = s.similarity
    tab._similarity_hint_shown = False
    labels = sentence_labels(len(sim.sentences))
    panel.set_readout(f"{labels[row]} “{sim.sentences[row]}” · {labels[col]} "
                      f"“{sim.sentences[col]}”: {sim.similarity[row, col]:.3f} "
                      + tr("(all heads on: {0:.3f})").format(sim.reference[row, col]))


def hover_next(tab: PretrainedTab, row, series, value) -> None:
    s, panel = tab.trace, tab.view("next").panel
    if row < 0 or s is None or s.next is None:
        panel.set_readout("")
        return
    nt = s.next
    kept = tr("kept") if nt.kept[row] else tr("dropped by top-k / top-p")
    panel.set_readout(tr("“{0}”: probability {1:.3f}, {2}, sampled with {3:.3f}").format(
        readable(nt.candidates[row]), nt.probs[row], kept, nt.filtered[row]))


def hover_generation(tab: PretrainedTab, row, col, value) -> None:
    steps, panel = tab.generated, tab.view("generation").panel
    if row < 0 or not steps or not np.isfinite(value):
        return
    last = steps[-1]
    context = list(last.context)
    panel.set_readout(tr("new token {0} “{1}” → “{2}”: {3:.3f}").format(
        row + 1, steps[row].token, context[col], value))


# -- the controls' words ------------------------------------------------------------------------
def retranslate(tab: PretrainedTab) -> None:
    tab.box_model.setTitle(tr("Model"))
    tab.open_button.setText(tr("Open model folder…"))
    tab.open_button.setToolTip(tr("A Hugging Face folder with config.json, model.safetensors "
                                  "and tokenizer.json: BERT, RoBERTa, DistilBERT or GPT-2."))
    tab.bundled_button.setText(tr("Bundled model"))
    tab.bundled_button.setToolTip(tr("Go back to {0}, the model that ships with "
                                     "ArchScope.").format(BUNDLED_NAME))
    tab.box_input.setTitle(tr("Text"))
    tab.sentence_label.setText(tr("Sentence"))
    tab.pair_label.setText(tr("Second"))
    tab.run_button.setText(tr("Run"))
    tab.tokens_label.setText(tr("Tokens (click one to mask it out of attention):"))
    tab.box_view.setTitle(tr("Shown"))
    tab.layer_label.setText(tr("Layer"))
    tab.head_label.setText(tr("Head"))
    tab.query_label.setText(tr("Query (neuron view)"))
    tab.box_masks.setTitle(tr("Head masks"))
    tab.mask_hint.setText(tr("Click a head to switch it off (dark); a row's label switches "
                             "the whole layer; the corner turns every head back on."))
    tab.box_similarity.setTitle(tr("Sentence similarity"))
    tab.sentences_hint.setText(tr("2 to 6 sentences, one per line: their embeddings' cosine "
                                  "similarity with the heads masked above."))
    tab.box_decoder.setTitle(tr("Next token and generation (decoders)"))
    tab.temperature_label.setText(tr("Temperature"))
    tab.top_k_label.setText(tr("Top-k"))
    tab.top_k.setSpecialValueText(tr("off"))
    tab.top_p_label.setText(tr("top-p"))
    tab.steps_label.setText(tr("Tokens"))
    tab.seed_label.setText(tr("Seed"))
    tab.generate_button.setText(tr("Stop") if tab.jobs.is_running() else tr("Generate"))
    note_decoder(tab)
    describe_model(tab)
    for view in tab.all_views.values():
        view.panel.set_title(view.title())
