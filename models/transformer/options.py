"""Option names of the Transformer topic, shared by the models and the GUI.

Torch-free (plain tuples and strings), so ``app/`` imports it at module top without
loading torch: ``import models.transformer.options`` runs the package's lazy face only.

Token ids: 0 = <pad> (shown ·), 1 = <bos> (▸), 2 = <eos> (■), 3 + s = symbol s.
"""

from __future__ import annotations

__all__ = ["PAD", "BOS", "EOS", "SPECIALS", "TASKS", "ARCHITECTURES", "CHARACTERS", "WORDS",
           "ALPHABETS", "SAMPLES", "KINDS", "EMBEDDING_INITS"]

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

#: the attention kinds of the Transformer tab: encoder self-, decoder self-, cross-attention
KINDS = ("encoder", "decoder", "cross")
#: token-embedding initialisations of the positional-encoding explorer
EMBEDDING_INITS = ("normal", "scaled")
