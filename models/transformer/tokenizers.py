"""Typed text to symbols and back, with a task's tokenizer (digits, characters or words),
and a random example input for Generate."""

from __future__ import annotations

import torch

from models.errors import InvalidParameterError
from models.transformer.options import SAMPLES
from models.transformer.tasks import TaskConfig


def parse_sequence(text: str, task: TaskConfig) -> list[int]:
    """Typed text → symbols, with the task's tokenizer: digits ("3 1 4 1 5", or "31415"
    when every symbol is one digit), characters (lower-cased) or words. Anything the
    model cannot take raises ``InvalidParameterError`` with a sentence for the panel."""
    text = text.strip()
    if not text:
        raise InvalidParameterError("The input is empty: type something or press "
                                    "Generate.")
    if task.alphabet == "characters":
        known = task.symbols()
        unknown = sorted({c for c in text.lower() if c not in known})
        if unknown:
            raise InvalidParameterError(
                f"This model's characters are a–z, space and . , ! ? ' -; it has no token "
                f"for {', '.join(repr(c) for c in unknown[:5])}.")
        symbols = [known.index(c) for c in text.lower()]
    elif task.alphabet == "words":
        known = task.symbols()
        words = text.lower().replace(",", " ").replace(".", " ").split()
        unknown = [w for w in dict.fromkeys(words) if w not in known]
        if unknown:
            raise InvalidParameterError(
                f"{', '.join(repr(w) for w in unknown[:5])} is not in this model's "
                f"vocabulary of {len(known)} words (e.g. {', '.join(known[10:16])}); "
                "press Generate for an example.")
        symbols = [known.index(w) for w in words]
    else:
        parts = text.replace(",", " ").split()
        if len(parts) == 1 and task.vocab <= 10 and len(parts[0]) > 1:
            parts = list(parts[0])
        symbols = []
        for p in parts:
            if not (p.isascii() and p.isdecimal()) or int(p) >= task.vocab:
                raise InvalidParameterError(
                    f"'{p}' is not a symbol of this task: use numbers 0 to {task.vocab - 1}.")
            symbols.append(int(p))
    if len(symbols) > task.max_len:
        raise InvalidParameterError(
            f"The input has {len(symbols)} tokens; this model takes at most {task.max_len}.")
    return symbols


def format_sequence(symbols: list[int], task: TaskConfig) -> str:
    """Symbols → the text a person would type for them (the inverse of parse)."""
    names = task.symbols()
    sep = "" if task.alphabet == "characters" else " "
    return sep.join(names[s] for s in symbols)


def random_sequence(task: TaskConfig, seed: int) -> list[int]:
    """A random input: random digits, or one of the example texts for a text model."""
    gen = torch.Generator().manual_seed(seed)
    if task.alphabet in SAMPLES:
        fits = [t for t in SAMPLES[task.alphabet] if len(parse_sequence(t, task))
                <= task.max_len]
        return parse_sequence(fits[int(torch.randint(len(fits), (1,), generator=gen))], task)
    n = int(torch.randint(task.min_len, task.max_len + 1, (1,), generator=gen))
    return torch.randint(0, task.vocab, (n,), generator=gen).tolist()
