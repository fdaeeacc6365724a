"""Pretrained encoders and decoders built from the course's own components.

The blocks are the course's ``EncoderLayer`` (``MultiHeadAttention`` with ``W_q W_k W_v
W_o``, ``AddNorm``, ``PositionWiseFeedForward``) with the options real models need;
what is new here is only what the course's models lack: learned position and
token-type embeddings (the course adds a sinusoidal table), the embedding layer norm of
BERT, GPT-2's final layer norm and its output layer tied to the token embedding.

- ``PretrainedEncoder``: BERT, RoBERTa, DistilBERT. Post-norm blocks with GELU; the
  embedding is word + position (+ token type), then LayerNorm.
- ``PretrainedDecoder``: GPT-2. Pre-norm blocks (``norm_first``) with tanh-GELU under
  the look-ahead mask, a final LayerNorm, logits = h · Eᵀ with E the token embedding.

Shapes: ids, type_ids, keep (batch, n) → hidden (batch, n, d_model) and the attention
weights of every layer, each (batch, heads, n, n).
"""

from __future__ import annotations

import torch
from torch import nn

from models.pretrained.config import ArchConfig
from models.transformer.attention import combine_masks, create_look_ahead_mask
from models.transformer.layers import EncoderLayer


def _table(rows: int, d: int) -> nn.Embedding:
    """An embedding table of zeros: its values always come from a checkpoint. (A
    randomly initialised one built on the meta device, as the loader builds, imports
    torch._dynamo on first use: 1 to 4 s of the first load.)"""
    return nn.Embedding(rows, d, _weight=torch.zeros(rows, d))


class LearnedEmbeddings(nn.Module):
    """Token embedding + learned position embedding (+ token-type embedding), then an
    optional LayerNorm. No × √d_model: pretrained models learned their tables at the
    scale they use them."""

    def __init__(self, cfg: ArchConfig, layer_norm: bool) -> None:
        super().__init__()
        d = cfg.d_model
        self.word_embeddings = _table(cfg.vocab_size, d)
        self.position_embeddings = _table(cfg.position_rows, d)
        self.token_type_embeddings = (_table(cfg.type_vocab_size, d)
                                      if cfg.type_vocab_size else None)
        self.layer_norm = nn.LayerNorm(d, eps=cfg.eps) if layer_norm else None

    def forward(self, ids: torch.Tensor, positions: torch.Tensor,
                type_ids: torch.Tensor | None = None) -> torch.Tensor:
        x = self.word_embeddings(ids) + self.position_embeddings(positions)
        if self.token_type_embeddings is not None:
            x = x + self.token_type_embeddings(
                torch.zeros_like(ids) if type_ids is None else type_ids)
        return x if self.layer_norm is None else self.layer_norm(x)


class _Stack(nn.Module):
    def __init__(self, cfg: ArchConfig, norm_first: bool) -> None:
        super().__init__()
        self.cfg = cfg
        self.embeddings = LearnedEmbeddings(cfg, layer_norm=not norm_first)
        self.layers = nn.ModuleList(
            EncoderLayer(cfg.d_model, cfg.heads, cfg.d_ff, dropout=0.0,
                         activation=cfg.activation, eps=cfg.eps, norm_first=norm_first)
            for _ in range(cfg.layers))

    def positions(self, keep: torch.Tensor) -> torch.Tensor:
        """Position ids: 0, 1, ... (RoBERTa: counted over real tokens, from the padding
        id + 1, padding at the padding id, as Hugging Face numbers them)."""
        if self.cfg.family == "roberta":
            k = keep.long()
            return torch.cumsum(k, dim=1) * k + self.cfg.pad_token_id
        n = keep.size(1)
        return torch.arange(n, device=keep.device).expand_as(keep)

    def run_layers(self, x: torch.Tensor, mask: torch.Tensor | None,
                   head_mask: torch.Tensor | None = None, inputs: list | None = None,
                   maps: torch.Tensor | None = None, attention=None
                   ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Every layer in turn. ``head_mask`` (layers, heads): 1 = head on, 0 = off;
        ``inputs``, when a list, receives each layer's input (for the neuron view);
        ``maps``, when a tensor (layers, batch, heads, n, n), receives each layer's
        weights as soon as they are made, and the list then holds its slices: every
        map lands in one array once, with no ``torch.cat`` of the list afterwards (at
        N = 512 the cat and its copy to numpy were two 75 MB copies, ~80 ms).
        ``attention``, when given, is a function of the layer's index returning the
        attention that replaces softmax attention in every head of that layer
        (``models.pretrained.approx``); None: exact attention."""
        weights = []
        for i, layer in enumerate(self.layers):
            if inputs is not None:
                inputs.append(x)
            x, w = layer(x, mask, return_attention=True,
                         head_mask=None if head_mask is None else head_mask[i],
                         attention=None if attention is None else attention(i))
            if maps is not None:
                # this layer's own tensor is freed at once and the next layer reuses
                # its memory: at N = 512 a median 20-25k page faults a call against
                # 43-45k for transformers, which keeps every layer's until the end
                w = maps[i].copy_(w)
            weights.append(w)
        return x, weights

    @staticmethod
    def keep_mask(keep: torch.Tensor, attend: torch.Tensor | None) -> torch.Tensor | None:
        """The keys that may be attended, (batch, 1, 1, n): the real tokens (``keep``)
        that ``attend`` (a user's token mask, None = all) also allows; None when every
        key is allowed."""
        allowed = keep.bool() if attend is None else keep.bool() & attend.bool()
        return None if bool(allowed.all()) else allowed[:, None, None, :]


class PretrainedEncoder(_Stack):
    """A BERT-family encoder: every token attends to every real (non-padding) token."""

    def __init__(self, cfg: ArchConfig) -> None:
        super().__init__(cfg, norm_first=False)

    def forward(self, ids: torch.Tensor, keep: torch.Tensor,
                type_ids: torch.Tensor | None = None, *, attend: torch.Tensor | None = None,
                head_mask: torch.Tensor | None = None, inputs: list | None = None,
                maps: torch.Tensor | None = None, attention=None):
        # 1. embeddings: word + learned position (+ token type), LayerNorm
        x = self.embeddings(ids, self.positions(keep), type_ids)
        # 2. the padding keep-mask (and the user's token mask), (batch, 1, 1, n)
        mask = self.keep_mask(keep, attend)
        # 3. the course's encoder layers, post-norm
        return (*self.run_layers(x, mask, head_mask, inputs, maps, attention), mask)


class PretrainedDecoder(_Stack):
    """A GPT-2-style decoder: pre-norm blocks under the look-ahead mask, a final
    LayerNorm and the output layer tied to the token embedding."""

    def __init__(self, cfg: ArchConfig) -> None:
        super().__init__(cfg, norm_first=True)
        self.final_norm = nn.LayerNorm(cfg.d_model, eps=cfg.eps)

    def forward(self, ids: torch.Tensor, keep: torch.Tensor,
                type_ids: torch.Tensor | None = None, *, attend: torch.Tensor | None = None,
                head_mask: torch.Tensor | None = None, inputs: list | None = None,
                maps: torch.Tensor | None = None, attention=None):
        # 1. embeddings: word + learned position, no LayerNorm (the blocks normalise first)
        x = self.embeddings(ids, self.positions(keep))
        # 2. look-ahead AND padding (and the user's token) keep-mask
        mask = combine_masks(create_look_ahead_mask(ids.size(1), ids.device),
                             self.keep_mask(keep, attend))
        # 3. the course's layers, pre-norm, then the final LayerNorm
        x, weights = self.run_layers(x, mask, head_mask, inputs, maps, attention)
        return self.final_norm(x), weights, mask

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Scores over the vocabulary with the tied output layer: h · Eᵀ."""
        return hidden @ self.embeddings.word_embeddings.weight.T
