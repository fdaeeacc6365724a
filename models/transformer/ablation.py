"""Ablations: switches that break one idea of the Transformer each, measured beside the
baseline (the Transformer tab's Ablations view).

Both models are the app's encoder stack (``EncoderOnly``: embedding · √d_model + PE,
``EncoderLayer`` blocks, a per-token head) with the shown model's sizes, built from the
same seed; the switch changes no weight, so the two differ in the one idea only. They
read the same input (the sequence typed, and for the gradients 15 more sequences of the
task drawn from the same seed):

* ``no_pe`` (no positional encoding): attention, the feed-forward net and the norms
  treat positions alike, so without PE the encoder is exactly permutation-equivariant,
  f(Px) = P f(x); with PE it is not. Measured: max |f(Px) − P f(x)| after every layer.
* ``no_scale`` (no 1/√d_k): q·k has a variance growing with d_k, so unscaled scores push
  the softmax towards one-hot rows, whose gradient vanishes. Measured: the histogram of
  each query row's largest weight, ‖∂L/∂S‖ (S: the softmax's input) and ‖∂L/∂W_q‖.
* ``no_residual``: without ``x +`` the gradient reaches early layers only through every
  later sub-layer's Jacobian. Measured: ‖∂L/∂(layer input)‖ and each layer's parameter
  gradient norm.
* ``batchnorm`` (BatchNorm for LayerNorm): BatchNorm's statistics are taken over the
  batch and every position, padding included, so a real token's output changes when
  padding is added (to any sequence of the batch); LayerNorm normalises each position
  by itself and does not. Measured: max change of the real tokens' outputs as the batch
  is padded further, and each position's mean / std after the first norm.

``softmax_input_grad`` is the softmax's backward pass written out (tested against
autograd); ``ablation_trace`` returns an ``AblationTrace``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from torch.nn import functional as F

from models.errors import InvalidParameterError
from models.traces import AblationTrace
from models.transformer.model import EncoderOnly
from models.transformer.options import ABLATIONS, EOS, PAD
from models.transformer.seq2seq import ModelConfig
from models.transformer.tasks import TaskConfig, make_batch, target_of

#: the seed of both models' weights, the extra sequences and the permutation
ABLATION_SEED = 0
#: sequences per batch for the gradients and BatchNorm (the typed one first)
BATCH = 16
#: bins of the saturation histogram over [0, 1]
BINS = 20
#: a row whose largest weight is above this counts as saturated
SATURATED = 0.9

#: the keyword argument of ``EncoderOnly`` each ablation switches
SWITCHES = {"no_pe": {"positional": False}, "no_scale": {"scaled": False},
            "no_residual": {"residual": False}, "batchnorm": {"norm": "batch"}}


def ablation_pair(model_config: ModelConfig, task: TaskConfig, ablation: str,
                  seed: int = ABLATION_SEED) -> tuple[EncoderOnly, EncoderOnly]:
    """(baseline, ablated): two encoder stacks with the sizes of ``model_config`` (as many
    layers as it has in all, dropout 0), the same weights (one seed), on the CPU; the
    ablated one has the switch of ``ablation`` off. The global RNG is left as it was."""
    if ablation not in ABLATIONS:
        raise InvalidParameterError(
            f"ablation must be one of {', '.join(ABLATIONS)}, not {ablation!r}.")
    layers = model_config.num_encoder_layers + model_config.num_decoder_layers

    def build(**switch) -> EncoderOnly:
        return EncoderOnly(layers, model_config.d_model, model_config.num_heads,
                           model_config.d_ff, task.vocab_size, task.vocab_size,
                           2 * task.src_len, 0.0, PAD, **switch)

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        baseline = build()
        ablated = build(**SWITCHES[ablation])
    # the same weights by copy, not by drawing them twice from the global generator
    # (another thread may draw from it meanwhile); BatchNorm takes LayerNorm's affine
    # weights, both 1 and 0 when made
    state = {k.replace("layer_norm", "batch_norm") if ablation == "batchnorm" else k: v
             for k, v in baseline.state_dict().items()}
    missing, unexpected = ablated.load_state_dict(state, strict=False)
    assert not unexpected and all("running_" in k or "num_batches" in k for k in missing)
    return baseline, ablated


def softmax_input_grad(weights: torch.Tensor, grad_weights: torch.Tensor) -> torch.Tensor:
    """∂L/∂S from A = softmax(S) and G = ∂L/∂A: A ⊙ (G − Σ_k A ⊙ G) along the keys.
    (Blocked keys have A = 0 and get 0.)"""
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True))


def _input(task: TaskConfig, symbols, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(src, per-position target) of the typed symbols, padded to ``length``."""
    src = torch.full((1, length), PAD, dtype=torch.long)
    src[0, : len(symbols)] = torch.tensor([3 + s for s in symbols], dtype=torch.long)
    src[0, len(symbols)] = EOS
    tgt = torch.full((1, length), PAD, dtype=torch.long)
    target = [3 + s for s in target_of(task.task, list(symbols))] + [EOS]
    tgt[0, : len(target)] = torch.tensor(target, dtype=torch.long)
    return src, tgt


def _batch(task: TaskConfig, symbols, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The typed sequence and ``BATCH - 1`` of the task's, (BATCH, max_len + 1) each."""
    gen = torch.Generator().manual_seed(seed)
    src, _, tgt = make_batch(task, BATCH - 1, gen)
    src0, tgt0 = _input(task, symbols, src.size(1))
    return torch.cat([src0, src]), torch.cat([tgt0, tgt])


def layer_gradients(model: EncoderOnly, src: torch.Tensor, tgt: torch.Tensor) -> dict:
    """The per-token cross-entropy's gradients, layer by layer (model in train mode):
    "input" ‖∂L/∂(layer input)‖, "params" ‖∂L/∂θ_layer‖ (all the layer's parameters),
    "scores" ‖∂L/∂S‖ (the attention's softmax input), "w_q" ‖∂L/∂W_q‖ (weight matrix);
    float64[layers] each, and "weights", the attention weights (detached)."""
    states: list[torch.Tensor] = []
    x, _, weights = model.hidden(src, states=states)
    logits = model.final_linear(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1),
                           ignore_index=PAD)
    params = [list(layer.parameters()) for layer in model.layers]
    w_q = [layer.self_attn.W_q.weight for layer in model.layers]
    n = len(model.layers)
    grads = torch.autograd.grad(loss, [*states, *weights, *w_q, *sum(params, [])])
    g_states, g_weights, g_wq = grads[:n], grads[n:2 * n], grads[2 * n:3 * n]
    flat, out_params = grads[3 * n:], []
    for p in params:
        out_params.append(float(torch.sqrt(sum((g.double() ** 2).sum() for g in flat[:len(p)]))))
        flat = flat[len(p):]

    def norms(ts) -> np.ndarray:
        return np.array([float(t.double().norm()) for t in ts])

    return {"input": norms(g_states), "params": np.array(out_params),
            "scores": norms(softmax_input_grad(w.detach(), g)
                            for w, g in zip(weights, g_weights, strict=True)),
            "w_q": norms(g_wq), "loss": float(loss.detach()),
            "weights": [w.detach() for w in weights]}


def permutation_error(model: EncoderOnly, src: torch.Tensor, perm: torch.Tensor
                      ) -> np.ndarray:
    """|f_l(Px) − P f_l(x)| maxed over features: float64[layers + 1, n] (row 0: the
    embeddings, row l: after layer l), in eval mode."""
    with torch.no_grad():
        outs = []
        for tokens in (src, src[:, perm]):
            states: list[torch.Tensor] = []
            x, _, _ = model.hidden(tokens, states=states)
            outs.append(torch.stack([*states, x])[:, 0])       # (layers + 1, n, d)
        return (outs[1] - outs[0][:, perm]).abs().amax(-1).double().numpy()


def _no_pe(pair, task, symbols, pad_to, seed):
    src, _ = _input(task, symbols, pad_to + 1)
    perm = torch.randperm(src.size(1), generator=torch.Generator().manual_seed(seed))
    if torch.equal(perm, torch.arange(src.size(1))):
        perm = perm.roll(1)                   # a permutation that moves something
    errs = []
    for model in pair:
        model.eval()
        errs.append(permutation_error(model, src, perm))
    x = np.arange(errs[0].shape[0])
    return (x, errs[0].max(1), errs[1].max(1), np.arange(src.size(1)), errs[0][-1:],
            errs[1][-1:], [errs[0].max(), errs[1].max()], src[0])


def _gradients(pair, task, symbols, seed):
    src, tgt = _batch(task, symbols, seed)
    out = []
    for model in pair:
        model.train()
        out.append(layer_gradients(model, src, tgt))
    return src, tgt, out


def _no_scale(pair, task, symbols, seed):
    src, _, (base, abl) = _gradients(pair, task, symbols, seed)
    real = src != PAD                                       # query rows of real tokens
    edges = np.linspace(0.0, 1.0, BINS + 1)
    hists, means, saturated = [], [], []
    for g in (base, abl):
        top = torch.cat([w.amax(-1).permute(0, 2, 1)[real].reshape(-1)
                         for w in g["weights"]]).double().numpy()
        hists.append(np.histogram(top, edges)[0] / max(1, top.size))
        means.append(top.mean())
        saturated.append((top > SATURATED).mean())
    layers = np.arange(1, len(base["input"]) + 1)
    summary = [*means, *saturated, base["scores"].mean(), abl["scores"].mean(),
               base["w_q"].mean(), abl["w_q"].mean()]
    return ((edges[:-1] + edges[1:]) / 2, hists[0], hists[1], layers,
            np.stack([base["scores"], base["w_q"]]), np.stack([abl["scores"], abl["w_q"]]),
            summary, src[0])


def _no_residual(pair, task, symbols, seed):
    src, _, (base, abl) = _gradients(pair, task, symbols, seed)
    layers = np.arange(1, len(base["input"]) + 1)
    ratio = [g["params"][0] / max(g["params"][-1], 1e-30) for g in (base, abl)]
    return (layers, base["input"], abl["input"], layers, base["params"][None],
            abl["params"][None], [*ratio, base["input"][0], abl["input"][0]], src[0])


def _batchnorm(pair, task, symbols, seed):
    src, _ = _batch(task, symbols, seed)
    n0 = src.size(1)
    real = src != PAD
    # padding columns added: a few amounts up to doubling the length (each amount is one
    # run of both models)
    extra = np.unique(np.round(np.geomspace(1, n0 + 1, 7)).astype(int) - 1)
    changes, stats = [], []
    for model in pair:
        model.train()                         # BatchNorm with the batch's statistics
        with torch.no_grad():
            first = model.hidden(src)[0]
            change = []
            for e in extra:
                padded = F.pad(src, (0, int(e)), value=PAD)
                out = model.hidden(padded)[0][:, :n0]
                change.append(float((out - first)[real].abs().max()))
            changes.append(np.array(change))
            # the first norm's output per position of the typed sequence
            layer = model.layers[0]
            x = model.embed(src)
            attn = layer.self_attn(x, x, x, model.mask(src))
            normed = layer.add_norm1(x, attn)[0].double()
            stats.append(np.stack([normed.mean(-1).numpy(),
                                   normed.std(-1, unbiased=False).numpy()]))
    return (extra, changes[0], changes[1], np.arange(n0), stats[0], stats[1],
            [changes[0].max(), changes[1].max()], src[0])


def ablation_trace(model_config: ModelConfig, task: TaskConfig, symbols, pad_to: int,
                   ablation: str, seed: int = ABLATION_SEED) -> AblationTrace:
    """The ``AblationTrace`` of ``ablation`` for the typed ``symbols`` (padded to
    ``pad_to`` where the input's length matters: the permutation test), the shown
    model's sizes, one seed. Cached (the models are rebuilt from the seed, so the answer
    depends on nothing else). Any thread; CPU only."""
    if ablation not in ABLATIONS:
        raise InvalidParameterError(
            f"ablation must be one of {', '.join(ABLATIONS)}, not {ablation!r}.")
    if not 0 < len(symbols) <= pad_to <= task.max_len:
        raise InvalidParameterError(
            f"Pad to a length between {len(symbols)} and {task.max_len}, got {pad_to}.")
    return _cached(model_config, task, tuple(int(s) for s in symbols), int(pad_to), ablation,
                   int(seed))


@lru_cache(maxsize=32)
def _cached(model_config, task, symbols, pad_to, ablation, seed) -> AblationTrace:
    with torch.random.fork_rng(devices=[]):
        pair = ablation_pair(model_config, task, ablation, seed)
        if ablation == "no_pe":
            parts = _no_pe(pair, task, symbols, pad_to, seed)
        elif ablation == "no_scale":
            parts = _no_scale(pair, task, symbols, seed)
        elif ablation == "no_residual":
            parts = _no_residual(pair, task, symbols, seed)
        else:
            parts = _batchnorm(pair, task, symbols, seed)
    x, b, a, x2, b2, a2, summary, src = parts
    names = task.token_names()
    return AblationTrace(
        ablation=ablation, x=np.asarray(x), baseline=np.asarray(b), ablated=np.asarray(a),
        x2=np.asarray(x2), baseline2=np.asarray(b2), ablated2=np.asarray(a2),
        summary=np.asarray(summary, np.float64), tokens=tuple(names[int(i)] for i in src),
        layers=len(pair[0].layers), d_model=model_config.d_model,
        d_k=model_config.d_model // model_config.num_heads, seed=seed)
