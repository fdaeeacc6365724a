"""A Hugging Face model folder on disk: which files it has, its config, and its weights
by name, read without pickle.

One job: files → ``(config dict, WeightSource)``. The weights are a
``model.safetensors``, a sharded set listed in ``model.safetensors.index.json``, or a
``pytorch_model.bin`` read with ``torch.load(weights_only=True)`` (tensors only; a
checkpoint that needs anything else is refused with the conversion command). Names
and shapes are known before any tensor is read, so the size check and the name mapping
run on the header alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import torch

from models.errors import PretrainedModelError
from models.pretrained.options import (
    CONFIG_FILE,
    CONVERT_COMMAND,
    SAFETENSORS_FILE,
    SAFETENSORS_INDEX,
    TOKENIZER_FILE,
    WEIGHT_FILES,
)
from models.reading import loads_json, open_regular

#: config.json and the shard index are small; a larger file is not what it says it is
MAX_JSON_BYTES = 16_000_000
#: tokenizer.json: the largest of the supported families' is ~17 MB (XLM-R's 250k
#: pieces); a 60 MB one of 3 M tokens held the loading job 4.6 s and 750 MB
MAX_TOKENIZER_BYTES = 32_000_000


def check_folder(folder: Path) -> Path:
    """The weights file to read; ``PretrainedModelError`` naming every missing file."""
    if not folder.is_dir():
        raise PretrainedModelError(f"{folder} is not a folder; a model folder holds "
                                   f"{CONFIG_FILE}, {SAFETENSORS_FILE} and {TOKENIZER_FILE}.")
    missing = [name for name in (CONFIG_FILE, TOKENIZER_FILE)
               if not (folder / name).is_file()]
    weights = next((folder / name for name in WEIGHT_FILES if (folder / name).is_file()), None)
    if weights is None:
        missing.append(f"the weights ({' or '.join(WEIGHT_FILES)})")
    if missing:
        raise PretrainedModelError(f"{folder.name}: missing {', '.join(missing)}. A model "
                                   f"folder holds {CONFIG_FILE}, {SAFETENSORS_FILE} and "
                                   f"{TOKENIZER_FILE}, as save_pretrained writes them.")
    return weights


def read_small_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``PretrainedModelError``
    naming it otherwise (a pipe, a folder, too large, unreadable)."""
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise PretrainedModelError(f"{path.name} is {size:,} bytes, more than a "
                                           f"{path.name} can be ({limit:,}).")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise PretrainedModelError(f"{path.name} cannot be read ({exc.strerror or exc}).") \
            from None
    if len(data) > limit:
        raise PretrainedModelError(f"{path.name} is more than a {path.name} can be "
                                   f"({limit:,} bytes).")
    return data


def read_json(path: Path) -> object:
    data = read_small_file(path, MAX_JSON_BYTES)
    try:
        return loads_json(data.decode("utf-8"))
    except ValueError as exc:       # also UnicodeDecodeError, JSONDecodeError
        raise PretrainedModelError(f"{path.name} is not valid JSON: {exc}") from None


class WeightSource:
    """Named tensors of a checkpoint: ``shapes`` (name → shape) from the headers,
    ``get(name)`` reads one tensor as float32."""

    def __init__(self, shapes: dict[str, tuple[int, ...]], files: dict[str, object]) -> None:
        self.shapes = shapes
        self._files = files          # name → an open safe_open handle, or a dict of tensors

    def get(self, name: str) -> torch.Tensor:
        source = self._files[name]
        tensor = source[name] if isinstance(source, dict) else source.get_tensor(name)
        return tensor.to(torch.float32).contiguous()

    def __iter__(self) -> Iterator[str]:
        return iter(self.shapes)


def _open_safetensors(path: Path):
    from safetensors import SafetensorError, safe_open
    try:
        return safe_open(str(path), framework="pt")
    except (SafetensorError, OSError, ValueError) as exc:
        raise PretrainedModelError(f"{path.name} is not a readable safetensors file: "
                                   f"{exc}") from None


def _shape(handle, name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in handle.get_slice(name).get_shape())


def _from_safetensors(path: Path) -> WeightSource:
    handle = _open_safetensors(path)
    names = list(handle.keys())
    return WeightSource({n: _shape(handle, n) for n in names}, dict.fromkeys(names, handle))


def _from_index(folder: Path) -> WeightSource:
    index = read_json(folder / SAFETENSORS_INDEX)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise PretrainedModelError(f"{SAFETENSORS_INDEX} has no weight_map.")
    handles, held, shapes, files = {}, {}, {}, {}
    for name, shard in weight_map.items():
        if not isinstance(shard, str) or Path(shard).name != shard or \
                not shard.endswith(".safetensors"):
            raise PretrainedModelError(f"{SAFETENSORS_INDEX}: {name!r} is in {shard!r}, "
                                       "not a .safetensors file of this folder.")
        if shard not in handles:
            if not (folder / shard).is_file():
                raise PretrainedModelError(f"{SAFETENSORS_INDEX} lists {shard}, which is "
                                           "missing from the folder.")
            handles[shard] = _open_safetensors(folder / shard)
            held[shard] = set(handles[shard].keys())
        if name not in held[shard]:
            raise PretrainedModelError(f"{SAFETENSORS_INDEX} puts {name} in {shard}, which "
                                       "does not hold it.")
        shapes[name], files[name] = _shape(handles[shard], name), handles[shard]
    return WeightSource(shapes, files)


def _from_pickle(path: Path) -> WeightSource:
    refuse = (f"{path.name} could not be read as plain tensors (it is a pickle, and "
              "ArchScope does not run code from files). Convert it to safetensors: "
              f"{CONVERT_COMMAND.replace('FOLDER', str(path.parent))}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except Exception as exc:     # noqa: BLE001 - any failure of the restricted unpickler
        raise PretrainedModelError(f"{refuse} ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise PretrainedModelError(refuse)
    return WeightSource({k: tuple(v.shape) for k, v in state.items()}, dict.fromkeys(state, state))


def open_weights(weights: Path) -> WeightSource:
    """The names and shapes of the weights in ``weights`` (a file ``check_folder``
    returned); tensors are read later, one by one."""
    if weights.name == SAFETENSORS_FILE:
        return _from_safetensors(weights)
    if weights.name == SAFETENSORS_INDEX:
        return _from_index(weights.parent)
    return _from_pickle(weights)
