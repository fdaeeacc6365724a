"""The MAML family on sinusoid regression: the network as a function of its weights, the
inner loop, and the meta-gradients of MAML, first-order MAML and Reptile.

The network is the paper's MLP 1-40-40-1 with ReLU (``SineNet``); its weights are a
plain ``dict`` of tensors run through ``torch.func.functional_call``, so a set of
weights can be adapted, differentiated and vmapped over tasks like any other function.

Gradients are autograd's (``torch.autograd.grad``). Over a meta-batch, the tasks' weights
are batched ([T, ...]) and their losses computed by ``torch.func.vmap``; since task t's
loss depends on its own copy of the weights only, the gradient of the tasks' summed loss
with respect to the batched weights is every task's own gradient, which is what
``vmap(torch.func.grad(mse))`` computes (``tests/test_meta.py`` compares the two).
``torch.func.grad`` itself is not used: it imports PyTorch's compiler (``torch._dynamo``,
~70 MB with sympy, see ``models/optim.py``) on its first call.

**Adaptation** (the inner loop) is plain SGD on the support MSE:
``θ'_{i+1} = θ'_i − α ∇ L_support(θ'_i)``, ``θ'_0 = θ``.

**Meta-learning** (the outer loop) looks for an initialisation θ that adapts well:

* *MAML* minimises the query MSE after adaptation, ``L_query(θ'(θ))``, differentiating
  through the inner loop (second order: for one inner step the meta-gradient is
  ``(I − α H_support) ∇L_query(θ')``). Here the inner loop keeps autograd's graph
  (``create_graph=True``) for every task of a meta-batch at once, and the adapted query
  loss is differentiated through it.
* *First-order MAML* drops the Hessian term: the meta-gradient is ``∇L_query(θ')``.
* *Reptile* (Nichol et al. 2018) adapts on each task's points for a few steps and moves θ
  towards the adapted weights: ``θ ← θ + ε · mean_tasks(θ' − θ)``.

Shapes:
    sinusoid points: x, y [..., 1] (a task's support [K, 1], a batch [T, K, 1]);
    parameters: dict name → tensor (``SineNet`` names: hidden1.weight [40, 1], ...);
    batched parameters: the same dict with a leading task dimension [T, ...].
"""

from __future__ import annotations

import copy
import threading

import torch
from torch import Tensor, nn
from torch.func import functional_call, vmap

from models.errors import InvalidParameterError

__all__ = ["SineNet", "init_params", "predict", "mse", "mse_and_grad", "task_mse_and_grads",
           "adapt", "adapt_batched", "meta_loss", "meta_gradient", "reptile_direction",
           "reptile_update"]


class SineNet(nn.Module):
    """The paper's regressor: 1 → 40 → 40 → 1 with ReLU.

    ``hidden1``, ``hidden2``, ``output`` are ``nn.Linear`` layers; the meta-learners never
    use the module's own weights but a dict of tensors through ``functional_call``.

    Shapes:
        x: [..., 1] → [..., 1]
    """

    def __init__(self, hidden: int = 40, device: str | torch.device | None = None) -> None:
        super().__init__()
        self.hidden1 = nn.Linear(1, hidden, device=device)
        self.hidden2 = nn.Linear(hidden, hidden, device=device)
        self.output = nn.Linear(hidden, 1, device=device)

    def forward(self, x: Tensor) -> Tensor:
        x = torch.relu(self.hidden1(x))
        x = torch.relu(self.hidden2(x))
        return self.output(x)


#: one template module per thread: functional_call swaps the given tensors into the module
#: for the call, so two threads sharing one module would see each other's weights. Sizes
#: and device are irrelevant (every parameter is replaced); on "meta" nothing is allocated.
#: Copies of one made at import, since initialising a new one draws random numbers, which
#: is an error inside vmap.
_TEMPLATES = threading.local()
_PROTOTYPE = SineNet(hidden=1, device="meta").requires_grad_(False)


def _template() -> SineNet:
    net = getattr(_TEMPLATES, "net", None)
    if net is None:
        net = _TEMPLATES.net = copy.deepcopy(_PROTOTYPE)
    return net


def init_params(hidden: int = 40, seed: int = 0, device: str | torch.device = "cpu",
                dtype: torch.dtype = torch.float32) -> dict[str, Tensor]:
    """PyTorch's default ``nn.Linear`` initialisation of a ``SineNet``, seeded (the global
    random state is left as it was). Tensors without ``requires_grad``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = SineNet(hidden)
    return {k: v.detach().to(device=device, dtype=dtype).clone()
            for k, v in net.named_parameters()}


def predict(params: dict[str, Tensor], x: Tensor) -> Tensor:
    """The network with weights ``params`` at x [..., 1] → [..., 1]."""
    return functional_call(_template(), params, (x,))


def mse(params: dict[str, Tensor], x: Tensor, y: Tensor) -> Tensor:
    """Mean squared error of the network with ``params`` on (x, y), a scalar."""
    return ((predict(params, x) - y) ** 2).mean()


def mse_and_grad(params: dict[str, Tensor], x: Tensor, y: Tensor,
                 create_graph: bool = False) -> tuple[dict[str, Tensor], Tensor]:
    """The gradient of ``mse(params, x, y)`` with respect to ``params``, and that loss
    (``torch.func.grad_and_value(mse)``'s answer, by autograd). Without ``create_graph``
    the gradient is of detached copies and nothing is recorded; with it, the graph is kept
    (``params`` must then be part of one, e.g. require grad)."""
    return _grad_and_value(lambda p: mse(p, x, y), params, create_graph)


def task_mse_and_grads(params: dict[str, Tensor], xs: Tensor, ys: Tensor,
                       create_graph: bool = False) -> tuple[dict[str, Tensor], Tensor]:
    """Every task's gradient of its MSE with respect to its own weights, and the losses:
    ``vmap(torch.func.grad_and_value(mse))(params, xs, ys)``, by one backward pass of the
    summed losses (see the module's docstring). ``create_graph`` as in ``mse_and_grad``.

    Shapes:
        params: batched, name → [T, *shape]; xs, ys: [T, K, 1];
        the gradients: [T, *shape]; the losses: [T]
    """
    return _grad_and_value(lambda p: vmap(mse)(p, xs, ys), params, create_graph)


def _grad_and_value(loss_of, params: dict[str, Tensor], create_graph: bool
                    ) -> tuple[dict[str, Tensor], Tensor]:
    """The gradient of ``loss_of(params)`` summed, with respect to ``params``, and the
    loss itself; ``create_graph`` as in ``mse_and_grad``."""
    with torch.enable_grad():
        if not create_graph:
            params = {k: v.detach().requires_grad_(True) for k, v in params.items()}
        value = loss_of(params)
        grads = torch.autograd.grad(value.sum(), list(params.values()),
                                    create_graph=create_graph)
    return dict(zip(params, grads, strict=True)), value if create_graph else value.detach()


def _column(v, device=None, dtype=None) -> Tensor:
    """[K] or [K, 1] → a [K, 1] tensor."""
    t = torch.as_tensor(v, device=device, dtype=dtype)
    return t.reshape(-1, 1)


def adapt(params: dict[str, Tensor], x: Tensor, y: Tensor, inner_lr: float, steps: int,
          create_graph: bool = False) -> list[dict[str, Tensor]]:
    """SGD on the MSE of (x, y) from ``params``: the weights after 0, 1, …, ``steps`` steps.

    ``result[0]`` is ``params`` itself. With ``create_graph=False`` each step is plain SGD
    (``p ← p − α ∇L``, as ``torch.optim.SGD``) on detached tensors; with ``create_graph=True``
    the autograd graph through every step is kept (MAML's inner loop with
    ``torch.autograd.grad``; ``params`` must then require grad).

    Shapes:
        x, y: [K] or [K, 1]
    """
    if steps < 0:
        raise InvalidParameterError(f"The number of adaptation steps must be ≥ 0, got {steps}.")
    out = [dict(params)]
    if steps == 0:
        return out
    x, y = x.reshape(-1, 1), y.reshape(-1, 1)
    p = dict(params)
    for _ in range(steps):
        g, _ = mse_and_grad(p, x, y, create_graph)
        if create_graph:
            p = {k: v - inner_lr * g[k] for k, v in p.items()}
        else:
            p = {k: v.detach().add(g[k], alpha=-inner_lr) for k, v in p.items()}
        out.append(p)
    return out


def adapt_batched(params: dict[str, Tensor], xs: Tensor, ys: Tensor, inner_lr: float,
                  steps: int) -> list[dict[str, Tensor]]:
    """``adapt`` for T tasks at once (vmapped): batched weights after 0..steps steps.

    ``params`` are shared (unbatched) or already batched ([T, ...]).

    Shapes:
        xs, ys: [T, K, 1]; result[s][name]: [T, *shape]
    """
    t = xs.shape[0]
    p = {k: v.detach() for k, v in params.items()}
    if params["hidden1.weight"].dim() == 2:   # shared weights: one copy per task
        p = {k: v.expand(t, *v.shape) for k, v in p.items()}
    out = [p]
    for _ in range(steps):
        g, _ = task_mse_and_grads(p, xs, ys)
        with torch.no_grad():
            p = {k: v - inner_lr * g[k] for k, v in p.items()}
        out.append(p)
    return out


def meta_loss(params: dict[str, Tensor], xs: Tensor, ys: Tensor, xq: Tensor, yq: Tensor,
              inner_lr: float, inner_steps: int) -> Tensor:
    """MAML's objective: the query MSE after ``inner_steps`` SGD steps on the support set,
    averaged over the tasks. Differentiable (autograd) with respect to ``params`` when they
    require grad: the inner loop then keeps its graph.

    Shapes:
        params: shared, name → shape; xs, ys: [T, K, 1] support; xq, yq: [T, Q, 1] query
    """
    t = xs.shape[0]
    keep = any(v.requires_grad for v in params.values())
    with torch.enable_grad():
        p = {k: v.expand(t, *v.shape) for k, v in params.items()}   # one copy per task
        for _ in range(inner_steps):
            g, _ = task_mse_and_grads(p, xs, ys, create_graph=keep)
            p = {k: v - inner_lr * g[k] for k, v in p.items()}
        return vmap(mse)(p, xq, yq).mean()


def meta_gradient(params: dict[str, Tensor], xs: Tensor, ys: Tensor, xq: Tensor, yq: Tensor,
                  inner_lr: float, inner_steps: int, order: str = "second",
                  ) -> tuple[dict[str, Tensor], float]:
    """The gradient of ``meta_loss`` with respect to the initial weights, and the loss.

    ``order="second"`` (MAML): autograd through the inner loop (``meta_loss``), so the
    inner gradients are differentiated too (Hessian-vector products).
    ``order="first"`` (FOMAML): the inner gradients are constants, so the meta-gradient
    is the query gradient at the adapted weights, ``mean_tasks ∇L_query(θ'_t)``.

    Shapes:
        xs, ys: [T, K, 1]; xq, yq: [T, Q, 1]; the gradient has the shapes of ``params``
    """
    params = {k: v.detach() for k, v in params.items()}
    if order == "second":
        leaves = {k: v.requires_grad_(True) for k, v in params.items()}
        with torch.enable_grad():
            loss = meta_loss(leaves, xs, ys, xq, yq, inner_lr, inner_steps)
            g = dict(zip(leaves, torch.autograd.grad(loss, list(leaves.values())), strict=True))
        loss = loss.detach()
    elif order == "first":
        # 1. adapt every task without recording anything for the outer gradient
        adapted = adapt_batched(params, xs, ys, inner_lr, inner_steps)[-1]
        # 2. the query gradient at the adapted weights, averaged over the tasks
        gq, lq = task_mse_and_grads(adapted, xq, yq)
        g, loss = {k: v.mean(0) for k, v in gq.items()}, lq.mean()
    else:
        raise InvalidParameterError(f"order must be 'second' or 'first', got {order!r}.")
    return g, float(loss)


def reptile_direction(params: dict[str, Tensor], xs: Tensor, ys: Tensor, inner_lr: float,
                      inner_steps: int) -> tuple[dict[str, Tensor], float]:
    """Reptile's pseudo-gradient ``θ − mean_tasks θ'_t`` (θ'_t: ``inner_steps`` SGD steps
    on task t's points) and the mean MSE of the tasks before adapting. Following θ's
    negative pseudo-gradient moves it towards the adapted weights.

    Shapes:
        xs, ys: [T, n, 1]
    """
    params = {k: v.detach() for k, v in params.items()}
    adapted = adapt_batched(params, xs, ys, inner_lr, inner_steps)[-1]
    with torch.no_grad():
        loss = vmap(mse, in_dims=(None, 0, 0))(params, xs, ys).mean()
    return {k: v - adapted[k].mean(0) for k, v in params.items()}, float(loss)


def reptile_update(params: dict[str, Tensor], xs: Tensor, ys: Tensor, inner_lr: float,
                   inner_steps: int, outer_lr: float) -> dict[str, Tensor]:
    """One (batched) Reptile step: ``θ + ε · mean_tasks(θ'_t − θ)`` with ε = ``outer_lr``
    (ε = 1 with one task: jump to the adapted weights)."""
    direction, _ = reptile_direction(params, xs, ys, inner_lr, inner_steps)
    return {k: v.detach() - outer_lr * direction[k] for k, v in params.items()}

