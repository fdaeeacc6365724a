"""The model folder's ``tokenizer.json``, read with Hugging Face ``tokenizers``.

Text → token ids, token-type ids and the tokens as strings, special tokens included
(BERT's [CLS] … [SEP], a sentence pair's second segment with token type 1). The
truncation and padding a tokenizer.json may carry (all-MiniLM-L6-v2's pads every text
to 128 tokens) are switched off: a text too long for the model is refused with both
lengths instead of being cut silently, and padding is the model's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.errors import InvalidParameterError, PretrainedModelError, SequenceTooLongError


@dataclass(frozen=True)
class Encoded:
    """One text (or sentence pair) as the model reads it."""

    ids: list[int]
    type_ids: list[int]
    tokens: list[str]


class TextTokenizer:
    """``tokenizer.json`` of a folder, checked against the model's vocabulary and
    positions."""

    def __init__(self, path: Path, vocab_size: int, positions: int) -> None:
        from tokenizers import Tokenizer
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:     # noqa: BLE001 - the Rust parser's error types vary
            raise PretrainedModelError(f"{path.name} is not a tokenizer Hugging Face "
                                       f"tokenizers can read: {exc}") from None
        tokenizer.no_truncation()
        tokenizer.no_padding()
        size = tokenizer.get_vocab_size(with_added_tokens=True)
        if size > vocab_size:
            raise PretrainedModelError(
                f"{path.name} has {size:,} tokens but the model's embedding only "
                f"{vocab_size:,}: the tokenizer belongs to another model.")
        self.tokenizer, self.positions = tokenizer, positions

    def encode(self, text: str, pair: str | None = None) -> Encoded:
        if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
            raise InvalidParameterError("the text (and the pair) must be strings.")
        enc = self.tokenizer.encode(text, pair)
        if len(enc.ids) > self.positions:
            raise SequenceTooLongError(
                f"the text is {len(enc.ids):,} tokens long; this model reads at most "
                f"{self.positions:,}.")
        if not enc.ids:
            raise InvalidParameterError("the text has no tokens; type a sentence.")
        return Encoded(ids=list(enc.ids), type_ids=list(enc.type_ids), tokens=list(enc.tokens))

    def token(self, token_id: int) -> str:
        """The token string of an id (an id the vocabulary lacks shows as <id>)."""
        found = self.tokenizer.id_to_token(int(token_id))
        return f"<{int(token_id)}>" if found is None else found
