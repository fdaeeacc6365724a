"""Training the course's ``Transformer`` (or a one-stack model) live on a synthetic task.

``Seq2SeqSession`` is a ``TrainingSession``: its lock, checked steps with rollback to the
last rollback point, ``to(device)`` and the ``train`` generator are the base's. What is
its own: the warm-up (and optional decay) schedule, gradient clipping to 1.0, the token
accuracy of each batch, the held-out sequence accuracy (decoded outside the step's
lock), the early stop at ``target_accuracy``, the decoded-output cache of the Transformer
tab, and saving and reopening a model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import torch
from torch import nn

from models import checkpoint
from models.checkpoint import load_torch_file
from models.errors import InvalidParameterError, ModelFileError, SessionFileError
from models.reading import LoadWatch
from models.session import Run, StepOutcome, TrainingSession, adam, check_lr
from models.traces import Progress
from models.transformer.model import HYPERPARAMETER_LIMITS, check_whole, validate_hyperparameters
from models.transformer.options import PAD
from models.transformer.seq2seq import ModelConfig, sequence_accuracy, training_loss
from models.transformer.tasks import TaskConfig, make_batch

#: the defaults (frozen dataclasses, so one instance serves every session)
_TASK, _MODEL = TaskConfig(), ModelConfig()


class Seq2SeqSession(TrainingSession):
    """A model, its optimiser and its step count: ``train`` can stop and resume.

    ``train`` is a generator of ``Progress``; stopping means no longer iterating, and
    calling it again resumes where the last run stopped.
    """

    #: the whole loss curve goes into a ``Progress`` every this many steps only: copying
    #: it every step grows quadratically over a long run
    history_every = 50

    def __init__(self, task: TaskConfig = _TASK, model: ModelConfig = _MODEL,
                 device: str | torch.device = "cpu", seed: int = 0, lr: float = 1e-3,
                 batch_size: int = 64, held_out: int = 256, warmup: int = 100,
                 decay_steps: int | None = None) -> None:
        self.task, self.model_config, self.seed = task, model, seed
        with torch.random.fork_rng(devices=[]):   # seeded, without touching global RNG
            torch.manual_seed(seed)
            self.model = model.build(task)
        self.optimizer = adam(self.model.parameters(), lr=lr, betas=(0.9, 0.98))
        self._init_session(device, lr=lr)         # the lock, the step count, a rollback point
        self.batch_size = batch_size
        self.warmup, self.decay_steps = warmup, decay_steps
        self.gen = torch.Generator().manual_seed(seed)
        src, _, out = make_batch(task, held_out, torch.Generator().manual_seed(seed + 10_000))
        self.held_out = (src.to(self.device), out.to(self.device))
        self.loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
        self.accuracy_history: list[tuple[int, float]] = []
        self.token_accuracy: list[float] = []
        #: decoded outputs of the current weights (emptied by every training step)
        self.output_cache: dict = {}
        self._target: float | None = None
        self._eval_every, self._eval_from = 100, 0.0
        self._seq_acc = float("nan")

    # -- the base's hooks ------------------------------------------------------------------
    def _records(self) -> list[list]:
        return [self.losses, self.token_accuracy]

    def _move_data(self, device: torch.device) -> None:
        self.held_out = tuple(t.to(device) for t in self.held_out)

    def _after_restore(self) -> None:
        """Evaluations of steps that were undone go, and so do outputs decoded with the
        weights that diverged."""
        self.accuracy_history[:] = [(s, a) for s, a in self.accuracy_history
                                    if s <= self.good_step]
        self.output_cache.clear()

    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        """For a session file: what builds this session again (task, model, schedule,
        seed of the batches and of the held-out set) and the held-out evaluations."""
        history = torch.tensor(self.accuracy_history, dtype=torch.float64).reshape(-1, 2)
        return {"accuracy_history": history}, {
            "task": asdict(self.task), "model": asdict(self.model_config),
            "schedule": {"warmup": self.warmup, "decay_steps": self.decay_steps or 0,
                         "batch_size": self.batch_size, "seed": self.seed}}

    def _load_extra_state(self, tensors: dict[str, torch.Tensor], meta: dict) -> None:
        history = tensors.get("accuracy_history", torch.zeros(0, 2, dtype=torch.float64))
        self.accuracy_history = [(int(s), float(a)) for s, a in history.tolist()]
        self.output_cache.clear()

    def _lr_at(self, step: int) -> float:
        """Linear warm-up, then constant, or a linear decay to 5% over ``decay_steps``."""
        lr = self.lr * min(1.0, step / max(1, self.warmup))
        if self.decay_steps:
            lr *= max(0.05, 1.0 - max(0, step - self.warmup) / self.decay_steps)
        return lr

    # -- training --------------------------------------------------------------------------
    def train(self, steps: int, eval_every: int = 100, target_accuracy: float | None = None,
              eval_from_token_accuracy: float = 0.0) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each.

        Every ``eval_every`` steps (and at the end) the held-out sequences are decoded
        greedily for ``sequence_accuracy``; evaluations are skipped while the batch's
        token accuracy is below ``eval_from_token_accuracy`` (no sequence can be right
        yet). Stops early once ``target_accuracy`` is reached.
        """
        self._target, self._eval_from = target_accuracy, eval_from_token_accuracy
        self._eval_every, self._seq_acc = eval_every, float("nan")
        self.model.train()
        yield from super().train(steps, every=self.history_every)

    def _train_step(self, run: Run) -> StepOutcome:
        """One whole step under the lock: a stopped and a resumed run never interleave."""
        src, tgt_in, tgt_out = (t.to(self.device) for t in
                                make_batch(self.task, self.batch_size, self.gen))
        for group in self.optimizer.param_groups:
            group["lr"] = self._lr_at(self.step + 1)
        self.model.train()
        loss, logits, target = training_loss(self.model, self.loss_fn, src, tgt_in, tgt_out)
        value = self.checked_step(loss, clip=1.0)
        self.output_cache.clear()
        keep = target != PAD
        token_acc = float(((logits.argmax(-1) == target) & keep).sum() / keep.sum())
        self.token_accuracy.append(token_acc)
        return StepOutcome(value, {"token_accuracy": token_acc})

    def _after_step(self, outcome: StepOutcome, run: Run) -> None:
        """The held-out evaluation, outside the step's lock (it takes the lock itself), and
        the early stop once ``target_accuracy`` is reached."""
        token_acc = outcome.metrics["token_accuracy"]
        if (self.step % self._eval_every == 0 and token_acc >= self._eval_from) or run.last:
            with self.lock:
                self._seq_acc = sequence_accuracy(self.model, *self.held_out)
            self.accuracy_history.append((self.step, self._seq_acc))
        outcome.metrics["sequence_accuracy"] = self._seq_acc
        outcome.stop = self._target is not None and self._seq_acc >= self._target

    # -- saving and reopening -----------------------------------------------------------------
    def save(self, path) -> None:
        torch.save({"format": "archscope-seq2seq-1", "task": asdict(self.task),
                    "model": asdict(self.model_config), "step": self.step,
                    "state_dict": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "schedule": {"lr": self.lr, "warmup": self.warmup,
                                 "decay_steps": self.decay_steps or 0,
                                 "batch_size": self.batch_size},
                    "losses": torch.tensor(self.losses, dtype=torch.float32),
                    "token_accuracy": torch.tensor(self.token_accuracy, dtype=torch.float32),
                    "accuracy_history": torch.tensor(self.accuracy_history,
                                                     dtype=torch.float64).reshape(-1, 2)},
                   path)

    @classmethod
    def load(cls, path, device: str | torch.device = "cpu", progress=None,
             cancelled=None) -> Seq2SeqSession:
        """Reopen a model that ``save`` wrote. Nothing is built before the file has passed
        every check: torch's zip format, no zip bomb, only tensors and plain data
        (``models.checkpoint.load_torch_file``), then every hyper-parameter in its range
        (``validate_hyperparameters``). A refused file raises ``ModelFileError`` naming
        the file (and the field, its value and the allowed range); nothing else changes,
        so a caller can keep training the model it had. ``progress(fraction)`` and
        ``cancelled()`` as for every loader (``models.reading``): checked between reading,
        checking, building and filling in the weights."""
        path = Path(path)
        watch = LoadWatch(path.name, progress, cancelled)
        watch.tick(0.0)
        doc = load_torch_file(path, f"{path.name} is not a model ArchScope can open",
                              ModelFileError)
        watch.tick(0.5)
        if not isinstance(doc, dict) or doc.get("format") != "archscope-seq2seq-1":
            raise ModelFileError(f"{path.name} is not an ArchScope sequence-to-sequence model.")
        try:
            task, model, sched, step = _checked_fields(doc)
            _check_file_numbers(doc, step, path.name)
            session = cls(TaskConfig(**task), ModelConfig(**model), device, **sched)
        except InvalidParameterError as exc:
            raise ModelFileError(f"{path.name}: {exc}") from exc
        watch.tick(0.7)
        try:
            session.model.load_state_dict(doc["state_dict"])
            if "optimizer" in doc:
                checkpoint.load_optimizer_state(session.optimizer, doc["optimizer"])
                session.to(device)
            session.step = step
            session.losses = [float(v) for v in doc.get("losses", torch.zeros(0)).tolist()]
            session.token_accuracy = [float(v) for v in
                                      doc.get("token_accuracy", torch.zeros(0)).tolist()]
            session.accuracy_history = [(int(a), float(b)) for a, b in
                                        doc.get("accuracy_history", torch.zeros(0, 2)).tolist()]
        except (TypeError, KeyError, ValueError, RuntimeError, AttributeError) as exc:
            detail = " ".join(str(exc).split())[:300]
            raise ModelFileError(
                f"{path.name} is an ArchScope model file this version cannot use: "
                f"{detail}") from exc
        # the reopened weights are the rollback point (not the fresh ones built above)
        session.good_step, session.good_state = session.step, session._snapshot()
        watch.tick(1.0)
        return session


def session_from_state(tensors: dict[str, torch.Tensor], meta: dict, name: str,
                       device: str | torch.device = "cpu") -> Seq2SeqSession:
    """A ``Seq2SeqSession`` rebuilt from a session file's part (``save_state``'s tensors
    and meta): its task, model and schedule checked as a model file's are, its records
    and held-out evaluations checked for shape and range, then the weights, optimizer
    moments and random-generator states loaded. Nothing outside the new session
    changes; a refusal raises ``SessionFileError`` naming the file ``name``."""
    extra = meta.get("extra") if isinstance(meta, dict) else None
    if not isinstance(extra, dict):
        raise SessionFileError(f"{name}: the saved Transformer has no description of its "
                               "task and model.")
    schedule = extra.get("schedule", {})
    if not isinstance(schedule, dict):
        schedule = None       # refused by _checked_fields
    try:
        task, model, options, step = _checked_fields(
            {"task": extra.get("task"), "model": extra.get("model"), "step": meta.get("step"),
             "schedule": schedule if schedule is None else
             {**{k: v for k, v in schedule.items() if k != "seed"}, "lr": meta.get("lr")}})
        seed = check_whole("seed", (schedule or {}).get("seed", 0), 0, 2**31 - 1)
        _check_records(tensors, step)
        session = Seq2SeqSession(TaskConfig(**task), ModelConfig(**model), device, seed=seed,
                                 **options)
    except InvalidParameterError as exc:
        raise SessionFileError(f"{name}: the saved Transformer cannot be used: {exc}") from exc
    session.load_state(tensors, meta, name)
    return session


def _check_file_numbers(doc: dict, step: int, name: str) -> None:
    """A model file's curves, weights and optimizer as a training run leaves them (a file
    with NaN losses, NaN weights or a negative learning rate was opened as it was)."""
    from models.errors import SessionFileError
    from models.session import TrainingSession

    records = {"record0": doc.get("losses"), "record1": doc.get("token_accuracy"),
               "extra.accuracy_history": doc.get("accuracy_history")}
    for key, value in records.items():
        if value is not None and not torch.is_tensor(value):
            raise InvalidParameterError(f"its {key.split('.')[-1]} is not a tensor.")
    _check_records({k: v for k, v in records.items() if v is not None}, step)
    state = doc.get("state_dict")
    optimizer = doc.get("optimizer")
    if not isinstance(state, dict) or (optimizer is not None and not (
            isinstance(optimizer, dict) and isinstance(optimizer.get("state", {}), dict))):
        raise InvalidParameterError("its weights or optimizer state are malformed.")
    tensors = {f"model0.{k}": v for k, v in state.items()}
    for pid, entry in (optimizer or {}).get("state", {}).items():
        if isinstance(entry, dict):
            tensors.update({f"optim0.{pid}.{k}": v for k, v in entry.items()})
    try:
        TrainingSession._check_saved_numbers(
            tensors, {}, [optimizer] if optimizer is not None else [], "")
    except SessionFileError as exc:
        raise InvalidParameterError(str(exc)) from None


def _check_records(tensors: dict[str, torch.Tensor], step: int) -> None:
    """Losses, token accuracies and held-out evaluations: the shapes and values a
    training run writes (at most one per step; finite; accuracies in [0, 1])."""
    for key, what in (("record0", "loss"), ("record1", "token accuracy")):
        record = tensors.get(key)
        if record is None:
            continue
        if record.dim() != 1 or len(record) > step or not torch.isfinite(record).all():
            raise InvalidParameterError(
                f"its {what} curve is not a list of at most {step} finite numbers "
                f"(shape {tuple(record.shape)}).")
        if key == "record1" and len(record) and not (0 <= record.min() <= record.max() <= 1):
            raise InvalidParameterError("a token accuracy is outside 0 to 1.")
    history = tensors.get("extra.accuracy_history")
    if history is not None:
        if history.dim() != 2 or history.shape[1] != 2 or not torch.isfinite(history).all():
            raise InvalidParameterError(
                f"its held-out evaluations are not rows of (step, accuracy) "
                f"(shape {tuple(history.shape)}).")
        if len(history) and not (history[:, 0].min() >= 0 and history[:, 0].max() <= step
                                 and history[:, 1].min() >= 0 and history[:, 1].max() <= 1):
            raise InvalidParameterError("a held-out evaluation has a step or an accuracy "
                                        "out of range.")


def _checked_fields(doc: dict) -> tuple[dict, dict, dict, int]:
    """The task, model and schedule of a model file, defaults filled in, each value
    checked against its range before anything is built (``InvalidParameterError`` names
    the field, its value and the range)."""
    sections = {}
    for key, default in (("task", _TASK), ("model", _MODEL)):
        given = doc.get(key)
        if not isinstance(given, dict):
            raise InvalidParameterError(f"the file has no '{key}' description.")
        unknown = sorted(set(given) - set(asdict(default)))
        if unknown:
            raise InvalidParameterError(f"unknown {key} field{'s' if len(unknown) > 1 else ''}"
                                        f" {', '.join(map(str, unknown))}.")
        sections[key] = {**asdict(default), **given}
    sched = doc.get("schedule", {})
    if not isinstance(sched, dict):
        raise InvalidParameterError("the training schedule is not a dictionary.")
    limits = HYPERPARAMETER_LIMITS
    options = {"lr": check_lr(sched.get("lr", 1e-3), "lr"),
               "warmup": check_whole("warmup", sched.get("warmup", 100), *limits["warmup"]),
               "decay_steps": check_whole("decay_steps", sched.get("decay_steps", 0),
                                     *limits["decay_steps"]) or None,
               "batch_size": sched.get("batch_size", 64)}
    validate_hyperparameters(sections["model"], sections["task"], options["batch_size"])
    step = check_whole("step", doc.get("step"), *limits["step"])
    return sections["task"], sections["model"], options, step
