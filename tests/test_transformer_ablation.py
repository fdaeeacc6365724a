"""The ablation switches of the Transformer's parts, each checked against an independent
reference (PyTorch's own functions, autograd, finite differences), and the measurements
of the Ablations view."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from models.errors import InvalidParameterError
from models.transformer import (
    AddNorm,
    EncoderLayer,
    ModelConfig,
    MultiHeadAttention,
    TaskConfig,
    scaled_dot_product_attention,
)
from models.transformer import attention as attention_module
from models.transformer.ablation import (
    ablation_pair,
    ablation_trace,
    layer_gradients,
    softmax_input_grad,
)
from models.transformer.model import EncoderOnly
from models.transformer.options import ABLATIONS, PAD, TransformerRequest

TASK = TaskConfig.for_alphabet("reverse", "digits")
SYMBOLS = [3, 1, 4, 1, 5, 9, 2, 6]


# -- the switches, one part at a time -------------------------------------------------------
@pytest.mark.parametrize("masked", [False, True])
def test_unscaled_attention_is_torchs_sdpa_with_scale_one(masked):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 16, generator=g) for _ in range(3))
    mask = (torch.rand(2, 1, 5, 5, generator=g) > 0.3) | torch.eye(5, dtype=torch.bool) \
        if masked else None
    ours, _ = scaled_dot_product_attention(q, k, v, mask, scale=1.0)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1.0)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)
    # and it is not the scaled one: the two differ
    scaled, _ = scaled_dot_product_attention(q, k, v, mask)
    assert (scaled - ours).abs().max() > 1e-2
    torch.testing.assert_close(scaled, F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                               atol=1e-5, rtol=1e-5)


def test_multi_head_attention_without_scaling_matches_torch_per_head():
    torch.manual_seed(0)
    mha = MultiHeadAttention(32, 4, scaled=False)
    x = torch.randn(2, 6, 32)
    out = mha(x, x, x)
    q, k, v = (mha.split_heads(w(x)) for w in (mha.W_q, mha.W_k, mha.W_v))
    ref = mha.W_o(mha.combine_heads(F.scaled_dot_product_attention(q, k, v, scale=1.0)))
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)
    assert "scaled=False" in repr(mha)


def test_the_defaults_are_the_paper_block_and_keep_the_weight_names():
    torch.manual_seed(1)
    layer = EncoderLayer(16, 2, 32, 0.0)
    torch.manual_seed(1)
    explicit = EncoderLayer(16, 2, 32, 0.0, scaled=True, residual=True, norm="layer")
    x = torch.randn(3, 5, 16)
    torch.testing.assert_close(layer(x), explicit(x), atol=0, rtol=0)
    assert "add_norm1.layer_norm.weight" in layer.state_dict()
    # the paper's block by hand: LayerNorm(x + sublayer(x)) twice
    attn = layer.self_attn(x, x, x)
    h = F.layer_norm(x + attn, (16,), layer.add_norm1.layer_norm.weight,
                     layer.add_norm1.layer_norm.bias)
    ref = F.layer_norm(h + layer.ffn(h), (16,), layer.add_norm2.layer_norm.weight,
                       layer.add_norm2.layer_norm.bias)
    torch.testing.assert_close(layer(x), ref, atol=1e-6, rtol=1e-5)


def test_add_norm_without_residual_normalises_the_sublayer_alone():
    torch.manual_seed(2)
    block = AddNorm(8, 0.0, residual=False)
    x, y = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    torch.testing.assert_close(block(x, y), F.layer_norm(y, (8,)), atol=1e-6, rtol=1e-5)
    assert "residual=False" in repr(block)


def test_batch_norm_statistics_run_over_the_batch_and_every_position():
    torch.manual_seed(3)
    block = AddNorm(8, 0.0, norm="batch").train()
    x, y = torch.randn(3, 5, 8), torch.randn(3, 5, 8)
    s = (x + y).double()
    mean = s.mean(dim=(0, 1), keepdim=True)
    var = s.var(dim=(0, 1), unbiased=False, keepdim=True)
    ref = ((s - mean) / torch.sqrt(var + 1e-5)).float()
    torch.testing.assert_close(block(x, y), ref, atol=1e-5, rtol=1e-5)
    with pytest.raises(InvalidParameterError, match="unknown norm"):
        AddNorm(8, norm="group")


def test_the_ablated_model_has_the_baselines_weights():
    cfg = ModelConfig()
    for ablation in ABLATIONS:
        base, ablated = ablation_pair(cfg, TASK, ablation)
        b, a = base.state_dict(), ablated.state_dict()
        shared = [k for k in b if "norm" not in k]
        assert shared and all(torch.equal(b[k], a[k]) for k in shared), ablation
        if ablation != "batchnorm":
            assert b.keys() == a.keys()
    before = torch.random.get_rng_state()
    ablation_pair(cfg, TASK, "no_pe")
    assert torch.equal(before, torch.random.get_rng_state())     # the global RNG untouched
    with pytest.raises(InvalidParameterError, match="ablation must be one of"):
        ablation_pair(cfg, TASK, "no_attention")


# -- permutation equivariance: the app's encoder, PE on and off ------------------------------
def _encoder_output(model: EncoderOnly, tokens: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model.hidden(tokens)[0]


@pytest.mark.parametrize("pad_to", [8, 12])
def test_without_pe_the_encoder_is_permutation_equivariant_and_with_pe_it_is_not(pad_to):
    base, no_pe = ablation_pair(ModelConfig(), TASK, "no_pe")
    base.eval()
    no_pe.eval()
    tokens = torch.full((1, pad_to + 1), PAD)
    tokens[0, :8] = torch.tensor([3 + s for s in SYMBOLS])
    tokens[0, 8] = 2
    g = torch.Generator().manual_seed(7)
    for _ in range(3):
        perm = torch.randperm(tokens.size(1), generator=g)
        off = (_encoder_output(no_pe, tokens[:, perm]) - _encoder_output(no_pe, tokens)[:, perm])
        on = (_encoder_output(base, tokens[:, perm]) - _encoder_output(base, tokens)[:, perm])
        assert off.abs().max() < 1e-6
        assert on.abs().max() > 1e-1
    trace = ablation_trace(ModelConfig(), TASK, SYMBOLS, pad_to, "no_pe")
    assert trace.summary[1] < 1e-6 < 1e-1 < trace.summary[0]
    assert trace.ablated.max() < 1e-6 and trace.baseline[0] > 1e-1   # PE itself breaks it


# -- gradients per layer, against autograd and finite differences --------------------------
def test_softmax_input_grad_is_the_softmax_backward():
    g = torch.Generator().manual_seed(4)
    s = torch.randn(2, 3, 4, 6, generator=g, dtype=torch.float64, requires_grad=True)
    up = torch.randn(2, 3, 4, 6, generator=g, dtype=torch.float64)
    a = torch.softmax(s, -1)
    (ref,) = torch.autograd.grad(a, s, up)
    torch.testing.assert_close(softmax_input_grad(a.detach(), up), ref)


def _tiny(ablation: str):
    cfg = ModelConfig(num_encoder_layers=2, num_decoder_layers=1, d_model=8, num_heads=2,
                      d_ff=16)
    task = TaskConfig(task="reverse", vocab=5, min_len=3, max_len=4)
    base, ablated = ablation_pair(cfg, task, ablation)
    src = torch.tensor([[4, 6, 5, 2, 0], [3, 3, 7, 4, 2]])
    tgt = torch.tensor([[5, 6, 4, 2, 0], [4, 7, 3, 3, 2]])
    return [m.double().train() for m in (base, ablated)], src, tgt


def _loss(model, x, src, tgt, first):
    mask = model.mask(src)
    for layer in model.layers[first:]:
        x = layer(x, mask)
    logits = model.final_linear(x)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1),
                           ignore_index=PAD)


@pytest.mark.parametrize("ablation", ["no_residual", "no_scale"])
def test_layer_gradients_match_autograd_and_finite_differences(ablation, monkeypatch):
    models, src, tgt = _tiny(ablation)
    for model in models:
        seen = []

        def recording_sdpa(q, k, v, mask=None, scale=None, seen=seen):
            s = (q @ k.transpose(-2, -1)) * (1 / math.sqrt(q.size(-1)) if scale is None
                                              else scale)
            s.retain_grad()
            seen.append(s)
            w = torch.softmax(s.masked_fill(~mask.bool(), float("-inf")), -1)
            return w @ v, w

        got = layer_gradients(model, src, tgt)
        # parameters and W_q: .grad after backward()
        model.zero_grad()
        with monkeypatch.context() as m:
            m.setattr(attention_module, "scaled_dot_product_attention", recording_sdpa)
            states = []
            x, _, _ = model.hidden(src, states=states)
            logits = model.final_linear(x)
            F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1),
                            ignore_index=PAD).backward()
        for i, layer in enumerate(model.layers):
            norm = math.sqrt(sum(float((p.grad ** 2).sum()) for p in layer.parameters()))
            assert got["params"][i] == pytest.approx(norm, rel=1e-9)
            assert got["w_q"][i] == pytest.approx(float(layer.self_attn.W_q.weight.grad.norm()),
                                                  rel=1e-9)
            assert got["scores"][i] == pytest.approx(float(seen[i].grad.norm()), rel=1e-9)
        # the input of each layer: central differences, entry by entry
        for i, state in enumerate(states):
            base = state.detach()
            fd = torch.zeros_like(base)
            eps = 1e-6
            with torch.no_grad():
                for idx in np.ndindex(*base.shape):
                    plus, minus = base.clone(), base.clone()
                    plus[idx] += eps
                    minus[idx] -= eps
                    fd[idx] = (_loss(model, plus, src, tgt, i)
                               - _loss(model, minus, src, tgt, i)) / (2 * eps)
            assert got["input"][i] == pytest.approx(float(fd.norm()), rel=1e-6)


# -- the measurements the view shows ----------------------------------------------------------
def test_no_scale_saturates_the_softmax_more():
    t = ablation_trace(ModelConfig(), TASK, SYMBOLS, 10, "no_scale")
    assert t.baseline.sum() == pytest.approx(1.0, abs=1e-5)
    assert t.ablated.sum() == pytest.approx(1.0, abs=1e-5)
    centres = t.x
    # the unscaled histogram sits further right: larger largest weights
    assert (centres * t.ablated).sum() > (centres * t.baseline).sum()
    assert t.summary[1] > t.summary[0]          # mean largest weight
    assert t.baseline2.shape == t.ablated2.shape == (2, 4)


def test_batchnorm_lets_padding_change_the_real_tokens_and_layernorm_does_not():
    t = ablation_trace(ModelConfig(), TASK, SYMBOLS, 10, "batchnorm")
    assert t.baseline.max() < 1e-5              # LayerNorm: rounding only
    assert t.ablated[0] == 0 and t.ablated[1:].min() > 1e-2
    # LayerNorm: every position mean 0, std ≈ 1 over its features
    np.testing.assert_allclose(t.baseline2[0], 0, atol=1e-5)
    np.testing.assert_allclose(t.baseline2[1], 1, atol=1e-3)   # (biased std, as LayerNorm)


def test_the_request_refuses_an_unknown_ablation_by_name():
    assert TransformerRequest().ablation == "no_pe"
    with pytest.raises(InvalidParameterError, match="ablation must be one of"):
        TransformerRequest(ablation="no_attention")
