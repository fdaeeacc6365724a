"""The step-through ends where the model's own forward ends: each layer's output, its
attention weights and the logits equal what ``Transformer`` computes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from models.transformer import Transformer, stack_steps

torch.manual_seed(0)


@pytest.fixture(scope="module")
def setup():
    model = Transformer(2, 3, d_model=16, num_heads=4, d_ff=32, input_vocab_size=11,
                        target_vocab_size=11, max_seq_len=20, dropout=0.3).eval()
    src = torch.tensor([[5, 6, 7, 8, 2, 0, 0], [4, 4, 4, 4, 4, 4, 2]])
    tgt = torch.tensor([[1, 8, 7, 6, 5, 0], [1, 3, 3, 3, 3, 3]])
    src_mask, tgt_mask = model.masks(src, tgt)
    with torch.no_grad():
        logits, maps = model(src, tgt, return_attention=True)
    return model, src, tgt, src_mask, tgt_mask, logits, maps


def _enc(model, src, src_mask, layer, head, item=0):
    names = [str(i) for i in src[item].tolist()]
    return stack_steps(stack="encoder", embedding=model.encoder_embedding,
                       positional_encoding=model.positional_encoding,
                       layers=model.encoder_layers, tokens=src, mask=src_mask, layer=layer,
                       head=head, labels=names, item=item)


def _dec(model, src, tgt, src_mask, tgt_mask, layer, head, item=0):
    with torch.no_grad():
        memory = model.encode(src, src_mask)
    return stack_steps(stack="decoder", embedding=model.decoder_embedding,
                       positional_encoding=model.positional_encoding,
                       layers=model.decoder_layers, tokens=tgt, mask=tgt_mask, layer=layer,
                       head=head, labels=[str(i) for i in tgt[item].tolist()], memory=memory,
                       memory_mask=src_mask, memory_labels=[str(i) for i in src[item].tolist()],
                       final_linear=model.final_linear, item=item)


@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("item", [0, 1])
def test_encoder_steps_end_at_the_layer_output(setup, layer, item):
    model, src, _, src_mask, _, _, maps = setup
    steps, panels = _enc(model, src, src_mask, layer, head=2, item=item)
    with torch.no_grad():
        x = model.embed(src, model.encoder_embedding)
        for lyr in model.encoder_layers[: layer + 1]:
            x = lyr(x, src_mask)
    np.testing.assert_allclose(steps.get("ffn.add_norm").values, x[item].numpy(), atol=1e-5)
    with torch.no_grad():
        _, enc_w = model.encode(src, src_mask, return_attention=True)
    np.testing.assert_allclose(steps.get("self.softmax").values, enc_w[layer][item, 2].numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(panels["self"].softmax, enc_w[layer][item, 2].numpy(), atol=1e-6)
    if item == 0:
        np.testing.assert_allclose(panels["self"].softmax, maps.encoder_self[layer, 2], atol=1e-6)
    # the steps before the layers: embedding, × √d_model, + PE
    emb = model.encoder_embedding.weight[src[item]].detach().numpy()
    np.testing.assert_allclose(steps.get("embedding").values, emb, atol=1e-6)
    np.testing.assert_allclose(steps.get("scaled").values, emb * math.sqrt(16), atol=1e-5)
    pe = model.positional_encoding.pe[0, : src.size(1)].numpy()
    np.testing.assert_allclose(steps.get("pe").values, emb * 4 + pe, atol=1e-5)
    assert ("layer_input" in steps) == (layer > 0)
    assert "logits" not in steps and "cross.q" not in steps


def test_step_shapes_and_dims_agree(setup):
    model, src, tgt, src_mask, tgt_mask, _, _ = setup
    steps, _ = _dec(model, src, tgt, src_mask, tgt_mask, 1, 0)
    for step in steps.steps:
        dims = step.dims.strip("()").split(", ")
        assert len(dims) == len(step.shape), step.key
        assert step.values.ndim == 2 and step.values.dtype == np.float32
        assert len(step.row_labels) == step.values.shape[0], step.key
        assert not step.col_labels or len(step.col_labels) == step.values.shape[1], step.key
    s, t = src.size(1), tgt.size(1)
    assert steps.get("self.q_heads").shape == (2, 4, t, 4)
    assert steps.get("self.scores").shape == (2, 4, t, t)
    assert steps.get("cross.scores").shape == (2, 4, t, s)
    assert steps.get("cross.k").shape == (2, s, 16)
    assert steps.get("ffn.hidden").shape == (2, t, 32)
    # the padding mask as the model builds it: (batch, 1, 1, k_len), broadcast
    assert steps.get("cross.mask").dims == "(batch, 1, 1, k_len)"
    assert steps.get("self.mask").dims == "(batch, 1, q_len, k_len)"
    # the scores step really is Q Kᵀ / √d_k of the split heads
    q, k = steps.get("self.q_heads").values, steps.get("self.k_heads").values
    np.testing.assert_allclose(steps.get("self.scores").values, q @ k.T / 2.0, atol=1e-5)


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_decoder_steps_reach_the_model_logits(setup, layer):
    model, src, tgt, src_mask, tgt_mask, logits, maps = setup
    steps, panels = _dec(model, src, tgt, src_mask, tgt_mask, layer, head=1)
    np.testing.assert_allclose(panels["self"].softmax, maps.decoder_self[layer, 1], atol=1e-6)
    np.testing.assert_allclose(panels["cross"].softmax, maps.cross[layer, 1], atol=1e-6)
    if layer == 2:
        np.testing.assert_allclose(steps.get("logits").values, logits[0].numpy(), atol=1e-5)
    else:
        assert "logits" not in steps
    # look-ahead AND padding: the last target token (a pad) is blocked as a key
    mask = steps.get("self.mask").values
    assert mask[3, 4] == 0 and mask[4, 3] == 1 and mask[5, 5] == 0
    masked = steps.get("self.masked").values
    assert np.isneginf(masked[3, 4]) and np.isfinite(masked[4, 3])


def test_fully_masked_rows_are_zero_not_nan(setup):
    model, src, tgt, _, _, _, _ = setup
    # every key blocked for every query: the softmax rows are zeros and flagged
    blocked = torch.zeros(2, 1, 1, src.size(1), dtype=torch.bool)
    steps, panels = _enc(model, src, blocked, 0, 0)
    assert np.all(steps.get("self.softmax").values == 0)
    assert panels["self"].fully_masked.all()
    assert np.isfinite(steps.get("ffn.add_norm").values).all()
