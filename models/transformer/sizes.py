"""The size study: a variant of the Transformer trained beside the baseline (the
Transformer tab's Sizes view, issue 35).

Both are ``Seq2SeqSession`` models of the shown architecture on the shown task, built
from one seed: the same batches (one batch generator seed), the same held-out
sequences, the same learning-rate schedule. The baseline is the tab's model as the
course sizes it (``ModelConfig()``: 2 + 2 layers, d_model 64, 4 heads, d_ff 128, no
dropout, ReLU, post-norm); the variant changes what the student set: layers, heads,
d_model, d_ff, dropout, the activation, pre- or post-norm. The two train in turns, a
step each, in one job; a ``SizeStudy`` reports both curves as they grow.

With the variant's sizes equal to the baseline's the two curves are the same to the
last bit: whatever differs between them is the knob's doing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, replace
from functools import lru_cache

import numpy as np
import torch

from models.traces import Progress, SizeStudy
from models.transformer.model import eval_mode
from models.transformer.options import PAD
from models.transformer.options import SIZE_EVALUATIONS as EVALUATIONS
from models.transformer.seq2seq import ModelConfig, training_loss
from models.transformer.session import Seq2SeqSession
from models.transformer.tasks import TaskConfig, make_batch

#: the seed of both models' weights and of their batches and held-out sequences
SIZE_SEED = 0
#: a report every this many steps (and at the last)
REPORT_EVERY = 10
#: the tab's training schedule: peak learning rate and warm-up steps
LR, WARMUP = 3e-3, 100

__all__ = ["SIZE_SEED", "initial_study", "size_configs", "size_study", "weight_count"]


def size_configs(architecture: str, variant: dict) -> tuple[ModelConfig, ModelConfig]:
    """(baseline, variant) ``ModelConfig``: the course's sizes, and the same with the
    ``variant`` fields (``TransformerRequest.size_values``) in their place."""
    baseline = ModelConfig(architecture=architecture)
    return baseline, replace(baseline, **variant)


def weight_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def size_study(task: TaskConfig, architecture: str, variant: dict, steps: int,
               device: str = "cpu", seed: int = SIZE_SEED) -> Iterator[Progress]:
    """Train the baseline and the variant ``steps`` steps each, a step of one then of the
    other; a ``Progress`` every ``REPORT_EVERY`` steps carries the ``SizeStudy`` so far.
    A divergence stops the study with the session's own message (``TrainingDiverged``)."""
    configs = size_configs(architecture, variant)
    schedule = {"lr": LR, "warmup": min(WARMUP, max(1, steps // 5)), "decay_steps": steps}
    runs = [Seq2SeqSession(task, cfg, device=device, seed=seed, **schedule)
            for cfg in configs]
    every = max(1, steps // EVALUATIONS)
    loops = [run.train(steps, eval_every=every) for run in runs]
    wall, cpu = np.zeros(2), np.zeros(2)
    params = tuple(weight_count(run.model) for run in runs)
    # dropout draws from the global generator: each model has a stream of its own, seeded
    # alike, swapped in for its steps (the same variant gives the same curves whatever
    # ran before; 0.586 and 0.656 were two runs' last losses at dropout 0.3 without it)
    streams: list[torch.Tensor | None] = [None, None]
    for step in range(1, steps + 1):
        for i, loop in enumerate(loops):
            t0, c0 = time.perf_counter(), time.thread_time()
            with torch.random.fork_rng(devices=[]):
                if streams[i] is None:
                    torch.manual_seed(seed)
                else:
                    torch.set_rng_state(streams[i])
                next(loop, None)
                streams[i] = torch.get_rng_state()
            wall[i] += time.perf_counter() - t0
            cpu[i] += time.thread_time() - c0
        if step % REPORT_EVERY == 0 or step == steps:
            study = _study(task, architecture, configs, params, runs, step, steps,
                           wall, cpu, seed)
            yield Progress(step, steps, float(study.losses[1, -1]),
                           {"baseline_loss": float(study.losses[0, -1])}, trace=study)
    for loop in loops:
        loop.close()


@lru_cache(maxsize=8)
def _initial(task: TaskConfig, architecture: str, variant: tuple, steps: int,
             device: str, seed: int) -> SizeStudy:
    configs = size_configs(architecture, dict(variant))
    runs = [Seq2SeqSession(task, cfg, device=device, seed=seed) for cfg in configs]
    losses, token = [], []
    with torch.no_grad():
        for run in runs:
            # the first training batch (drawn as step 1 draws it), read by the weights as
            # initialised, in eval mode: no dropout, nothing learned
            gen = torch.Generator().manual_seed(seed)
            src, tgt_in, tgt_out = (t.to(run.device) for t in
                                    make_batch(task, run.batch_size, gen))
            with eval_mode(run.model):
                loss, logits, target = training_loss(run.model, run.loss_fn, src, tgt_in,
                                                     tgt_out)
            keep = target != PAD
            losses.append([float(loss)])
            token.append([float(((logits.argmax(-1) == target) & keep).sum() / keep.sum())])
    params = tuple(weight_count(run.model) for run in runs)
    return SizeStudy(architecture, task.task, task.alphabet, _fields(configs[0]),
                     _fields(configs[1]), params, 0, steps, np.array(losses, np.float32),
                     np.array(token, np.float32), np.zeros((0, 3), np.float32),
                     np.zeros(4, np.float32), seed)


def initial_study(task: TaskConfig, architecture: str, variant: dict, steps: int,
                  device: str = "cpu", seed: int = SIZE_SEED) -> SizeStudy:
    """The study before "Train both": both models as initialised (step 0), their weights,
    loss and token accuracy on the first batch (no held-out decoding: it took 9.7 s for
    the largest variant, and each trace asks for this). Kept for the last 8 settings."""
    return _initial(task, architecture, tuple(sorted(variant.items())), steps, str(device),
                    seed)


def _study(task, architecture, configs, params, runs, step, steps, wall, cpu,
           seed) -> SizeStudy:
    losses = np.array([run.losses[:step] for run in runs], np.float32)
    token = np.array([run.token_accuracy[:step] for run in runs], np.float32)
    base = dict(runs[0].accuracy_history)
    evals = [(s, base[s], a) for s, a in runs[1].accuracy_history if s in base]
    ms = np.concatenate([wall, cpu]) * 1000.0 / step
    return SizeStudy(architecture, task.task, task.alphabet, _fields(configs[0]),
                     _fields(configs[1]), params, step, steps, losses, token,
                     np.array(evals, np.float32).reshape(-1, 3), ms.astype(np.float32), seed)


def _fields(cfg: ModelConfig) -> dict:
    fields = asdict(cfg)
    fields.pop("architecture")
    return fields
