"""Synthetic sequence-to-sequence tasks that give attention real structure.

Tasks (symbols 0..vocab-1, variable lengths, padded so the padding mask matters):
    copy     y = x                      (cross attention on the diagonal)
    reverse  y = x reversed             (on the anti-diagonal)
    sort     y = sorted(x)              (each output looks for the next smallest input)
    shift    y = x rotated left by one  (one step off the diagonal, wrapping around)

Token ids: 0 = <pad> (shown ·), 1 = <bos> (▸), 2 = <eos> (■), 3 + s = symbol s.

Symbols are digits, or, for free text, the characters of a small alphabet or the
words of a small vocabulary (``ALPHABETS``): the same tasks train on random strings
of them, so a trained model reverses "hello world" as it reverses "3 1 4".
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from models.errors import InvalidParameterError
from models.transformer.options import (
    ALPHABETS,
    BOS,
    CHARACTERS,
    EOS,
    PAD,
    SPECIALS,
    TASKS,
    WORDS,
)


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
