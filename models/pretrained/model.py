"""A pretrained model the app runs: its tokenizer and the course's components holding
its weights, with what a tab asks of it.

``tokens(text)`` the tokens, special ones included; ``attention(text)`` every head of
every layer as an ``AttentionMaps`` trace (encoders fill ``encoder_self``, decoders
``decoder_self``); ``embed(sentences)`` sentence embeddings of an encoder (mean pooling
over the real tokens, L2-normalised, as sentence-transformers does for
all-MiniLM-L6-v2); ``logits(text)`` next-token scores of a decoder. A sentence pair
(BERT's segments A and B, token types 0 and 1) goes in as ``pair=``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

from models.errors import InvalidParameterError
from models.pretrained.config import ArchConfig
from models.pretrained.network import PretrainedDecoder, PretrainedEncoder
from models.pretrained.text import Encoded, TextTokenizer
from models.traces import AttentionMaps

_NO_MAPS = np.zeros((0, 0, 0, 0), np.float32)
_NO_MASK = np.zeros((0, 0), bool)
_NO_IDS = np.zeros(0, np.int64)
#: the most sentences one ``embed`` call takes (a similarity matrix of a few is the use)
MAX_SENTENCES = 256


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float32, copy=True).numpy()


class PretrainedModel:
    """A loaded model: ``name``, ``folder``, ``config`` (an ``ArchConfig``), ``kind``
    ("encoder" or "decoder"), ``network`` (the course's components, in eval mode).

    Its weights can be handed back while nobody uses them (``release_weights``: a tab
    out of sight does, see ``app/tabs/pretrained``) and are read again from the folder
    the next time ``network`` is asked for (``reload``: what the loader read them with;
    45-55 ms for the bundled model, its files in the page cache). A computation that
    must keep them for its whole length runs inside ``in_use()``."""

    def __init__(self, name: str, folder: Path, config: ArchConfig, tokenizer: TextTokenizer,
                 network: PretrainedEncoder | PretrainedDecoder, *,
                 reload: Callable[[], PretrainedEncoder | PretrainedDecoder] | None = None
                 ) -> None:
        self.name, self.folder, self.config = name, folder, config
        self.tokenizer = tokenizer
        self.kind = "decoder" if config.is_decoder else "encoder"
        self._network: PretrainedEncoder | PretrainedDecoder | None = network.eval()
        self._reload = reload
        self._device = next(network.parameters()).device
        self._parameters = sum(p.numel() for p in network.parameters())
        self._users = 0
        self._lock = threading.RLock()        # the weights: moved, released, read again
        self.reloads = 0                      # times the weights were read again (tests)

    @property
    def network(self) -> PretrainedEncoder | PretrainedDecoder:
        """The network, its weights read again first if they were released."""
        with self._lock:
            if self._network is None:
                network = self._reload().eval()
                if self._device != torch.device("cpu"):
                    network.to(self._device)
                self._network = network
                self.reloads += 1
            return self._network

    @property
    def weights_loaded(self) -> bool:
        return self._network is not None

    @contextmanager
    def in_use(self) -> Iterator[PretrainedModel]:
        """Keep the weights (read again if released) until the block ends."""
        with self._lock:
            self._users += 1
        try:
            self.network                        # noqa: B018 - loads them
            yield self
        finally:
            with self._lock:
                self._users -= 1

    def release_weights(self) -> bool:
        """Drop the weights if nothing is using them and they can be read again; True if
        they were dropped now."""
        if not self._lock.acquire(blocking=False):     # being read again or moved: not
            return False                               # now (never wait on the GUI thread)
        try:
            if self._reload is None or self._users or self._network is None:
                return False
            self._network = None
            return True
        finally:
            self._lock.release()

    @property
    def device(self) -> torch.device:
        return self._device

    def to(self, device) -> PretrainedModel:
        """Run on ``device`` ("cpu", "cuda:0", "mps"; checked: ``DeviceUnavailableError``
        for one that is not there). Results are numpy arrays whatever the device."""
        from models.devices import device_for
        dev = device_for(device)
        with self._lock:
            if dev != self._device:
                if self._network is not None:
                    self._network.to(dev)
                self._device = dev
        return self

    def __repr__(self) -> str:
        c = self.config
        return (f"<{type(self).__name__} {self.name!r}: {c.model_type}, {c.layers} layers × "
                f"{c.heads} heads, d_model {c.d_model}, {self.num_parameters:,} parameters>")

    @property
    def num_parameters(self) -> int:
        return self._parameters

    @property
    def max_tokens(self) -> int:
        """The longest sequence (special tokens included) the model takes."""
        return self.config.positions

    def encode(self, text: str, pair: str | None = None) -> Encoded:
        if pair is not None and self.config.type_vocab_size < 2:
            raise InvalidParameterError(
                f"{self.name} ({self.config.model_type}) has no token types for a sentence "
                "pair; type one text.")
        return self.tokenizer.encode(text, pair)

    def tokens(self, text: str, pair: str | None = None) -> list[str]:
        """The tokens the model reads, special tokens included."""
        return self.encode(text, pair).tokens

    def head_mask_tensor(self, head_mask) -> torch.Tensor | None:
        """A head mask (layers, heads) as a float tensor (1 = on, 0 = off), checked;
        None stays None (every head on)."""
        if head_mask is None:
            return None
        m = np.asarray(head_mask, dtype=np.float32)
        want = (self.config.layers, self.config.heads)
        if m.shape != want or not np.isfinite(m).all():
            raise InvalidParameterError(f"a head mask of {self.name} is layers × heads = "
                                        f"{want[0]} × {want[1]} finite values; got {m.shape}.")
        return torch.from_numpy(m.copy()).to(self.device)

    def attend_tensor(self, keep, n: int) -> torch.Tensor | None:
        """A token mask (n,) of the tokens that may be attended (True), as (1, n)."""
        if keep is None:
            return None
        k = np.asarray(keep, dtype=bool)
        if k.shape != (n,):
            raise InvalidParameterError(f"the token mask has {k.size} entries for {n} tokens.")
        return torch.from_numpy(k.copy())[None].to(self.device)

    @torch.inference_mode()
    def _run(self, encoded: Encoded, head_mask=None, keep=None, inputs: list | None = None,
             maps: torch.Tensor | None = None, approx=None):
        dev = self.device
        ids = torch.tensor([encoded.ids], dtype=torch.long, device=dev)
        types = torch.tensor([encoded.type_ids], dtype=torch.long, device=dev)
        real = torch.ones_like(ids, dtype=torch.bool)
        out = self.network(ids, real, types, attend=self.attend_tensor(keep, ids.size(1)),
                           head_mask=self.head_mask_tensor(head_mask), inputs=inputs,
                           maps=maps, attention=approx)
        return out, ids

    def attention(self, text: str, pair: str | None = None, *, head_mask=None,
                  keep=None, approx=None) -> AttentionMaps:
        """Every head of every layer for one text (or sentence pair): ``encoder_self``
        float32[layers, heads, N, N] of an encoder, ``decoder_self`` of a decoder.
        ``head_mask`` float[layers, heads] (1 on, 0 off; an off head's weights are 0);
        ``keep`` bool[N], the tokens that may be attended (None: all); ``approx`` the
        attention replacing softmax attention in every layer and head
        (``models.pretrained.approx.layer_attention``; None: exact)."""
        encoded = self.encode(text, pair)
        n, cfg = len(encoded.ids), self.config
        # every layer writes its maps into one tensor as it goes (no torch.cat after);
        # on the CPU the trace keeps that tensor's memory as it is (no copy to numpy).
        # A torch allocation, not np.empty: numpy asks for huge pages on arrays this
        # big, and the kernel's compaction for them cost 0.1-0.5 s of system time a
        # call at N = 512 on a busy machine.
        into = torch.empty((cfg.layers, cfg.heads, n, n), device=self.device)
        (_, _, mask), ids = self._run(encoded, head_mask, keep, maps=into.unsqueeze(1),
                                      approx=approx)
        maps = into.numpy() if into.device.type == "cpu" else _np(into)
        keep = (np.ones((n, n), bool) if mask is None
                else mask[0, 0].expand(n, n).cpu().numpy().astype(bool))
        ids_np = ids[0].cpu().numpy().astype(np.int64)
        if self.kind == "encoder":
            return AttentionMaps(encoder_self=maps, decoder_self=_NO_MAPS, cross=_NO_MAPS,
                                 src_mask=keep, tgt_mask=_NO_MASK, cross_mask=_NO_MASK,
                                 src_ids=ids_np, tgt_ids=_NO_IDS)
        return AttentionMaps(encoder_self=_NO_MAPS, decoder_self=maps, cross=_NO_MAPS,
                             src_mask=_NO_MASK, tgt_mask=keep, cross_mask=_NO_MASK,
                             src_ids=_NO_IDS, tgt_ids=ids_np)

    @torch.inference_mode()
    def embed(self, sentences, *, head_mask=None, approx=None) -> np.ndarray:
        """Sentence embeddings float32[n, d_model]: the last layer's token vectors
        averaged over the real tokens (padding left out), then L2-normalised, so the
        dot product of two rows is their cosine similarity. ``head_mask`` and ``approx``
        as in ``attention``."""
        if self.kind != "encoder":
            raise InvalidParameterError(f"{self.name} is a decoder ({self.config.model_type});"
                                        " sentence embeddings come from encoder models.")
        if isinstance(sentences, str):
            sentences = [sentences]
        sentences = list(sentences)
        if not 1 <= len(sentences) <= MAX_SENTENCES:
            raise InvalidParameterError(f"embed takes 1 to {MAX_SENTENCES} sentences, "
                                        f"got {len(sentences)}.")
        encoded = [self.encode(s) for s in sentences]
        n = max(len(e.ids) for e in encoded)
        ids = torch.full((len(encoded), n), self.config.pad_token_id, dtype=torch.long)
        keep = torch.zeros((len(encoded), n), dtype=torch.bool)
        for row, e in enumerate(encoded):
            ids[row, :len(e.ids)] = torch.tensor(e.ids)
            keep[row, :len(e.ids)] = True
        ids, keep = ids.to(self.device), keep.to(self.device)
        hidden, _, _ = self.network(ids, keep, torch.zeros_like(ids),
                                    head_mask=self.head_mask_tensor(head_mask),
                                    attention=approx)
        # mean over the real tokens, then unit length
        k = keep.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * k).sum(dim=1) / k.sum(dim=1).clamp(min=1e-9)
        return _np(torch.nn.functional.normalize(pooled, p=2, dim=1))

    @torch.inference_mode()
    def logits(self, text: str) -> np.ndarray:
        """Scores over the vocabulary after every token, float32[N, vocab] (row i
        predicts token i + 1)."""
        if self.kind != "decoder":
            raise InvalidParameterError(f"{self.name} is an encoder ({self.config.model_type});"
                                        " next-token scores come from decoder models.")
        (hidden, _, _), _ = self._run(self.encode(text))
        return _np(self.network.logits(hidden)[0])
