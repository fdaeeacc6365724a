"""One forward pass, step by step, as the course's text walks through it.

token ids → embedding → × √d_model → + PE → (layers before the chosen one) →
Q/K/V projections → split heads → scores Q Kᵀ/√d_k → mask → softmax → weighted sum →
combine heads → W_o → Add & Norm → (decoder: the same again with the encoder's output
as keys and values) → FFN → Add & Norm → (last layer: final linear → logits).

``stack_steps`` runs the chosen layer with the model's own sub-modules (their
``nn.Linear``/``LayerNorm`` members, not copies of the formulas), recording the tensor
after each step for one batch item and one head. The result of the last step is the
layer's output, and the recorded attention weights are the ones the model uses: the
tests check both against the model's own forward.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from models.traces import AttentionPanels, ForwardStep, ForwardSteps
from models.transformer.attention import MultiHeadAttention
from models.transformer.layers import DecoderLayer, EncoderLayer


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float32, copy=True).numpy()   # never shares memory


class _Recorder:
    def __init__(self, item: int, head: int) -> None:
        self.item, self.head = item, head
        self.steps: list[ForwardStep] = []

    def add(self, key: str, tensor: torch.Tensor, dims: str, rows: Sequence[str],
            cols: Sequence[str] = (), kind: str = "values", per_head: bool = False) -> None:
        t = tensor[self.item if tensor.size(0) > 1 else 0]
        if per_head:
            t = t[self.head if t.size(0) > 1 else 0]
        values = _np(t)
        if values.ndim == 1:
            values = values[None, :]
        self.steps.append(ForwardStep(key=key, dims=dims, shape=tuple(tensor.shape),
                                      values=values, row_labels=tuple(rows),
                                      col_labels=tuple(cols), kind=kind))


def _attention_steps(rec: _Recorder, prefix: str, mha: MultiHeadAttention, x: torch.Tensor,
                     kv: torch.Tensor, mask: torch.Tensor | None, q_labels: Sequence[str],
                     k_labels: Sequence[str]) -> tuple[torch.Tensor, AttentionPanels]:
    """``mha(x, kv, kv, mask)`` written out, recording each step. Returns the output
    (after W_o) and the chosen head's panels."""
    q_len, k_len = x.size(1), kv.size(1)
    q_dims = "(batch, q_len, d_model)"
    k_dims = "(batch, k_len, d_model)"
    # 1. project
    q, k, v = mha.W_q(x), mha.W_k(kv), mha.W_v(kv)
    rec.add(f"{prefix}.q", q, q_dims, q_labels)
    rec.add(f"{prefix}.k", k, k_dims, k_labels)
    rec.add(f"{prefix}.v", v, k_dims, k_labels)
    # 2. split into heads
    qh, kh, vh = mha.split_heads(q), mha.split_heads(k), mha.split_heads(v)
    rec.add(f"{prefix}.q_heads", qh, "(batch, num_heads, q_len, d_k)", q_labels, per_head=True)
    rec.add(f"{prefix}.k_heads", kh, "(batch, num_heads, k_len, d_k)", k_labels, per_head=True)
    rec.add(f"{prefix}.v_heads", vh, "(batch, num_heads, k_len, d_k)", k_labels, per_head=True)
    # 3. scores, mask, softmax (as scaled_dot_product_attention, step by step)
    scores = qh @ kh.transpose(-2, -1) / math.sqrt(mha.d_k)
    score_dims = "(batch, num_heads, q_len, k_len)"
    rec.add(f"{prefix}.scores", scores, score_dims, q_labels, k_labels, per_head=True)
    keep = (torch.ones(1, 1, q_len, k_len, dtype=torch.bool, device=x.device) if mask is None
            else mask.to(torch.bool))
    keep_full = keep.expand(scores.shape)
    rec.add(f"{prefix}.mask", keep_full.float(), _mask_dims(keep), q_labels, k_labels,
            kind="mask", per_head=True)
    masked = scores.masked_fill(~keep_full, float("-inf"))
    rec.add(f"{prefix}.masked", masked, score_dims, q_labels, k_labels, per_head=True)
    weights = torch.softmax(masked, dim=-1).masked_fill(~keep_full.any(-1, keepdim=True), 0.0)
    rec.add(f"{prefix}.softmax", weights, score_dims, q_labels, k_labels, kind="weights",
            per_head=True)
    # 4. weighted sum of the values, heads concatenated, mixed by W_o
    heads_out = weights @ vh
    rec.add(f"{prefix}.weighted", heads_out, "(batch, num_heads, q_len, d_k)", q_labels,
            per_head=True)
    combined = mha.combine_heads(heads_out)
    rec.add(f"{prefix}.combined", combined, q_dims, q_labels)
    out = mha.W_o(combined)
    rec.add(f"{prefix}.out", out, q_dims, q_labels)

    i = rec.item if scores.size(0) > 1 else 0
    h = rec.head
    masked_np = _np(masked[i, h])
    masked_np[~np.isfinite(masked_np)] = np.nan   # blocked: drawn blank
    keep_np = keep_full[i, h].cpu().numpy()
    panels = AttentionPanels(mask=keep_np, raw=_np(scores[i, h]), masked=masked_np,
                             softmax=_np(weights[i, h]), fully_masked=~keep_np.any(-1))
    return out, panels


def _mask_dims(mask: torch.Tensor) -> str:
    """The mask as built, before broadcasting: a padding mask is (batch, 1, 1, k_len)."""
    names = ("batch", "1" if mask.size(1) == 1 else "num_heads",
             "1" if mask.size(2) == 1 else "q_len", "k_len")
    return "(" + ", ".join(names) + ")"


# long: the numbered steps of one layer in order, as the course text walks them
@torch.no_grad()
def stack_steps(*, stack: str, embedding: nn.Embedding, positional_encoding: nn.Module,
                layers: Sequence[nn.Module], tokens: torch.Tensor, mask: torch.Tensor | None,
                layer: int, head: int, labels: Sequence[str],
                memory: torch.Tensor | None = None, memory_mask: torch.Tensor | None = None,
                memory_labels: Sequence[str] = (), final_linear: nn.Linear | None = None,
                item: int = 0, layer_input: torch.Tensor | None = None
                ) -> tuple[ForwardSteps, dict[str, AttentionPanels]]:
    """Layer ``layer`` of a stack of ``EncoderLayer``/``DecoderLayer`` blocks, step by
    step, from the token ids on. ``memory`` (the encoder output) and ``memory_mask``
    are needed for a ``DecoderLayer``. Eval mode is the caller's business (dropout
    would make the steps disagree with themselves).

    ``layer_input``, the input of the chosen layer from a forward pass just made
    (``states=`` of the model's forward), saves running the layers before it again.

    Returns the steps and the chosen head's panels per attention block ("self", and
    "cross" for a decoder layer).
    """
    rec = _Recorder(item, head)
    d_model = embedding.embedding_dim
    seq = "(batch, seq_len, d_model)"
    # 1. token ids → vectors, scaled, plus the position signal
    rec.add("ids", tokens.float(), "(batch, seq_len)", ("ids",), labels, kind="ids")
    x = embedding(tokens)
    rec.add("embedding", x, seq, labels)
    x = x * math.sqrt(d_model)
    rec.add("scaled", x, seq, labels)
    x = positional_encoding(x)
    rec.add("pe", x, seq, labels)
    # 2. the layers before the chosen one, as the model runs them
    if layer_input is not None:
        x = layer_input
    else:
        for lyr in layers[:layer]:
            x = (lyr(x, mask) if isinstance(lyr, EncoderLayer)
                 else lyr(x, memory, mask, memory_mask))
    if layer:
        rec.add("layer_input", x, seq, labels)
    lyr = layers[layer]
    panels: dict[str, AttentionPanels] = {}
    # 3. self-attention (masked in a decoder), Add & Norm
    mha = lyr.self_attn if isinstance(lyr, EncoderLayer) else lyr.masked_self_attn
    attn, panels["self"] = _attention_steps(rec, "self", mha, x, x, mask, labels, labels)
    x = lyr.add_norm1(x, attn)
    rec.add("self.add_norm", x, seq, labels)
    ffn_norm = lyr.add_norm2
    if isinstance(lyr, DecoderLayer):
        # 4. decoder: queries from here, keys and values from the encoder output
        rec.add("memory", memory, "(batch, src_len, d_model)", memory_labels)
        attn, panels["cross"] = _attention_steps(rec, "cross", lyr.encoder_decoder_attn, x,
                                                 memory, memory_mask, labels, memory_labels)
        x = lyr.add_norm2(x, attn)
        rec.add("cross.add_norm", x, seq, labels)
        ffn_norm = lyr.add_norm3
    # 5. the position-wise feed-forward network, Add & Norm
    hidden = lyr.ffn.activation(lyr.ffn.linear1(x))
    rec.add("ffn.hidden", hidden, "(batch, seq_len, d_ff)", labels)
    ffn_out = lyr.ffn.linear2(lyr.ffn.dropout(hidden))
    rec.add("ffn.out", ffn_out, seq, labels)
    x = ffn_norm(x, ffn_out)
    rec.add("ffn.add_norm", x, seq, labels)
    # 6. after the last layer: scores over the vocabulary
    if final_linear is not None and layer == len(layers) - 1:
        rec.add("logits", final_linear(x), "(batch, seq_len, vocab_size)", labels)
    return ForwardSteps(stack=stack, layer=layer, head=head, steps=tuple(rec.steps)), panels
