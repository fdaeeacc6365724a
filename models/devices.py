"""Which torch devices this machine has, and turning a name into a ``torch.device``."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from models.errors import DeviceUnavailableError


@dataclass(frozen=True)
class DeviceInfo:
    name: str   # "cpu", "cuda:0", "mps"
    label: str  # what the toolbar shows


def available_devices() -> list[DeviceInfo]:
    """The CPU, every CUDA device (with its name) and MPS where it works; nothing else."""
    out = [DeviceInfo("cpu", "cpu")]
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            out.append(DeviceInfo(f"cuda:{i}", f"cuda:{i} — {torch.cuda.get_device_name(i)}"))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        out.append(DeviceInfo("mps", "mps — Apple GPU"))
    return out


def resolve_device(name: str) -> torch.device:
    """A ``torch.device`` for ``name``, or ``DeviceUnavailableError`` if it is not here."""
    names = [d.name for d in available_devices()]
    if name not in names:
        raise DeviceUnavailableError(
            f"The device '{name}' is not available on this machine "
            f"(available: {', '.join(names)}).")
    return torch.device(name)


def device_for(device: str | torch.device) -> torch.device:
    """A ``torch.device`` for "cpu", "cuda", "cuda:1", "mps"; ``DeviceUnavailableError`` if
    this machine does not have it ("cuda" means "cuda:0"). Every session takes its device
    through this, so an absent device reads the same everywhere."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise DeviceUnavailableError(f"'{device}' is not a device name (try cpu, cuda or mps)."
                                     ) from exc
    name = f"cuda:{dev.index or 0}" if dev.type == "cuda" else dev.type
    return resolve_device(name)


def versions() -> dict[str, str]:
    """Versions of torch and PyG for the About box. PyG's is read from its installed
    metadata, not by importing it: the import took 2-6 s of GIL-held work and 120 MB at
    start-up, for a tab that may never be opened (it is imported when the graph tab
    first computes)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"torch": torch.__version__}
    try:
        out["torch_geometric"] = version("torch_geometric")
    except PackageNotFoundError:
        out["torch_geometric"] = "not installed"
    return out


def set_cpu_threads(num_threads: int) -> None:
    """Torch's intra-op threads to ``num_threads``, numpy's (and scipy's) BLAS to one.

    Numpy's OpenBLAS starts as many threads as there are cores, and they spin-wait
    between calls as torch's OpenMP threads do: straight after torch work a 2000×16 SVD
    of the graph tab's embedding took 2–200 ms instead of 0.4 ms, and the 2,000-node SBM's
    GCN session ran 4–5× slower than a plain PyG loop (issue 18). The app's numpy
    matrices are small (projections, Procrustes, drawing), so one BLAS thread loses
    nothing and leaves the cores to torch and the GUI. The libraries already loaded are
    set through threadpoolctl; ``OPENBLAS_NUM_THREADS`` covers one loaded later (scipy's,
    read when it loads). A user's own ``OPENBLAS_NUM_THREADS`` wins."""
    torch.set_num_threads(num_threads)
    blas = os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from threadpoolctl import threadpool_limits

    # applies now, process-wide; nothing to restore
    threadpool_limits(limits=int(blas) if blas.isdigit() and int(blas) > 0 else 1,
                      user_api="blas")


def warm_up(num_threads: int) -> dict:
    """Load torch and what the tabs need first, for the shell's start-up thread: cap torch's
    threads at ``num_threads`` (the GUI keeps a core) and numpy's BLAS at one
    (``set_cpu_threads``), import the optimizers (``models.optim``, which keeps
    ``torch._dynamo`` out) and the first tabs' models, so that the first training job
    does not hold the GUI on an import. Returns versions and devices."""
    import models.optim  # noqa: F401

    set_cpu_threads(num_threads)
    import models.transformer.model  # noqa: F401
    import models.transformer.positional_probe  # noqa: F401

    return {"versions": versions(), "devices": available_devices()}


def manual_seed(seed: int) -> None:
    """Seed torch's global generators (CPU and every CUDA device), so a headless run
    that trains (``archscope export VIEW --train STEPS --seed S``) repeats itself;
    sessions seed their own weights and batches besides."""
    torch.manual_seed(int(seed))
