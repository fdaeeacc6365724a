"""The frozen traces the views draw: a mask and its reach (``MaskTrace``), one
approximation against exact attention with its sweeps (``ApproxTrace``), and one
keep-mask through three APIs (``ConventionTrace``)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as tnf

from models.efficient_attention.banded import banded_attention
from models.efficient_attention.common import MaskLike, _as_mask, _check_qkv, _int, _np
from models.efficient_attention.implied import exact_attention, implied_attention
from models.efficient_attention.linear import (
    fit_linformer_projections,
    linear_attention,
    linformer_attention,
    linformer_projection,
    performer_attention,
    random_projection,
)
from models.efficient_attention.options import SCALES, SWEEP_CURVES
from models.efficient_attention.patterns import (
    _reach_steps,
    build_mask,
    causal_mask,
    density,
    mask_params,
)
from models.efficient_attention.sweeps import (
    _check_method,
    _curve_errors,
    performer_error_sweep,
    relative_error,
    row_tv_distance,
    scale_sweep,
)
from models.errors import InvalidParameterError
from models.traces.efficient import ApproxTrace, ConventionTrace, MaskTrace
from models.transformer import scaled_dot_product_attention
from models.transformer.course import course_scaled_dot_product_attention


# -- traces for the views -------------------------------------------------------------------------
def mask_trace(kind: str, n: int, layers: int = 2, max_layers: int = 8, **params) -> MaskTrace:
    """A mask, its density and how far information travels through 1..max_layers layers.

    ``field[l]`` counts the keys the middle query n//2 reaches after l + 1 layers;
    ``field_theory[l]`` is the span of a stacked window: min(n, (l+1)·w + 1) for a local
    window, min(n, (l+1)·dilation·w + 1) dilated, with w rounded down to even (w//2 each
    side); causal: one side, ℓ·w/2 + 1 up to n//2 + 1. NaN for other kinds and with
    padding. A dilated
    window's span has holes: ``field`` counts keys, so it stays below the span.
    """
    n = _int("n", n)
    layers, max_layers = _int("layers", layers), _int("max_layers", max_layers)
    p = mask_params(kind, **params)
    mask = build_mask(kind, n, **p)
    # 1. reach after 1..max(layers, max_layers) layers
    steps = _reach_steps(mask, max(layers, max_layers))
    reach_fraction = np.array([float(r.float().mean()) for r in steps[:max_layers]])
    field = np.array([float(r[n // 2].sum()) for r in steps[:max_layers]])
    # 2. the textbook receptive field
    ell = np.arange(1, max_layers + 1)
    theory = np.full(max_layers, np.nan)
    if kind in ("local", "dilated") and p["length"] is None:
        step = 2 * (p["w"] // 2) * (p["dilation"] if kind == "dilated" else 1)
        if p["causal"]:       # one side only: the middle query has n//2 keys behind it
            theory = np.minimum(n // 2 + 1, ell * (step // 2) + 1.0)
        else:
            theory = np.minimum(n, ell * step + 1.0)
    return MaskTrace(kind=kind, n=n, params=p, mask=_np(mask), density=density(mask),
                     layers=layers, reach=_np(steps[layers - 1]),
                     reach_fraction=reach_fraction.astype(np.float32),
                     field=field.astype(np.float32), field_theory=theory.astype(np.float32))


def _sweep_x(method: str, n: int, d: int, num_features: int) -> list[int]:
    if method == "performer":                 # m = 8, 16, … up to 4·max(d, m)
        top = 4 * max(d, num_features)
        return [8 * 2 ** i for i in range(64) if 8 * 2 ** i <= top] or [top]
    if method == "linformer":                 # k = 2, 4, … below n, then n
        return [2 ** i for i in range(1, 64) if 2 ** i < n] + [n]
    if method == "banded":                    # w = 2, 4, … until the window covers all
        xs = [2]
        while xs[-1] < 2 * (n - 1):
            xs.append(xs[-1] * 2)
        return xs
    return [d]                                # linear: no knob, one point at m = d


# long (76 lines, 20 of them docstring): each method's set-up, then the sweeps all share
@torch.no_grad()
def approximation_trace(method: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
                        num_features: int = 64, orthogonal: bool = True,
                        kind: str = "positive", causal: bool = False, k_len: int = 32,
                        projection: str = "random", seed: int = 0, sweep_seeds: int = 5,
                        window: int = 8) -> ApproxTrace:
    """One approximation against exact attention, with its sweeps.

    ``method``: "performer" (num_features, orthogonal, kind, causal, seed), "linformer"
    (k_len, projection in random/mean/identity/learned, seed; not causal), "linear"
    (causal) or "banded" (window; not causal). The matrices are batch item 0, head 0;
    the output error is over all of q, k, v.

    Sweeps (``sweep_x``): performer — m = 8, 16, … up to 4·max(d, num_features), curves
    orthogonal / i.i.d., ``sweep_seeds`` draws each; linformer — k = 2, 4, … up to n,
    curves random (``sweep_seeds`` draws) / mean pooling; banded — window w = 2, 4, …
    until it covers the sequence (error 0 there); linear — no parameter, a single point
    at x = d (φ has d features). ``scale_x`` = SCALES on random N(0, 1)·scale inputs
    of the same n and d, the same curves.
    """
    _check_method(method)
    _check_qkv(q, k, v)
    if causal and method in ("linformer", "banded"):
        raise InvalidParameterError(f"The {method} approximation here is not causal; "
                                    f"switch causal off.")
    n, d = k.size(-2), k.size(-1)
    sweep_seeds = _int("sweep_seeds", sweep_seeds)
    # 1. the exact reference
    exact_out, exact_w = exact_attention(q, k, v, causal_mask(n) if causal else None)
    # 2. the approximation and the matrix it implies
    params: dict = {"method": method, "seed": int(seed), "causal": bool(causal)}
    if method == "performer":
        params.update(num_features=num_features, orthogonal=orthogonal, kind=kind)
        proj = random_projection(num_features, d, orthogonal, seed, q.dtype)
        out = performer_attention(q, k, v, num_features, causal=causal, kind=kind,
                                  projection=proj)
        implied = implied_attention("performer", q, k, projection=proj, kind=kind,
                                    causal=causal)
    elif method == "linformer":
        params.update(k_len=k_len, projection=projection)
        if projection == "learned":
            E, F_ = fit_linformer_projections(q, k, v, k_len, seed=seed)
        else:
            E = F_ = linformer_projection(n, k_len, projection, seed, q.dtype)
        out = linformer_attention(q, k, v, E, F_)
        implied = implied_attention("linformer", q, k, E=E, F=F_)
    elif method == "linear":
        out = linear_attention(q, k, v, causal)
        implied = implied_attention("linear", q, k, causal=causal)
    else:
        params.update(window=window)
        out = banded_attention(q, k, v, window)
        implied = implied_attention("banded", q, k, w=window)
    implied0, exact0 = implied.reshape(-1, n, n)[0], exact_w.reshape(-1, n, n)[0]
    # 3. sweeps over the method's knob and over the q/k scale
    xs = _sweep_x(method, n, d, num_features)
    if method == "performer":
        sweep_mean, sweep_std = performer_error_sweep(q, k, v, xs, sweep_seeds, causal=causal,
                                                      feature_kind=kind, first_seed=seed)
    else:
        stats = np.stack([_curve_errors(method, q, k, v, x, causal=causal, seeds=sweep_seeds,
                                        first_seed=seed) for x in xs], axis=1)
        sweep_mean, sweep_std = stats[..., 0], stats[..., 1]
    scale_params = {"performer": {"num_features": num_features, "kind": kind,
                                  "causal": causal, "seeds": sweep_seeds},
                    "linformer": {"k_len": min(k_len, n), "seeds": sweep_seeds},
                    "linear": {"causal": causal}, "banded": {"window": window}}[method]
    scale_error = scale_sweep(method, SCALES, n, d, seed, first_seed=seed, **scale_params)
    return ApproxTrace(method=method, params=params, exact=_np(exact0), implied=_np(implied0),
                       row_tv=_np(row_tv_distance(implied0, exact0)),
                       output_error=relative_error(out, exact_out),
                       negative=float((implied0 < 0).float().mean()),
                       sweep_x=np.asarray(xs, np.float32),
                       sweep_error=np.asarray(sweep_mean, np.float32),
                       sweep_std=np.asarray(sweep_std, np.float32),
                       sweep_names=SWEEP_CURVES[method],
                       scale_x=np.asarray(SCALES, np.float32), scale_error=scale_error)


def _identity_mha(d: int, dtype: torch.dtype, device: torch.device) -> nn.MultiheadAttention:
    """One-head ``nn.MultiheadAttention`` whose in and out projections are the identity,
    so it computes plain softmax(QKᵀ/√d)V (left in training mode with dropout 0, which
    keeps it off the fused fast path)."""
    mha = nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=dtype,
                                device=device)
    with torch.no_grad():
        eye = torch.eye(d, dtype=dtype, device=device)
        mha.in_proj_weight.copy_(torch.cat([eye, eye, eye]))
        mha.out_proj.weight.copy_(eye)
    return mha


# long (63 lines, half docstring): the three APIs side by side, compared in one place
@torch.no_grad()
def convention_trace(mask: MaskLike, q: torch.Tensor, k: torch.Tensor,
                     v: torch.Tensor, as_written: bool = False) -> ConventionTrace:
    """One keep-mask through three APIs, each given the mask in its own convention.

    1. the course's ``scaled_dot_product_attention(q, k, v, mask)`` (1 = attend): ours
       (-inf, a fully blocked row all zeros) or, ``as_written``, the chapter's
       ``masked_fill(mask == 0, -1e9)`` (a fully blocked row uniform, 1/n per key);
       ``course_delta`` / ``course_rows`` compare the two (item 0, head 0);
    2. ``F.scaled_dot_product_attention(q, k, v, attn_mask=mask)`` (bool True = take
       part); its weights are read off by passing the identity as the values;
    3. ``nn.MultiheadAttention`` with identity projections, ``attn_mask=~mask`` (bool
       True = blocked), ``need_weights=True``.

    ``max_diff`` compares outputs with the course's over rows with at least one allowed
    key (all batch items and heads). ``flipped_diff`` is the same comparison when each
    API gets the opposite polarity: the course and SDPA ~mask, MultiheadAttention the
    course's mask unconverted (NaN rows ignored; NaN if nothing is left). ``nan_rows``
    counts the rows of weights (item 0, head 0) that are NaN.

    Shapes: mask (n, n), q, k, v (..., n, d) → weights float32 (3, n, n).
    """
    _check_qkv(q, k, v)
    keep = _as_mask(mask).to(q.device)
    n, d = k.size(-2), k.size(-1)
    if keep.shape != (n, n):
        raise InvalidParameterError(f"The mask must be (n, n) = ({n}, {n}), got "
                                    f"{tuple(keep.shape)}.")
    lead = q.shape[:-2]
    q3, k3, v3 = (t.reshape(-1, n, t.size(-1)) for t in (q, k, v))
    mha = _identity_mha(d, q.dtype, q.device)
    eye = torch.eye(n, dtype=q.dtype, device=q.device).expand(q3.size(0), n, n)

    def run(api: int, m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(output (..., n, d_v), weights of item 0 (n, n)) of API ``api`` given mask m."""
        if api == 0:
            out, w = (course_scaled_dot_product_attention if as_written
                      else scaled_dot_product_attention)(q3, k3, v3, m)
        elif api == 1:
            out = tnf.scaled_dot_product_attention(q3, k3, v3, attn_mask=m)
            w = tnf.scaled_dot_product_attention(q3, k3, eye, attn_mask=m)
        else:
            out, w = mha(q3, k3, v3, attn_mask=m, need_weights=True,
                         average_attn_weights=False)
            w = w[:, 0]
        return out.reshape(*lead, n, -1), w[0]

    def diff(out: torch.Tensor, ref: torch.Tensor) -> float:
        rows = (out - ref).abs().amax(-1)[..., keep.any(-1)]
        rows = rows[~torch.isnan(rows)]
        return float(rows.max()) if rows.numel() else float("nan")

    # 1. each API with the mask it needs, then with the opposite polarity
    right = [run(0, keep), run(1, keep), run(2, ~keep)]
    wrong = [run(0, ~keep), run(1, ~keep), run(2, keep)]
    ref = right[0][0]
    # 2. compare with the course's function (and the chapter's fill with ours)
    weights = torch.stack([w for _, w in right])
    ours = scaled_dot_product_attention(q3, k3, v3, keep)[1][0] if as_written else right[0][1]
    row_delta = (right[0][1] - ours).abs().amax(-1)
    return ConventionTrace(
        mask=_np(keep),
        api_names=("course scaled_dot_product_attention", "F.scaled_dot_product_attention",
                   "nn.MultiheadAttention"),
        conversions=("mask (1 = attend)", "attn_mask=mask (True = take part)",
                     "attn_mask=~mask (True = blocked)"),
        weights=_np(weights),
        max_diff=np.array([diff(out, ref) for out, _ in right], np.float32),
        flipped_diff=np.array([diff(out, ref) for out, _ in wrong], np.float32),
        nan_rows=np.array([int(torch.isnan(w).any(-1).sum()) for _, w in right], np.int64),
        as_written=as_written, course_delta=float(row_delta.max()),
        course_rows=_np(torch.nonzero(row_delta > 1e-6).flatten()).astype(np.int64))
