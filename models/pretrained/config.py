"""config.json of a Hugging Face model folder → the sizes and options of the course's
components, checked before anything is built.

Torch-free. One ``ArchConfig`` per folder; ``parse_config`` refuses an architecture
ArchScope does not run (naming those it does), options the course's components do not
have (an activation, relative positions, a differently scaled attention), and sizes
outside generous bounds, and ``ArchConfig.parameters`` estimates the model's size from
the config alone, so a folder asking for a giant model is refused before its weights
are read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.errors import PretrainedModelError
from models.pretrained.options import (
    DECODER_FAMILIES,
    FAMILIES,
    SUPPORTED_ARCHITECTURES,
)

#: Hugging Face's names for the activations → the course's ``PositionWiseFeedForward``'s
ACTIVATION_NAMES = {"gelu": "gelu", "relu": "relu", "gelu_new": "gelu_new",
                    "gelu_pytorch_tanh": "gelu_new"}

#: bounds on the sizes of a config (generous: GPT-2 XL has 48 layers, 1600 wide, 25 heads)
BOUNDS = {"layers": (1, 128), "d_model": (1, 16384), "heads": (1, 256),
          "d_ff": (1, 65536), "vocab_size": (1, 1_000_000), "positions": (1, 65536),
          "type_vocab_size": (0, 16)}


@dataclass(frozen=True)
class ArchConfig:
    """What the course's components need to hold a pretrained model.

    ``positions`` is the longest sequence the model takes (RoBERTa loses
    ``position_offset`` rows of its table to the padding id); ``position_rows`` the
    rows of its position table; ``type_vocab_size`` 0 for a model without token types.
    """

    model_type: str
    family: str
    layers: int
    d_model: int
    heads: int
    d_ff: int
    vocab_size: int
    position_rows: int
    position_offset: int
    type_vocab_size: int
    eps: float
    activation: str
    pad_token_id: int

    @property
    def is_decoder(self) -> bool:
        return self.family in DECODER_FAMILIES

    @property
    def positions(self) -> int:
        return self.position_rows - self.position_offset

    @property
    def parameters(self) -> int:
        """The number of weights the model has, from the config alone."""
        d, ff = self.d_model, self.d_ff
        per_layer = 4 * (d * d + d) + (d * ff + ff) + (ff * d + d) + 4 * d
        embeddings = (self.vocab_size + self.position_rows + self.type_vocab_size) * d
        return embeddings + 2 * d + self.layers * per_layer


def _whole(config: dict, key: str, bound: str, default=None) -> int:
    value = config.get(key, default)
    lo, hi = BOUNDS[bound]
    if isinstance(value, bool) or not isinstance(value, int):
        raise PretrainedModelError(f"config.json: {key} = {value!r} is not a whole number.")
    if not lo <= value <= hi:
        raise PretrainedModelError(f"config.json: {key} = {value} is outside the range "
                                   f"{lo} to {hi} ArchScope accepts.")
    return value


def _activation(config: dict, key: str, default: str) -> str:
    name = config.get(key, default)
    if name not in ACTIVATION_NAMES:
        raise PretrainedModelError(
            f"config.json: {key} = {name!r} is not supported; the course's feed-forward "
            f"has {', '.join(sorted(ACTIVATION_NAMES))}.")
    return ACTIVATION_NAMES[name]


def _eps(config: dict, key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not (math.isfinite(value) and 0 < value < 1):
        raise PretrainedModelError(f"config.json: {key} = {value!r} is not a small positive "
                                   "number.")
    return float(value)


def _refuse_option(config: dict, key: str, allowed, what: str) -> None:
    value = config.get(key, allowed)
    if value != allowed:
        raise PretrainedModelError(f"config.json: {key} = {value!r}; ArchScope runs only "
                                   f"{what} ({key} = {allowed!r}).")


def unsupported_message(model_type) -> str:
    return (f"config.json: model_type {model_type!r} is not supported. ArchScope runs "
            f"{', '.join(SUPPORTED_ARCHITECTURES)}.")


def parse_config(config: object) -> ArchConfig:
    """config.json (parsed) → ``ArchConfig``; ``PretrainedModelError`` naming the field
    for anything the course's components cannot hold."""
    if not isinstance(config, dict):
        raise PretrainedModelError("config.json does not hold a JSON object.")
    model_type = config.get("model_type")
    family = FAMILIES.get(model_type) if isinstance(model_type, str) else None
    if family is None:
        raise PretrainedModelError(unsupported_message(model_type))
    if family == "gpt2":
        d = _whole(config, "n_embd", "d_model")
        inner = config.get("n_inner")
        _refuse_option(config, "scale_attn_weights", True, "attention scaled by 1/√d_k")
        _refuse_option(config, "scale_attn_by_inverse_layer_idx", False,
                       "attention scaled by 1/√d_k")
        values = dict(layers=_whole(config, "n_layer", "layers"), d_model=d,
                      heads=_whole(config, "n_head", "heads"),
                      d_ff=4 * d if inner is None else _whole(config, "n_inner", "d_ff"),
                      position_rows=_whole(config, "n_positions", "positions"),
                      position_offset=0, type_vocab_size=0,
                      eps=_eps(config, "layer_norm_epsilon", 1e-5),
                      activation=_activation(config, "activation_function", "gelu_new"),
                      pad_token_id=0)
    elif family == "distilbert":
        values = dict(layers=_whole(config, "n_layers", "layers"),
                      d_model=_whole(config, "dim", "d_model"),
                      heads=_whole(config, "n_heads", "heads"),
                      d_ff=_whole(config, "hidden_dim", "d_ff"),
                      position_rows=_whole(config, "max_position_embeddings", "positions"),
                      position_offset=0, type_vocab_size=0, eps=1e-12,
                      activation=_activation(config, "activation", "gelu"),
                      pad_token_id=config.get("pad_token_id", 0) or 0)
    else:                                                   # bert, roberta
        _refuse_option(config, "position_embedding_type", "absolute",
                       "learned absolute positions")
        pad = config.get("pad_token_id", 1 if family == "roberta" else 0)
        if isinstance(pad, bool) or not isinstance(pad, int) or pad < 0:
            raise PretrainedModelError(f"config.json: pad_token_id = {pad!r} is not a "
                                       "whole number.")
        values = dict(layers=_whole(config, "num_hidden_layers", "layers"),
                      d_model=_whole(config, "hidden_size", "d_model"),
                      heads=_whole(config, "num_attention_heads", "heads"),
                      d_ff=_whole(config, "intermediate_size", "d_ff"),
                      position_rows=_whole(config, "max_position_embeddings", "positions"),
                      position_offset=pad + 1 if family == "roberta" else 0,
                      type_vocab_size=_whole(config, "type_vocab_size", "type_vocab_size", 2),
                      eps=_eps(config, "layer_norm_eps", 1e-12),
                      activation=_activation(config, "hidden_act", "gelu"),
                      pad_token_id=pad)
    if values["d_model"] % values["heads"]:
        raise PretrainedModelError(
            f"config.json: the width {values['d_model']} is not divisible by the "
            f"{values['heads']} heads.")
    arch = ArchConfig(model_type=model_type, family=family,
                      vocab_size=_whole(config, "vocab_size", "vocab_size"), **values)
    if arch.positions < 1:
        raise PretrainedModelError(f"config.json: {arch.position_rows} positions leave none "
                                   f"after the padding offset {arch.position_offset}.")
    return arch
