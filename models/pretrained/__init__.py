"""Pretrained models run through the course's own components: the bundled
all-MiniLM-L6-v2 (a BERT) and a user's Hugging Face folder (BERT, RoBERTa, DistilBERT,
GPT-2), loaded through an explicit name mapping into ``MultiHeadAttention``,
``AddNorm`` and the feed-forward of ``models.transformer``; ``options`` is torch-free."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    # options shared with the GUI (torch-free)
    "SUPPORTED_ARCHITECTURES": "options",
    "DEFAULT_MAX_PARAMETERS": "options",
    "INSTALL_COMMAND": "options",
    "BUNDLED_NAME": "options",
    "bundled_model_path": "options",
    # config.json → sizes, the name mapping, the networks
    "ArchConfig": "config",
    "parse_config": "config",
    "Rule": "mapping",
    "name_mapping": "mapping",
    "LearnedEmbeddings": "network",
    "PretrainedEncoder": "network",
    "PretrainedDecoder": "network",
    # what the app calls
    "PretrainedModel": "model",
    "load_pretrained": "loader",
    "inspect_pretrained": "loader",
    "bundled_folder": "loader",
    # the tab's background computations (each returns a trace)
    "sentence_attention": "probe",
    "neuron_view": "probe",
    "sentence_similarity": "probe",
    "next_tokens": "probe",
    "generate": "probe",
    "head_statistics": "probe",
    "attention_rollout": "probe",
    "choice_distribution": "probe",
    "approximation_comparison": "probe",
    # softmax attention replaced inside the model (Performer, Linformer, a window)
    "layer_attention": "approx",
})
