"""Meta-learning: MAML, first-order MAML, Reptile and a pretrained baseline on sinusoid
regression (Finn et al. 2017), and prototypical networks on 2D few-shot classification
(Snell et al. 2017). ``options`` is torch-free; the rest loads on first use."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    "METHODS": "options", "METHOD_LABELS": "options", "AMPLITUDE": "options",
    "PHASE": "options", "X_RANGE": "options", "FAMILIES": "options",
    "EVAL_POINTS": "options", "ADAPT_STEPS": "options", "EVAL_TASKS": "options",
    "sample_tasks": "tasks", "sinusoid": "tasks",
    "SineNet": "maml", "init_params": "maml", "predict": "maml", "mse": "maml",
    "mse_and_grad": "maml", "task_mse_and_grads": "maml",
    "adapt": "maml", "adapt_batched": "maml", "meta_loss": "maml",
    "meta_gradient": "maml", "reptile_direction": "maml", "reptile_update": "maml",
    "MetaSession": "session",
    "EmbeddingNet": "proto", "make_episode": "proto", "prototypes": "proto",
    "ProtoSession": "proto",
    "meta_result": "probe", "meta_evaluation": "probe",
})
