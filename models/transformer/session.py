"""Training the course's ``Transformer`` (or a one-stack model) live on a synthetic task."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import Progress
from models.transformer.options import PAD
from models.transformer.seq2seq import ModelConfig, sequence_accuracy, training_loss
from models.transformer.tasks import TaskConfig, make_batch

#: the defaults (frozen dataclasses, so one instance serves every session)
_TASK, _MODEL = TaskConfig(), ModelConfig()


class Seq2SeqSession:
    """A model, its optimiser and its step count: ``train`` can stop and resume.

    ``train`` is a generator of ``Progress``; stopping means no longer iterating, and
    calling it again resumes where the last run stopped.
    """

    def __init__(self, task: TaskConfig = _TASK, model: ModelConfig = _MODEL,
                 device: str | torch.device = "cpu", seed: int = 0, lr: float = 1e-3,
                 batch_size: int = 64, held_out: int = 256, warmup: int = 100,
                 decay_steps: int | None = None) -> None:
        self.task, self.model_config, self.device = task, model, torch.device(device)
        with torch.random.fork_rng(devices=[]):   # seeded, without touching global RNG
            torch.manual_seed(seed)
            self.model = model.build(task).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr, betas=(0.9, 0.98))
        self.lr, self.batch_size, self.step = lr, batch_size, 0
        self.warmup, self.decay_steps = warmup, decay_steps
        self.losses: list[float] = []
        self.gen = torch.Generator().manual_seed(seed)
        src, _, out = make_batch(task, held_out, torch.Generator().manual_seed(seed + 10_000))
        self.held_out = (src.to(self.device), out.to(self.device))
        self.loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
        #: held by a training step and by anyone else running the model (the GUI's
        #: trace of the current input), so a forward never sees half-updated weights
        self.lock = threading.Lock()
        self.accuracy_history: list[tuple[int, float]] = []
        self.token_accuracy: list[float] = []
        #: decoded outputs of the current weights (emptied by every training step)
        self.output_cache: dict = {}

    def to(self, device: str | torch.device) -> Seq2SeqSession:
        """Move the model, the optimiser's state and the held-out set to ``device``."""
        dev = torch.device(device)
        with self.lock:
            self.model.to(dev)
            for state in self.optimizer.state.values():
                for k, v in state.items():
                    if torch.is_tensor(v) and v.dim() > 0:
                        state[k] = v.to(dev)
            self.held_out = tuple(t.to(dev) for t in self.held_out)
            self.device = dev
        return self

    def _lr_at(self, step: int) -> float:
        """Linear warm-up, then constant, or a linear decay to 5% over ``decay_steps``."""
        lr = self.lr * min(1.0, step / max(1, self.warmup))
        if self.decay_steps:
            lr *= max(0.05, 1.0 - max(0, step - self.warmup) / self.decay_steps)
        return lr

    def train(self, steps: int, eval_every: int = 100, target_accuracy: float | None = None,
              eval_from_token_accuracy: float = 0.0) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each.

        Every ``eval_every`` steps (and at the end) the held-out sequences are decoded
        greedily for ``sequence_accuracy``; evaluations are skipped while the batch's
        token accuracy is below ``eval_from_token_accuracy`` (no sequence can be right
        yet). Stops early once ``target_accuracy`` is reached.
        """
        self.model.train()
        t0, start = time.perf_counter(), self.step
        seq_acc = float("nan")
        for _ in range(steps):
            with self.lock:   # one whole step: a stopped and a resumed run never interleave
                self.step += 1
                src, tgt_in, tgt_out = (t.to(self.device) for t in
                                        make_batch(self.task, self.batch_size, self.gen))
                for group in self.optimizer.param_groups:
                    group["lr"] = self._lr_at(self.step)
                self.model.train()
                loss, logits, target = training_loss(self.model, self.loss_fn, src, tgt_in,
                                                     tgt_out)
                value = loss.detach().item()
                if not math.isfinite(value):
                    raise TrainingDivergedError(
                        f"The loss became {value} at step {self.step}; try a smaller "
                        "learning rate.")
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.output_cache.clear()
            self.losses.append(value)
            keep = target != PAD
            token_acc = float(((logits.argmax(-1) == target) & keep).sum() / keep.sum())
            self.token_accuracy.append(token_acc)
            last = self.step - start == steps
            if (self.step % eval_every == 0 and token_acc >= eval_from_token_accuracy) or last:
                with self.lock:
                    seq_acc = sequence_accuracy(self.model, *self.held_out)
                self.accuracy_history.append((self.step, seq_acc))
            elapsed = time.perf_counter() - t0
            yield Progress(step=self.step, total=start + steps, loss=value,
                           metrics={"token_accuracy": token_acc, "sequence_accuracy": seq_acc,
                                    "seconds": elapsed,
                                    "steps_per_s": (self.step - start) / max(elapsed, 1e-9)},
                           # the whole curve every 50 steps only: copying it every step
                           # grows quadratically over a long run
                           history=np.asarray(self.losses, np.float32)
                           if self.step % 50 == 0 or last else np.zeros(0, np.float32))
            if target_accuracy is not None and seq_acc >= target_accuracy:
                return

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
    def load(cls, path, device: str | torch.device = "cpu") -> Seq2SeqSession:
        try:
            doc = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is the same to a user
            raise InvalidParameterError(f"{path} is not a model ArchScope can open: {exc}") from exc
        if not isinstance(doc, dict) or doc.get("format") != "archscope-seq2seq-1":
            raise InvalidParameterError(f"{path} is not an ArchScope sequence-to-sequence model.")
        try:
            sched = doc.get("schedule", {})
            session = cls(TaskConfig(**doc["task"]), ModelConfig(**doc["model"]), device,
                          lr=float(sched.get("lr", 1e-3)), warmup=int(sched.get("warmup", 100)),
                          decay_steps=int(sched.get("decay_steps", 0)) or None,
                          batch_size=int(sched.get("batch_size", 64)))
            session.model.load_state_dict(doc["state_dict"])
            if "optimizer" in doc:
                session.optimizer.load_state_dict(doc["optimizer"])
                session.to(device)
            session.step = int(doc["step"])
            session.losses = [float(v) for v in doc.get("losses", torch.zeros(0)).tolist()]
            session.token_accuracy = [float(v) for v in
                                      doc.get("token_accuracy", torch.zeros(0)).tolist()]
            session.accuracy_history = [(int(a), float(b)) for a, b in
                                        doc.get("accuracy_history", torch.zeros(0, 2)).tolist()]
        except (TypeError, KeyError, ValueError, RuntimeError) as exc:
            raise InvalidParameterError(
                f"{path} is an ArchScope model file this version cannot use: {exc}") from exc
        return session
