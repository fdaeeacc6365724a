"""The pretrained-model tab's words: control labels, the model's description and the
query list (the views' titles and hover read-outs are the views'). Translated in the
tab's context ("PretrainedTab")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from models.pretrained.options import BUNDLED_NAME, INSTALL_COMMAND

if TYPE_CHECKING:
    from app.tabs.pretrained.tab import PretrainedTab


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
        kind = QCoreApplication.translate("PretrainedTab", "encoder") if model.kind == "encoder" else QCoreApplication.translate("PretrainedTab", "decoder")
        tab.model_label.setText(QCoreApplication.translate("PretrainedTab",
            "<b>“{0}”</b> · {1} {2} · {3} layers × {4} heads · d_model {5} · {6} parameters "
            "({7} as float32)").format(model.name, c.model_type, kind, c.layers, c.heads,
                                      c.d_model, count(model.num_parameters),
                                      size(4 * model.num_parameters)))
    elif tab.is_opening():
        tab.model_label.setText(QCoreApplication.translate("PretrainedTab", "Loading the model…"))
    else:
        tab.model_label.setText(QCoreApplication.translate("PretrainedTab", "No model loaded."))
    if tab._missing and model is None:
        tab.model_note.setText(QCoreApplication.translate("PretrainedTab",
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
    for w in (tab.temperature, tab.top_k, tab.top_p, tab.steps, tab.generate_button):
        w.setEnabled(decoder)
    # the seed draws a generation's tokens, and an encoder's Performer features
    tab.seed.setEnabled(model is not None)
    tab.box_approx.setEnabled(model is not None and not decoder)
    note_decoder(tab)


def note_decoder(tab: PretrainedTab) -> None:
    model = tab.model
    decoder = model is not None and model.kind == "decoder"
    tab.decoder_note.setText("" if decoder else QCoreApplication.translate("PretrainedTab",
        "For a decoder (GPT-2): open its folder with File → Open… (“{0}” is an encoder).")
        .format(model.name if model is not None else BUNDLED_NAME))
    tab.decoder_note.setVisible(not decoder)
    tab.pair.setPlaceholderText(
        QCoreApplication.translate("PretrainedTab", "optional: BERT's second sentence") if tab.pair.isEnabled() else
        QCoreApplication.translate("PretrainedTab", "this model reads one text"))


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


# -- the controls' words ------------------------------------------------------------------------
def retranslate(tab: PretrainedTab) -> None:
    tab.box_model.setTitle(QCoreApplication.translate("PretrainedTab", "Model"))
    tab.open_button.setText(QCoreApplication.translate("PretrainedTab", "Open model folder…"))
    tab.open_button.setToolTip(QCoreApplication.translate("PretrainedTab", "A Hugging Face folder with config.json, model.safetensors "
                                  "and tokenizer.json: BERT, RoBERTa, DistilBERT or GPT-2."))
    tab.bundled_button.setText(QCoreApplication.translate("PretrainedTab", "Bundled model"))
    tab.bundled_button.setToolTip(QCoreApplication.translate("PretrainedTab", "Go back to {0}, the model that ships with "
                                     "ArchScope.").format(BUNDLED_NAME))
    tab.box_input.setTitle(QCoreApplication.translate("PretrainedTab", "Text"))
    tab.sentence_label.setText(QCoreApplication.translate("PretrainedTab", "Sentence"))
    tab.pair_label.setText(QCoreApplication.translate("PretrainedTab", "Second"))
    tab.run_button.setText(QCoreApplication.translate("PretrainedTab", "Run"))
    tab.tokens_label.setText(QCoreApplication.translate("PretrainedTab", "Tokens (click one to mask it out of attention):"))
    tab.box_view.setTitle(QCoreApplication.translate("PretrainedTab", "Shown"))
    tab.layer_label.setText(QCoreApplication.translate("PretrainedTab", "Layer"))
    tab.head_label.setText(QCoreApplication.translate("PretrainedTab", "Head"))
    tab.query_label.setText(QCoreApplication.translate("PretrainedTab", "Query (neuron view)"))
    tab.box_masks.setTitle(QCoreApplication.translate("PretrainedTab", "Head masks"))
    tab.mask_hint.setText(QCoreApplication.translate("PretrainedTab", "Click a head to switch it off (dark); a row's label switches "
                             "the whole layer; the corner turns every head back on."))
    tab.box_similarity.setTitle(QCoreApplication.translate("PretrainedTab", "Sentence similarity"))
    tab.sentences_hint.setText(QCoreApplication.translate("PretrainedTab", "2 to 6 sentences, one per line: their embeddings' cosine "
                                  "similarity with the heads masked above."))
    retranslate_approx(tab)
    tab.box_decoder.setTitle(QCoreApplication.translate("PretrainedTab", "Next token and generation (decoders)"))
    tab.temperature_label.setText(QCoreApplication.translate("PretrainedTab", "Temperature"))
    tab.top_k_label.setText(QCoreApplication.translate("PretrainedTab", "Top-k"))
    tab.top_k.setSpecialValueText(QCoreApplication.translate("PretrainedTab", "off"))
    tab.top_p_label.setText(QCoreApplication.translate("PretrainedTab", "top-p"))
    tab.steps_label.setText(QCoreApplication.translate("PretrainedTab", "Tokens"))
    tab.seed_label.setText(QCoreApplication.translate("PretrainedTab", "Seed"))
    tab.generate_button.setText(QCoreApplication.translate("PretrainedTab", "Stop") if tab.jobs.is_running() else QCoreApplication.translate("PretrainedTab", "Generate"))
    note_decoder(tab)
    describe_model(tab)
    for view in tab.all_views.values():
        view.panel.set_title(view.title())


def retranslate_approx(tab) -> None:
    """The approximation box: its title, the combo's choices and the numbers' tips."""
    tab.box_approx.setTitle(QCoreApplication.translate("PretrainedTab", "Attention inside the model"))
    tab.approx_label.setText(QCoreApplication.translate("PretrainedTab", "Attention"))
    names = {"exact": QCoreApplication.translate("PretrainedTab", "exact softmax"),
             "performer": QCoreApplication.translate("PretrainedTab", "Performer (m features)"),
             "linformer": QCoreApplication.translate("PretrainedTab", "Linformer (k rows)"),
             "sparse": QCoreApplication.translate("PretrainedTab", "sparse: local window w")}
    for i in range(tab.approx_combo.count()):
        tab.approx_combo.setItemText(i, names[tab.approx_combo.itemData(i)])
    tab.approx_combo.setToolTip(QCoreApplication.translate("PretrainedTab", "Replaces softmax attention in every layer "
                                   "and head of the encoder; the two views on the right "
                                   "compare it with the exact model."))
    tab.approx_features.setToolTip(QCoreApplication.translate("PretrainedTab", "Performer: number of random "
                                      "features m (drawn from the seed below)"))
    tab.approx_projected.setToolTip(QCoreApplication.translate("PretrainedTab", "Linformer: keys and values "
                                       "mean-pooled to k rows"))
    tab.approx_window.setToolTip(QCoreApplication.translate("PretrainedTab", "Sparse: each token sees the tokens "
                                    "within w/2 of itself"))
