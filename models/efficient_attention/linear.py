"""Linear-cost attention: the Performer's random features (FAVOR+), Linformer's
projections along the sequence, and elu + 1 linear attention."""

from __future__ import annotations

import math

import torch
from torch.nn import functional as tnf

from models.efficient_attention.common import _check_qkv, _guard, _int
from models.errors import InvalidParameterError
from models.optim import Adam
from models.transformer import scaled_dot_product_attention

# causal kernel attention walks the positions in chunks of this many (see _kernel_attention)
CAUSAL_CHUNK = 64


# -- Performer: random features -------------------------------------------------------------------
def random_projection(num_features: int, d: int, orthogonal: bool = True, seed: int = 0,
                      dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The m random directions w of the Performer's features.

    i.i.d.: rows ~ N(0, I_d). Orthogonal (FAVOR+): ⌈m/d⌉ blocks, each the Q of a QR
    decomposition of a Gaussian d×d matrix (orthonormal rows), stacked and cut to m rows;
    each row is rescaled by the norm of a fresh Gaussian d-vector (chi distribution with
    d degrees of freedom), so every row has the same marginal law as an i.i.d. one, but
    rows within a block are exactly orthogonal (less redundancy, lower variance).

    Shapes: returns (num_features, d).
    """
    m, d = _int("num_features", num_features), _int("d", d)
    gen = torch.Generator().manual_seed(int(seed))
    if not orthogonal:
        return torch.randn(m, d, generator=gen, dtype=torch.float64).to(dtype)
    # 1. orthonormal blocks: the rows of Qᵀ of each Gaussian block (one batched QR).
    #    QR's sign convention (R with a positive diagonal in LAPACK's Householder form
    #    is not guaranteed) biases the directions; multiplying the columns of Q by
    #    sign(diag R) makes Q Haar-distributed, i.e. the directions isotropic.
    gaussian = torch.randn(math.ceil(m / d), d, d, generator=gen, dtype=torch.float64)
    q_, r_ = torch.linalg.qr(gaussian)
    q_ = q_ * torch.sign(torch.diagonal(r_, dim1=-2, dim2=-1)).unsqueeze(-2)
    rows = q_.transpose(-2, -1).reshape(-1, d)[:m]
    # 2. lengths as those of Gaussian vectors
    norms = torch.randn(m, d, generator=gen, dtype=torch.float64).norm(dim=-1)
    return (rows * norms[:, None]).to(dtype)


def performer_features(x: torch.Tensor, projection: torch.Tensor, kind: str = "positive",
                       is_query: bool = True, stabilize: bool = True) -> torch.Tensor:
    """φ(x) with E[φ(q)·φ(k)] = exp(q·k), for x already scaled by d^(-1/4).

    * ``"positive"`` (FAVOR+): φ(x) = exp(w·x − ‖x‖²/2)/√m, m features, all > 0.
    * ``"trig"``: φ(x) = exp(‖x‖²/2)/√m · [sin(w·x), cos(w·x)], 2m features; products
      can be negative, so the "attention weights" can be negative and the denominator
      can get near 0 — why the Performer uses positive features.

    Stabiliser: the largest exponent is subtracted before exp — per row for queries, one
    max over all keys and features of each (batch, head) for keys. Each is a constant
    factor of a query's row or of the whole key side, so it cancels in the normalised
    attention (a per-row max for keys would not: it would reweight the keys).

    Shapes: x (..., n, d), projection (m, d) → (..., n, m) or (..., n, 2m) for trig.
    """
    if kind not in ("positive", "trig"):
        raise InvalidParameterError(f"Feature kind must be 'positive' or 'trig', got {kind!r}.")
    m = projection.size(0)
    # 1. random projections w·x and half the squared norm
    wx = x @ projection.to(x).T                                  # (..., n, m)
    half_sq = (x * x).sum(-1, keepdim=True) / 2                  # (..., n, 1)
    exponent = wx - half_sq if kind == "positive" else half_sq
    # 2. stabiliser: per row (queries) or one constant (keys)
    if stabilize:
        dims = (-1,) if is_query else (-2, -1)
        exponent = exponent - exponent.amax(dim=dims, keepdim=True).detach()
    # 3. the features
    if kind == "positive":
        return torch.exp(exponent) / math.sqrt(m)
    return torch.exp(exponent) / math.sqrt(m) * torch.cat([torch.sin(wx), torch.cos(wx)], -1)


def _kernel_attention(phi_q: torch.Tensor, phi_k: torch.Tensor, v: torch.Tensor,
                      causal: bool) -> torch.Tensor:
    """φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), right to left, or with prefix sums when causal.

    Shapes: phi_q, phi_k (..., n, m), v (..., n, d_v) → (..., n, d_v).
    """
    if not causal:
        # 1. φ(K)ᵀV and φ(K)ᵀ1 once for all queries: (..., m, d_v) and (..., m)
        kv = phi_k.transpose(-2, -1) @ v
        k_sum = phi_k.sum(dim=-2)
        num = phi_q @ kv
        den = (phi_q * k_sum.unsqueeze(-2)).sum(-1, keepdim=True)
    else:
        # 1. prefix sums over positions: query i uses S_i = Σ_{j≤i} φ(k_j) v_jᵀ and
        #    z_i = Σ_{j≤i} φ(k_j). Computed a chunk of c positions at a time: the sums over
        #    the earlier chunks are carried as one (m, d_v) state and one m-vector, and the
        #    chunk's own terms come from the c×c lower triangle of φ(Q_c)φ(K_c)ᵀ — the same
        #    numbers as a cumsum over positions without holding n (m × d_v) matrices.
        n = phi_k.size(-2)
        state = phi_k.new_zeros(*phi_k.shape[:-2], phi_k.size(-1), v.size(-1))
        k_sum = phi_k.new_zeros(*phi_k.shape[:-2], 1, phi_k.size(-1))
        tri = torch.ones(CAUSAL_CHUNK, CAUSAL_CHUNK, device=v.device).tril().to(v.dtype)
        nums, dens = [], []
        for start in range(0, n, CAUSAL_CHUNK):
            sl = slice(start, start + CAUSAL_CHUNK)
            fq, fk, vc = phi_q[..., sl, :], phi_k[..., sl, :], v[..., sl, :]
            c = fk.size(-2)
            local = (fq @ fk.transpose(-2, -1)) * tri[:c, :c]          # (..., c, c)
            nums.append(fq @ state + local @ vc)
            dens.append((fq * k_sum).sum(-1, keepdim=True) + local.sum(-1, keepdim=True))
            state = state + fk.transpose(-2, -1) @ vc
            k_sum = k_sum + fk.sum(-2, keepdim=True)
        num, den = torch.cat(nums, dim=-2), torch.cat(dens, dim=-2)
    # 2. normalise (guarded against a vanishing denominator)
    return num / _guard(den)


def performer_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, num_features: int,
                        orthogonal: bool = True, seed: int = 0, causal: bool = False,
                        kind: str = "positive", projection: torch.Tensor | None = None
                        ) -> torch.Tensor:
    """Performer (FAVOR+): softmax attention estimated with m random features.

    softmax(QKᵀ/√d)V ≈ φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) with q, k scaled by d^(-1/4): cost
    O(n·m·d), never an n×n matrix; causal attention uses prefix sums over positions
    (chunk by chunk, the running sums carried over; at most 64×64 scores at once). A
    denominator with |den| < 1e-12 is replaced by ±1e-12 (``_guard``) so an underflow
    gives a finite output rather than NaN. ``projection`` overrides the (num_features,
    seed, orthogonal) draw.

    Shapes: q, k (..., n, d), v (..., n, d_v) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    d = q.size(-1)
    # 1. random directions (the same for queries and keys)
    if projection is None:
        projection = random_projection(num_features, d, orthogonal, seed, q.dtype)
    projection = projection.to(q)
    # 2. features of the scaled queries and keys
    scale = d ** -0.25
    phi_q = performer_features(q * scale, projection, kind, is_query=True)
    phi_k = performer_features(k * scale, projection, kind, is_query=False)
    # 3. linear-cost attention with those features
    return _kernel_attention(phi_q, phi_k, v, causal)


# -- Linformer and linear attention ---------------------------------------------------------------
def linformer_projection(n: int, k: int, kind: str = "random", seed: int = 0,
                         dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A projection of a length-n sequence to k rows.

    ``"random"``: entries N(0, 1/k) (Johnson–Lindenstrauss); ``"mean"``: mean pooling over
    k consecutive segments as equal as possible (row r averages positions
    ⌊r·n/k⌋..⌊(r+1)·n/k⌋−1; rows sum to 1; needs k ≤ n); ``"identity"``: k must be n.

    Shapes: returns (k, n).
    """
    n, k = _int("n", n), _int("k", k)
    if kind == "random":
        gen = torch.Generator().manual_seed(int(seed))
        return (torch.randn(k, n, generator=gen, dtype=torch.float64) / math.sqrt(k)).to(dtype)
    if kind == "mean":
        if k > n:
            raise InvalidParameterError(f"Mean pooling needs k <= n (segments of at least "
                                        f"one position), got k = {k} and n = {n}.")
        bounds = (torch.arange(k + 1) * n) // k
        pos = torch.arange(n)
        member = (pos[None, :] >= bounds[:-1, None]) & (pos[None, :] < bounds[1:, None])
        return (member.double() / member.sum(-1, keepdim=True)).to(dtype)
    if kind == "identity":
        if k != n:
            raise InvalidParameterError(f"An identity projection needs k = n, got k = {k} "
                                        f"and n = {n}.")
        return torch.eye(n, dtype=dtype)
    raise InvalidParameterError(f"Projection kind must be 'random', 'mean' or 'identity', "
                                f"got {kind!r}.")


def linformer_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, E: torch.Tensor,
                        F: torch.Tensor) -> torch.Tensor:
    """Linformer: softmax(Q (E K)ᵀ/√d)(F V). Keys and values are projected along the
    sequence to k rows, so the score matrix is n×k: O(n·k) instead of O(n²).

    Shapes: q, k (..., n, d), v (..., n, d_v), E, F (k, n) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    if E.size(-1) != k.size(-2) or F.size(-1) != v.size(-2) or E.size(-2) != F.size(-2):
        raise InvalidParameterError(f"E and F must both be (k, n) with n = {k.size(-2)}, got "
                                    f"{tuple(E.shape)} and {tuple(F.shape)}.")
    # 1. the sequence projected to k rows
    k_proj, v_proj = E.to(k) @ k, F.to(v) @ v                   # (..., k, d), (..., k, d_v)
    # 2. ordinary attention over those k rows
    scores = q @ k_proj.transpose(-2, -1) / math.sqrt(q.size(-1))
    return torch.softmax(scores, dim=-1) @ v_proj


def fit_linformer_projections(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_len: int,
                              steps: int = 200, lr: float = 0.05, seed: int = 0
                              ) -> tuple[torch.Tensor, torch.Tensor]:
    """Linformer's projections are learned; here, a small honest demo: E and F start as
    mean pooling and Adam minimises the mean squared difference between
    ``linformer_attention`` and exact attention *on these q, k, v* (fitted to one input,
    not trained over a data set as in the paper). The fit is deterministic; ``seed`` is
    accepted for a uniform signature and not used.

    Shapes: q, k (..., n, d), v (..., n, d_v) → E, F (k_len, n), detached.
    """
    del seed
    _check_qkv(q, k, v)
    n = k.size(-2)
    steps = _int("steps", steps, 0)
    q, k, v = q.detach(), k.detach(), v.detach()
    if not 1 <= int(k_len) <= n:
        raise InvalidParameterError(f"Learned projections shorten the sequence: k must be "
                                    f"between 1 and n = {n}, got {k_len}.")
    # 1. start from mean pooling
    start = linformer_projection(n, k_len, "mean", dtype=q.dtype).to(q.device)
    E = start.clone().requires_grad_(True)
    F_ = start.clone().requires_grad_(True)
    with torch.no_grad():
        target, _ = scaled_dot_product_attention(q, k, v)
    opt = Adam([E, F_], lr=lr)
    with torch.enable_grad():
        for _ in range(steps):
            # 2. one Adam step on the output error
            opt.zero_grad()
            loss = torch.mean((linformer_attention(q, k, v, E, F_) - target) ** 2)
            loss.backward()
            opt.step()
    return E.detach(), F_.detach()


def _elu_feature(x: torch.Tensor) -> torch.Tensor:
    return tnf.elu(x) + 1


def linear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     causal: bool = False) -> torch.Tensor:
    """Linear attention (Katharopoulos et al.): the softmax replaced by the kernel
    φ(q)·φ(k) with φ = elu + 1 (positive), computed right to left in O(n·d²):
    φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1); prefix sums when causal. Not an estimate of softmax
    attention: a different attention. Denominator guarded as in ``performer_attention``.

    Shapes: q, k (..., n, d), v (..., n, d_v) → (..., n, d_v).
    """
    _check_qkv(q, k, v)
    return _kernel_attention(_elu_feature(q), _elu_feature(k), v, causal)
