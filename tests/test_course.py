""""As the course writes it": the chapter's code, reproduced in models/, against literal torch
computations of its formulas, against ours, and the tours' statements about the course."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as tnf

TOURS = Path(__file__).resolve().parents[1] / "resources" / "tours"


def tour(name: str) -> dict:
    return json.loads((TOURS / f"{name}.json").read_text(encoding="utf-8"))


def step(name: str, step_id: str) -> dict:
    return next(s for s in tour(name)["steps"] if s["id"] == step_id)


# -- (a) masked_fill(mask == 0, -1e9) ------------------------------------------------------------
def test_course_attention_is_the_literal_masked_fill_and_makes_blocked_rows_uniform():
    from models.transformer import scaled_dot_product_attention
    from models.transformer.course import course_scaled_dot_product_attention

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 6, 8, generator=g) for _ in range(3))
    keep = torch.rand(2, 1, 6, 6, generator=g) > 0.4
    keep[..., 2, :] = False                                  # one row with every key blocked
    out, w = course_scaled_dot_product_attention(q, k, v, keep)
    # the chapter's formula, written out with torch
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(8)
    ref_w = torch.softmax(scores.masked_fill(keep == 0, -1e9), dim=-1)
    torch.testing.assert_close(w, ref_w, rtol=0, atol=0)
    torch.testing.assert_close(out, ref_w @ v)
    # the blocked row: uniform 1/k in the course's code, zeros in ours; other rows agree
    torch.testing.assert_close(w[..., 2, :], torch.full_like(w[..., 2, :], 1 / 6))
    ours = scaled_dot_product_attention(q, k, v, keep)[1]
    assert (ours[..., 2, :] == 0).all()
    rows = [0, 1, 3, 4, 5]
    torch.testing.assert_close(w[..., rows, :], ours[..., rows, :])


# -- (b) the decoder mask ------------------------------------------------------------------------
def test_course_decoder_mask_blocks_padded_queries_not_padded_keys():
    from models.transformer import combine_masks, create_look_ahead_mask, create_padding_mask
    from models.transformer.course import course_decoder_mask, course_look_ahead_mask

    tgt = torch.tensor([[1, 5, 6, 2, 0, 0]])
    # its create_look_ahead_mask returns ~triu(ones, 1): a keep-mask, equal to ours
    torch.testing.assert_close(course_look_ahead_mask(6), create_look_ahead_mask(6))
    theirs = course_decoder_mask(tgt, 0)
    literal = torch.logical_and(
        (tgt != 0).unsqueeze(1).unsqueeze(2).transpose(-2, -1),
        ~torch.triu(torch.ones(6, 6), diagonal=1).bool().unsqueeze(0).unsqueeze(0))
    torch.testing.assert_close(theirs, literal)
    ours = combine_masks(create_padding_mask(tgt, 0), create_look_ahead_mask(6))
    assert torch.equal(theirs[..., :4, :], ours[..., :4, :])      # real queries: the same
    assert not theirs[0, 0, 4:].any()                            # padded queries: nothing
    assert ours[0, 0, 4:, :4].all() and not ours[0, 0, :, 4:].any()   # ours: padded keys
    # without the look-ahead mask a real query sees the padded keys in the course's code
    assert course_decoder_mask(tgt, 0, use_look_ahead_mask=False)[0, 0, 0, 4:].all()


@pytest.fixture(scope="module")
def model():
    from models.transformer import Transformer

    torch.manual_seed(0)
    m = Transformer(2, 2, 16, 4, 32, 12, 12, 16, dropout=0.0, pad_token_idx=0).eval()
    return m


def test_course_forward_equals_ours_where_no_row_is_blocked(model):
    from models.transformer.course import course_forward

    src = torch.tensor([[4, 5, 6, 7, 2, 0, 0]])
    tgt = torch.tensor([[1, 7, 6, 5, 4, 2, 0, 0, 0]])
    with torch.no_grad():
        _, maps = model(src, tgt, return_attention=True)
    run = course_forward(model, src, tgt)
    enc = np.stack([c[4][0].numpy() for c in run["encoder"]])
    np.testing.assert_allclose(enc, maps.encoder_self, atol=1e-6)        # same masks
    dec = np.stack([c[4][0].numpy() for c in run["decoder"]])
    cross = np.stack([c[4][0].numpy() for c in run["cross"]])
    np.testing.assert_allclose(dec[:, :, :6], maps.decoder_self[:, :, :6], atol=1e-6)
    np.testing.assert_allclose(cross[:, :, :6], maps.cross[:, :, :6], atol=1e-5)
    # the three padded queries: uniform over all 9 keys (the future ones too) in every layer
    np.testing.assert_allclose(dec[:, :, 6:], 1 / 9, atol=1e-6)
    assert (maps.decoder_self[:, :, 6:, 6:] == 0).all()
    assert np.abs(cross[:, :, 6:] - maps.cross[:, :, 6:]).max() > 1e-4


# -- (c) the F.scaled_dot_product_attention example ----------------------------------------------
def test_course_sdpa_example_reads_its_blocked_mask_as_keep_and_lacks_the_key():
    from models.transformer.course import course_sdpa_example

    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(5, 8, generator=g), torch.randn(5, 8, generator=g)
    w, error = course_sdpa_example(q, k)
    assert "value" in error                       # (query, value, attn_mask=...): no key
    with pytest.raises(TypeError):
        tnf.scaled_dot_product_attention(q, k, attn_mask=torch.ones(5, 5, dtype=torch.bool))
    blocked = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    torch.testing.assert_close(w, tnf.scaled_dot_product_attention(q, k, torch.eye(5),
                                                                   attn_mask=blocked))
    # PyTorch kept the pairs the course meant to block: each query sees only later keys
    scores = (q @ k.T / math.sqrt(8)).masked_fill(~blocked, float("-inf"))
    expected = torch.softmax(scores[:4], -1)
    torch.testing.assert_close(w[:4], expected)
    assert (w[np.tril_indices(5)] == 0).all()
    ours = torch.softmax((q @ k.T / math.sqrt(8)).masked_fill(blocked, float("-inf")), -1)
    assert (w - ours).abs().max() > 0.5


def test_course_comparison_on_a_session_input():
    from dataclasses import replace

    from models.transformer import (
        ModelConfig,
        Seq2SeqSession,
        TaskConfig,
        parse_sequence,
        session_trace,
    )
    from models.transformer.options import TransformerRequest

    s = Seq2SeqSession(TaskConfig.for_alphabet("reverse", "digits"), ModelConfig(),
                       device="cpu")
    ask = TransformerRequest(kind="decoder", pad_to=10, layer=0, head=0, padding=True,
                             look_ahead=True, generated=0)
    symbols = parse_sequence("3 1 4 1 5 9 2 6", s.task)
    ours = session_trace(s, ask, symbols)
    theirs = session_trace(s, replace(ask, course=True), symbols)
    assert ours.course is None and theirs.course is not None
    c = theirs.course
    padded = [i for i, t in enumerate(theirs.tgt_tokens) if t == "·"]
    assert padded and c.blocked_rows.tolist() == padded == c.rows.tolist()
    w0, w1 = ours.weights[0], theirs.weights[0]
    np.testing.assert_allclose(w1[:, padded], 1 / len(theirs.tgt_tokens), atol=1e-6)
    assert c.max_delta == pytest.approx(float(np.abs(w1 - w0).max()))
    np.testing.assert_allclose(theirs.panels.softmax, w1[0], atol=1e-6)
    assert c.sdpa.shape == w0[0].shape and (c.sdpa[np.tril_indices(len(w0[0]))] == 0).all()
    assert c.sdpa_max_delta == pytest.approx(float(np.abs(c.sdpa - w0[0]).max()))


# -- efficient: the conventions panel ------------------------------------------------------------
def test_convention_trace_as_written_gives_the_blocked_row_uniform_weights():
    from models.efficient_attention import convention_trace

    n = 8
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(n, 4, generator=g) for _ in range(3))
    keep = torch.ones(n, n, dtype=torch.bool).tril()
    keep[-1] = False
    ours, theirs = convention_trace(keep, q, k, v), convention_trace(keep, q, k, v, True)
    literal = torch.softmax((q @ k.T / 2).masked_fill(keep == 0, -1e9), -1)
    np.testing.assert_allclose(theirs.weights[0], literal.numpy(), atol=1e-6)
    assert (ours.weights[0, -1] == 0).all()
    np.testing.assert_allclose(theirs.weights[0, -1], 1 / n, atol=1e-7)
    assert theirs.course_rows.tolist() == [n - 1] and ours.course_rows.size == 0
    assert theirs.course_delta == pytest.approx(float(literal[-1].max()))


# -- (d) flows: TransformedDistribution(base, transforms) ----------------------------------------
def test_flow_course_distribution_is_the_chapters_and_differs_from_the_trained_density():
    from torch.distributions import TransformedDistribution

    from models.flows import build_realnvp
    from models.flows.course import course_comparison, course_distribution, model_distribution

    torch.manual_seed(3)
    flow = build_realnvp(hidden_dim=16, num_flows=4).eval()
    with torch.no_grad():                 # away from the identity the flow starts as
        for p in flow.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.randn(200, 2)
    with torch.no_grad():
        literal = TransformedDistribution(flow.base, list(flow.layers)).log_prob(x)
        fixed = TransformedDistribution(flow.base, [t.inv for t in reversed(flow.layers)])
        torch.testing.assert_close(course_distribution(flow).log_prob(x), literal)
        torch.testing.assert_close(model_distribution(flow).log_prob(x), flow.log_prob(x))
        torch.testing.assert_close(fixed.log_prob(x), flow.log_prob(x))
        c = course_comparison(flow, x.numpy(), (-4, 4, -4, 4), resolution=32)
    with torch.no_grad():
        delta = float((literal - flow.log_prob(x)).abs().mean())
    assert c.mean_abs_delta == pytest.approx(delta, rel=1e-5)
    assert c.mean_abs_delta > 0.1 and c.inverted_delta < 1e-4
    assert c.log_p_course == pytest.approx(float(literal.mean()), rel=1e-5)


# -- the tours' statements about the course ------------------------------------------------------
def test_tours_no_longer_say_what_the_course_does_not_do():
    text = tour("transformer")
    lookahead = step("transformer", "lookahead")["text"]
    assert "as if 1 meant" not in lookahead["en"] and "~mask" in lookahead["en"]
    assert "却又把 1 当作" not in lookahead["zh_CN"] and "~mask" in lookahead["zh_CN"]
    conventions = step("efficient", "conventions")["text"]["en"]
    assert "the course's function and SDPA return zeros" not in conventions
    # each switch has a step that turns it on, in both languages
    for name in ("transformer", "efficient", "flows"):
        on = [s for s in tour(name)["steps"] if s["state"].get("course")]
        assert len(on) == 1, name
        assert on[0]["text"]["en"] and on[0]["text"]["zh_CN"], name
    assert all("course" in s["state"] for s in text["steps"])


# -- the switches in the tabs, driven by their tour steps -----------------------------------------
def _go(tab, step_id: str) -> None:
    steps = tab.tour_steps()
    tab.tour.go_to(next(i for i, s in enumerate(steps) if s.id == step_id))


def test_transformer_switch_and_its_tour_step(qtbot, window):
    from tests.windows import open_tab

    tab = open_tab(qtbot, window, "transformer")
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.trace is not None, timeout=20_000)
    _go(tab, "course")
    assert tab.course.isChecked()
    qtbot.waitUntil(lambda: tab.trace.course is not None and tab.trace.kind == "decoder",
                    timeout=20_000)
    t = tab.trace
    c = t.course
    n = len(t.tgt_tokens)
    padded = [i for i, x in enumerate(t.tgt_tokens) if x == "·"]
    # the step's claims, on its own state: padded queries blocked, uniform 1/n; real rows ours
    assert padded and c.blocked_rows.tolist() == padded == c.rows.tolist()
    np.testing.assert_allclose(tab.heads_view.plot.weights()[:, padded], 1 / n, atol=1e-6)
    text = tab.view("heads").panel.readout.text()
    assert f"1/{n}" in text and f"{c.max_delta:.3f}" in text
    assert f"{padded[0]}–{padded[-1]}" in text
    steps = tab.view("head_steps").panel.readout.text()
    assert "TypeError" in steps and f"{c.sdpa_max_delta:.3f}" in steps
    assert steps in tab.mask_note.text() and f"1/{n}" in tab.mask_note.text()
    assert (c.sdpa[np.tril_indices(n)] == 0).all()       # only later keys
    # off again: our weights (padded queries see the real tokens only), no read-out
    tab.course.click()
    qtbot.waitUntil(lambda: tab.trace.course is None, timeout=20_000)
    w = tab.heads_view.plot.weights()
    assert np.abs(w[:, padded] - 1 / n).max() > 1e-3
    assert (w[:, padded][..., padded] == 0).all()          # ours: padded keys blocked
    assert tab.view("heads").panel.readout.text().strip() == ""
    tab.jobs.stop()


def test_efficient_switch_and_its_tour_step(qtbot, window):
    from tests.windows import open_tab

    tab = open_tab(qtbot, window, "efficient")
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.result is not None, timeout=30_000)
    _go(tab, "conventions")
    qtbot.waitUntil(lambda: tab.result.conventions is not None and
                    not tab.result.conventions.as_written and
                    tab.result.conventions.mask.shape == (32, 32), timeout=30_000)
    assert (tab.conventions_view.plot.weights()[0, -1] == 0).all()       # ours: zeros
    before = tab.view("conventions").panel.readout.text()
    _go(tab, "course")
    qtbot.waitUntil(lambda: tab.result.conventions.as_written, timeout=30_000)
    np.testing.assert_allclose(tab.conventions_view.plot.weights()[0, -1], 1 / 32, atol=1e-7)
    text = tab.view("conventions").panel.readout.text()
    assert text != before and "1/32" in text and "rows 31" in text
    assert f"{tab.result.conventions.course_delta:.3f}" in text
    assert "1/32 ≈ 0.031" in next(s for s in tour("efficient")["steps"]
                                  if s["id"] == "course")["text"]["en"]


def test_flows_switch_and_its_tour_step(qtbot, window):
    from tests.windows import open_tab

    tab = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.result is not None, timeout=30_000)
    before = tab.view("density").panel.readout.text()
    _go(tab, "course")
    qtbot.waitUntil(lambda: tab.result.course is not None, timeout=30_000)
    c = tab.result.course
    text = tab.view("density").panel.readout.text()
    assert text != before and "TransformedDistribution" in text
    assert c.mean_abs_delta == 0.0             # untrained: every layer is the identity
    session = tab.session()
    list(session.train(200))                   # then they differ, and the read-out says by how much
    tab.compute_now()
    qtbot.waitUntil(lambda: tab.result.course is not None and
                    tab.result.course.mean_abs_delta > 0.5, timeout=30_000)
    c = tab.result.course
    assert f"{c.mean_abs_delta:.1f}" in tab.view("density").panel.readout.text()
    assert c.inverted_delta < 1e-3
    np.testing.assert_array_equal(tab.density_view.plot.density(), c.density.density)
    assert tab.density_view.plot.texts()  # the panel's title names the course's density
    assert "course" in " ".join(tab.density_view.plot.texts().values())


def test_tour_numbers_about_the_course_hold():
    """The embedding scale of step 12 (the chapter's default N(0, 1) × √d_model against
    the PE), and the polarity the efficient tour says the chapter gets wrong for SDPA."""
    from models.transformer import ModelConfig, sinusoidal_table

    d = ModelConfig().d_model
    torch.manual_seed(0)
    emb = torch.nn.Embedding(1000, d).weight.detach() * math.sqrt(d)   # the chapter's way
    pe = sinusoidal_table(100, d).double()
    ratio = float(emb.pow(2).mean().sqrt() / pe.pow(2).mean().sqrt())
    text = step("transformer", "families")["text"]
    assert f"about {round(ratio)} times larger" in text["en"] and f"{round(ratio)} 倍" in text[
        "zh_CN"]
    assert f"d_model {d}" in tour("transformer")["steps"][0]["text"]["en"]
    # True = may attend for F.scaled_dot_product_attention, True = blocked for MHA
    q = torch.randn(1, 3, 4)
    mask = torch.tensor([[True, False, False]] * 3)
    w = tnf.scaled_dot_product_attention(q, q, torch.eye(3)[None], attn_mask=mask)
    assert (w[..., 0] == 1).all()
    mha = torch.nn.MultiheadAttention(4, 1, batch_first=True)
    _, mw = mha(q, q, q, attn_mask=mask)
    assert (mw[..., 0] == 0).all()
    assert "nn.MultiheadAttention only" in step("efficient", "conventions")["text"]["en"]
