"""The layers of a normalizing flow: each an ``nn.Module`` and a ``torch.distributions.Transform``.

* **Coupling layers** (RealNVP affine, NICE additive): a binary mask keeps some
  coordinates; the others are scaled and shifted by functions of the kept ones:
  ``y = m⊙x + (1−m)⊙(x·exp(s(m⊙x)) + t(m⊙x))``. Triangular Jacobian, log-det Σ s.
  Both directions cost one network pass.
* **Autoregressive layers** (MADE masks): every coordinate is shifted/scaled by functions
  of the coordinates before it. MAF parametrises data → latent (fast density, sampling
  needs d sequential passes); IAF parametrises latent → data (fast sampling, density
  needs d passes).
* **ActNorm** (per-coordinate affine, data-initialised) and **permutations**.

Every layer is at the same time an ``nn.Module`` (its parameters reach the optimiser)
and a ``torch.distributions.Transform`` in the data → latent direction, so
``TransformedDistribution(base, [l.inv for l in reversed(flow.layers)])`` is the same
density as ``Flow.log_prob`` (``models.flows.flow``).

Shapes:
    x, z: [n, d]; log-dets: [n]
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence

import torch
from torch import nn
from torch.distributions import Transform, constraints

from models.errors import InvalidParameterError

__all__ = ["FlowLayer", "CouplingLayer", "MaskedLinear", "MADE", "MAFLayer", "IAFLayer",
           "ActNorm", "Permute", "LOG_SCALE_BOUND", "soft_clip"]

#: attribute set on a layer's output tensor holding (layer id, weakref to the input,
#: log-scale) so ``log_abs_det_jacobian`` does not rerun the network
_CACHE_ATTR = "_archscope_flow_cache"


# -- the layer base ------------------------------------------------------------------------------
class FlowLayer(nn.Module, Transform):
    """An ``nn.Module`` that is also a bijective ``Transform`` (data → latent).

    ``nn.Module`` comes first in the MRO, so ``layer(x)`` is ``Module.__call__`` →
    ``forward`` → ``Transform.__call__`` (with its x → y cache when ``cache_size=1``);
    parameters, ``to``, ``state_dict`` are the Module's. ``Transform.__eq__`` is identity
    and would make the class unhashable, so ``__hash__`` is restored (Modules must hash).

    The log-det cache: ``_call``/``_inverse`` attach ``(id(self), weakref(input), log_scale)``
    to the tensor they return. ``log_abs_det_jacobian(x, y)`` uses it only when it was
    attached by this layer to exactly this pair, else recomputes. The cached tensor is part
    of the same autograd graph, so gradients are identical either way, and the cache lives
    exactly as long as the output tensor does.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True
    sign = 1
    __hash__ = nn.Module.__hash__
    #: the coordinate passed unchanged (-1: none) and the one changed (-1: every one)
    masked_index = -1
    transformed_index = -1
    label = "layer"

    def __init__(self, cache_size: int = 0) -> None:
        nn.Module.__init__(self)
        Transform.__init__(self, cache_size=cache_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return Transform.__call__(self, x)

    def inverse(self, y: torch.Tensor) -> torch.Tensor:
        return self._inv_call(y)

    def __getstate__(self):
        state = nn.Module.__getstate__(self)
        state["_inv"] = None
        if "_cached_x_y" in state:
            state["_cached_x_y"] = (None, None)
        return state

    def _tag(self, out: torch.Tensor, other: torch.Tensor, log_scale: torch.Tensor) -> None:
        setattr(out, _CACHE_ATTR, (id(self), weakref.ref(other), log_scale))

    def _cached(self, out: torch.Tensor, other: torch.Tensor) -> torch.Tensor | None:
        tag = getattr(out, _CACHE_ATTR, None)
        if tag is not None and tag[0] == id(self) and tag[1]() is other:
            return tag[2]
        return None

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The per-coordinate log|∂y/∂x| ([n, d]), recomputed."""
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        log_scale = self._cached(y, x)
        if log_scale is None:
            log_scale = self._cached(x, y)
        if log_scale is None:
            log_scale = self._log_scale(x, y)
        return log_scale.sum(-1)


def _mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    # ReLU in place: its input is the Linear's fresh output, used nowhere else
    net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(inplace=True),
                        nn.Linear(hidden, hidden), nn.ReLU(inplace=True),
                        nn.Linear(hidden, n_out))
    nn.init.zeros_(net[-1].weight)   # every layer starts as the identity
    nn.init.zeros_(net[-1].bias)
    return net


#: the bound B of a coupling layer's soft clip ``s = raw / (1 + |raw| / B)``: at the
#: start (scale 1) a layer scales by at most e³ ≈ 20. zuko's form
#: (``MonotonicAffineTransform``) with a tighter bound than its 6.9: at 6.9 training went
#: slower for the first 800 steps (the training NLL at step 400, 3 seeds, 0.86 nats
#: against 0.63 with the old tanh and 0.68 with 3) and ended no lower (held-out NLL after
#: 2,000 steps 0.366 over 6 seeds, 0.354 with 3)
LOG_SCALE_BOUND = 3.0


def soft_clip(raw: torch.Tensor, bound: float = LOG_SCALE_BOUND) -> torch.Tensor:
    """``raw / (1 + |raw| / bound)`` = ``bound · raw / (bound + |raw|)``: ≈ raw near 0
    (slope 1), odd, increasing, and within (−bound, bound). Its derivative
    ``1 / (1 + |raw| / bound)²`` is never 0, so a large log-scale still learns (tanh's
    vanishes). ``CouplingLayer`` computes the second form, with the scale."""
    return bound * (raw / (torch.abs(raw) + bound))


class CouplingLayer(FlowLayer):
    """RealNVP affine (or NICE additive) coupling; ``mask[i] = 1`` keeps coordinate i.

    The log-scale is ``s = scale · raw_s / (1 + |raw_s| / B)`` (``soft_clip``) with a learned
    per-coordinate ``scale`` (initially 1) and B = ``LOG_SCALE_BOUND`` = 3: near the
    identity it is raw_s itself, and it keeps exp(s) from overflowing early in training.
    Before issue 36 it was ``scale · tanh(raw_s)``, a bound of ±1 a layer at the start,
    whose gradient vanishes as it nears it (held-out NLL on two moons after 2,000 steps,
    seeds 0–2, 0.398 against 0.353 now and zuko's 0.369: ``benchmarks/bench_flow_nll.py``).
    The buffer ``log_scale_bound`` holds B; 0 marks a layer of a session saved before the
    change (``FlowSession.load_state`` sets it), which keeps the tanh it was trained with.
    """

    def __init__(self, input_dim: int, hidden_dim: int, mask: Sequence[int] | torch.Tensor,
                 additive: bool = False, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        mask = torch.as_tensor(mask, dtype=torch.float32).reshape(-1)
        if mask.numel() != input_dim or not bool(((mask == 0) | (mask == 1)).all()):
            raise InvalidParameterError(f"The mask must be {input_dim} zeros and ones.")
        self.register_buffer("mask", mask)
        self.additive = additive
        self.net = _mlp(input_dim, hidden_dim, input_dim if additive else 2 * input_dim)
        self.scale = nn.Parameter(torch.ones(input_dim))
        self.register_buffer("log_scale_bound", torch.tensor(LOG_SCALE_BOUND))
        # the buffer as a float (no read-back a step), float32's B as a loaded one has it
        self._bound = float(self.log_scale_bound)
        self.label = "additive coupling" if additive else "affine coupling"
        kept, changed = mask.nonzero().flatten(), (1 - mask).nonzero().flatten()
        self.masked_index = int(kept[0]) if len(kept) == 1 else -1
        self.transformed_index = int(changed[0]) if len(changed) == 1 else -1

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs) -> None:
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        bound = float(self.log_scale_bound)
        if not (math.isfinite(bound) and bound >= 0):
            raise InvalidParameterError(f"A coupling layer's log-scale bound must be ≥ 0 "
                                        f"(0: the tanh of old sessions), got {bound:g}.")
        self._bound = bound

    def _st(self, kept: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(kept)
        free = 1 - self.mask
        if self.additive:
            return torch.zeros_like(kept), out * free
        # the bound of the whole output, contiguous, then its s half: the half alone is a
        # strided view, which elementwise ops walk an element at a time (with tanh, a fifth
        # of a 20,000-point sample's time went there, 145 us a 4,096-row chunk against 45)
        t = out.chunk(2, dim=-1)[1]
        if not self._bound:                 # a session saved before the soft clip
            return self.scale * torch.tanh(out).chunk(2, dim=-1)[0] * free, t * free
        # soft_clip(raw) = B · raw / (B + |raw|): B joins the [d] factor, one op fewer a
        # pass (a training step 1.036× tanh's against 1.067×)
        b = self._bound
        clipped = out / torch.abs(out).add_(b)
        return (self.scale * (b * free)) * clipped.chunk(2, dim=-1)[0], t * free

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        s, t = self._st(x * self.mask)
        y = x * torch.exp(s) + t     # s = t = 0 on the kept coordinates
        self._tag(y, x, s)
        return y

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        s, t = self._st(y * self.mask)
        x = (y - t) * torch.exp(-s)
        self._tag(x, y, s)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self._st(x * self.mask)[0]


class MaskedLinear(nn.Linear):
    def __init__(self, n_in: int, n_out: int, mask: torch.Tensor) -> None:
        super().__init__(n_in, n_out)
        self.register_buffer("mask", mask.float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.weight * self.mask, self.bias)


class MADE(nn.Module):
    """Masked autoencoder: outputs (mu, raw log-scale) for coordinate i depend only on
    coordinates < i (degrees: inputs 1..d, hidden units cycle 1..d-1, outputs i > hidden)."""

    def __init__(self, input_dim: int, hidden_dim: int) -> None:
        super().__init__()
        d = input_dim
        deg_in = torch.arange(1, d + 1)
        deg_h = torch.arange(hidden_dim) % max(1, d - 1) + 1
        self.net = nn.Sequential(
            MaskedLinear(d, hidden_dim, deg_h[:, None] >= deg_in[None]), nn.ReLU(),
            MaskedLinear(hidden_dim, hidden_dim, deg_h[:, None] >= deg_h[None]), nn.ReLU(),
            MaskedLinear(hidden_dim, 2 * d, (deg_in.repeat(2)[:, None] > deg_h[None])))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, raw = self.net(x).chunk(2, dim=-1)
        return mu, torch.tanh(raw)


class _AutoregressiveLayer(FlowLayer):
    """What MAF and IAF share: a MADE giving μ_i and α_i of the coordinates before i,
    with a learned factor on α (bounded by MADE's tanh). They differ only in which
    direction takes one pass and which takes d."""

    def __init__(self, input_dim: int, hidden_dim: int, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.made = MADE(input_dim, hidden_dim)
        self.scale = nn.Parameter(torch.ones(input_dim))

    def _params(self, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, a = self.made(v)
        return mu, self.scale * a


class MAFLayer(_AutoregressiveLayer):
    """Masked autoregressive flow, data → latent in one pass:
    ``z_i = (x_i − μ_i(x_<i)) · exp(−α_i(x_<i))``; the inverse needs d passes."""

    label = "MAF"

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        mu, alpha = self._params(x)
        z = (x - mu) * torch.exp(-alpha)
        self._tag(z, x, -alpha)
        return z

    def _inverse(self, z: torch.Tensor) -> torch.Tensor:
        x = torch.zeros_like(z)
        for _ in range(z.shape[-1]):   # pass k fixes coordinate k (its inputs are final)
            mu, alpha = self._params(x)
            x = z * torch.exp(alpha) + mu
        self._tag(x, z, -alpha)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -self._params(x)[1]


class IAFLayer(_AutoregressiveLayer):
    """Inverse autoregressive flow, latent → data in one pass:
    ``x_i = z_i · exp(α_i(z_<i)) + μ_i(z_<i)``; the density (data → latent) needs d passes."""

    label = "IAF"

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros_like(x)
        for _ in range(x.shape[-1]):
            mu, alpha = self._params(z)
            z = (x - mu) * torch.exp(-alpha)
        self._tag(z, x, -alpha)
        return z

    def _inverse(self, z: torch.Tensor) -> torch.Tensor:
        mu, alpha = self._params(z)
        x = z * torch.exp(alpha) + mu
        self._tag(x, z, -alpha)
        return x

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -self._params(y)[1]


class ActNorm(FlowLayer):
    """``y = (x − b) · exp(−s)`` per coordinate; on the first training batch b and s are
    set to the batch's mean and log std (so y starts standardised)."""

    label = "ActNorm"

    def __init__(self, input_dim: int, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.bias = nn.Parameter(torch.zeros(input_dim))
        self.log_std = nn.Parameter(torch.zeros(input_dim))
        self.register_buffer("initialized", torch.tensor(False))

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        if self.training and not bool(self.initialized) and x.dim() == 2 and len(x) > 1:
            with torch.no_grad():
                self.bias.copy_(x.mean(0))
                self.log_std.copy_(torch.log(x.std(0) + 1e-6))
                self.initialized.fill_(True)
        return (x - self.bias) * torch.exp(-self.log_std)

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        return y * torch.exp(self.log_std) + self.bias

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (-self.log_std).expand_as(x)


class Permute(FlowLayer):
    """A fixed permutation of the coordinates (reversal by default); log-det 0."""

    label = "permute"

    def __init__(self, input_dim: int, perm: Sequence[int] | None = None) -> None:
        super().__init__(0)
        perm = torch.arange(input_dim - 1, -1, -1) if perm is None else torch.as_tensor(perm)
        self.register_buffer("perm", perm.long())
        self.register_buffer("inv_perm", torch.argsort(self.perm))

    def _call(self, x: torch.Tensor) -> torch.Tensor:
        return x[..., self.perm]

    def _inverse(self, y: torch.Tensor) -> torch.Tensor:
        return y[..., self.inv_perm]

    def _log_scale(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)
