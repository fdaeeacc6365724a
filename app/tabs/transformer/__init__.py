"""The Transformer tab: a small Transformer trained live on a synthetic task, every
head's attention for one input, mask toggles, and one head step by step."""

from app.tabs.transformer.steps import step_title
from app.tabs.transformer.tab import TransformerTab

__all__ = ["TransformerTab", "step_title"]
