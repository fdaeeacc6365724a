"""A community detection result in a session file: its numbers as JSON, its arrays as
numpy, checked on the way back (``SessionFileError`` naming the file) before the tab
takes it. Numpy only: no torch, the result is a trace, not a model."""

from __future__ import annotations

import math

import numpy as np

from models.community.options import METHODS
from models.errors import SessionFileError
from models.session_numbers import decode_number, encode_number, prefixed_arrays
from models.traces.community import CommunityResult

__all__ = ["result_state", "result_from_state"]

_ARRAYS = ("labels", "soft", "loss", "loss_modularity")


def result_state(result: CommunityResult, prefix: str = "community"
                 ) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of ``result``; the arrays are named ``<prefix>.<field>``."""
    meta = {"method": result.method, "seed": int(result.seed), "k": int(result.k),
            "modularity": encode_number(result.modularity),
            "nmi": encode_number(result.nmi), "nmi_attribute": result.nmi_attribute,
            "k_rule": result.k_rule, "seconds": encode_number(result.seconds)}
    arrays = {f"{prefix}.{name}": np.ascontiguousarray(getattr(result, name))
              for name in _ARRAYS}
    return meta, arrays


def result_from_state(meta, arrays: dict, num_nodes: int, name: str = "",
                      prefix: str = "community") -> CommunityResult:
    """The result ``result_state`` wrote, checked against a graph of ``num_nodes``."""
    where = f"{name}: " if name else ""

    def bad(what: str) -> SessionFileError:
        return SessionFileError(f"{where}the community detection result {what}.")

    if not isinstance(meta, dict) or meta.get("method") not in METHODS:
        raise bad(f"names no method of {', '.join(METHODS)}")
    for key in ("seed", "k"):
        if isinstance(meta.get(key), bool) or not isinstance(meta.get(key), int):
            raise bad(f"has no whole number {key}")
    for key in ("nmi_attribute", "k_rule"):
        if not isinstance(meta.get(key, ""), str) or len(meta.get(key, "")) > 1000:
            raise bad(f"has a malformed {key}")
    got = prefixed_arrays(arrays, prefix, _ARRAYS, bad)
    labels, soft, k = got["labels"], got["soft"], meta["k"]
    if labels.dtype != np.int64 or labels.shape != (num_nodes,):
        raise bad(f"should have int64 labels for the {num_nodes:,} nodes of the graph "
                  f"shown (it has {labels.dtype} {list(labels.shape)})")
    if not 1 <= k <= max(num_nodes, 1) or labels.min(initial=0) < 0 or \
            labels.max(initial=0) >= k or len(np.unique(labels)) != k:
        raise bad(f"should number its {k} communities 0..{k - 1}, each used")
    if soft.dtype != np.float32 or soft.shape not in ((num_nodes, 0), (num_nodes, k)) or \
            not np.isfinite(soft).all() or (soft < 0).any() or (soft > 1.0001).any():
        raise bad(f"should have float32 soft assignments in [0, 1] of shape "
                  f"[{num_nodes}, {k}] or none")
    for field in ("loss", "loss_modularity"):
        if got[field].dtype != np.float32 or got[field].ndim != 1:
            raise bad(f"should have a float32 {field} curve")
    if len(got["loss"]) != len(got["loss_modularity"]):
        raise bad("has loss and modularity curves of different lengths")
    numbers = {key: decode_number(meta.get(key, "nan"), f"the community {key}", where)
               for key in ("modularity", "nmi", "seconds")}
    if not (math.isnan(numbers["nmi"]) or 0.0 <= numbers["nmi"] <= 1.0):
        raise bad(f"has an NMI of {numbers['nmi']}, outside [0, 1]")
    return CommunityResult(
        method=meta["method"], seed=meta["seed"], labels=labels, k=k,
        modularity=numbers["modularity"], nmi=numbers["nmi"],
        nmi_attribute=meta.get("nmi_attribute", ""), k_rule=meta.get("k_rule", ""),
        seconds=numbers["seconds"], soft=soft if soft.shape[1] else None,
        loss=got["loss"], loss_modularity=got["loss_modularity"])
