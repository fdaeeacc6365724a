"""Synthetic sequence-to-sequence tasks that give attention real structure, and a
training loop for the course's ``Transformer`` on them.

Tasks (symbols 0..vocab-1, variable lengths, padded so the padding mask matters):
    copy     y = x                      (cross attention on the diagonal)
    reverse  y = x reversed             (on the anti-diagonal)
    sort     y = sorted(x)              (each output looks for the next smallest input)
    shift    y = x rotated left by one  (one step off the diagonal, wrapping around)

Token ids: 0 = <pad> (shown ·), 1 = <bos> (▸), 2 = <eos> (■), 3 + s = symbol s.

Symbols are digits, or, for free text, the characters of a small alphabet or the
words of a small vocabulary (``ALPHABETS``): the same tasks train on random strings
of them, so a trained model reverses "hello world" as it reverses "3 1 4".

Architectures (``ModelConfig.architecture``): the encoder-decoder ``Transformer``;
an encoder-only stack (BERT-style) that labels every position at once (all four
tasks keep the length); a decoder-only stack (GPT-style) that reads ``x ▸`` and
continues it with ``y ■``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import Progress
from models.transformer import DecoderOnly, EncoderOnly, Transformer, eval_mode

PAD, BOS, EOS = 0, 1, 2
#: short display names, so token labels fit under a heatmap column
SPECIALS = ("·", "▸", "■")
TASKS = ("copy", "reverse", "sort", "shift")
ARCHITECTURES = ("encoder-decoder", "encoder-only", "decoder-only")

#: the characters of the free-text tokenizer (text is lower-cased first)
CHARACTERS = "abcdefghijklmnopqrstuvwxyz .,!?'-"
#: the words of the word tokenizer: a small vocabulary, so a model can learn on it
_WORD_TEXT = ("the a an this that my your one two three cat dog bird fish man woman child "
              "sun moon tree house book car is was sees saw likes eats runs sleeps sings "
              "big small red blue green old new happy sad on in under near and but not "
              "very today now")
WORDS = tuple(_WORD_TEXT.split())
ALPHABETS = ("digits", "characters", "words")
#: example inputs for Generate with the text tokenizers
SAMPLES = {"characters": ("hello world", "attention!", "transformer", "the cat sat",
                          "query key", "sort me", "it's a mask", "deep learning"),
           "words": ("the cat sees a bird", "my dog runs", "the old man sleeps now",
                     "a small red car", "this child likes the moon", "the sun was very big",
                     "one fish and one bird", "the woman sings today")}


def target_of(task: str, xs: list[int]) -> list[int]:
    if task == "copy":
        return list(xs)
    if task == "reverse":
        return list(reversed(xs))
    if task == "sort":
        return sorted(xs)
    if task == "shift":
        return list(xs[1:]) + list(xs[:1])
    raise InvalidParameterError(f"Unknown task '{task}' (choose {', '.join(TASKS)}).")


@dataclass(frozen=True)
class TaskConfig:
    """A task on symbols of ``alphabet``: "digits" (``vocab`` of them), "characters"
    or "words" (the vocabulary size follows from the alphabet)."""

    task: str = "reverse"
    vocab: int = 10
    min_len: int = 8
    max_len: int = 12
    alphabet: str = "digits"

    @classmethod
    def for_alphabet(cls, task: str, alphabet: str) -> TaskConfig:
        """The tab's default task for each tokenizer (text is given a little more room)."""
        if alphabet == "characters":
            return cls(task, len(CHARACTERS), 4, 14, alphabet)
        if alphabet == "words":
            return cls(task, len(WORDS), 3, 8, alphabet)
        return cls(task, 10, 8, 12, alphabet)

    def __post_init__(self) -> None:
        if self.alphabet not in ALPHABETS:
            raise InvalidParameterError(
                f"Unknown tokenizer '{self.alphabet}' (choose {', '.join(ALPHABETS)}).")
        if self.alphabet != "digits":
            object.__setattr__(self, "vocab", len(self.symbols()))
        if self.task not in TASKS:
            raise InvalidParameterError(f"Unknown task '{self.task}' (choose {', '.join(TASKS)}).")
        if not 2 <= self.vocab <= 1000:
            raise InvalidParameterError(f"The vocabulary must have 2 to 1000 symbols, got {self.vocab}.")
        if not 1 <= self.min_len <= self.max_len:
            raise InvalidParameterError(
                f"Lengths must satisfy 1 <= min_len <= max_len, got {self.min_len}, {self.max_len}.")

    @property
    def src_len(self) -> int:       # x + <eos>
        return self.max_len + 1

    @property
    def tgt_len(self) -> int:       # <bos> + y, or y + <eos>
        return self.max_len + 1

    @property
    def vocab_size(self) -> int:
        return self.vocab + 3

    def symbols(self) -> list[str]:
        """The text of each symbol: what a tokenizer matches."""
        if self.alphabet == "characters":
            return list(CHARACTERS)
        if self.alphabet == "words":
            return list(WORDS)
        return [str(s) for s in range(self.vocab)]

    def token_names(self) -> list[str]:
        """Labels for the axes (a space shows as ␣, numbers are right-aligned)."""
        if self.alphabet == "characters":
            return list(SPECIALS) + [c if c != " " else "␣" for c in CHARACTERS]
        if self.alphabet == "words":
            return list(SPECIALS) + list(WORDS)
        width = len(str(self.vocab - 1))
        return list(SPECIALS) + [str(s).rjust(width) if self.vocab > 10 else str(s)
                                 for s in range(self.vocab)]


def make_batch(cfg: TaskConfig, batch: int, gen: torch.Generator
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src, tgt_in, tgt_out), int64, padded with <pad>, built without Python loops.

    Shapes: src = x <eos>, tgt_in = <bos> y and tgt_out = y <eos>, each
    (batch, max_len + 1).
    """
    n = torch.randint(cfg.min_len, cfg.max_len + 1, (batch, 1), generator=gen)
    x = torch.randint(0, cfg.vocab, (batch, cfg.max_len), generator=gen)
    j = torch.arange(cfg.max_len).expand(batch, -1)
    inside = j < n
    if cfg.task == "copy":
        y = x
    elif cfg.task == "reverse":
        y = x.gather(1, (n - 1 - j).clamp(min=0))
    elif cfg.task == "shift":
        y = x.gather(1, (j + 1) % n)
    else:   # sort: padding sorts last
        y = x.masked_fill(~inside, cfg.vocab).sort(dim=1).values
    sym_x = torch.where(inside, x + 3, PAD)
    sym_y = torch.where(inside, y + 3, PAD)
    pad_col = torch.full((batch, 1), PAD, dtype=torch.long)
    eos_at = torch.zeros(batch, cfg.max_len + 1, dtype=torch.bool).scatter_(1, n, True)
    src = torch.cat([sym_x, pad_col], 1).masked_fill(eos_at, EOS)
    tgt_out = torch.cat([sym_y, pad_col], 1).masked_fill(eos_at, EOS)
    tgt_in = torch.cat([torch.full((batch, 1), BOS, dtype=torch.long), sym_y], 1)
    return src, tgt_in, tgt_out


@dataclass(frozen=True)
class ModelConfig:
    """The model's size and architecture. One-stack models get as many layers as
    the encoder and decoder together, so the three architectures are about the same
    size."""

    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    d_model: int = 64
    num_heads: int = 4
    d_ff: int = 128
    dropout: float = 0.0
    architecture: str = "encoder-decoder"

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise InvalidParameterError(f"Unknown architecture '{self.architecture}' "
                                        f"(choose {', '.join(ARCHITECTURES)}).")

    def build(self, task: TaskConfig) -> nn.Module:
        layers = self.num_encoder_layers + self.num_decoder_layers
        if self.architecture == "encoder-only":
            return EncoderOnly(layers, self.d_model, self.num_heads, self.d_ff,
                               task.vocab_size, task.vocab_size, task.src_len + 1,
                               self.dropout, PAD)
        if self.architecture == "decoder-only":
            return DecoderOnly(layers, self.d_model, self.num_heads, self.d_ff,
                               task.vocab_size, lm_length(task) + 1, self.dropout, PAD)
        return Transformer(self.num_encoder_layers, self.num_decoder_layers, self.d_model,
                           self.num_heads, self.d_ff, task.vocab_size, task.vocab_size,
                           max_seq_len=task.tgt_len + 1, dropout=self.dropout,
                           pad_token_idx=PAD)


def lm_length(task: TaskConfig) -> int:
    """Length of a decoder-only sequence ``x ▸ y ■``, padded."""
    return 2 * task.max_len + 2


def lm_sequences(src: torch.Tensor, tgt_out: torch.Tensor) -> tuple[torch.Tensor,
                                                                     torch.Tensor]:
    """``x ■ ·…`` and ``y ■ ·…`` → the decoder-only sequence ``x ▸ y ■ ·…`` and the
    length of each x. Vectorised: position j holds x_j (j < n), ▸ (j = n),
    y_{j-n-1} or ■ (n < j ≤ 2n + 1), padding after.

    Shapes: src, tgt_out (batch, max_len + 1) → (batch, 2·max_len + 2), (batch, 1)
    """
    b, width = src.shape
    n = (src != PAD).sum(1, keepdim=True) - 1            # x without its <eos>
    j = torch.arange(2 * width, device=src.device).expand(b, -1)
    from_x = src.gather(1, j.clamp(max=width - 1))
    from_y = tgt_out.gather(1, (j - n - 1).clamp(0, width - 1))
    seq = torch.where(j < n, from_x, torch.where(j == n, BOS, torch.where(
        (j > n) & (j <= 2 * n + 1), from_y, PAD)))
    return seq, n


@torch.no_grad()
def greedy_decode(model: Transformer, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """Decode one token at a time, always taking the most likely next token.

    Shapes: src (batch, s) → generated ids (batch, ≤ max_steps) without the <bos>;
    finished rows continue with <pad> after their <eos>.
    """
    with eval_mode(model):
        return _greedy(model, src, max_steps)


def _greedy(model: Transformer, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    src_mask = model.create_padding_mask(src, PAD)
    memory = model.encode(src, src_mask)
    out = torch.full((src.size(0), 1), BOS, dtype=torch.long, device=src.device)
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_steps):
        _, tgt_mask = model.masks(src, out)
        logits = model.final_linear(model.decode(out, memory, tgt_mask, src_mask)[:, -1])
        nxt = logits.argmax(-1).masked_fill(done, PAD)
        out = torch.cat([out, nxt[:, None]], dim=1)
        done |= nxt == EOS
        if done.all():
            break
    return out[:, 1:]


def _lm_decode(model: DecoderOnly, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """Greedy continuation of ``x ▸`` for every row at once (rows have their own n)."""
    seq, n = lm_sequences(src, torch.full_like(src, PAD))
    seq = seq.clone()
    rows = torch.arange(src.size(0), device=src.device)
    pos = n[:, 0].clone()                                  # where each ▸ is
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    out = []
    for _ in range(max_steps):
        logits = model(seq[:, :-1])
        nxt = logits[rows, pos.clamp(max=seq.size(1) - 2)].argmax(-1).masked_fill(done, PAD)
        out.append(nxt)
        seq[rows, (pos + 1).clamp(max=seq.size(1) - 1)] = torch.where(
            done, seq[rows, (pos + 1).clamp(max=seq.size(1) - 1)], nxt)
        pos += 1
        done |= nxt == EOS
        if done.all():
            break
    return torch.stack(out, 1)


@torch.no_grad()
def decode_output(model: nn.Module, src: torch.Tensor, max_steps: int) -> torch.Tensor:
    """The model's answer for ``src`` whatever its architecture: greedy decoding for
    the encoder-decoder and the decoder-only model, one argmax per position for the
    encoder-only model. (batch, s) → (batch, ≤ max_steps), <pad> after each <eos>."""
    with eval_mode(model):
        if isinstance(model, Transformer):
            return greedy_decode(model, src, max_steps)
        if isinstance(model, DecoderOnly):
            return _lm_decode(model, src, max_steps)
        out = model(src).argmax(-1)[:, :max_steps]
        after_eos = (out == EOS).long().cumsum(1) - (out == EOS).long() > 0
        return out.masked_fill(after_eos, PAD)


def training_loss(model: nn.Module, loss_fn: nn.Module, src: torch.Tensor,
                  tgt_in: torch.Tensor, tgt_out: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(loss, logits, targets) of one batch for any architecture; targets use <pad>
    where nothing is to be predicted (the decoder-only model's prompt)."""
    if isinstance(model, Transformer):
        logits, target = model(src, tgt_in), tgt_out
    elif isinstance(model, EncoderOnly):
        logits, target = model(src), tgt_out           # the same length: label each position
    else:
        seq, n = lm_sequences(src, tgt_out)
        logits, target = model(seq[:, :-1]), seq[:, 1:].clone()
        j = torch.arange(target.size(1), device=src.device)
        target = target.masked_fill(j < n, PAD)        # the prompt x ▸ is given, not learned
    loss = loss_fn(logits.reshape(-1, logits.size(-1)), target.reshape(-1))
    return loss, logits, target


def sequence_accuracy(model: nn.Module, src: torch.Tensor, tgt_out: torch.Tensor) -> float:
    """Fraction of sequences decoded exactly (every token up to and including <eos>)."""
    pred = decode_output(model, src, tgt_out.size(1))
    pred = torch.nn.functional.pad(pred, (0, tgt_out.size(1) - pred.size(1)), value=PAD)
    keep = tgt_out != PAD
    return float(((pred == tgt_out) | ~keep).all(dim=1).float().mean())


class Seq2SeqSession:
    """A model, its optimiser and its step count: ``train`` can stop and resume.

    ``train`` is a generator of ``Progress``; stopping means no longer iterating, and
    calling it again resumes where the last run stopped.
    """

    def __init__(self, task: TaskConfig = TaskConfig(), model: ModelConfig = ModelConfig(),
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
