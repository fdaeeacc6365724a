"""Option names of the Transformer topic, shared by the models and the GUI.

Torch-free (plain tuples and strings), so ``app/`` imports it at module top without
loading torch: ``import models.transformer.options`` runs the package's lazy face only.

Token ids: 0 = <pad> (shown ·), 1 = <bos> (▸), 2 = <eos> (■), 3 + s = symbol s.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.errors import InvalidParameterError
from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["ABLATIONS", "SIZE_RANGES", "SIZE_ACTIVATIONS", "SIZE_NORMS", "PositionalRequest", "TransformerRequest", "TRANSFORMER_RANGES", "POSITIONAL_RANGES", "RELATIVE_MODES", "parse_dims", "PAD", "BOS", "EOS", "SPECIALS", "TASKS", "ARCHITECTURES", "CHARACTERS", "WORDS",
           "ALPHABETS", "SAMPLES", "KINDS", "EMBEDDING_INITS"]

PAD, BOS, EOS = 0, 1, 2
#: short display names, so token labels fit under a heatmap column
SPECIALS = ("·", "▸", "■")
TASKS = ("copy", "reverse", "sort", "shift")
ARCHITECTURES = ("encoder-decoder", "encoder-only", "decoder-only")

#: the characters of the free-text tokenizer (text is lower-cased first)
CHARACTERS = "abcdefghijklmnopqrstuvwxyz .,!?'-"
#: the words of the word tokenizer: a small vocabulary, so a model can learn on it
_WORD_TEXT = ("the a an this that my your one two three cat dog bird fish man woman child "
              "sun moon tree house book car is was sees saw likes eats runs sleeps sings "
              "big small red blue green old new happy sad on in under near and but not "
              "very today now")
WORDS = tuple(_WORD_TEXT.split())
ALPHABETS = ("digits", "characters", "words")
#: example inputs for Generate with the text tokenizers
SAMPLES = {"characters": ("hello world", "attention!", "transformer", "the cat sat",
                          "query key", "sort me", "it's a mask", "deep learning"),
           "words": ("the cat sees a bird", "my dog runs", "the old man sleeps now",
                     "a small red car", "this child likes the moon", "the sun was very big",
                     "one fish and one bird", "the woman sings today")}

#: the switches that break one idea each (the Transformer tab's Ablations view): no
#: positional encoding, no 1/√d_k, no residual connections, BatchNorm for LayerNorm
ABLATIONS = ("no_pe", "no_scale", "no_residual", "batchnorm")

#: the attention kinds of the Transformer tab: encoder self-, decoder self-, cross-attention
KINDS = ("encoder", "decoder", "cross")
#: token-embedding initialisations of the positional-encoding explorer
EMBEDDING_INITS = ("normal", "scaled")

#: what the positional tab's relative-position view shows: the exact map, the learned
#: one, or their difference
RELATIVE_MODES = ("analytic", "learned", "difference")

#: the positional tab's numbers: defaults and limits (its sliders are built from these)
POSITIONAL_RANGES: dict[str, Range] = {
    "d_model": Range(128, 2, 1024),        # even: sin and cos in pairs
    "max_len": Range(100, 1, 4096),
    "base": Range(10000.0, 2, 1_000_000),
    "offset": Range(4, 0, 4095),           # and below max_len
}
#: the most dimensions the curves view draws
MAX_CURVE_DIMS = 12


def parse_dims(text: str, d_model: int, limit: int = MAX_CURVE_DIMS
               ) -> tuple[list[int], list[str]]:
    """Dimensions typed as "0, 1, 8-11"; returns (valid dims, problems).

    Ranges are clipped to [0, d_model) without being walked, so "0-999999999" costs
    nothing; at most ``limit`` dimensions are kept.
    """
    dims: list[int] = []
    problems: list[str] = []
    for part in text.replace(";", ",").replace("，", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part[1:]:
                a, b = (int(x) for x in part.split("-", 1))
            else:
                a = b = int(part)
        except ValueError:
            problems.append(part)
            continue
        if a > b:
            problems.append(part)
            continue
        lo, hi = max(a, 0), min(b, d_model - 1)
        if lo > hi or (a, b) != (lo, hi):
            problems.append(part)
        for d in range(lo, min(hi, lo + limit) + 1):
            if d not in dims:
                dims.append(d)
    if len(dims) > limit:
        problems.append(f"(more than {limit})")
    return dims[:limit], problems


def _positional_default(key: str):
    return POSITIONAL_RANGES[key].default


@dataclass(frozen=True)
class PositionalRequest(Request):
    """One setting of the positional tab: the table (``d_model``, ``max_len``, ``base``),
    the offset k of the relative-position map, the dimensions typed for the curves, the
    sentence and how its tokens are embedded, and what the relative view shows. Checked
    when made (``InvalidParameterError`` naming the key); ``models.transformer``'s
    ``pe_grid`` and ``offset_fit`` take it."""

    d_model: int = _positional_default("d_model")
    max_len: int = _positional_default("max_len")
    base: float = _positional_default("base")
    offset: int = _positional_default("offset")
    dims: str = "2, 20, 60, 120"
    sentence: str = "the cat sat on the mat"
    init: str = "normal"
    relative_mode: str = "analytic"

    def __post_init__(self) -> None:
        check_whole(self, "d_model", "max_len", "offset")
        check_range(self, POSITIONAL_RANGES, "d_model", "max_len", "base", "offset")
        if self.offset > self.max_len - 1:
            raise InvalidParameterError(
                f"offset = {self.offset} must be between 0 and {self.max_len - 1:g}.")
        check_choice(self, "init", EMBEDDING_INITS)
        check_choice(self, "relative_mode", RELATIVE_MODES)
        for key in ("dims", "sentence"):
            if not isinstance(getattr(self, key), str):
                raise InvalidParameterError(f"{key} must be text, not {getattr(self, key)!r}.")


    @property
    def curve_dims(self) -> list[int]:
        """The dimensions typed that are below d_model (at most ``MAX_CURVE_DIMS``)."""
        return parse_dims(self.dims, self.d_model)[0]

    @property
    def ignored_dims(self) -> list[str]:
        """What was typed that is not a dimension below d_model."""
        return parse_dims(self.dims, self.d_model)[1]


#: the Transformer tab's numbers: defaults and the widest limits of any model the tab
#: makes or opens (``HYPERPARAMETER_LIMITS``: at most 12 layers, 64 heads, 64 symbols);
#: the controls narrow them to the model shown
TRANSFORMER_RANGES: dict[str, Range] = {
    "pad_to": Range(10, 1, 64),            # and at least the input's length
    "layer": Range(1, 0, 11),
    "head": Range(0, 0, 63),
    "generated": Range(0, 0, 65),          # 0 = the whole output at once
}


#: the size study's variant (the Transformer tab's Sizes view): layers per stack (a
#: one-stack model gets twice as many, as the tab's models do), heads, d_model, d_ff,
#: dropout, and the training steps of the variant and of the baseline beside it
SIZE_RANGES: dict[str, Range] = {
    "size_layers": Range(2, 1, 6),
    "size_heads": Range(4, 1, 16),
    "size_d_model": Range(64, 8, 256),     # even, and a multiple of the heads
    "size_d_ff": Range(128, 8, 1024),
    "size_dropout": Range(0.0, 0.0, 0.5),
    "size_steps": Range(300, 20, 3000),
}
#: the feed-forward's activation, and where the LayerNorm sits (the paper's post-norm
#: LayerNorm(x + F(x)), or pre-norm x + F(LayerNorm(x)) with a last LayerNorm per stack)
SIZE_ACTIVATIONS = ("relu", "gelu")
#: held-out evaluations over a study (greedy decoding of every held-out sequence)
SIZE_EVALUATIONS = 6
SIZE_NORMS = ("post", "pre")


def _transformer_default(key: str) -> int:
    return int(TRANSFORMER_RANGES[key].default)


def _size_default(key: str):
    return SIZE_RANGES[key].default


@dataclass(frozen=True)
class TransformerRequest(Request):
    """One setting of the Transformer tab: which model (``architecture``, ``tokenizer``,
    ``task``), the input (``sequence`` padded to ``pad_to``), which attention (``kind``,
    ``layer``, ``head``) with which masks, the decoding step shown (``generated``, 0 = the
    whole output), the forward-pass step (``step``), whether the attention is computed
    as the course writes it, and the switch the Ablations view measures (``ablation``).
    Checked when made (``InvalidParameterError`` naming the key) against the widest
    limits; ``session_trace`` clamps layer, head and padding to the
    model it runs."""

    architecture: str = "encoder-decoder"
    tokenizer: str = "digits"
    task: str = "reverse"
    sequence: str = "3 1 4 1 5 9 2 6"
    pad_to: int = _transformer_default("pad_to")
    kind: str = "cross"
    layer: int = _transformer_default("layer")
    head: int = _transformer_default("head")
    padding: bool = True
    look_ahead: bool = True
    generated: int = _transformer_default("generated")
    step: str = "self.softmax"
    course: bool = False
    ablation: str = "no_pe"
    size_layers: int = int(_size_default("size_layers"))
    size_heads: int = int(_size_default("size_heads"))
    size_d_model: int = int(_size_default("size_d_model"))
    size_d_ff: int = int(_size_default("size_d_ff"))
    size_dropout: float = _size_default("size_dropout")
    size_activation: str = "relu"
    size_norm: str = "post"
    size_steps: int = int(_size_default("size_steps"))

    def __post_init__(self) -> None:
        check_choice(self, "architecture", ARCHITECTURES)
        check_choice(self, "ablation", ABLATIONS)
        check_choice(self, "size_activation", SIZE_ACTIVATIONS)
        check_choice(self, "size_norm", SIZE_NORMS)
        wholes = [k for k in SIZE_RANGES if k != "size_dropout"]
        check_whole(self, *wholes)
        check_range(self, SIZE_RANGES, *SIZE_RANGES)
        if self.size_d_model % 2 or self.size_d_model % self.size_heads:
            raise InvalidParameterError(
                f"size_d_model = {self.size_d_model} must be even and a multiple of "
                f"size_heads = {self.size_heads} (each head gets d_model / heads "
                "dimensions).")
        check_choice(self, "tokenizer", ALPHABETS)
        check_choice(self, "task", TASKS)
        check_choice(self, "kind", KINDS)
        for key in ("sequence", "step"):
            if not isinstance(getattr(self, key), str):
                raise InvalidParameterError(f"{key} must be text, not {getattr(self, key)!r}.")
        check_whole(self, *TRANSFORMER_RANGES)
        check_range(self, TRANSFORMER_RANGES, *TRANSFORMER_RANGES)
        check_flags(self, "padding", "look_ahead", "course")


    @property
    def size_values(self) -> dict:
        """The size study's variant as ``ModelConfig`` fields (without the architecture)."""
        return {"num_encoder_layers": self.size_layers, "num_decoder_layers": self.size_layers,
                "d_model": self.size_d_model, "num_heads": self.size_heads,
                "d_ff": self.size_d_ff, "dropout": float(self.size_dropout),
                "activation": self.size_activation, "norm_first": self.size_norm == "pre"}

    @property
    def model_key(self) -> tuple[str, str, str]:
        """(architecture, tokenizer, task): which of the tab's models it asks for."""
        return self.architecture, self.tokenizer, self.task
