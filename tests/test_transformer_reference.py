"""The course's Transformer parts against PyTorch's own modules, weights copied across.

PyTorch's conventions are the opposite of the course's: its boolean ``attn_mask`` and
``key_padding_mask`` mark *blocked* pairs. The fast path of nn.Transformer* (nested
tensors that zero padded rows) is switched off so every position is compared.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from models.transformer import (
    AddNorm,
    DecoderLayer,
    DecoderOnly,
    EncoderLayer,
    EncoderOnly,
    MultiHeadAttention,
    PositionWiseFeedForward,
    Transformer,
    combine_masks,
    create_look_ahead_mask,
    create_padding_mask,
    scaled_dot_product_attention,
)

D, H, FF = 32, 4, 64
TOL = 1e-5


@pytest.fixture(autouse=True)
def _no_fast_path():
    torch.backends.mha.set_fastpath_enabled(False)
    torch.manual_seed(0)
    yield
    torch.backends.mha.set_fastpath_enabled(True)


def _copy_mha(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
        ref.out_proj.weight.copy_(ours.W_o.weight)
        ref.out_proj.bias.copy_(ours.W_o.bias)


def _copy_ffn(ours: PositionWiseFeedForward, ref) -> None:
    with torch.no_grad():
        ref.linear1.load_state_dict(ours.linear1.state_dict())
        ref.linear2.load_state_dict(ours.linear2.state_dict())


def _copy_norm(ours: AddNorm, ref: nn.LayerNorm) -> None:
    ref.load_state_dict(ours.layer_norm.state_dict())


def _copy_encoder_layer(ours: EncoderLayer, ref: nn.TransformerEncoderLayer) -> None:
    _copy_mha(ours.self_attn, ref.self_attn)
    _copy_ffn(ours.ffn, ref)
    _copy_norm(ours.add_norm1, ref.norm1)
    _copy_norm(ours.add_norm2, ref.norm2)


def _copy_decoder_layer(ours: DecoderLayer, ref: nn.TransformerDecoderLayer) -> None:
    _copy_mha(ours.masked_self_attn, ref.self_attn)
    _copy_mha(ours.encoder_decoder_attn, ref.multihead_attn)
    _copy_ffn(ours.ffn, ref)
    _copy_norm(ours.add_norm1, ref.norm1)
    _copy_norm(ours.add_norm2, ref.norm2)
    _copy_norm(ours.add_norm3, ref.norm3)


def _randomise(module: nn.Module) -> None:
    """LayerNorms start at (1, 0); give them values so a swapped norm would show."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name:
                p.add_(0.1 * torch.randn_like(p))


def _tokens(batch: int, n: int, lengths: list[int], vocab: int = 20) -> torch.Tensor:
    x = torch.randint(1, vocab, (batch, n))
    for b, length in enumerate(lengths):
        x[b, length:] = 0
    return x


# -- attention -----------------------------------------------------------------------------------
def test_sdpa_matches_torch_functional_with_keep_mask():
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8)
    keep = torch.rand(2, 1, 5, 7) > 0.3
    keep[..., 0] = True   # no fully masked rows here
    out, w = scaled_dot_product_attention(q, k, v, keep)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    torch.testing.assert_close(out, ref, atol=TOL, rtol=0)
    assert torch.allclose(w.sum(-1), torch.ones(2, 3, 5))
    assert (w[~keep.expand_as(w)] == 0).all()


def test_fully_masked_rows_give_zeros_not_nan():
    q, k, v = torch.randn(1, 1, 3, 4), torch.randn(1, 1, 3, 4), torch.randn(1, 1, 3, 4)
    keep = torch.ones(1, 1, 3, 3, dtype=torch.bool)
    keep[0, 0, 1] = False
    out, w = scaled_dot_product_attention(q, k, v, keep)
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    assert (w[0, 0, 1] == 0).all() and (out[0, 0, 1] == 0).all()


def test_integer_keep_masks_work_like_bool():
    q = k = v = torch.randn(1, 2, 4, 4)
    keep = create_look_ahead_mask(4)
    a, _ = scaled_dot_product_attention(q, k, v, keep)
    b, _ = scaled_dot_product_attention(q, k, v, keep.to(torch.int64))
    torch.testing.assert_close(a, b)


def test_multi_head_attention_equals_torch_mha_with_padding():
    ours = MultiHeadAttention(D, H).eval()
    ref = nn.MultiheadAttention(D, H, batch_first=True).eval()
    _copy_mha(ours, ref)
    x, mem = torch.randn(3, 6, D), torch.randn(3, 9, D)
    tokens = _tokens(3, 9, [9, 5, 2])
    out, w = ours(x, mem, mem, create_padding_mask(tokens), return_attention=True)
    ref_out, ref_w = ref(x, mem, mem, key_padding_mask=tokens == 0,
                         average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, atol=TOL, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=TOL, rtol=0)


def test_split_and_combine_heads_are_inverse():
    mha = MultiHeadAttention(D, H)
    x = torch.randn(2, 5, D)
    assert mha.split_heads(x).shape == (2, H, 5, D // H)
    torch.testing.assert_close(mha.combine_heads(mha.split_heads(x)), x)


def test_d_model_not_divisible_by_heads_is_refused():
    from models.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="divisible"):
        MultiHeadAttention(30, 4)


# -- layers ------------------------------------------------------------------------------------------
def test_encoder_layer_equals_torch_encoder_layer():
    ours = EncoderLayer(D, H, FF, dropout=0.1).eval()
    _randomise(ours)
    ref = nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, batch_first=True).eval()
    _copy_encoder_layer(ours, ref)
    tokens = _tokens(3, 8, [8, 6, 3])
    x = torch.randn(3, 8, D)
    out = ours(x, create_padding_mask(tokens))
    ref_out = ref(x, src_key_padding_mask=tokens == 0)
    torch.testing.assert_close(out, ref_out, atol=TOL, rtol=0)


@pytest.mark.parametrize(("norm_first", "activation", "eps"),
                         [(False, "gelu", 1e-12), (True, "gelu", 1e-5), (True, "relu", 1e-6)])
def test_encoder_layer_options_equal_torch_encoder_layer(norm_first, activation, eps):
    """The options pretrained models need (BERT: GELU, eps 1e-12; GPT-2: pre-norm) are
    PyTorch's ``norm_first``, ``activation`` and ``layer_norm_eps``."""
    ours = EncoderLayer(D, H, FF, activation=activation, eps=eps, norm_first=norm_first).eval()
    _randomise(ours)
    ref = nn.TransformerEncoderLayer(D, H, FF, batch_first=True, activation=activation,
                                     layer_norm_eps=eps, norm_first=norm_first).eval()
    _copy_encoder_layer(ours, ref)
    tokens = _tokens(3, 8, [8, 6, 3])
    x = torch.randn(3, 8, D)
    out = ours(x, create_padding_mask(tokens))
    ref_out = ref(x, src_key_padding_mask=tokens == 0)
    torch.testing.assert_close(out, ref_out, atol=TOL, rtol=0)


def test_tanh_gelu_is_pytorchs_approximate_gelu():
    ffn = PositionWiseFeedForward(D, FF, activation="gelu_new").eval()
    x = torch.randn(2, 5, D)
    expected = ffn.linear2(nn.functional.gelu(ffn.linear1(x), approximate="tanh"))
    torch.testing.assert_close(ffn(x), expected, atol=TOL, rtol=0)


@pytest.mark.parametrize(("norm_first", "activation"),
                         [(False, "relu"), (True, "relu"), (True, "gelu"), (False, "gelu")])
def test_decoder_layer_equals_torch_decoder_layer_with_both_masks(norm_first, activation):
    """The paper's block, and the size study's options: pre-norm (``norm_first``), GELU."""
    ours = DecoderLayer(D, H, FF, norm_first=norm_first, activation=activation).eval()
    _randomise(ours)
    ref = nn.TransformerDecoderLayer(D, H, FF, batch_first=True, norm_first=norm_first,
                                     activation=activation).eval()
    _copy_decoder_layer(ours, ref)
    src, tgt = _tokens(2, 9, [9, 4]), _tokens(2, 7, [7, 5])
    x, mem = torch.randn(2, 7, D), torch.randn(2, 9, D)
    look_ahead = combine_masks(create_padding_mask(tgt), create_look_ahead_mask(7))
    out = ours(x, mem, look_ahead, create_padding_mask(src))
    ref_out = ref(x, mem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(7) != 0,
                  tgt_key_padding_mask=tgt == 0, memory_key_padding_mask=src == 0)
    torch.testing.assert_close(out, ref_out, atol=TOL, rtol=0)


def test_look_ahead_mask_is_lower_triangular_keep_mask():
    m = create_look_ahead_mask(4)[0, 0]
    assert m.dtype == torch.bool
    assert m.tolist() == [[True, False, False, False], [True, True, False, False],
                          [True, True, True, False], [True, True, True, True]]
    # PyTorch's own causal mask blocks exactly what ours keeps out
    blocked = nn.Transformer.generate_square_subsequent_mask(4) != 0
    assert torch.equal(~m, blocked)


def test_padding_mask_shape_and_values():
    seq = torch.tensor([[5, 6, 0, 0], [7, 0, 0, 0]])
    m = create_padding_mask(seq)
    assert m.shape == (2, 1, 1, 4)
    assert m[:, 0, 0].tolist() == [[True, True, False, False], [True, False, False, False]]


# -- the whole model ---------------------------------------------------------------------------------
def _reference_transformer(ours: Transformer, n_enc: int, n_dec: int) -> nn.Transformer:
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF, batch_first=True),
                                    n_enc, enable_nested_tensor=False)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(D, H, FF, batch_first=True),
                                    n_dec)
    # the course's model has no final LayerNorm after each stack
    ref = nn.Transformer(D, H, custom_encoder=encoder, custom_decoder=decoder,
                         batch_first=True).eval()
    # copy only now: nn.Transformer re-initialises every weight of its submodules
    for o, r in zip(ours.encoder_layers, ref.encoder.layers, strict=True):
        _copy_encoder_layer(o, r)
    for o, r in zip(ours.decoder_layers, ref.decoder.layers, strict=True):
        _copy_decoder_layer(o, r)
    return ref


def test_transformer_equals_torch_transformer_in_eval_mode():
    ours = Transformer(2, 2, D, H, FF, input_vocab_size=20, target_vocab_size=17,
                       max_seq_len=50).eval()
    _randomise(ours)
    assert_equals_torch_transformer(ours, _reference_transformer(ours, 2, 2))


def assert_equals_torch_transformer(ours: Transformer, ref: nn.Transformer) -> None:
    """``ours`` and ``ref`` (weights copied) give the same logits on padded batches, the
    embeddings · √d + PE fed to ``ref`` and its output read by ``ours``'s last layer."""
    src, tgt = _tokens(3, 10, [10, 7, 4]), _tokens(3, 8, [8, 8, 3], vocab=17)
    logits = ours(src, tgt)
    emb = lambda t, e: ours.positional_encoding(e(t) * D ** 0.5)  # noqa: E731
    dec = ref(emb(src, ours.encoder_embedding), emb(tgt, ours.decoder_embedding),
              tgt_mask=nn.Transformer.generate_square_subsequent_mask(8) != 0,
              src_key_padding_mask=src == 0, tgt_key_padding_mask=tgt == 0,
              memory_key_padding_mask=src == 0)
    torch.testing.assert_close(logits, ours.final_linear(dec), atol=TOL, rtol=0)


def test_attention_maps_trace_shapes_and_rows():
    model = Transformer(2, 3, D, H, FF, 20, 17, 50).eval()
    src, tgt = _tokens(2, 10, [10, 6]), _tokens(2, 8, [8, 5], vocab=17)
    logits, maps = model(src, tgt, return_attention=True, attention_item=1)
    assert logits.shape == (2, 8, 17)
    assert maps.encoder_self.shape == (2, H, 10, 10)
    assert maps.decoder_self.shape == (3, H, 8, 8)
    assert maps.cross.shape == (3, H, 8, 10)
    assert maps.src_ids.tolist() == src[1].tolist()
    # item 1 has 6 source tokens: padding keys get no weight anywhere
    assert (maps.encoder_self[..., 6:] == 0).all() and (maps.cross[..., 6:] == 0).all()
    assert not maps.src_mask[:, 6:].any() and maps.src_mask[:, :6].all()
    # decoder self-attention never looks ahead
    upper = torch.triu(torch.ones(8, 8, dtype=torch.bool), 1).numpy()
    assert (maps.decoder_self[..., upper] == 0).all()
    assert not maps.tgt_mask[upper].any()


@pytest.mark.slow
def test_course_example_logits_shape():
    model = Transformer(num_encoder_layers=6, num_decoder_layers=6, d_model=512,
                        num_heads=8, d_ff=2048, input_vocab_size=10000,
                        target_vocab_size=12000, max_seq_len=200).eval()
    src = torch.randint(1, 10000, (2, 100))
    tgt = torch.randint(1, 12000, (2, 120))
    with torch.no_grad():
        assert model(src, tgt).shape == (2, 120, 12000)


def test_decoder_embedding_is_computed_once():
    model = Transformer(1, 1, D, H, FF, 20, 17, 50).eval()
    calls = []
    model.decoder_embedding.register_forward_hook(lambda *a: calls.append(1))
    model(_tokens(1, 5, [5]), _tokens(1, 4, [4], vocab=17))
    assert len(calls) == 1


def test_encoder_only_equals_stacked_torch_encoder_layers():
    ours = EncoderOnly(2, D, H, FF, vocab_size=20, output_size=3, max_seq_len=30).eval()
    refs = [nn.TransformerEncoderLayer(D, H, FF, batch_first=True).eval() for _ in range(2)]
    for o, r in zip(ours.encoder_layers, refs, strict=True):
        _copy_encoder_layer(o, r)
    src = _tokens(2, 9, [9, 4])
    x = ours.positional_encoding(ours.embedding(src) * D ** 0.5)
    for r in refs:
        x = r(x, src_key_padding_mask=src == 0)
    logits, maps = ours(src, return_attention=True)
    torch.testing.assert_close(logits, ours.final_linear(x), atol=TOL, rtol=0)
    assert maps.encoder_self.shape == (2, H, 9, 9) and maps.cross.shape[0] == 0


def test_decoder_only_is_causal_like_gpt():
    ours = DecoderOnly(2, D, H, FF, vocab_size=20, max_seq_len=30).eval()
    refs = [nn.TransformerEncoderLayer(D, H, FF, batch_first=True).eval() for _ in range(2)]
    for o, r in zip(ours.decoder_layers, refs, strict=True):
        _copy_encoder_layer(o, r)
    tokens = _tokens(2, 7, [7, 7])
    x = ours.positional_encoding(ours.embedding(tokens) * D ** 0.5)
    causal = nn.Transformer.generate_square_subsequent_mask(7) != 0
    for r in refs:
        x = r(x, src_mask=causal)
    logits = ours(tokens)
    torch.testing.assert_close(logits, ours.final_linear(x), atol=TOL, rtol=0)
    # changing a later token never changes an earlier prediction
    changed = tokens.clone()
    changed[:, 5] = (changed[:, 5] % 19) + 1
    torch.testing.assert_close(ours(changed)[:, :5], logits[:, :5])
