"""The names of the step-through's steps, translated in the "TransformerSteps" context."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

#: the step-through's steps (``models.transformer.forward_steps`` keys, without the "self." /
#: "cross." block prefix)
STEP_TITLES = {
    "ids": QT_TRANSLATE_NOOP("TransformerSteps", "token ids"),
    "embedding": QT_TRANSLATE_NOOP("TransformerSteps", "embedding lookup"),
    "scaled": QT_TRANSLATE_NOOP("TransformerSteps", "× √d_model"),
    "pe": QT_TRANSLATE_NOOP("TransformerSteps", "+ positional encoding"),
    "layer_input": QT_TRANSLATE_NOOP("TransformerSteps", "through the layers before this one"),
    "q": QT_TRANSLATE_NOOP("TransformerSteps", "Q = x·W_q"),
    "k": QT_TRANSLATE_NOOP("TransformerSteps", "K = x·W_k"),
    "v": QT_TRANSLATE_NOOP("TransformerSteps", "V = x·W_v"),
    "cross.k": QT_TRANSLATE_NOOP("TransformerSteps", "K = memory·W_k"),
    "cross.v": QT_TRANSLATE_NOOP("TransformerSteps", "V = memory·W_v"),
    "q_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: Q of this head"),
    "k_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: K of this head"),
    "v_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: V of this head"),
    "scores": QT_TRANSLATE_NOOP("TransformerSteps", "scores Q·Kᵀ/√d_k"),
    "mask": QT_TRANSLATE_NOOP("TransformerSteps", "mask (green = may attend)"),
    "masked": QT_TRANSLATE_NOOP("TransformerSteps", "masked scores (blocked = −∞, blank)"),
    "softmax": QT_TRANSLATE_NOOP("TransformerSteps", "softmax → attention weights"),
    "weighted": QT_TRANSLATE_NOOP("TransformerSteps", "weighted sum of V"),
    "combined": QT_TRANSLATE_NOOP("TransformerSteps", "combine heads"),
    "out": QT_TRANSLATE_NOOP("TransformerSteps", "output projection W_o"),
    "add_norm": QT_TRANSLATE_NOOP("TransformerSteps", "Add & Norm"),
    "memory": QT_TRANSLATE_NOOP("TransformerSteps", "encoder output (memory)"),
    "ffn.hidden": QT_TRANSLATE_NOOP("TransformerSteps", "FFN: ReLU(x·W₁ + b₁)"),
    "ffn.out": QT_TRANSLATE_NOOP("TransformerSteps", "FFN: ·W₂ + b₂"),
    "ffn.add_norm": QT_TRANSLATE_NOOP("TransformerSteps", "Add & Norm = layer output"),
    "logits": QT_TRANSLATE_NOOP("TransformerSteps", "final linear → logits"),
}
STEP_BLOCKS = {"self": QT_TRANSLATE_NOOP("TransformerSteps", "self-attention"),
               "cross": QT_TRANSLATE_NOOP("TransformerSteps", "cross-attention")}
STEP_DECODER_SELF = QT_TRANSLATE_NOOP("TransformerSteps", "masked self-attention")


def step_title(key: str, stack: str = "encoder") -> str:
    """The translated name of a step-through step, e.g. "cross-attention: K = memory·W_k"."""
    def tr(text: str) -> str:
        return QCoreApplication.translate("TransformerSteps", text)

    block, dot, sub = key.partition(".")
    if dot and block in STEP_BLOCKS:
        name = STEP_TITLES.get(key if key in STEP_TITLES else sub, sub)
        block_name = (STEP_DECODER_SELF if block == "self" and stack == "decoder"
                      else STEP_BLOCKS[block])
        return f"{tr(block_name)}: {tr(name)}"
    return tr(STEP_TITLES.get(key, key))
