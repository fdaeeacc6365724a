"""The Transformer tab driven as a person would: masks, kinds, heads, input, training."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from app.tabs.transformer import TransformerTab
from tests.windows import open_tab


@pytest.fixture
def tab(qtbot, window) -> TransformerTab:
    t = open_tab(qtbot, window, "transformer")
    window.tabs_widget.setCurrentWidget(t)
    return t


def wait_trace(qtbot, tab, predicate, timeout=20_000):
    qtbot.waitUntil(lambda: tab.trace is not None and predicate(tab.trace), timeout=timeout)


def test_first_view_shows_every_head_of_the_chosen_layer(tab):
    t = tab.trace
    assert t.kind == "cross" and t.weights.shape == (2, 4, 11, 11)
    np.testing.assert_array_equal(tab.heads_view.plot.weights(), t.weights[t.layer])
    np.testing.assert_allclose(t.weights.sum(-1), 1.0, atol=1e-5)   # rows are distributions
    # the step panels are the same head, recomputed from its own Q and K
    np.testing.assert_allclose(t.panels.softmax, t.weights[t.layer, t.head], atol=1e-6)
    assert t.src_tokens[:9] == ("3", "1", "4", "1", "5", "9", "2", "6", "■")


def test_padding_mask_toggle_lets_weight_onto_padding(qtbot, tab):
    pad_cols = [i for i, s in enumerate(tab.trace.k_tokens) if s == "·"]
    assert pad_cols and (tab.trace.weights[..., pad_cols] == 0).all()
    tab.padding.click()   # a click on the box (its centre may be past the label)
    wait_trace(qtbot, tab, lambda t: not t.use_padding_mask)
    assert (tab.trace.weights[..., pad_cols] > 0).any()
    assert tab.trace.panels.mask.all()


def test_look_ahead_mask_in_decoder_self_attention(qtbot, tab):
    tab.kind.setCurrentIndex(1)   # decoder masked self-attention
    wait_trace(qtbot, tab, lambda t: t.kind == "decoder")
    upper = np.triu(np.ones((11, 11), bool), 1)
    assert (tab.trace.weights[..., upper] == 0).all()
    assert not tab.trace.panels.mask[upper].any()
    assert np.isnan(tab.trace.panels.masked[upper]).all()     # −∞, drawn blank
    tab.look_ahead.click()
    wait_trace(qtbot, tab, lambda t: not t.use_look_ahead_mask)
    assert (tab.trace.weights[..., upper] > 0).any()


def test_clicking_a_head_shows_its_steps(qtbot, tab):
    plot = tab.heads_view.plot.plots[2]
    centre = tab.heads_view.plot.mapFromScene(plot.vb.sceneBoundingRect().center())
    qtbot.mouseClick(tab.heads_view.plot.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(int(centre.x()), int(centre.y())))
    assert tab.head.value() == 2
    wait_trace(qtbot, tab, lambda t: t.head == 2)
    np.testing.assert_allclose(tab.trace.panels.softmax, tab.trace.weights[1, 2], atol=1e-6)
    assert "2" in tab.view("head_steps").panel.title.text()


def test_hover_names_query_and_key_tokens(qtbot, tab):
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    plot = tab.heads_view.plot.plots[0]
    scene = plot.vb.mapViewToScene(QPointF(3, 1))   # key 3, query 1
    pt = tab.heads_view.plot.mapFromScene(scene)
    QTest.mouseMove(tab.heads_view.plot.viewport(), QPoint(int(pt.x()), int(pt.y())))
    qtbot.waitUntil(lambda: "head 0" in tab.view("heads").panel.readout.text(), timeout=3000)
    text = tab.view("heads").panel.readout.text()
    import re

    q, k = (int(x) for x in re.search(r"query (\d+) .* key (\d+)", text).groups())
    assert abs(q - 1) <= 1 and abs(k - 3) <= 1          # the cell under the pointer
    t = tab.trace
    assert f"“{t.q_tokens[q]}”" in text and f"“{t.k_tokens[k]}”" in text
    assert f"{t.weights[t.layer, 0, q, k]:.3f}" in text


@pytest.mark.parametrize("text,needle", [("", "empty"), ("3 1 x", "'x'"),
                                         ("1 2 3 4 5 6 7 8 9 1 2 3 4", "at most 12")])
def test_bad_input_is_explained_in_the_panel(qtbot, tab, text, needle):
    before = tab.trace
    tab.sequence.setText(text)
    tab.sequence.editingFinished.emit()
    qtbot.waitUntil(lambda: needle in tab.input_note.text(), timeout=5000)
    qtbot.wait(100)
    # what was shown stays: the last input that could be read (the other controls still
    # act on it, and a reopened session shows it again)
    assert tab.trace.src_tokens == before.src_tokens
    np.testing.assert_array_equal(tab.trace.weights, before.weights)


def test_generate_gives_a_new_valid_sequence(qtbot, tab):
    old = tab.sequence.text()
    qtbot.mouseClick(tab.generate_button, Qt.MouseButton.LeftButton)
    assert tab.sequence.text() != old
    n = len(tab.sequence.text().split())
    wait_trace(qtbot, tab, lambda t: t.src_tokens.count("■") == 1
               and t.src_tokens.index("■") == n)


def test_training_updates_curves_and_attention_then_resumes(qtbot, tab):
    first = tab.trace
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    assert tab.jobs.is_running() and tab.train_button.text() == "Stop"
    qtbot.waitUntil(lambda: tab.sessions[("encoder-decoder", "digits", "reverse")].step >= 60 and tab.trace is not first,
                    timeout=60_000)
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=5000)
    steps = tab.sessions[("encoder-decoder", "digits", "reverse")].step
    assert tab.train_button.text() == "Resume training"
    assert f"{steps} steps" in tab.status.text()
    losses = tab.sessions[("encoder-decoder", "digits", "reverse")].losses
    assert sum(losses[-10:]) / 10 < sum(losses[:10]) / 10
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.sessions[("encoder-decoder", "digits", "reverse")].step > steps + 5, timeout=30_000)
    tab.jobs.stop()


def test_each_task_keeps_its_own_model(qtbot, tab):
    tab.session().step = 123        # as if trained
    tab.task.setCurrentIndex(0)     # copy
    wait_trace(qtbot, tab, lambda t: True)
    assert tab.session().step == 0
    tab.task.setCurrentIndex(1)     # back to reverse: nothing was lost
    assert tab.session().step == 123


def test_save_and_open_a_trained_model(qtbot, window, tab, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    list(tab.session().train(15, eval_every=5))
    path = tab.save_model(str(tmp_path / "reverse.pt"))
    tab.sessions.clear()
    assert window.act_open.isEnabled()
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (path, "")))
    window.act_open.trigger()                # read in the background
    qtbot.waitUntil(lambda: not tab.is_opening(), timeout=30_000)
    assert tab.sessions[("encoder-decoder", "digits", "reverse")].step == 15
    assert "15 steps" in window.statusBar().currentMessage()
    window.tabs_widget.setCurrentIndex(0)
    assert not window.act_open.isEnabled()   # the positional tab opens no files


def test_opening_a_bad_file_reports_it(qtbot, window, tab, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"garbage")
    shown = []
    monkeypatch.setattr(window, "report_error", lambda e, d: shown.append(e))
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(bad), "")))
    window.act_open.trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert "not a model" in str(shown[0]) and not tab.is_opening()


def test_overview_has_every_layer_and_head_plus_average(qtbot, tab):
    t = tab.trace
    tiles, titles, cols = tab.overview_columns(t)
    assert cols == 5 and tiles.shape == (10, 11, 11)     # cross: heads + average
    np.testing.assert_allclose(tiles[4], t.weights[0].mean(0), atol=1e-6)
    tab.kind.setCurrentIndex(0)                           # encoder: + rollout
    wait_trace(qtbot, tab, lambda tr: tr.kind == "encoder")
    tiles, titles, cols = tab.overview_columns(tab.trace)
    assert cols == 6 and "rollout" in titles[5]
    np.testing.assert_allclose(tiles[11].sum(-1), 1.0, atol=1e-5)


def test_clicking_a_thumbnail_opens_that_layer_and_head(qtbot, tab):
    view = tab.overview_view.plot
    centre = view.mapFromScene(view.tile_centre(1 * 5 + 3))      # layer 1, head 3
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(int(centre.x()), int(centre.y())))
    assert (tab.layer.value(), tab.head.value()) == (1, 3)
    wait_trace(qtbot, tab, lambda t: (t.layer, t.head) == (1, 3))


def test_every_tour_step_applies(qtbot, tab):
    steps = tab.tour_steps()
    assert 8 <= len(steps) <= 19          # 4 of them the ablations, 1 the sizes
    for i, step in enumerate(steps):
        tab.tour.go_to(i)
        highlighted = [v.key for v in tab.views if v.panel.is_highlighted()]
        assert highlighted == [step.state["highlight"]]
        if step.state.get("train"):
            assert tab.jobs.is_running()
            tab.jobs.stop()
        if "kind" in step.state:
            wait_trace(qtbot, tab, lambda t, k=step.state["kind"]: t.kind == k)
        if step.state.get("padding") is False:
            wait_trace(qtbot, tab, lambda t: not t.use_padding_mask)
    tab.jobs.stop()


def test_step_panel_hover_says_keep_for_kept_pairs(qtbot, tab):
    tab.head_steps_view.hover(0, 0, 0, 1.0)
    assert tab.view("head_steps").panel.readout.text().endswith("keep")
    tab.head_steps_view.hover(0, 0, 10, 0.0)
    assert tab.view("head_steps").panel.readout.text().endswith("blocked")


def test_reopened_model_keeps_its_history_and_optimiser(qtbot, tab, tmp_path):
    from models.transformer import Seq2SeqSession

    session = tab.session()
    list(session.train(30, eval_every=10))
    path = tab.save_model(str(tmp_path / "m.pt"))
    again = Seq2SeqSession.load(path)
    assert again.losses == pytest.approx(session.losses)
    assert again.token_accuracy == pytest.approx(session.token_accuracy)
    assert again.lr == session.lr and again.decay_steps == session.decay_steps
    assert again.optimizer.state_dict()["state"].keys() == session.optimizer.state_dict()[
        "state"].keys()
    tab.sessions.clear()
    tab.open_file(path)
    assert "30 steps" in tab.status.text()


def test_unicode_digits_are_refused_cleanly(qtbot, tab):
    tab.sequence.setText("3 ² 1")
    tab.sequence.editingFinished.emit()
    qtbot.waitUntil(lambda: "'²'" in tab.input_note.text(), timeout=5000)


def test_token_by_token_rows_match_the_whole_output(qtbot, tab):
    full = tab.trace
    assert full.kind == "cross"
    qtbot.mouseClick(tab.next_token_button, Qt.MouseButton.LeftButton)
    assert tab.generated.value() == 1
    wait_trace(qtbot, tab, lambda t: len(t.tgt_tokens) == 1)
    for k in (2, 3):
        qtbot.mouseClick(tab.next_token_button, Qt.MouseButton.LeftButton)
        wait_trace(qtbot, tab, lambda t, k=k: len(t.tgt_tokens) == k)
        part = tab.trace
        assert part.tgt_tokens == full.tgt_tokens[:k]
        # with the look-ahead mask, the rows of k steps are the first rows of the whole view
        np.testing.assert_allclose(part.weights, full.weights[:, :, :k], atol=1e-5)
    assert tab.heads_view.plot.weights().shape[1] == 3
    tab.generated.setValue(0)
    wait_trace(qtbot, tab, lambda t: len(t.tgt_tokens) == len(full.tgt_tokens))


def test_step_through_walks_the_layer_and_follows_the_stack(qtbot, tab):
    t = tab.trace
    assert t.steps.stack == "decoder" and t.steps.layer == t.layer
    keys = [tab.step_combo.itemData(i) for i in range(tab.step_combo.count())]
    assert keys == list(t.steps.keys())
    assert keys[:4] == ["ids", "embedding", "scaled", "pe"] and keys[-1] == "logits"
    # the default step is the self-attention softmax, drawn as it is in the trace
    assert tab.forward_view.plot.step.key == "self.softmax"
    np.testing.assert_array_equal(tab.forward_view.plot.matrix(), t.steps.get("self.softmax").values)
    # ▶ walks on; the cross-attention softmax is what the heads view shows for this head
    tab.apply_state({"step": "cross.scores"})
    for _ in range(3):                      # → mask → masked scores → softmax
        tab.move_step(+1)
    assert tab.params()["step"] == "cross.softmax"
    np.testing.assert_allclose(tab.forward_view.plot.matrix(), t.weights[t.layer, t.head], atol=1e-6)
    assert "(batch, num_heads, q_len, k_len)" in tab.forward_view.plot.plotItem.titleLabel.text
    # the encoder has no cross-attention: the same sub-step of its self-attention is kept
    tab.kind.setCurrentIndex(0)
    wait_trace(qtbot, tab, lambda t: t.kind == "encoder")
    assert tab.trace.steps.stack == "encoder" and tab.params()["step"] == "self.softmax"
    assert "logits" not in tab.trace.steps
    data = tab.view("forward").data()
    assert data.meta["step"] == "self.softmax" and data.meta["dims"].startswith("(batch")
    assert data.arrays["values"].shape == (11, 11)


def test_encoder_only_and_decoder_only_models_show_only_their_attention(qtbot, tab):
    tab.apply_state({"architecture": "encoder-only", "layer": 3})
    wait_trace(qtbot, tab, lambda t: t.kind == "encoder" and t.layer == 3)
    assert tab.trace.weights.shape[0] == 4
    kinds = tab.kind.model()
    assert not kinds.item(1).isEnabled() and not kinds.item(2).isEnabled()
    assert not tab.next_token_button.isEnabled()
    assert tab.trace.steps.stack == "encoder" and "logits" in tab.trace.steps  # a head per token
    assert len(tab.trace.predicted) <= 11
    tab.apply_state({"architecture": "decoder-only", "layer": 3})
    wait_trace(qtbot, tab, lambda t: t.kind == "decoder" and t.layer == 3)
    t = tab.trace
    # one sequence: the prompt, the separator ▸, then the model's answer
    assert t.q_tokens[:9] == ("3", "1", "4", "1", "5", "9", "2", "6", "■")[:8] + ("▸",)
    assert not tab.kind.model().item(0).isEnabled()
    upper = np.triu(np.ones(t.weights.shape[-2:], bool), 1)
    assert (t.weights[..., upper] == 0).all()               # GPT-style: causal
    assert tab.trace.steps.get("self.q").shape[1] == len(t.q_tokens)
    # each architecture keeps its own model
    assert {k[0] for k in tab.sessions} >= {"encoder-only", "decoder-only"}


def test_free_text_with_characters_and_words(qtbot, tab):
    tab.apply_state({"tokenizer": "characters", "sequence": "Hello world", "pad_to": 13,
                     "kind": "encoder", "layer": 0})
    wait_trace(qtbot, tab, lambda t: t.src_tokens[:5] == ("h", "e", "l", "l", "o"))
    assert tab.trace.src_tokens[5] == "␣" and tab.input_note.text() == ""
    tab.sequence.setText("Grüße")
    tab.sequence.editingFinished.emit()
    qtbot.waitUntil(lambda: "ü" in tab.input_note.text(), timeout=5000)
    assert tab.trace.src_tokens[0] == "h"                   # the last good input stays
    tab.apply_state({"tokenizer": "words"})                 # an example it can read
    wait_trace(qtbot, tab, lambda t: len(t.src_tokens[0]) > 1)
    assert tab.input_note.text() == ""
    tab.sequence.setText("the cat sees a zebra")
    tab.sequence.editingFinished.emit()
    qtbot.waitUntil(lambda: "zebra" in tab.input_note.text(), timeout=5000)
    tab.generate()
    qtbot.waitUntil(lambda: tab.input_note.text() == "", timeout=5000)
    wait_trace(qtbot, tab, lambda t: " ".join(t.src_tokens).startswith(tab.sequence.text()))


# -- figures you can teach from: fill, labels, overview, controls, tour state ------------------
def _union(rects):
    out = rects[0]
    for r in rects[1:]:
        out = out.united(r)
    return out


@pytest.mark.parametrize("key", ["heads", "head_steps", "forward"])
def test_heatmaps_fill_their_panel_with_square_cells(qtbot, tab, key):
    qtbot.wait(50)
    graphics = tab.view(key).panel.graphics
    images = {"heads": tab.heads_view.plot.images, "head_steps": tab.head_steps_view.plot.images,
              "forward": [tab.forward_view.plot.image]}[key]
    rects = [im.sceneBoundingRect() for im in images]
    for im, r in zip(images, rects, strict=True):
        rows, cols = im.image.shape[:2]
        assert r.width() / cols == pytest.approx(r.height() / rows, rel=0.02)   # square
    block = _union(rects)
    view = graphics.viewport()
    # scene coordinates are the view's pixels: the block of heatmaps spans at least 70 %
    # of the side that limits it
    assert graphics.mapToScene(view.rect()).boundingRect().contains(block)
    cover = max(block.width() / view.width(), block.height() / view.height())
    assert cover >= 0.7, (key, block, view.size())


def test_every_head_names_its_tokens_on_both_axes(qtbot, tab):
    from viz.heatmap import short_label

    t = tab.trace
    for plot in tab.heads_view.plot.plots:
        for name, tokens in (("left", t.q_tokens), ("bottom", t.k_tokens)):
            axis = plot.getAxis(name)
            shown = axis.shown_labels()
            assert axis.isVisible() and shown and shown[0] == short_label(tokens[0])
            assert set(shown) <= {short_label(x) for x in tokens}
    # digits fit one per cell: every key is named
    assert len(tab.heads_view.plot.plots[3].getAxis("bottom").shown_labels()) == len(t.k_tokens)


def test_long_tokens_turn_and_the_readout_names_them_whole(qtbot, tab):
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    tab.apply_state({"tokenizer": "words", "sequence": "the happy woman sleeps today",
                     "kind": "encoder", "layer": 0})
    wait_trace(qtbot, tab, lambda t: t.kind == "encoder" and "happy" in t.src_tokens)
    qtbot.wait(50)
    axis = tab.heads_view.plot.plots[1].getAxis("bottom")
    assert axis.rotated()                       # words are wider than a cell
    assert axis.extent() > axis.label_width(["happy"])
    plot = tab.heads_view.plot.plots[1]
    i = tab.trace.k_tokens.index("sleeps")
    pt = tab.heads_view.plot.mapFromScene(plot.vb.mapViewToScene(QPointF(i, 0)))
    QTest.mouseMove(tab.heads_view.plot.viewport(), pt)
    qtbot.waitUntil(lambda: "“sleeps”" in tab.view("heads").panel.readout.text(), timeout=3000)


def test_overview_thumbnails_are_at_least_60_pixels(qtbot, tab):
    """64 px before every token was named: the step panels below now ask for the
    height (342 px at 1500 × 940) at which each of their 11 rows keeps its label, and
    the overview's five rows of tiles share what is left (61.7 px)."""
    qtbot.wait(50)
    view = tab.overview_view.plot
    for index in range(len(view.tiles())):
        r = view.tile_rect(index)
        assert r.width() >= 60 and r.height() >= 60, (index, r)
    tab.kind.setCurrentIndex(0)                    # encoder: heads, average, rollout
    wait_trace(qtbot, tab, lambda t: t.kind == "encoder")
    axis = view.plot.getAxis("left" if view.transposed else "top")
    headers = [text for _, text in axis._tickLevels[0]]
    assert headers[-1] == "rollout"                # whole, not "roll."
    # the colour bar is as tall as the mosaic, not the panel
    assert view.colorbar.sceneBoundingRect().height() <= view.plot.sceneBoundingRect().height()


def test_mask_switches_and_step_buttons_show_without_scrolling(qtbot, tab):
    qtbot.wait(50)
    for widget in (tab.look_ahead, tab.padding, tab.next_step, tab.prev_step, tab.step_combo,
                   tab.train_button):
        region = widget.visibleRegion().boundingRect()
        assert region.height() == widget.height() and region.width() == widget.width(), widget


def test_every_tour_step_declares_its_state_and_back_restores_it(qtbot, tab):
    from app.tabs.transformer.params import DEFAULTS

    steps = tab.tour_steps()
    for step in steps:
        assert set(DEFAULTS) <= set(step.state), step.title["en"]
    combine = next(i for i, s in enumerate(steps) if s.state["look_ahead"] is False)
    tab.tour.go_to(combine)
    wait_trace(qtbot, tab, lambda t: t.kind == "decoder" and not t.use_look_ahead_mask)
    for _ in range(combine):
        tab.tour.back()
    tab.jobs.stop()
    assert tab.tour.index() == 0
    wait_trace(qtbot, tab, lambda t: t.kind == "cross" and t.use_look_ahead_mask
               and t.use_padding_mask and t.layer == 1)
    assert {k: tab.params()[k] for k in DEFAULTS} == DEFAULTS


def test_untrained_curve_shows_the_loss_of_a_uniform_guess(qtbot, tab):
    import math

    items = tab.training_view.plot.plotItem.listDataItems()
    v = tab.session().task.vocab_size
    assert len(items) == 1
    np.testing.assert_allclose(items[0].yData, math.log(v), rtol=1e-5)


@pytest.mark.parametrize("hostile", ["num_heads_0.pt", "encoder_layers_100000.pt", "empty.pt",
                                     "runs_code.pt", "max_len_1e9.pt"])
def test_a_refused_file_leaves_the_training_running(qtbot, window, tab, tmp_path, monkeypatch,
                                                    hostile):
    from PySide6.QtWidgets import QFileDialog

    from tests.data.make_hostile import write_small

    write_small(tmp_path)
    good = tab.save_model(str(tmp_path / "good.pt"))       # the untrained reverse model
    shown = []
    monkeypatch.setattr(window, "report_error", lambda e, d: shown.append(e))
    chosen = [str(tmp_path / hostile)]
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (chosen[0], "")))
    key = ("encoder-decoder", "digits", "reverse")
    training = tab.sessions[key]
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: training.step >= 3, timeout=30_000)
    window.act_open.trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert len(shown) == 1 and hostile in str(shown[0])      # reported, naming the file
    assert "weights_only" not in str(shown[0])
    assert tab.jobs.is_running() and tab.train_button.text() == "Stop"
    assert tab.sessions[key] is training
    steps = training.step
    qtbot.waitUntil(lambda: training.step > steps + 2, timeout=30_000)   # still learning
    # an accepted model does stop it, and takes its place
    chosen[0] = good
    window.act_open.trigger()
    # the training stops first, then the model read in the background takes its place
    qtbot.waitUntil(lambda: not tab.jobs.is_running() and not tab.is_opening(), timeout=30_000)
    assert len(shown) == 1 and tab.sessions[key] is not training
    assert tab.sessions[key].step == 0


def test_a_model_that_makes_no_error_is_drawn_at_zero_errors_not_one_in_a_thousand(tab):
    """Held-out and token errors of exactly 0 (100 % correct) are marks on the log axis's
    bottom edge, named "0 errors" in the legend; no curve holds a made-up 10⁻³ (it was
    drawn as 0.1 % error)."""
    session = tab.session()
    list(session.train(12, eval_every=4))
    # what a model that has learnt the task records: every held-out sequence right
    session.accuracy_history.append((session.step, 1.0))
    session.token_accuracy[-1] = 1.0
    tab._redraw_training()
    plot = tab.training_view.plot
    zx, _colours = plot.zero_points()
    assert float(session.step) in zx.tolist()
    assert any("0 errors" in lab.text for _s, lab in plot.legend.items)
    for item in plot.plotItem.listDataItems():
        y = np.asarray(item.getData()[1], np.float64)
        assert not np.isclose(y, -3.0).any()          # log10(10⁻³): no clamped value


def test_views_draw_and_export_a_trace_without_the_tab(qapp):
    """A view sees only a trace and a request: made, drawn and exported with no tab."""
    from app.tabs.transformer.views import (
        ForwardView,
        HeadStepsView,
        HeadsView,
        OverviewView,
        TrainingShown,
        TrainingView,
    )
    from models.transformer import (
        ModelConfig,
        Seq2SeqSession,
        TaskConfig,
        parse_sequence,
        session_trace,
    )
    from models.transformer.options import TransformerRequest

    session = Seq2SeqSession(TaskConfig.for_alphabet("reverse", "digits"), ModelConfig(),
                             device="cpu")
    ask = TransformerRequest(step="cross.scores")
    t = session_trace(session, ask, parse_sequence(ask.sequence, session.task))
    heads = HeadsView()
    heads.show(t, ask)
    np.testing.assert_array_equal(heads.plot.weights(), t.weights[t.layer])
    data = heads.data()
    assert data.meta["task"] == "reverse" and data.meta["kind"] == "cross"
    assert "layer 1" in heads.title()
    chosen = []
    overview = OverviewView()
    overview.head_chosen.connect(lambda layer, head: chosen.append((layer, head)))
    overview.show(t, ask)
    overview._clicked(1 * 5 + 3)             # layer 1, head 3
    overview._clicked(4)                     # the average: no head
    assert chosen == [(1, 3)] and overview.data().arrays["tiles"].shape == (10 * 11, 11)
    steps = HeadStepsView()
    steps.show(t, ask)
    steps.hover(0, 0, 0, 1.0)
    assert steps.panel.readout.text().endswith("keep")
    forward = ForwardView()
    forward.show(t, ask)
    assert forward.plot.step.key == "cross.scores" and "decoder layer 1, head 0" in forward.title()
    assert forward.data().meta["step"] == "cross.scores"
    training = TrainingView()
    training.show(TrainingShown.of(session), ask)
    assert training.data() is None           # nothing trained: nothing to export
    assert len(training.plot.plotItem.listDataItems()) == 1   # the uniform guess
