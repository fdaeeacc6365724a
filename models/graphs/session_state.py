"""What the graph sessions keep in a session file beyond the base's weights, optimizer
state, records and random generators (``TrainingSession._extra_state``).

* the node and graph classifiers: the alignment of their PCA embedding (so the picture
  after opening is the one saved, not a reflection of it) and the metrics of their last
  evaluation (repeated in every ``Progress`` until the next one);
* the link predictor: its model selection, the best weights so far (``best_state``), their
  validation AUC, epoch and training loss, which every ``LinkTrace`` reports.

Everything read back is checked before the session changes (``load_state`` is
overridden to check first): a best-weights tensor of the wrong shape, an epoch beyond the
session's, a metric that is not a number are refused with ``SessionFileError`` naming
the file. Numbers that may be NaN or infinite go through ``models.session_numbers``.
"""

from __future__ import annotations

import math

import torch

from models.errors import SessionFileError
from models.session_numbers import decode_number, encode_number

__all__ = ["SavedEmbedding", "SavedBestWeights"]


def _where(name: str) -> str:
    return f"{name}: " if name else ""


def _extra(tensors: dict, meta: dict, where: str) -> tuple[dict, dict]:
    """The ``extra.`` tensors and the extra meta of a saved state, as the base's
    ``load_state`` will hand them to ``_load_extra_state``."""
    extra = meta.get("extra", {})
    if not isinstance(extra, dict):
        raise SessionFileError(f"{where}the session's own state is malformed.")
    return {k[len("extra."):]: v for k, v in tensors.items() if k.startswith("extra.")}, extra


def _metrics(saved, own: dict[str, float], where: str) -> dict[str, float]:
    if saved is None:
        return dict.fromkeys(own, math.nan)
    if not isinstance(saved, dict) or set(saved) != set(own):
        raise SessionFileError(f"{where}the last evaluation's metrics should be "
                               f"{', '.join(sorted(own))}.")
    return {k: decode_number(v, f"the metric {k}", where) for k, v in saved.items()}


class SavedEmbedding:
    """Mixed into a classifier with an ``_AlignedPCA`` (``_pca``) and ``_last_acc``: both
    kept in a session file. ``_embedding_rows()`` is the number of rows it projects."""

    def _embedding_rows(self) -> int:
        raise NotImplementedError

    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        tensors = {f"pca.{k}": torch.from_numpy(v) for k, v in self._pca.state().items()}
        return tensors, {"last_acc": {k: encode_number(v) for k, v in self._last_acc.items()}}

    def _checked_extra(self, tensors: dict, meta: dict, where: str):
        pca = {k[len("pca."):]: v.detach().cpu().numpy() for k, v in tensors.items()
               if k.startswith("pca.")}
        if set(pca) - {"prev", "raw"}:
            raise SessionFileError(f"{where}unknown embedding state "
                                   f"{', '.join(sorted(set(pca) - {'prev', 'raw'}))}.")
        probe = type(self._pca)()
        try:
            probe.load_state(pca, self._embedding_rows())
        except ValueError as exc:
            raise SessionFileError(f"{where}{exc}.") from exc
        return probe, _metrics(meta.get("last_acc"), self._last_acc, where)

    def load_state(self, tensors: dict, meta: dict, name: str = "") -> None:
        self._checked_extra(*_extra(tensors, meta, _where(name)), _where(name))  # first
        super().load_state(tensors, meta, name)

    def _load_extra_state(self, tensors: dict, meta: dict) -> None:
        self._pca, self._last_acc = self._checked_extra(tensors, meta, "")


class SavedBestWeights:
    """Mixed into ``LinkPredictionSession``: its model selection (``best_state``,
    ``best_val_auc``, ``best_epoch``, ``best_loss``) and ``_last_acc`` in a session file."""

    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        tensors = {} if self.best_state is None else {
            f"best.{k}": t.detach().cpu().clone() for k, t in self.best_state.items()}
        return tensors, {
            "best_val_auc": encode_number(self.best_val_auc), "best_epoch": self.best_epoch,
            "best_loss": encode_number(self.best_loss),
            "last_acc": {k: encode_number(v) for k, v in self._last_acc.items()}}

    def _checked_extra(self, tensors: dict, meta: dict, where: str, step: int):
        best = {k[len("best."):]: v for k, v in tensors.items() if k.startswith("best.")}
        epoch = meta.get("best_epoch", 0)
        if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch <= step:
            raise SessionFileError(f"{where}the link predictor's best epoch ({epoch!r}) is "
                                   f"not one of its {step} epochs.")
        auc = decode_number(meta.get("best_val_auc", "-inf"), "the best validation AUC",
                            where)
        loss = decode_number(meta.get("best_loss", "nan"), "the best epoch's loss", where)
        if not best:
            if epoch:
                raise SessionFileError(f"{where}the link predictor's best epoch is "
                                       f"{epoch} but its weights are missing.")
            return None, -math.inf, 0, math.nan, _metrics(meta.get("last_acc"),
                                                           self._last_acc, where)
        own = self.model.state_dict()
        missing, unknown = sorted(set(own) - set(best)), sorted(set(best) - set(own))
        wrong = [f"{k} ({'×'.join(map(str, best[k].shape)) or 'scalar'} in the file, "
                 f"{'×'.join(map(str, own[k].shape)) or 'scalar'} here)"
                 for k in own if k in best and best[k].shape != own[k].shape]
        if missing or unknown or wrong:
            parts = ([f"missing {', '.join(missing[:4])}"] if missing else []) + \
                ([f"unknown {', '.join(unknown[:4])}"] if unknown else []) + \
                ([f"wrong shapes: {'; '.join(wrong[:3])}"] if wrong else [])
            raise SessionFileError(f"{where}the link predictor's best weights do not fit "
                                   f"its model ({'; '.join(parts)}).")
        if not all(torch.is_floating_point(t) and bool(torch.isfinite(t).all())
                   for t in best.values()):
            raise SessionFileError(f"{where}the link predictor's best weights are not all "
                                   "finite numbers.")
        if not (0.0 <= auc <= 1.0):
            raise SessionFileError(f"{where}the best validation AUC ({auc}) is not in "
                                   "[0, 1].")
        state = {k: best[k].to(device=self.device, dtype=own[k].dtype) for k in own}
        return state, auc, epoch, loss, _metrics(meta.get("last_acc"), self._last_acc, where)

    def load_state(self, tensors: dict, meta: dict, name: str = "") -> None:
        where = _where(name)
        step = meta.get("step", 0)
        self._checked_extra(*_extra(tensors, meta, where), where,
                            step if isinstance(step, int) and not isinstance(step, bool)
                            else -1)  # first
        super().load_state(tensors, meta, name)

    def _load_extra_state(self, tensors: dict, meta: dict) -> None:
        (self.best_state, self.best_val_auc, self.best_epoch, self.best_loss,
         self._last_acc) = self._checked_extra(tensors, meta, "", self.step)

