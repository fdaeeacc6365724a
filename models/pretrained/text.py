"""The model folder's ``tokenizer.json``, read with Hugging Face ``tokenizers``.

Text → token ids, token-type ids and the tokens as strings, special tokens included
(BERT's [CLS] … [SEP], a sentence pair's second segment with token type 1). The
truncation and padding a tokenizer.json may carry (all-MiniLM-L6-v2's pads every text
to 128 tokens) are switched off: a text too long for the model is refused with both
lengths instead of being cut silently, and padding is the model's business.
"""

from __future__ import annotations

import codecs
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

        from models.pretrained.weights import MAX_TOKENIZER_BYTES, read_small_file

        data = read_small_file(path, MAX_TOKENIZER_BYTES)
        try:
            tokenizer = Tokenizer.from_str(data.decode("utf-8"))
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
        #: GPT-2's and RoBERTa's byte-level BPE: its tokens are shown as the text they
        #: stand for (" the", not "Ġthe"; see ``readable_token``)
        self.byte_level = _is_byte_level(tokenizer)

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
        tokens = [readable_token(t) for t in enc.tokens] if self.byte_level else list(enc.tokens)
        return Encoded(ids=list(enc.ids), type_ids=list(enc.type_ids), tokens=tokens)

    def token(self, token_id: int) -> str:
        """The token string of an id (an id the vocabulary lacks shows as <id>)."""
        found = self.tokenizer.id_to_token(int(token_id))
        if found is None:
            return f"<{int(token_id)}>"
        return readable_token(found) if self.byte_level else found


def _is_byte_level(tokenizer) -> bool:
    import json

    decoder = json.loads(tokenizer.to_str()).get("decoder") or {}
    parts = decoder.get("decoders") or [decoder]
    return any(isinstance(d, dict) and d.get("type") == "ByteLevel" for d in parts)


def _byte_of_char() -> dict[str, int]:
    """GPT-2's ``bytes_to_unicode`` inverted: the printable character that stands for each
    of the 256 bytes in a byte-level BPE vocabulary ('Ġ' for the space, 'Ċ' for a new
    line), back to its byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    chars = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return {c: b for b, c in chars.items()}


_BYTE_OF_CHAR = _byte_of_char()
#: control characters a token may hold, drawn as signs (an axis label holds one line,
#: and a font draws a control character as an empty box; the app's font has no control
#: pictures either): the new line and the tab as arrows, the other C0 controls and DEL
#: as their byte, '<0x1C>', as byte-fallback vocabularies name them
_SHOWN_AS = str.maketrans({**{chr(c): f"<0x{c:02X}>" for c in (*range(0x20), 0x7F)},
                           "\n": "↵", "\t": "⇥"})


def _bytes_named(error: UnicodeDecodeError) -> tuple[str, int]:
    """The bytes of a character split over two tokens, named: '<0xE2><0x80>'."""
    return "".join(f"<0x{b:02X}>" for b in error.object[error.start:error.end]), error.end


codecs.register_error("archscope_bytes_named", _bytes_named)


def readable_token(token: str) -> str:
    """A byte-level BPE token as the text it stands for: 'Ġthe' → ' the', 'Ċ' → '↵'. The
    bytes of a character split over two tokens show as their values ('<0xE2>'), as do
    control characters; a special token ('<|endoftext|>') is itself."""
    if not all(c in _BYTE_OF_CHAR for c in token):
        return token
    text = bytes(_BYTE_OF_CHAR[c] for c in token).decode("utf-8", errors="archscope_bytes_named")
    return text.translate(_SHOWN_AS)
