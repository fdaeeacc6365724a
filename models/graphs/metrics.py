"""Accuracy on a mask and ROC-AUC / ROC curves from scores, in numpy and torch."""

from __future__ import annotations

import math

import numpy as np
import torch


def _accuracy(pred: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> float:
    m = int(mask.sum())
    return float((pred[mask] == y[mask]).sum()) / m if m else math.nan


def roc_auc(scores, labels) -> float:
    """Area under the ROC curve = P(score of a random positive > a random negative), ties
    counting ½: the Mann–Whitney U from ranks (tied scores get their average rank)."""
    s = np.asarray(scores, np.float64).reshape(-1)
    lab = np.asarray(labels).reshape(-1).astype(bool)
    p, q = int(lab.sum()), int((~lab).sum())
    if p == 0 or q == 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    ss = s[order]
    ranks = np.empty(len(s), np.float64)
    i = 0
    while i < len(ss):                     # average rank over each run of equal scores
        j = i
        while j + 1 < len(ss) and ss[j + 1] == ss[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[lab].sum() - p * (p + 1) / 2) / (p * q))


def roc_curve(scores, labels) -> np.ndarray:
    """ROC points float32[k, 2] of (FPR, TPR), one per distinct threshold, from (0, 0)."""
    s = np.asarray(scores, np.float64).reshape(-1)
    lab = np.asarray(labels).reshape(-1).astype(bool)
    order = np.argsort(-s, kind="mergesort")
    s, lab = s[order], lab[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1] if len(s) else np.zeros(0, int)
    tps, fps = np.cumsum(lab)[last], np.cumsum(~lab)[last]
    p, q = max(int(lab.sum()), 1), max(int((~lab).sum()), 1)
    pts = np.vstack([[0.0, 0.0], np.stack([fps / q, tps / p], 1)]) if len(s) else \
        np.zeros((1, 2))
    return pts.astype(np.float32)
