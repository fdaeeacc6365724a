"""Checkpoints: the rollback points of a training session, and reading saved files.

Rollback points are a copy of the weights and the optimizer's state, taken by
``models.session.TrainingSession`` every ``snapshot_every`` good steps, restored when a
step diverges, and moved with the model to another device.

Saved files (a Transformer model, a PyG graph) are read by ``load_torch_file``, which
checks them before ``torch.load`` reads a byte of their tensors: the file must be in
torch's zip format (since PyTorch 1.6), whose central directory declares every member's
size, so an archive that would unpack to more than ``MAX_UNPACKED_BYTES``, has more than
``MAX_MEMBERS`` members, a pickle over ``MAX_PICKLE_BYTES`` or a large member compressed
more than ``MAX_COMPRESSION_RATIO`` times (a zip bomb: a few MB on disk, gigabytes in
memory) is refused unread. Then
``torch.load(weights_only=True)``: a file whose pickle names anything but tensors and plain
containers is refused because loading it could run code, naming what it refers to, and
never with PyTorch's advice to load it with ``weights_only=False``.

Files in the legacy format (``torch.save(..., _use_new_zipfile_serialization=False)``,
or PyTorch before 1.6) are refused with the conversion to do: their storage sizes are
declared inside the pickle and allocated while unpickling, before anything could check
them, and no PyTorch of the last five years writes them. A plain pickle is refused too;
the classes either would create are named (found by reading the pickle's opcodes with
``pickletools``, which executes nothing).
"""

from __future__ import annotations

import io
import os
import pickle
import pickletools
import re
import warnings
import zipfile
from pathlib import Path

import torch

#: the most the members of a saved file may declare, unpacked, together
MAX_UNPACKED_BYTES = 1 << 30
#: the largest pickle (``data.pkl``: the structure around the tensors, a few KB for a
#: model or a graph); unpickling builds Python objects up to ~50 times its size
MAX_PICKLE_BYTES = 8 << 20
#: the most members an archive may have (torch writes one per tensor storage, plus 5)
MAX_MEMBERS = 10_000
#: the largest unpacked-to-packed ratio of a member over ``RATIO_FROM_BYTES`` (torch
#: stores its records uncompressed, ratio 1; deflated zeros reach about 1030)
MAX_COMPRESSION_RATIO = 200
RATIO_FROM_BYTES = 16 << 20
#: the pickle ``torch.save`` writes first in its legacy format (its magic number)
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)
#: how much of a file that is not a zip is scanned for what its pickle refers to
_HEAD = 1 << 20


def snapshot(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """A deep copy of the model's and the optimizer's state (a few tens of thousands of
    floats for the course's models)."""
    clone = {k: v.detach().clone() for k, v in model.state_dict().items()}
    opt = optimizer.state_dict()
    opt_state = {i: {k: v.clone() if torch.is_tensor(v) else v for k, v in s.items()}
                 for i, s in opt["state"].items()}
    return {"model": clone, "optimizer": {"state": opt_state,
                                          "param_groups": opt["param_groups"]}}


def restore(model: torch.nn.Module, optimizer: torch.optim.Optimizer, state: dict) -> None:
    """Put back the weights and the optimizer's state (Adam's moments, step counts) that
    ``snapshot`` copied, but keep the hyper-parameters set since (a learning rate the
    user lowered after the snapshot, typically in reaction to the blow-up, stays)."""
    hyper = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    for group, kept in zip(optimizer.param_groups, hyper, strict=True):
        group.update(kept)


#: how an optimizer runs, not what it computes: a saved state never sets these (a file
#: saved before the sessions' Adam took ``foreach=True`` holds ``foreach: None``)
IMPLEMENTATION_KEYS = ("foreach", "fused", "capturable", "differentiable")


def load_optimizer_state(optimizer: torch.optim.Optimizer, state: dict) -> None:
    """``optimizer.load_state_dict(state)``, keeping the optimizer's own
    ``IMPLEMENTATION_KEYS`` (the saved hyper-parameters and moments are taken)."""
    own = [{k: g[k] for k in IMPLEMENTATION_KEYS if k in g} for g in optimizer.param_groups]
    optimizer.load_state_dict(state)
    for group, kept in zip(optimizer.param_groups, own, strict=True):
        group.update(kept)


def move_snapshot(state: dict, device: torch.device) -> dict:
    """A ``snapshot`` with its tensors on ``device`` (scalars such as Adam's step count
    stay where they are, as in ``move_optimizer_state``)."""
    def move(v):
        return v.to(device) if torch.is_tensor(v) and v.dim() > 0 else v

    opt = state["optimizer"]
    return {"model": {k: move(v) for k, v in state["model"].items()},
            "optimizer": {"state": {i: {k: move(v) for k, v in s.items()}
                                    for i, s in opt["state"].items()},
                          "param_groups": opt["param_groups"]}}


def move_optimizer_state(optimizer: torch.optim.Optimizer, device: torch.device) -> None:
    """Adam's moment buffers follow the parameters to ``device`` (scalars such as the
    step count stay where they are)."""
    for state in optimizer.state.values():
        for k, v in state.items():
            if torch.is_tensor(v) and v.dim() > 0:
                state[k] = v.to(device)


# -- reading saved files ---------------------------------------------------------------------------
def _size(nbytes: float) -> str:
    for unit, scale in (("GB", 2 ** 30), ("MB", 2 ** 20), ("KB", 2 ** 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def pickle_globals(data: bytes, pickles: int = 4, limit: int = 20) -> list[str]:
    """The classes and functions the first ``pickles`` pickles in ``data`` refer to
    (``module.name``), read from the opcodes: nothing is executed or created."""
    found: list[str] = []
    strings: list[str] = []
    stream = io.BytesIO(data)
    try:
        for _ in range(pickles):
            if stream.tell() >= len(data):
                break
            for op, arg, _pos in pickletools.genops(stream):
                if op.name in ("GLOBAL", "INST") and isinstance(arg, str):
                    found.append(arg.replace(" ", "."))
                elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                    found.append(f"{strings[-2]}.{strings[-1]}")
                elif isinstance(arg, str):
                    strings.append(arg)
                if op.name == "STOP":
                    break
    except (ValueError, EOFError, UnicodeDecodeError, pickle.UnpicklingError, IndexError,
            OverflowError, MemoryError):
        pass
    return list(dict.fromkeys(found))[:limit]


#: what a weights-only load accepts anyway (so it says nothing about running code)
_PLAIN = re.compile(r"^(torch\._utils\._rebuild\w*|torch\.\w*Storage|collections\.OrderedDict|"
                    r"torch\.(float|int|bool|bfloat|uint|complex)\w*|builtins\.(set|frozenset|"
                    r"bytearray|slice|complex)|torch\.Size|torch\.device)$")


def _global_name(name: str) -> str:
    """``builtins.print`` for torch's ``print`` and protocol 2's ``__builtin__.print``."""
    if name.startswith("__builtin__."):
        return "builtins." + name.split(".", 1)[1]
    return name if "." in name else f"builtins.{name}"


def _not_plain(names: list[str], allowed: tuple = ()) -> list[str]:
    ok = {f"{c.__module__}.{c.__qualname__}" for c in allowed}
    return [_global_name(n) for n in names if not _PLAIN.match(n) and n not in ok]


def check_torch_archive(data: bytes | str | os.PathLike, name: str,
                        error: type[Exception] = ValueError, allowed: tuple = ()) -> None:
    """Refuse (``error`` naming the file) what ``torch.load`` should not be given: an
    empty file, anything not in torch's zip format (a legacy file, a plain pickle,
    something else), or an archive whose declared sizes are a zip bomb. ``data`` is the
    file's bytes or its path; only its first MiB (a pickle's opcodes are scanned there)
    and the zip's directory are read."""
    if isinstance(data, (bytes, bytearray)):
        head, total, source = bytes(data[:_HEAD]), len(data), io.BytesIO(data)
    else:
        path = Path(data)
        try:
            total = path.stat().st_size
            with open(path, "rb") as fh:
                head = fh.read(_HEAD)
        except OSError as exc:
            raise error(f"{name}: cannot open the file ({exc.strerror or exc}).") from exc
        source = path
    if total == 0:
        raise error(f"{name}: the file is empty (0 bytes).")
    if total > MAX_UNPACKED_BYTES + (64 << 20):
        raise error(f"{name}: the file is {_size(total)}; ArchScope opens saved files up to "
                    f"{_size(MAX_UNPACKED_BYTES)}.")
    if not head.startswith(b"PK\x03\x04"):
        _refuse_non_zip(head, name, error, allowed)
    try:
        with zipfile.ZipFile(source) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise error(f"{name}: a damaged zip archive, not a readable PyTorch file "
                    f"({exc}).") from exc
    _check_members(infos, name, error)


def _refuse_non_zip(data: bytes, name: str, error: type[Exception], allowed: tuple) -> None:
    odd = _not_plain(pickle_globals(data), allowed)
    if odd:
        raise error(f"{name}: refused: the file would run code or create objects that are "
                    f"not plain data (it refers to {', '.join(odd[:5])}).")
    if data.startswith(_LEGACY_MAGIC):
        raise error(f"{name}: saved in PyTorch's legacy format (before PyTorch 1.6, or "
                    "with _use_new_zipfile_serialization=False), which ArchScope does not "
                    "open: its sizes cannot be checked before they are allocated. Convert "
                    "it in Python: obj = torch.load(path, weights_only=True); "
                    "torch.save(obj, new_path).")
    if data[:1] == b"\x80":
        raise error(f"{name}: not a readable PyTorch file: a pickle, but not in the zip "
                    "format torch.save writes.")
    raise error(f"{name}: not a PyTorch file (torch.save writes a zip archive; this file "
                f"starts with {data[:8]!r}).")


def _check_members(infos: list[zipfile.ZipInfo], name: str, error: type[Exception]) -> None:
    if not any(i.filename.endswith("data.pkl") for i in infos):
        raise error(f"{name}: a zip archive, but not one written by torch.save (it has no "
                    "data.pkl).")
    if len(infos) > MAX_MEMBERS:
        raise error(f"{name}: refused: the archive has {len(infos):,} members; a saved "
                    f"model or graph has at most {MAX_MEMBERS:,}.")
    pickles = [i for i in infos if i.filename.endswith("data.pkl")]
    if max(i.file_size for i in pickles) > MAX_PICKLE_BYTES:
        raise error(f"{name}: refused: its pickle (data.pkl) is "
                    f"{_size(max(i.file_size for i in pickles))}; a saved model or graph "
                    f"keeps its data in tensors and needs at most {_size(MAX_PICKLE_BYTES)} "
                    "of pickle.")
    declared = sum(i.file_size for i in infos)
    if declared > MAX_UNPACKED_BYTES:
        packed = sum(i.compress_size for i in infos)
        raise error(f"{name}: refused: the archive would unpack to {_size(declared)} "
                    f"(from {_size(packed)} on disk); ArchScope opens saved files up to "
                    f"{_size(MAX_UNPACKED_BYTES)} unpacked.")
    for i in infos:
        if i.file_size > RATIO_FROM_BYTES and \
                i.file_size > MAX_COMPRESSION_RATIO * max(i.compress_size, 1):
            raise error(f"{name}: refused: the member {i.filename} unpacks "
                        f"{i.file_size / max(i.compress_size, 1):,.0f} times larger "
                        f"({_size(i.compress_size)} to {_size(i.file_size)}); torch.save "
                        "does not compress, so this archive was built to exhaust memory.")


def load_torch_file(data: bytes | str | os.PathLike, name: str,
                    error: type[Exception] = ValueError, allowed: tuple = ()):
    """``check_torch_archive``, then ``torch.load(weights_only=True)`` on the CPU with
    the classes ``allowed`` (e.g. PyG's ``Data``) and nothing else. Every failure is an
    ``error`` whose message names the file and never suggests ``weights_only=False``."""
    check_torch_archive(data, name, error, allowed)
    source = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    try:
        with torch.serialization.safe_globals(list(allowed)), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = torch.load(source, weights_only=True, map_location="cpu")
    except pickle.UnpicklingError as exc:
        raise _unpickling_error(str(exc), name, error, allowed) from None
    except MemoryError as exc:
        raise error(f"{name}: there is not enough memory to read this file.") from exc
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a bad file
        raise error(f"{name}: not a readable PyTorch file ({_detail(exc)}).") from exc
    check_tensor_data(loaded, name, error)
    return loaded


#: how many containers and tensors ``check_tensor_data`` looks at before it refuses
MAX_LOADED_ITEMS = 1_000_000


def check_tensor_data(obj, name: str, error: type[Exception] = ValueError) -> None:
    """Refuse a tensor that claims more values than its data holds: a few stored bytes
    with stride 0 in every dimension read as 10⁸–10¹⁰ values, which the first ``min``,
    ``numpy()`` or ``float()`` would compute over or allocate (11–32 GB asked for by a
    2 KB file). ``torch.save`` writes such a tensor only for an expanded view, which
    ``.contiguous()`` turns into a plain one. Walks dicts, lists, tuples and PyG's
    ``Data`` (its ``to_dict``)."""
    stack, seen = [obj], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_LOADED_ITEMS:
            raise error(f"{name}: refused: it holds more than {MAX_LOADED_ITEMS:,} objects.")
        if isinstance(item, torch.Tensor):
            if item.layout != torch.strided:
                raise error(f"{name}: refused: it holds a {item.layout} tensor; ArchScope "
                            "reads dense tensors only.")
            values = item.numel()
            held = item.untyped_storage().nbytes() // max(1, item.element_size())
            if values > held:
                raise error(
                    f"{name}: refused: a tensor of shape {tuple(item.shape)} claims "
                    f"{values:,} values over {held:,} stored (strides "
                    f"{tuple(item.stride())}); save it with .contiguous().")
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif callable(getattr(item, "to_dict", None)) and type(item).__module__.startswith(
                "torch_geometric."):
            stack.extend(item.to_dict().values())


def _unpickling_error(msg: str, name: str, error: type[Exception], allowed: tuple):
    culprit = re.search(r"GLOBAL\s+([\w.]+)", msg)
    if culprit and culprit.group(1) not in {f"{c.__module__}.{c.__qualname__}"
                                            for c in allowed}:
        what = _global_name(culprit.group(1))
        return error(f"{name}: refused: the file would run code or create objects that "
                     f"are not plain data (it refers to {what}).")
    detail = msg.split("WeightsUnpickler error:")[-1].split("Check the documentation")[0]
    detail = detail.strip()
    if "weights_only" in detail or not detail:
        detail = "its pickle is damaged or uses what a saved tensor file never does"
    return error(f"{name}: not a readable PyTorch file ({detail[:200]}).")


def _detail(exc: BaseException) -> str:
    """A short, clean reason from an exception of torch (no advice about weights_only)."""
    text = " ".join(str(exc).split())
    text = text.split(". Check the documentation")[0]
    if not text or "weights_only" in text:
        return {EOFError: "the file ends too early"}.get(type(exc), type(exc).__name__)
    return text[:200]
