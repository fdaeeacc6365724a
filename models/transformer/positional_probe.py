"""Computations behind the positional-encoding explorer.

``pe_grid`` (a ``PositionalRequest``'s ``compute_pe_grid``) runs the real ``PositionalEncoding`` module on the chosen device
and returns a ``PEGrid`` trace; ``fit_offset_map`` is a training loop (a generator of
``Progress``) that learns ``M_k`` by gradient descent, to show that the relative-position
map is something a linear layer can learn.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from models.errors import InvalidParameterError, TrainingDivergedError
from models.optim import Adam
from models.traces import OffsetFitTrace, PEGrid, Progress
from models.transformer.options import EMBEDDING_INITS, PositionalRequest
from models.transformer.positional import PositionalEncoding, relative_position_matrix

#: Largest similarity matrix computed; longer tables are sampled at an even stride.
MAX_SIMILARITY_POSITIONS = 1024
DEFAULT_SENTENCE = "the cat sat on the mat"


def _numpy(t: torch.Tensor) -> np.ndarray:
    """A float32 numpy copy: never a view of a live tensor (a weight that training keeps
    changing, a buffer on the CPU) once it is in a trace handed to the GUI thread."""
    return t.detach().to("cpu", torch.float32, copy=True).numpy()


def token_embeddings(tokens: Sequence[str], d_model: int, init: str,
                     seed: int = 0) -> torch.Tensor:
    """Embedding vectors of a small vocabulary made from ``tokens`` (seeded).

    ``init="normal"`` is ``nn.Embedding``'s default N(0, 1); ``init="scaled"`` is
    N(0, 1/d_model), the usual choice when the embedding is shared with the output
    layer, so that ``sqrt(d_model) * E`` has unit scale like the encoding.

    Shapes:
        returns float32[len(tokens), d_model] (unscaled rows of the table)
    """
    if init not in EMBEDDING_INITS:
        raise InvalidParameterError(f"Unknown embedding initialisation '{init}'.")
    vocab = {tok: i for i, tok in enumerate(sorted(set(tokens)))}
    gen = torch.Generator().manual_seed(seed)
    std = 1.0 if init == "normal" else d_model ** -0.5
    table = torch.randn(len(vocab), d_model, generator=gen) * std
    ids = torch.tensor([vocab[t] for t in tokens], dtype=torch.long)
    return table[ids]


def compute_pe_grid(d_model: int = 128, max_len: int = 100, base: float = 10000.0,
                    offset: int = 4, curve_dims: Sequence[int] = (0, 1, 8, 9),
                    sentence: str = DEFAULT_SENTENCE, embedding_init: str = "normal",
                    device: str | torch.device = "cpu", truncate: bool = False) -> PEGrid:
    """Run ``PositionalEncoding`` and the relative-position check; return a ``PEGrid``.

    A sentence longer than ``max_len`` raises, or with ``truncate`` keeps its first
    ``max_len`` tokens (``PEGrid.tokens_dropped`` says how many went).
    """
    if max_len < 1:
        raise InvalidParameterError(f"max_len must be at least 1, got {max_len}.")
    if not 0 <= offset < max_len:
        raise InvalidParameterError(
            f"The offset k must be between 0 and max_len - 1 = {max_len - 1}, got {offset}.")
    dims = [int(d) for d in curve_dims if 0 <= int(d) < d_model]
    tokens = tuple(sentence.split()) or ("<empty>",)
    if len(tokens) > max_len and not truncate:
        raise InvalidParameterError(
            f"The sentence has {len(tokens)} tokens but max_len is {max_len}.")
    dropped = max(0, len(tokens) - max_len)
    tokens = tokens[:max_len]
    dev = torch.device(device)
    with torch.no_grad():
        # 1. the module as the course defines it; eval() so dropout is off
        module = PositionalEncoding(d_model, dropout=0.1, max_len=max_len, base=base).to(dev)
        module.eval()
        pe = module.pe[0]                                        # (L, d)
        # 2. similarity of positions (sampled at an even stride for long tables)
        stride = max(1, math.ceil(max_len / MAX_SIMILARITY_POSITIONS))
        sim_pos = torch.arange(0, max_len, stride, device=dev)
        sub = pe[sim_pos]
        similarity = sub @ sub.T
        # 3. the relative-position map and its measured error over all positions
        m_k = relative_position_matrix(d_model, offset, base).to(dev)
        predicted = pe[: max_len - offset] @ m_k.T               # row p: M_k PE[p]
        error = (predicted - pe[offset:]).abs().amax(dim=1)
        # 4. token embeddings scaled by sqrt(d_model), then the module adds PE
        emb = token_embeddings(tokens, d_model, embedding_init).to(dev) * math.sqrt(d_model)
        summed = module(emb.unsqueeze(0))[0]
        token_pe = pe[: len(tokens)]
        rms = torch.stack([t.pow(2).mean(dim=1).sqrt() for t in (emb, token_pe, summed)])
        return PEGrid(
            d_model=d_model, max_len=max_len, base=float(base), offset=offset,
            device=str(dev), pe=_numpy(pe),
            curve_dims=np.asarray(dims, dtype=np.int64),
            curves=_numpy(pe[:, dims].T) if dims else np.zeros((0, max_len), np.float32),
            sim_positions=sim_pos.cpu().numpy().astype(np.int64),
            similarity=_numpy(similarity), offset_matrix=_numpy(m_k),
            offset_error=_numpy(error), tokens=tokens, embedding_init=embedding_init,
            token_embedding=_numpy(emb), token_pe=_numpy(token_pe),
            token_sum=_numpy(summed), token_rms=_numpy(rms), tokens_dropped=dropped)


def pe_grid(ask: PositionalRequest, device: str | torch.device = "cpu") -> PEGrid:
    """The positional tab's trace for one request (a sentence beyond max_len is cut)."""
    return compute_pe_grid(d_model=ask.d_model, max_len=ask.max_len, base=ask.base,
                           offset=ask.offset, curve_dims=ask.curve_dims,
                           sentence=ask.sentence, embedding_init=ask.init, device=device,
                           truncate=True)


#: the least time between two of the tab's reports: each carries a copy of W, which the
#: job runner always delivers, and the tab draws each one. A small model (d_model 2)
#: reported 600 times a second and the window stalled 3.4 s (the monkey, seed 20250)
REPORT_INTERVAL_S = 1 / 25


def offset_fit(ask: PositionalRequest, steps: int, device: str | torch.device = "cpu"
               ) -> Iterator[Progress]:
    """Learn the request's M_k from W = 0 in ``steps`` Adam steps (``fit_offset_map``);
    reports are kept under a fifth of the run and to ``REPORT_INTERVAL_S`` apart."""
    return fit_offset_map(d_model=ask.d_model, max_len=ask.max_len, base=ask.base,
                          offset=ask.offset, steps=steps, lr=3e-2, device=device,
                          max_report_share=0.2, min_interval_s=REPORT_INTERVAL_S)


# long: one training loop read top to bottom, set-up, step and report together
def fit_offset_map(d_model: int = 64, max_len: int = 256, base: float = 10000.0,
                   offset: int = 4, steps: int = 1500, lr: float = 3e-3, batch: int = 256,
                   device: str | torch.device = "cpu", seed: int = 0,
                   report_every: int = 5,
                   max_report_share: float | None = None,
                   min_interval_s: float = 0.0) -> Iterator[Progress]:
    """Learn ``W`` with ``PE[pos + k] ≈ W PE[pos]`` by Adam on the mean squared error.

    A training loop as a generator: it yields a ``Progress`` every ``report_every``
    steps (with an ``OffsetFitTrace`` of the current ``W``); the consumer cancels by
    no longer iterating. Raises ``TrainingDivergedError`` on a non-finite loss.

    ``max_report_share`` (e.g. 0.2) skips reports while building them (a copy of ``W``
    and the error over every position, 4 GFLOP at d_model 1024 and max_len 4096) has
    taken more than that share of the run; ``min_interval_s`` skips them until that long
    after the last one. The last step is always reported.

    The positions pin ``W`` down only along the directions the rows of the table
    span: the slow pairs of dimensions barely move over ``max_len`` positions, so
    there ``W`` can differ from ``M_k`` while predicting every position well. The
    metrics report both: ``max_prediction_error`` and ``max_abs_diff`` from ``M_k``.
    """
    if not 0 < offset < max_len:
        raise InvalidParameterError(
            f"The offset k must be between 1 and max_len - 1 = {max_len - 1}, got {offset}.")
    dev = torch.device(device)
    pe = PositionalEncoding(d_model, dropout=0.0, max_len=max_len, base=base).pe[0].to(dev)
    analytic_np = relative_position_matrix(d_model, offset, base).numpy()
    layer = torch.nn.Linear(d_model, d_model, bias=False).to(dev)
    torch.nn.init.zeros_(layer.weight)   # deterministic start; the batches use ``seed``
    opt = Adam(layer.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    n = max_len - offset
    history: list[float] = []
    t0 = time.perf_counter()
    report_time = 0.0
    last_report = -math.inf
    for step in range(1, steps + 1):
        idx = torch.randint(0, n, (min(batch, n),), generator=gen).to(dev)
        loss = torch.mean((layer(pe[idx]) - pe[idx + offset]) ** 2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        value = loss.detach().item()
        if not math.isfinite(value):
            raise TrainingDivergedError(
                f"The loss became {value} at step {step}; try a smaller learning rate.")
        opt.step()
        sched.step()
        history.append(value)
        now = time.perf_counter()
        due = step % report_every == 0 and now - last_report >= min_interval_s and (
            max_report_share is None or report_time <= max_report_share * (now - t0))
        if due or step == steps:
            t_report = last_report = time.perf_counter()
            learned = _numpy(layer.weight)
            with torch.no_grad():  # how well W predicts every position, not just the batch
                pred_error = (layer(pe[:n]) - pe[offset:]).abs().max().item()
            report_time += time.perf_counter() - t_report
            yield Progress(
                step=step, total=steps, loss=value,
                metrics={"max_abs_diff": float(np.abs(learned - analytic_np).max()),
                         "max_prediction_error": pred_error,
                         "steps_per_s": step / max(1e-9, time.perf_counter() - t0)},
                history=np.asarray(history, np.float32),
                trace=OffsetFitTrace(d_model=d_model, max_len=max_len, base=float(base),
                                     offset=offset, learned=learned, analytic=analytic_np))
