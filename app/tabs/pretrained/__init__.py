"""The pretrained-model tab: a real BERT-family encoder (the bundled all-MiniLM-L6-v2)
or a user's Hugging Face folder (BERT, RoBERTa, DistilBERT, GPT-2), every head, masks,
sentence similarities, Clark et al. statistics, a decoder's next token and generation."""

from app.tabs.pretrained.tab import PretrainedTab

__all__ = ["PretrainedTab"]
