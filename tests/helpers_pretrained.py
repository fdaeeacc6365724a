"""Model folders for the pretrained-model tests, written with Hugging Face
``transformers`` (random weights, small configs) and tokenizers trained with
``tokenizers``: folders nobody here hand-wrote, in the layout save_pretrained uses."""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

CORPUS = ["The cat sat on the mat.", "A dog ran in the park, and the cat watched.",
          "Attention is all you need.", "Heads look at the previous token.",
          "Students read the course and train small models."] * 20


def bpe_tokenizer(path: Path, vocab_size: int = 300) -> int:
    """A byte-level BPE tokenizer (GPT-2's kind) trained on ``CORPUS``; its size."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    tok.save(str(path))
    return tok.get_vocab_size()


def wordpiece_tokenizer(path: Path, vocab_size: int = 200, cls="[CLS]", sep="[SEP]",
                        pad="[PAD]") -> tuple[int, dict[str, int]]:
    """A BERT-style WordPiece tokenizer with [CLS] A [SEP] (B [SEP]) templates."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = [pad, "[UNK]", cls, sep, "[MASK]"]
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=vocab_size,
                                                              special_tokens=specials))
    ids = {s: tok.token_to_id(s) for s in specials}
    tok.post_processor = processors.TemplateProcessing(
        single=f"{cls} $A {sep}", pair=f"{cls} $A {sep} $B:1 {sep}:1",
        special_tokens=[(cls, ids[cls]), (sep, ids[sep])])
    tok.save(str(path))
    return tok.get_vocab_size(), ids


def _shake(model: torch.nn.Module, seed: int) -> None:
    """Move every weight off its initial value (LayerNorms start at 1 and 0, where a
    swapped weight and bias would go unnoticed)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=gen))


def write_gpt2(folder: Path, n_positions: int = 64, seed: int = 0) -> Path:
    from transformers import GPT2Config, GPT2LMHeadModel
    folder.mkdir(parents=True, exist_ok=True)
    vocab = bpe_tokenizer(folder / "tokenizer.json")
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=vocab, n_positions=n_positions, n_embd=32, n_layer=2,
                        n_head=4, bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    _shake(model, seed)
    model.save_pretrained(folder)
    return folder


def write_encoder(folder: Path, kind: str, seed: int = 0) -> Path:
    """A small random BERT, RoBERTa or DistilBERT folder with a WordPiece tokenizer."""
    import transformers
    folder.mkdir(parents=True, exist_ok=True)
    pad = "<pad>" if kind == "roberta" else "[PAD]"
    vocab, ids = wordpiece_tokenizer(folder / "tokenizer.json", pad=pad)
    torch.manual_seed(seed)
    if kind == "bert":
        config = transformers.BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2,
                                         num_attention_heads=4, intermediate_size=64,
                                         max_position_embeddings=64, pad_token_id=ids[pad])
        model = transformers.BertModel(config)
    elif kind == "roberta":
        config = transformers.RobertaConfig(
            vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=64, max_position_embeddings=66, pad_token_id=ids[pad],
            type_vocab_size=1)
        model = transformers.RobertaModel(config)
    else:
        config = transformers.DistilBertConfig(vocab_size=vocab, dim=32, n_layers=2,
                                               n_heads=4, hidden_dim=64,
                                               max_position_embeddings=64,
                                               pad_token_id=ids[pad])
        model = transformers.DistilBertModel(config)
    _shake(model.eval(), seed)
    model.save_pretrained(folder)
    return folder


def copy_folder(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst
