"""The Transformer, built from the components the course names, and positional encodings.

``PositionalEncoding``, ``scaled_dot_product_attention``, ``MultiHeadAttention``
(``W_q W_k W_v W_o``, ``split_heads``, ``combine_heads``), ``AddNorm``,
``PositionWiseFeedForward``, ``EncoderLayer``, ``DecoderLayer`` and ``Transformer``
(``encode``, ``decode``, ``create_padding_mask``, ``create_look_ahead_mask``), plus
encoder-only and decoder-only stacks. Masks are keep-masks everywhere: 1/True = may
attend. Each part is tested against PyTorch's own module with the weights copied.
The synthetic tasks and their tokenizers, the training session, and the probes of the
positional-encoding and Transformer tabs live here too; ``options`` is torch-free.
"""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    # options shared with the GUI (torch-free)
    "PAD": "options", "BOS": "options", "EOS": "options", "SPECIALS": "options",
    "TASKS": "options", "ARCHITECTURES": "options", "ALPHABETS": "options",
    "CHARACTERS": "options", "WORDS": "options", "SAMPLES": "options", "KINDS": "options",
    "EMBEDDING_INITS": "options",
    # the parts, as the course names them
    "sinusoidal_table": "positional",
    "PositionalEncoding": "positional",
    "relative_position_matrix": "positional",
    "scaled_dot_product_attention": "attention",
    "MultiHeadAttention": "attention",
    "create_padding_mask": "attention",
    "create_look_ahead_mask": "attention",
    "combine_masks": "attention",
    # the chapter's own code, to set beside ours
    "course_scaled_dot_product_attention": "course",
    "course_look_ahead_mask": "course",
    "course_decoder_mask": "course",
    "course_forward": "course",
    "course_sdpa_example": "course",
    "course_comparison": "course",
    "AddNorm": "layers",
    "PositionWiseFeedForward": "layers",
    "EncoderLayer": "layers",
    "DecoderLayer": "layers",
    "Transformer": "model",
    "EncoderOnly": "model",
    "DecoderOnly": "model",
    "eval_mode": "model",
    "token_embedding": "model",
    # tasks, tokenizers, architectures, training
    "TaskConfig": "tasks",
    "target_of": "tasks",
    "make_batch": "tasks",
    "lm_length": "tasks",
    "lm_sequences": "tasks",
    "parse_sequence": "tokenizers",
    "format_sequence": "tokenizers",
    "random_sequence": "tokenizers",
    "ModelConfig": "seq2seq",
    "greedy_decode": "seq2seq",
    "decode_output": "seq2seq",
    "training_loss": "seq2seq",
    "sequence_accuracy": "seq2seq",
    "Seq2SeqSession": "session",
    "session_from_state": "session",
    # what the tabs ask for
    "stack_steps": "forward_steps",
    "head_average": "analysis",
    "attention_rollout": "analysis",
    "compute_transformer_trace": "probe",
    "ablation_trace": "ablation",
    "ablation_pair": "ablation",
    "layer_gradients": "ablation",
    "permutation_error": "ablation",
    "softmax_input_grad": "ablation",
    "ABLATIONS": "options",
    "kinds_of": "probe",
    "layers_and_heads": "probe",
    "session_key": "probe",
    "session_trace": "probe",
    "train_with_traces": "probe",
    "compute_pe_grid": "positional_probe",
    "pe_grid": "positional_probe",
    "offset_fit": "positional_probe",
    "fit_offset_map": "positional_probe",
    "token_embeddings": "positional_probe",
    "MAX_SIMILARITY_POSITIONS": "positional_probe",
    "DEFAULT_SENTENCE": "positional_probe",
})
