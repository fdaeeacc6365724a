"""The explicit name mapping from Hugging Face checkpoints to the course's components.

Every weight of ``PretrainedEncoder``/``PretrainedDecoder`` is named here with the
checkpoint tensor it comes from, one table per family, so a student can read how
BERT's ``attention.self.query`` becomes the course's ``W_q``:

====================================  ==============================================
course (``layers.{i}.``)              BERT/RoBERTa (``encoder.layer.{i}.``)
====================================  ==============================================
``self_attn.W_q / W_k / W_v``         ``attention.self.query / key / value``
``self_attn.W_o``                     ``attention.output.dense``
``add_norm1.layer_norm``              ``attention.output.LayerNorm``
``ffn.linear1 / linear2``             ``intermediate.dense / output.dense``
``add_norm2.layer_norm``              ``output.LayerNorm``
====================================  ==============================================

DistilBERT (``transformer.layer.{i}.``) names them ``attention.q_lin k_lin v_lin
out_lin``, ``sa_layer_norm``, ``ffn.lin1 lin2``, ``output_layer_norm``. GPT-2
(``h.{i}.``) keeps W_q, W_k, W_v side by side in one ``attn.c_attn`` and stores every
projection as a ``Conv1D`` of shape (in, out), the transpose of ``nn.Linear``'s
weight: the mapping splits and transposes them.

Checkpoint names may carry the base model's prefix (``bert.``, ``roberta.``,
``distilbert.``, ``transformer.``) as task models save them. Task heads and buffers
listed in ``IGNORED`` are left out on purpose (BERT's pooler and masked-LM head, GPT-2's
``lm_head``, which is the token embedding again); any other name the table does not
know, and any name it needs that the checkpoint lacks, is an error that names them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from models.errors import PretrainedModelError
from models.pretrained.config import ArchConfig
from models.pretrained.weights import WeightSource

#: the base model's prefix in task checkpoints (BertForMaskedLM, GPT2LMHeadModel, ...)
PREFIXES = {"bert": "bert.", "roberta": "roberta.", "distilbert": "distilbert.",
            "gpt2": "transformer."}
#: checkpoint names left out on purpose: task heads ArchScope does not show, buffers
IGNORED = {
    "bert": (r"pooler\..*", r"cls\..*", r"classifier\..*", r"qa_outputs\..*",
             r"embeddings\.position_ids", r"embeddings\.token_type_ids"),
    "roberta": (r"pooler\..*", r"lm_head\..*", r"classifier\..*", r"qa_outputs\..*",
                r"embeddings\.position_ids", r"embeddings\.token_type_ids"),
    "distilbert": (r"vocab_transform\..*", r"vocab_layer_norm\..*", r"vocab_projector\..*",
                   r"pre_classifier\..*", r"classifier\..*", r"qa_outputs\..*",
                   r"embeddings\.position_ids"),
    "gpt2": (r"h\.\d+\.attn\.bias", r"h\.\d+\.attn\.masked_bias", r"lm_head\.weight",
             r"score\..*"),
}
#: the most names an error message lists
SHOWN = 8


@dataclass(frozen=True)
class Rule:
    """``ours`` ← checkpoint ``source``; ``transpose`` for a Conv1D weight; ``part`` k of
    ``parts`` equal slices of the output dimension (GPT-2's fused c_attn)."""

    ours: str
    source: str
    transpose: bool = False
    part: int = 0
    parts: int = 1

    def apply(self, tensor: torch.Tensor) -> torch.Tensor:
        if self.parts > 1:
            tensor = tensor.chunk(self.parts, dim=-1)[self.part]
        return tensor.T.contiguous() if self.transpose else tensor

    def shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if self.parts > 1:
            shape = (*shape[:-1], shape[-1] // self.parts)
        return tuple(reversed(shape)) if self.transpose else tuple(shape)


def _pairs(ours: str, source: str) -> list[Rule]:
    return [Rule(f"{ours}.weight", f"{source}.weight"), Rule(f"{ours}.bias", f"{source}.bias")]


def _bert_layer(i: int, family: str) -> list[Rule]:
    o = f"layers.{i}."
    if family == "distilbert":
        s = f"transformer.layer.{i}."
        names = (("self_attn.W_q", "attention.q_lin"), ("self_attn.W_k", "attention.k_lin"),
                 ("self_attn.W_v", "attention.v_lin"), ("self_attn.W_o", "attention.out_lin"),
                 ("add_norm1.layer_norm", "sa_layer_norm"), ("ffn.linear1", "ffn.lin1"),
                 ("ffn.linear2", "ffn.lin2"), ("add_norm2.layer_norm", "output_layer_norm"))
    else:
        s = f"encoder.layer.{i}."
        names = (("self_attn.W_q", "attention.self.query"),
                 ("self_attn.W_k", "attention.self.key"),
                 ("self_attn.W_v", "attention.self.value"),
                 ("self_attn.W_o", "attention.output.dense"),
                 ("add_norm1.layer_norm", "attention.output.LayerNorm"),
                 ("ffn.linear1", "intermediate.dense"), ("ffn.linear2", "output.dense"),
                 ("add_norm2.layer_norm", "output.LayerNorm"))
    return [r for ours, src in names for r in _pairs(o + ours, s + src)]


def _gpt2_layer(i: int) -> list[Rule]:
    o, s = f"layers.{i}.", f"h.{i}."
    rules = _pairs(o + "add_norm1.layer_norm", s + "ln_1")
    for part, name in enumerate(("W_q", "W_k", "W_v")):
        rules += [Rule(f"{o}self_attn.{name}.weight", f"{s}attn.c_attn.weight", True, part, 3),
                  Rule(f"{o}self_attn.{name}.bias", f"{s}attn.c_attn.bias", False, part, 3)]
    rules += [Rule(f"{o}self_attn.W_o.weight", f"{s}attn.c_proj.weight", True),
              Rule(f"{o}self_attn.W_o.bias", f"{s}attn.c_proj.bias")]
    rules += _pairs(o + "add_norm2.layer_norm", s + "ln_2")
    rules += [Rule(f"{o}ffn.linear1.weight", f"{s}mlp.c_fc.weight", True),
              Rule(f"{o}ffn.linear1.bias", f"{s}mlp.c_fc.bias"),
              Rule(f"{o}ffn.linear2.weight", f"{s}mlp.c_proj.weight", True),
              Rule(f"{o}ffn.linear2.bias", f"{s}mlp.c_proj.bias")]
    return rules


def name_mapping(cfg: ArchConfig) -> list[Rule]:
    """Every weight of the course's model for ``cfg``, with the checkpoint tensor it comes from."""
    if cfg.family == "gpt2":
        rules = [Rule("embeddings.word_embeddings.weight", "wte.weight"),
                 Rule("embeddings.position_embeddings.weight", "wpe.weight")]
        for i in range(cfg.layers):
            rules += _gpt2_layer(i)
        return rules + _pairs("final_norm", "ln_f")
    rules = [Rule("embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"),
             Rule("embeddings.position_embeddings.weight",
                  "embeddings.position_embeddings.weight")]
    if cfg.type_vocab_size:
        rules.append(Rule("embeddings.token_type_embeddings.weight",
                          "embeddings.token_type_embeddings.weight"))
    rules += _pairs("embeddings.layer_norm", "embeddings.LayerNorm")
    for i in range(cfg.layers):
        rules += _bert_layer(i, cfg.family)
    return rules


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _strip_prefix(cfg: ArchConfig, names: list[str]) -> dict[str, str]:
    """Checkpoint name without the base model's prefix → the name as stored."""
    prefix = PREFIXES[cfg.family]
    if any(n.startswith(prefix) for n in names):
        return {(n[len(prefix):] if n.startswith(prefix) else n): n for n in names}
    return {n: n for n in names}


def check_names(cfg: ArchConfig, source: WeightSource,
                expected: dict[str, tuple[int, ...]]) -> tuple[list[Rule], dict[str, str]]:
    """Check the checkpoint's names and shapes against the mapping, from the headers
    alone. ``expected``: the course model's parameter shapes. Returns the rules and the
    stored name of every checkpoint name."""
    rules = name_mapping(cfg)
    stored = _strip_prefix(cfg, list(source))
    needed = {r.source for r in rules}
    missing = sorted(needed - stored.keys())
    if missing:
        raise PretrainedModelError(
            f"the weights lack {len(missing)} tensor(s) a {cfg.model_type} model needs: "
            f"{_listed(missing)}.")
    ignored = [re.compile(p) for p in IGNORED[cfg.family]]
    unknown = sorted(n for n in stored if n not in needed
                     and not any(p.fullmatch(n) for p in ignored))
    if unknown:
        raise PretrainedModelError(
            f"the weights hold {len(unknown)} tensor(s) a {cfg.model_type} model does not "
            f"have: {_listed(unknown)}.")
    for rule in rules:
        have = rule.shape(source.shapes[stored[rule.source]])
        if have != expected[rule.ours]:
            raise PretrainedModelError(
                f"{stored[rule.source]} has shape {list(source.shapes[stored[rule.source]])}; "
                f"config.json implies {list(expected[rule.ours])} for it.")
    return rules, stored


def map_weights(cfg: ArchConfig, source: WeightSource,
                expected: dict[str, tuple[int, ...]]) -> dict[str, torch.Tensor]:
    """The course model's state dict, read from the checkpoint through ``name_mapping``."""
    rules, stored = check_names(cfg, source, expected)
    cache: dict[str, torch.Tensor] = {}
    state = {}
    for rule in rules:
        name = stored[rule.source]
        if name not in cache:
            cache[name] = source.get(name)
        state[rule.ours] = rule.apply(cache[name]).contiguous()
        if rule.parts == 1 or rule.part == rule.parts - 1:
            cache.pop(name, None)       # a fused tensor is read once for its three parts
    if cfg.family == "gpt2" and "lm_head.weight" in stored:
        head = source.get(stored["lm_head.weight"])
        if head.shape != state["embeddings.word_embeddings.weight"].shape or not torch.equal(
                head, state["embeddings.word_embeddings.weight"]):
            raise PretrainedModelError("lm_head.weight differs from the token embedding "
                                       "wte.weight; ArchScope runs GPT-2 models with the "
                                       "output layer tied to the embedding.")
    return state
