"""``load_pretrained``: a model folder (or the bundled all-MiniLM-L6-v2) → a
``PretrainedModel`` whose weights sit in the course's components.

The order is the order of cost, so a folder is refused before anything big happens:
the files present → config.json (architecture, options, sizes) → the parameter count
from the config against ``max_parameters`` → the weights' names and shapes from their
headers against the name mapping → the tokenizer → only then the tensors are read,
into a model built on the meta device (no random initialisation to throw away).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import torch

from models.errors import PretrainedModelError
from models.pretrained.config import ArchConfig, parse_config
from models.pretrained.mapping import map_weights
from models.pretrained.model import PretrainedModel
from models.pretrained.network import PretrainedDecoder, PretrainedEncoder
from models.pretrained.options import (
    BUNDLED_NAME,
    BUNDLED_PACKAGE,
    CONFIG_FILE,
    DEFAULT_MAX_PARAMETERS,
    INSTALL_COMMAND,
    SAFETENSORS_INDEX,
    TOKENIZER_FILE,
    bundled_model_path,
)
from models.pretrained.text import TextTokenizer
from models.pretrained.weights import check_folder, open_weights, read_json


def bundled_folder() -> Path:
    """The bundled model's folder; ``PretrainedModelError`` with the install command
    when its package is missing."""
    folder = bundled_model_path()
    if folder is None:
        raise PretrainedModelError(
            f"The bundled model {BUNDLED_NAME} is not installed (package {BUNDLED_PACKAGE}). "
            f"Install it with: {INSTALL_COMMAND}")
    return folder


def inspect_pretrained(path: str | Path | None = None) -> ArchConfig:
    """The architecture and size of a model folder (None: the bundled model) from its
    config.json, without reading weights: for a memory estimate before loading
    (``ArchConfig.parameters`` × 4 bytes). Refuses what ``load_pretrained`` refuses
    about the files and the config."""
    folder = bundled_folder() if path is None else Path(path)
    check_folder(folder)
    return parse_config(read_json(folder / CONFIG_FILE))


def load_pretrained(path: str | Path | None = None, *,
                    max_parameters: int = DEFAULT_MAX_PARAMETERS) -> PretrainedModel:
    """The model in folder ``path`` (None: the bundled all-MiniLM-L6-v2), its weights
    in the course's components. Refuses, with a ``PretrainedModelError`` naming the
    problem, a folder with files missing, an architecture other than BERT, RoBERTa,
    DistilBERT or GPT-2, more than ``max_parameters`` parameters, and weights whose
    names or shapes do not match the mapping."""
    folder = bundled_folder() if path is None else Path(path)
    name = BUNDLED_NAME if path is None else folder.name
    # 1. the files, the config, the size: nothing big read yet
    weights_file = check_folder(folder)
    cfg = parse_config(read_json(folder / CONFIG_FILE))
    if cfg.parameters > max_parameters:
        raise PretrainedModelError(
            f"{name} has about {cfg.parameters:,} parameters "
            f"({cfg.parameters * 4 / 1e9:.1f} GB as float32); the limit is "
            f"{max_parameters:,}.")
    # 2. names and shapes from the headers, checked against the mapping; the tokenizer
    source = open_weights(weights_file)
    tokenizer = TextTokenizer(folder / TOKENIZER_FILE, cfg.vocab_size, cfg.positions)
    # 3. the tensors, through the mapping, into the course's components
    signature = _weights_signature(folder)
    network = _network(cfg, source)

    def reload() -> PretrainedEncoder | PretrainedDecoder:
        if _weights_signature(folder) != signature:
            raise PretrainedModelError(
                f"The files of {name} changed or are gone since it was opened; open the "
                "model again (File → Open…).")
        return _network(cfg, open_weights(weights_file))

    return PretrainedModel(name, folder, cfg, tokenizer, network, reload=reload)


def _weights_signature(folder: Path) -> tuple | None:
    """Name, size and modification time of the files a model's weights are read from
    (None: the folder cannot be listed)."""
    try:
        paths = sorted(folder.iterdir())
    except OSError:
        return None
    out = []
    for path in paths:
        if path.suffix in (".safetensors", ".bin") or path.name == SAFETENSORS_INDEX:
            with contextlib.suppress(OSError):
                st = path.stat()
                out.append((path.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def _network(cfg: ArchConfig, source) -> PretrainedEncoder | PretrainedDecoder:
    """The course's components built on the meta device (no random initialisation to
    throw away), then given the tensors of ``source`` through the name mapping."""
    kind = PretrainedDecoder if cfg.is_decoder else PretrainedEncoder
    with torch.device("meta"):
        network = kind(cfg)
    expected = {k: tuple(v.shape) for k, v in network.state_dict().items()}
    state = map_weights(cfg, source, expected)
    network.load_state_dict(state, strict=True, assign=True)
    return network
