"""Meta-learning: MAML, first-order MAML, Reptile and a pretrained baseline on sinusoid
regression (Finn et al. 2017), and prototypical networks on 2D few-shot classification
(Snell et al. 2017).

**The sinusoid tasks.** A task is ``y = A·sin(x − φ)`` with A ~ U[0.1, 5], φ ~ U[0, π],
x ~ U[−5, 5]; a learner sees K support points of a new task and must predict the whole
curve. The network is the paper's MLP 1-40-40-1 with ReLU (``SineNet``); its weights are
a plain ``dict`` of tensors run through ``torch.func.functional_call``, so a set of
weights can be adapted, differentiated and vmapped over tasks like any other function.

**Adaptation** (the inner loop) is plain SGD on the support MSE:
``θ'_{i+1} = θ'_i − α ∇ L_support(θ'_i)``, ``θ'_0 = θ``.

**Meta-learning** (the outer loop) looks for an initialisation θ that adapts well:

* *MAML* minimises the query MSE after adaptation, ``L_query(θ'(θ))``, differentiating
  through the inner loop (second order: for one inner step the meta-gradient is
  ``(I − α H_support) ∇L_query(θ')``). Here with ``torch.func.grad`` of the adapted
  query loss, ``torch.func.vmap``-ed over the tasks of a meta-batch.
* *First-order MAML* drops the Hessian term: the meta-gradient is ``∇L_query(θ')``.
* *Reptile* (Nichol et al. 2018) adapts on each task's points for a few steps and moves θ
  towards the adapted weights: ``θ ← θ + ε · mean_tasks(θ' − θ)``.
* *Pretrained* is the baseline of the paper: one network regressed on all the points of
  every task ("pretrained on all tasks"), fine-tuned at test time with the same SGD.

**Prototypical networks.** An embedding network f maps every point; a class's prototype
is the mean embedded support point ``c_k = mean_{i: y_i = k} f(x_i)``; a query is
classified by a softmax over ``−‖f(x) − c_k‖²``. In the embedding plane the decision
regions are the Voronoi cells of the prototypes.

Shapes:
    sinusoid points: x, y [..., 1] (a task's support [K, 1], a batch [T, K, 1]);
    parameters: dict name → tensor (``SineNet`` names: hidden1.weight [40, 1], ...);
    batched parameters: the same dict with a leading task dimension [T, ...].
    prototypical networks: points [n, 2], labels int64[n], embeddings [n, D],
    prototypes [N, D].
"""

from __future__ import annotations

import copy
import hashlib
import math
import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch.func import functional_call, grad, grad_and_value, vmap

from models import checkpoint
from models.devices import device_for
from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import AdaptationTrace, MetaEvalTrace, MetaHistory, Progress, ProtoTrace

__all__ = ["METHODS", "METHOD_LABELS", "AMPLITUDE", "PHASE", "X_RANGE", "FAMILIES",
           "sample_tasks", "sinusoid", "SineNet", "init_params", "predict", "mse",
           "adapt", "adapt_batched", "meta_loss", "meta_gradient", "reptile_direction",
           "reptile_update", "MetaSession", "EmbeddingNet", "make_episode", "prototypes",
           "ProtoSession"]

METHODS = ("maml", "fomaml", "reptile", "pretrained")
METHOD_LABELS = {"maml": "MAML", "fomaml": "first-order MAML", "reptile": "Reptile",
                 "pretrained": "pretrained"}
AMPLITUDE = (0.1, 5.0)
PHASE = (0.0, math.pi)
X_RANGE = (-5.0, 5.0)
FAMILIES = ("blobs", "rings", "anisotropic")
#: evaluation points per test task, spread evenly over X_RANGE
EVAL_POINTS = 100

# the tags that keep the seeded streams apart: np.random.default_rng([seed, tag, ...])
_TRAIN, _EVAL, _TEST_TASK, _PROTO_TRAIN, _PROTO_EPISODE = range(5)


# -- the tasks -----------------------------------------------------------------------------------
def sample_tasks(n: int, rng: np.random.Generator,
                 amp_max: float = AMPLITUDE[1]) -> tuple[np.ndarray, np.ndarray]:
    """n sinusoid tasks: amplitudes U[0.1, amp_max] and phases U[0, π] (float64 [n] each).
    ``amp_max = 10`` is the out-of-distribution setting."""
    amplitudes = rng.uniform(AMPLITUDE[0], amp_max, size=n)
    phases = rng.uniform(PHASE[0], PHASE[1], size=n)
    return amplitudes, phases


def sinusoid(x, amplitude, phase) -> np.ndarray:
    """``A·sin(x − φ)``, broadcast (a [T] amplitude against x [T, K] needs ``[:, None]``)."""
    return np.asarray(amplitude) * np.sin(np.asarray(x) - np.asarray(phase))


# -- the network as a function of its weights ----------------------------------------------------
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
    with torch.enable_grad():
        for _ in range(steps):
            if not create_graph:
                p = {k: v.detach().requires_grad_(True) for k, v in p.items()}
            loss = mse(p, x, y)
            grads = torch.autograd.grad(loss, list(p.values()), create_graph=create_graph)
            if create_graph:
                p = {k: v - inner_lr * g for (k, v), g in zip(p.items(), grads, strict=True)}
            else:
                p = {k: v.detach().add(g, alpha=-inner_lr)
                     for (k, v), g in zip(p.items(), grads, strict=True)}
            out.append(p)
    return out


def _inner_sgd(params: dict[str, Tensor], x: Tensor, y: Tensor, inner_lr: float,
               steps: int) -> dict[str, Tensor]:
    """The inner loop as a pure function of ``params`` (differentiable by ``torch.func``)."""
    for _ in range(steps):
        g = grad(mse)(params, x, y)
        params = {k: v - inner_lr * g[k] for k, v in params.items()}
    return params


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
    step = vmap(grad(mse))
    with torch.no_grad():   # torch.func.grad differentiates anyway; nothing else is recorded
        for _ in range(steps):
            g = step(p, xs, ys)
            p = {k: v - inner_lr * g[k] for k, v in p.items()}
            out.append(p)
    return out


def meta_loss(params: dict[str, Tensor], xs: Tensor, ys: Tensor, xq: Tensor, yq: Tensor,
              inner_lr: float, inner_steps: int) -> Tensor:
    """MAML's objective: the query MSE after ``inner_steps`` SGD steps on the support set,
    averaged over the tasks; a differentiable (``torch.func``) function of ``params``.

    Shapes:
        xs, ys: [T, K, 1] support; xq, yq: [T, Q, 1] query
    """
    def task_loss(p, x_s, y_s, x_q, y_q):
        return mse(_inner_sgd(p, x_s, y_s, inner_lr, inner_steps), x_q, y_q)

    return vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq).mean()


def meta_gradient(params: dict[str, Tensor], xs: Tensor, ys: Tensor, xq: Tensor, yq: Tensor,
                  inner_lr: float, inner_steps: int, order: str = "second",
                  ) -> tuple[dict[str, Tensor], float]:
    """The gradient of ``meta_loss`` with respect to the initial weights, and the loss.

    ``order="second"`` (MAML): ``torch.func.grad`` through the vmapped inner loop, so
    the inner gradients are differentiated too (Hessian-vector products).
    ``order="first"`` (FOMAML): the inner gradients are constants, so the meta-gradient
    is the query gradient at the adapted weights, ``mean_tasks ∇L_query(θ'_t)``.

    Shapes:
        xs, ys: [T, K, 1]; xq, yq: [T, Q, 1]; the gradient has the shapes of ``params``
    """
    params = {k: v.detach() for k, v in params.items()}
    if order == "second":
        g, loss = grad_and_value(meta_loss)(params, xs, ys, xq, yq, inner_lr, inner_steps)
    elif order == "first":
        # 1. adapt every task without recording anything for the outer gradient
        adapted = adapt_batched(params, xs, ys, inner_lr, inner_steps)[-1]
        # 2. the query gradient at the adapted weights, averaged over the tasks
        gq, lq = vmap(grad_and_value(mse))(adapted, xq, yq)
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


# -- checks --------------------------------------------------------------------------------------
def _int(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise InvalidParameterError(f"{name} must be a whole number from {lo} to {hi}, "
                                    f"got {v!r}.")
    return int(v)


def _positive(name: str, v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = math.nan
    if isinstance(v, bool) or not (math.isfinite(f) and f > 0):
        raise InvalidParameterError(f"{name} must be a positive number, got {v!r}.")
    return f


def _finite(tensors) -> bool:
    return all(bool(torch.isfinite(t).all()) for t in tensors)


# -- training and evaluating the four methods on one task stream -----------------------------------
class MetaSession:
    """MAML, first-order MAML, Reptile and the pretrained baseline, trained side by side
    on one seeded stream of sinusoid tasks, from the same initial weights.

    Every step draws ONE meta-batch (``meta_batch`` tasks, K support + K query points each;
    batch s is a pure function of (seed, s, K, meta_batch): ``task_batch(s)``), and every
    enabled method consumes it:

    * ``maml`` / ``fomaml``: the meta-gradient of the query MSE after ``inner_steps`` SGD
      steps (``inner_lr``) on the support points, second or first order.
    * ``reptile``: ``reptile_inner_steps`` SGD steps (``inner_lr``) on all 2K points of
      each task; the pseudo-gradient θ − mean θ' (Reptile has no support/query split).
    * ``pretrained``: the gradient of the plain MSE on all 2K points of every task.

    Each method's (pseudo-)gradient goes to its own Adam (``meta_lr``), as in the MAML
    paper (Adam, 1e-3) and as Nichol et al. suggest for Reptile ("treat θ − θ' as a
    gradient and plug it into Adam"), so the four differ only in the direction they follow.

    ``losses[m][s]`` is the same number for every method: the mean query MSE after
    ``inner_steps`` steps on the support points of batch s (MAML's objective), so the
    curves are comparable; for Reptile and the pretrained net it is computed on the side
    and not counted in ``seconds[m]`` (each method's own training time).

    Defaults: the paper's K = 10, α = 0.01, one inner step, meta-batch 25, Adam 1e-3.
    Reptile takes 5 inner steps: with 1 it is the pretrained baseline (one SGD step on the
    task's MSE, averaged over the tasks, is the joint-training gradient), and 5 steps of
    0.01 on 20 points are where it meta-learns within a few thousand steps.

    Divergence: once the weights of every method gave a finite loss and (pseudo-)gradient
    in a step, they and the Adam states are the last good ones and are copied (4 × 1,761
    weights); on a non-finite value all methods go back to them, ``step`` and ``losses``
    too, and ``TrainingDivergedError`` names the method and the step.
    """

    def __init__(self, k: int = 10, inner_lr: float = 0.01, inner_steps: int = 1,
                 meta_batch: int = 25, meta_lr: float = 1e-3, hidden: int = 40,
                 methods: Sequence[str] = METHODS, seed: int = 0,
                 device: str | torch.device = "cpu", reptile_inner_steps: int = 5) -> None:
        methods = tuple(methods)
        unknown = [m for m in methods if m not in METHODS]
        if unknown or not methods or len(set(methods)) != len(methods):
            raise InvalidParameterError(f"methods must be distinct names among "
                                        f"{', '.join(METHODS)}, got {methods!r}.")
        self.methods = methods
        self.hidden = _int("hidden", hidden, 1, 4096)
        self.seed = int(seed)
        self.device = device_for(device)
        self.k, self.inner_lr, self.inner_steps = 10, 0.01, 1
        self.meta_batch, self.meta_lr, self.reptile_inner_steps = 25, 1e-3, 5
        self._apply(dict(k=k, inner_lr=inner_lr, inner_steps=inner_steps, meta_batch=meta_batch,
                         meta_lr=meta_lr, reptile_inner_steps=reptile_inner_steps))
        init = init_params(self.hidden, seed=self.seed)
        self.nets: dict[str, SineNet] = {}
        self.optimizers: dict[str, torch.optim.Adam] = {}
        for m in self.methods:
            net = SineNet(self.hidden)
            net.load_state_dict(init)
            self.nets[m] = net.to(self.device)
            self.optimizers[m] = torch.optim.Adam(net.parameters(), lr=self.meta_lr)
        self.params: dict[str, dict[str, Tensor]] = {
            m: dict(net.named_parameters()) for m, net in self.nets.items()}
        self.step = 0
        self.losses: dict[str, list[float]] = {m: [] for m in self.methods}
        self.seconds: dict[str, float] = {m: 0.0 for m in self.methods}
        self.lock = threading.Lock()
        self.good_step = 0
        self.good_state = self._snapshot()

    # -- options -----------------------------------------------------------------------------
    def _apply(self, kw: dict) -> None:
        checks = {"k": lambda v: _int("K", v, 1, 1000),
                  "inner_lr": lambda v: _positive("The inner learning rate", v),
                  "inner_steps": lambda v: _int("The number of inner steps", v, 0, 100),
                  "meta_batch": lambda v: _int("The meta batch size", v, 1, 10_000),
                  "meta_lr": lambda v: _positive("The meta learning rate", v),
                  "reptile_inner_steps":
                      lambda v: _int("Reptile's number of inner steps", v, 1, 100)}
        unknown = sorted(set(kw) - set(checks))
        if unknown:
            raise InvalidParameterError(f"Unknown option(s) {', '.join(unknown)} (choose from "
                                        f"{', '.join(checks)}).")
        values = {name: checks[name](v) for name, v in kw.items()}   # all checked first
        for name, v in values.items():
            setattr(self, name, v)

    def set_options(self, **kw) -> None:
        """Change ``k``, ``inner_lr``, ``inner_steps``, ``meta_batch``, ``meta_lr`` or
        ``reptile_inner_steps``; checked (``InvalidParameterError``, nothing changed),
        applied from the next step."""
        with self.lock:
            self._apply(kw)
            for opt in self.optimizers.values():
                for group in opt.param_groups:
                    group["lr"] = self.meta_lr

    def to(self, device: str | torch.device) -> MetaSession:
        dev = device_for(device)
        with self.lock:
            for m in self.methods:
                self.nets[m].to(dev)
                checkpoint.move_optimizer_state(self.optimizers[m], dev)
            self.params = {m: dict(net.named_parameters()) for m, net in self.nets.items()}
            self.device = dev
        return self

    # -- the task stream ---------------------------------------------------------------------
    def task_batch(self, step: int | None = None) -> dict[str, Tensor]:
        """Meta-batch number ``step`` (default: the next one) of the training stream:
        ``amplitude``, ``phase`` [T]; ``xs``, ``ys`` [T, K, 1] support; ``xq``, ``yq``
        [T, K, 1] query; on the session's device. Pure function of (seed, step, K, T)."""
        step = self.step if step is None else step
        rng = np.random.default_rng([self.seed, _TRAIN, step])
        amp, phase = sample_tasks(self.meta_batch, rng)
        x = rng.uniform(*X_RANGE, size=(self.meta_batch, 2 * self.k))
        y = sinusoid(x, amp[:, None], phase[:, None])

        def t(a):
            return torch.as_tensor(a[..., None], dtype=torch.float32).to(self.device)

        return {"amplitude": torch.as_tensor(amp), "phase": torch.as_tensor(phase),
                "xs": t(x[:, :self.k]), "ys": t(y[:, :self.k]),
                "xq": t(x[:, self.k:]), "yq": t(y[:, self.k:])}

    @staticmethod
    def batch_digest(batch: dict[str, Tensor]) -> str:
        """A short hash of a batch's points (to check two consumers saw the same tasks)."""
        h = hashlib.sha1()
        for name in ("xs", "ys", "xq", "yq"):
            h.update(batch[name].detach().cpu().numpy().tobytes())
        return h.hexdigest()[:16]

    # -- one step ----------------------------------------------------------------------------
    def _snapshot(self) -> dict:
        return {m: checkpoint.snapshot(self.nets[m], self.optimizers[m]) for m in self.methods}

    def _restore(self) -> None:
        for m in self.methods:
            checkpoint.restore(self.nets[m], self.optimizers[m], self.good_state[m])
            del self.losses[m][self.good_step:]
        self.step = self.good_step

    def _direction(self, method: str, b: dict[str, Tensor]) -> tuple[dict[str, Tensor], float]:
        """(the (pseudo-)gradient the method's Adam follows, the method's own loss)."""
        p = self.params[method]
        if method in ("maml", "fomaml"):
            return meta_gradient(p, b["xs"], b["ys"], b["xq"], b["yq"], self.inner_lr,
                                 self.inner_steps, "second" if method == "maml" else "first")
        x_all = torch.cat([b["xs"], b["xq"]], 1)
        y_all = torch.cat([b["ys"], b["yq"]], 1)
        if method == "reptile":
            return reptile_direction(p, x_all, y_all, self.inner_lr, self.reptile_inner_steps)
        p = {k: v.detach() for k, v in p.items()}
        g, loss = grad_and_value(mse)(p, x_all, y_all)   # pretrained: plain regression
        return g, float(loss)

    def _query_loss(self, method: str, b: dict[str, Tensor]) -> float:
        """The comparable loss: query MSE after the inner loop on the support points."""
        adapted = adapt_batched(self.params[method], b["xs"], b["ys"], self.inner_lr,
                                self.inner_steps)[-1]
        with torch.no_grad():
            return float(vmap(mse)(adapted, b["xq"], b["yq"]).mean())

    def _diverged(self, method: str, what: str) -> TrainingDivergedError:
        step = self.step + 1
        self._restore()
        return TrainingDivergedError(
            f"Training diverged: {METHOD_LABELS[method]}'s {what} at step {step}. The weights "
            f"of step {self.good_step} were restored for every method. Try a smaller meta "
            f"learning rate (now {self.meta_lr:g}) or inner learning rate (now "
            f"{self.inner_lr:g}), or fewer inner steps (now {self.inner_steps}"
            + (f", Reptile {self.reptile_inner_steps}" if "reptile" in self.methods else "")
            + ").")

    def train(self, steps: int, history_every: int = 25) -> Iterator[Progress]:
        """Train ``steps`` more meta-steps, yielding a ``Progress`` after each.

        ``metrics``: ``loss_<method>`` (see the class), ``seconds`` (since this call),
        ``steps_per_s``. ``loss`` is the mean of the methods' losses. Every
        ``history_every`` steps and at the end, ``history`` is that mean at every step so
        far and ``trace`` a ``MetaHistory`` with every method's curve.
        """
        t0, start = time.perf_counter(), self.step
        for _ in range(steps):
            with self.lock:
                batch = self.task_batch()
                directions, step_losses = {}, {}
                # 1. every method's direction on the same batch, nothing updated yet
                for m in self.methods:
                    tm = time.perf_counter()
                    g, own_loss = self._direction(m, batch)
                    self.seconds[m] += time.perf_counter() - tm
                    loss = own_loss if m in ("maml", "fomaml") else self._query_loss(m, batch)
                    bad = next((v for v in (own_loss, loss) if not math.isfinite(v)), None)
                    if bad is not None:
                        raise self._diverged(m, f"loss became {bad}")
                    if not _finite(g.values()):
                        raise self._diverged(
                            m, "meta-gradient became non-finite" if m != "reptile"
                            else "adapted weights became non-finite")
                    directions[m], step_losses[m] = g, loss
                # 2. these weights gave finite values for every method: the good ones
                self.good_state, self.good_step = self._snapshot(), self.step
                # 3. one Adam step per method
                for m in self.methods:
                    tm = time.perf_counter()
                    for name, p in self.params[m].items():
                        p.grad = directions[m][name].detach().to(p.dtype)
                    self.optimizers[m].step()
                    self.seconds[m] += time.perf_counter() - tm
                    self.losses[m].append(step_losses[m])
                self.step += 1
                done = self.step - start == steps
                report = self.step % history_every == 0 or done
                if report:
                    curves = np.asarray([self.losses[m] for m in self.methods], np.float32)
                    history = curves.mean(0)
                    trace = MetaHistory(methods=self.methods, losses=curves)
                else:
                    history, trace = np.zeros(0, np.float32), None
            elapsed = time.perf_counter() - t0
            mean_loss = float(np.mean(list(step_losses.values())))
            metrics = {f"loss_{m}": v for m, v in step_losses.items()}
            metrics.update(seconds=elapsed, steps_per_s=(self.step - start) / max(elapsed, 1e-9))
            yield Progress(step=self.step, total=start + steps, loss=mean_loss, metrics=metrics,
                           history=history, trace=trace)

    # -- using the meta-learned weights ------------------------------------------------------
    def _weights(self) -> tuple[dict[str, dict[str, Tensor]], int]:
        """Copies of every method's weights and the step they belong to, taken together."""
        with self.lock:
            return ({m: {k: v.detach().clone() for k, v in p.items()}
                     for m, p in self.params.items()}, self.step)

    def adapt_curves(self, x_support, y_support, x_grid, steps: int = 10,
                     inner_lr: float | None = None) -> AdaptationTrace:
        """Every method adapted from its meta-learned weights on the given support points
        (``steps`` SGD steps of ``inner_lr``, default the session's), and its prediction on
        ``x_grid`` after 0..steps steps. No support points: no adaptation (every step
        predicts as step 0). A few milliseconds; safe to call while training runs."""
        steps = _int("The number of adaptation steps", steps, 0, 1000)
        lr = self.inner_lr if inner_lr is None else _positive("The inner learning rate",
                                                               inner_lr)
        xs_np = np.array(x_support, np.float64).reshape(-1)   # copies: inputs may be frozen
        ys_np = np.array(y_support, np.float64).reshape(-1)
        grid = np.array(x_grid, np.float64).reshape(-1)
        if len(xs_np) != len(ys_np):
            raise InvalidParameterError(f"{len(xs_np)} support x values but {len(ys_np)} y "
                                        "values.")
        if not (np.isfinite(xs_np).all() and np.isfinite(ys_np).all()
                and np.isfinite(grid).all()):
            raise InvalidParameterError("Support points and grid must be finite numbers.")
        weights, step = self._weights()
        dev = next(iter(weights[self.methods[0]].values())).device
        xs = _column(xs_np, dev, torch.float32)
        ys = _column(ys_np, dev, torch.float32)
        xg = _column(grid, dev, torch.float32)
        preds = np.empty((len(self.methods), steps + 1, len(grid)), np.float32)
        for i, m in enumerate(self.methods):
            seq = (adapt(weights[m], xs, ys, lr, steps) if len(xs_np)
                   else [weights[m]] * (steps + 1))
            with torch.no_grad():
                out = torch.stack([predict(p, xg)[:, 0] for p in seq])
            preds[i] = out.cpu().numpy()
        return AdaptationTrace(x_grid=grid.astype(np.float32), predictions=preds,
                               methods=self.methods, x_support=xs_np.astype(np.float32),
                               y_support=ys_np.astype(np.float32), inner_lr=lr, steps=steps)

    def evaluate(self, n_tasks: int = 600, k: int | None = None, steps: int = 10,
                 amp_max: float = AMPLITUDE[1], seed: int = 1234,
                 inner_lr: float | None = None, chunk: int = 600) -> MetaEvalTrace:
        """Test tasks from their own seeded stream (amplitude U[0.1, amp_max]); each method
        adapts on K support points and is scored by the MSE on ``EVAL_POINTS`` points
        spread evenly over [−5, 5], after 0..steps steps. Mean over the tasks and the 95%
        half-width ``1.96·s/√n`` (s: the sample standard deviation, ddof = 1), the median,
        and every task's MSE."""
        n_tasks = _int("The number of test tasks", n_tasks, 1, 1_000_000)
        k = self.k if k is None else _int("K", k, 1, 1000)
        steps = _int("The number of adaptation steps", steps, 0, 1000)
        amp_max = _positive("The largest amplitude", amp_max)
        if amp_max <= AMPLITUDE[0]:
            raise InvalidParameterError(f"The largest amplitude must exceed {AMPLITUDE[0]}.")
        lr = self.inner_lr if inner_lr is None else _positive("The inner learning rate",
                                                               inner_lr)
        rng = np.random.default_rng([seed, _EVAL])
        amp, phase = sample_tasks(n_tasks, rng, amp_max)
        x_s = rng.uniform(*X_RANGE, size=(n_tasks, k))
        y_s = sinusoid(x_s, amp[:, None], phase[:, None])
        x_e = np.broadcast_to(np.linspace(*X_RANGE, EVAL_POINTS), (n_tasks, EVAL_POINTS))
        y_e = sinusoid(x_e, amp[:, None], phase[:, None])
        weights, step = self._weights()
        dev = next(iter(weights[self.methods[0]].values())).device

        def t(a):
            return torch.as_tensor(np.ascontiguousarray(a[..., None]), dtype=torch.float32,
                                   device=dev)

        per_task = np.empty((len(self.methods), steps + 1, n_tasks), np.float64)
        seconds = np.zeros(len(self.methods), np.float64)
        for i, m in enumerate(self.methods):
            t0 = time.perf_counter()
            for lo in range(0, n_tasks, chunk):
                sl = slice(lo, lo + chunk)
                xs, ys, xe, ye = t(x_s[sl]), t(y_s[sl]), t(x_e[sl]), t(y_e[sl])
                seq = adapt_batched(weights[m], xs, ys, lr, steps)
                with torch.no_grad():
                    errs = torch.stack([vmap(mse)(p, xe, ye) for p in seq])
                per_task[i, :, sl] = errs.double().cpu().numpy()
            seconds[i] = time.perf_counter() - t0
        mean = per_task.mean(-1)
        sd = per_task.std(-1, ddof=1) if n_tasks > 1 else np.zeros_like(mean)
        return MetaEvalTrace(methods=self.methods, steps=steps, mse=mean,
                             ci95=1.96 * sd / math.sqrt(n_tasks), n_tasks=n_tasks, k=k,
                             amp_max=amp_max, seconds=seconds, task_mse=per_task,
                             median=np.median(per_task, -1),
                             inner_lr=lr, seed=seed, step=step)

    def test_task(self, seed: int, k: int | None = None,
                  amp_max: float = AMPLITUDE[1]) -> dict:
        """One test task for the scrubbable view: ``amplitude``, ``phase``, ``x_support``,
        ``y_support`` (float32[K]) and the true curve ``x_grid``, ``y_grid`` (200 points)."""
        k = self.k if k is None else _int("K", k, 1, 1000)
        amp_max = _positive("The largest amplitude", amp_max)
        rng = np.random.default_rng([seed, _TEST_TASK])
        amp, phase = sample_tasks(1, rng, amp_max)
        x = rng.uniform(*X_RANGE, size=k)
        grid = np.linspace(*X_RANGE, 200)
        return {"amplitude": float(amp[0]), "phase": float(phase[0]),
                "x_support": x.astype(np.float32),
                "y_support": sinusoid(x, amp[0], phase[0]).astype(np.float32),
                "x_grid": grid.astype(np.float32),
                "y_grid": sinusoid(grid, amp[0], phase[0]).astype(np.float32)}


# -- prototypical networks ------------------------------------------------------------------------
class EmbeddingNet(nn.Module):
    """f: 2 → hidden → hidden → embed_dim (ReLU), the prototypical network's encoder.

    Shapes:
        x: [n, 2] → [n, embed_dim]
    """

    def __init__(self, hidden: int = 64, embed_dim: int = 2) -> None:
        super().__init__()
        self.layer1 = nn.Linear(2, hidden)
        self.layer2 = nn.Linear(hidden, hidden)
        self.embed = nn.Linear(hidden, embed_dim)

    def forward(self, x: Tensor) -> Tensor:
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.embed(x)


def make_episode(family: str, n_way: int, k_shot: int, n_query: int,
                 rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One N-way K-shot episode of a 2D task family (class-major order, labels 0..N-1):

    * ``blobs``: N isotropic Gaussians, centres U[−3, 3]², one spread σ ~ U[0.4, 0.8] per
      episode. The class means in the input are already the right prototypes.
    * ``rings``: N concentric rings around a point near the origin, radii 0.4 + cumulative
      U[0.45, 0.85] gaps (shuffled over the classes), radial noise 0.1. Every class mean
      is near the centre, so nearest-mean in the input is near chance; an embedding of
      the radius separates them.
    * ``anisotropic``: Gaussians stretched along x (σ_x = 1.6, σ_y = 0.25), centres
      U[−3, 3]²: Euclidean distance in the input overweights x; an embedding learns to
      shrink it.

    Shapes:
        support_x float32[N*K, 2], support_y int64[N*K], query_x float32[N*Q, 2],
        query_y int64[N*Q]
    """
    if family not in FAMILIES:
        raise InvalidParameterError(f"Unknown task family '{family}' (choose "
                                    f"{', '.join(FAMILIES)}).")
    per = k_shot + n_query
    if family == "rings":
        centre = rng.normal(0.0, 0.15, size=2)
        radii = 0.4 + np.cumsum(rng.uniform(0.45, 0.85, size=n_way))
        radii = radii[rng.permutation(n_way)]
        angle = rng.uniform(0, 2 * np.pi, size=(n_way, per))
        r = radii[:, None] + rng.normal(0.0, 0.1, size=(n_way, per))
        pts = centre + np.stack([r * np.cos(angle), r * np.sin(angle)], -1)
    else:
        centres = rng.uniform(-3, 3, size=(n_way, 2))
        scale = (np.array([1.6, 0.25]) if family == "anisotropic"
                 else np.full(2, rng.uniform(0.4, 0.8)))
        pts = centres[:, None] + rng.normal(size=(n_way, per, 2)) * scale
    labels = np.repeat(np.arange(n_way), per).reshape(n_way, per)
    sup, qry = np.s_[:, :k_shot], np.s_[:, k_shot:]
    return {"support_x": pts[sup].reshape(-1, 2).astype(np.float32),
            "support_y": labels[sup].reshape(-1).astype(np.int64),
            "query_x": pts[qry].reshape(-1, 2).astype(np.float32),
            "query_y": labels[qry].reshape(-1).astype(np.int64)}


def prototypes(emb: Tensor, labels: Tensor, n_way: int) -> Tensor:
    """Class prototypes: the mean embedded support point of each class.

    Shapes:
        emb: [n, D]; labels: int64[n] in 0..n_way-1 → [n_way, D]
    """
    onehot = nn.functional.one_hot(labels, n_way).to(emb.dtype)   # [n, N]
    return (onehot.T @ emb) / onehot.sum(0)[:, None].clamp_min(1)


def _sq_dist(a: Tensor, b: Tensor) -> Tensor:
    """‖a_i − b_j‖² [n, m] (exactly, not through the |a|² + |b|² − 2ab expansion)."""
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)


def _extent(points: np.ndarray, margin: float = 0.15) -> tuple[float, float, float, float]:
    lo, hi = points.min(0), points.max(0)
    pad = np.maximum((hi - lo) * margin, 0.5)
    lo, hi = lo - pad, hi + pad
    return float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])


def _grid(extent: tuple[float, float, float, float], g: int) -> np.ndarray:
    """Cell centres [g*g, 2], rows from y_min upwards, columns from x_min rightwards."""
    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(g) + 0.5) * (x1 - x0) / g
    ys = y0 + (np.arange(g) + 0.5) * (y1 - y0) / g
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    return np.stack([gx.reshape(-1), gy.reshape(-1)], 1).astype(np.float32)


class ProtoSession:
    """A prototypical network trained episode by episode on one 2D task family.

    Each training step draws a fresh episode (seeded: episode s is a pure function of
    (seed, s)), embeds support and query points, and minimises the cross-entropy of
    ``softmax(−‖f(query) − c_k‖²)`` with Adam. ``embed_dim = 2`` lets the embedding be
    drawn as it is; with more dimensions ``episode`` shows the projection on the two
    principal axes of the prototypes and embedded points (the drawn regions are then the
    Voronoi cells of the projected prototypes, an approximation of the classifier).
    Divergence is handled as in ``MetaSession``.
    """

    def __init__(self, n_way: int = 5, k_shot: int = 5, n_query: int = 15,
                 family: str = "blobs", embed_dim: int = 2, hidden: int = 64,
                 lr: float = 1e-3, seed: int = 0, device: str | torch.device = "cpu") -> None:
        if family not in FAMILIES:
            raise InvalidParameterError(f"Unknown task family '{family}' (choose "
                                        f"{', '.join(FAMILIES)}).")
        self.n_way = _int("N (ways)", n_way, 2, 50)
        self.k_shot = _int("K (shots)", k_shot, 1, 500)
        self.n_query = _int("The number of query points per class", n_query, 1, 1000)
        self.embed_dim = _int("The embedding dimension", embed_dim, 2, 256)
        self.hidden = _int("hidden", hidden, 1, 4096)
        self.lr = _positive("The learning rate", lr)
        self.family, self.seed, self.device = family, int(seed), device_for(device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            self.net = EmbeddingNet(self.hidden, self.embed_dim).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=self.lr)
        self.step = 0
        self.losses: list[float] = []
        self.accuracies: list[float] = []
        self.lock = threading.Lock()
        self.good_step = 0
        self.good_state = checkpoint.snapshot(self.net, self.optimizer)

    def set_options(self, **kw) -> None:
        """Change ``family``, ``n_way``, ``k_shot``, ``n_query`` or ``lr`` (checked,
        applied from the next episode)."""
        checks = {"family": self._family, "n_way": lambda v: _int("N (ways)", v, 2, 50),
                  "k_shot": lambda v: _int("K (shots)", v, 1, 500),
                  "n_query": lambda v: _int("The number of query points per class", v, 1,
                                            1000),
                  "lr": lambda v: _positive("The learning rate", v)}
        unknown = sorted(set(kw) - set(checks))
        if unknown:
            raise InvalidParameterError(f"Unknown option(s) {', '.join(unknown)}.")
        values = {name: checks[name](v) for name, v in kw.items()}
        with self.lock:
            for name, v in values.items():
                setattr(self, name, v)
            for group in self.optimizer.param_groups:
                group["lr"] = self.lr

    @staticmethod
    def _family(v) -> str:
        if v not in FAMILIES:
            raise InvalidParameterError(f"Unknown task family '{v}' (choose "
                                        f"{', '.join(FAMILIES)}).")
        return v

    def to(self, device: str | torch.device) -> ProtoSession:
        dev = device_for(device)
        with self.lock:
            self.net.to(dev)
            checkpoint.move_optimizer_state(self.optimizer, dev)
            self.device = dev
        return self

    def _episode_data(self, rng: np.random.Generator) -> dict[str, Tensor]:
        ep = make_episode(self.family, self.n_way, self.k_shot, self.n_query, rng)
        return {k: torch.as_tensor(v).to(self.device) for k, v in ep.items()}

    def _forward(self, ep: dict[str, Tensor]) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """(support embeddings, query embeddings, prototypes, logits = −squared distances)."""
        s_emb, q_emb = self.net(ep["support_x"]), self.net(ep["query_x"])
        protos = prototypes(s_emb, ep["support_y"], self.n_way)
        return s_emb, q_emb, protos, -_sq_dist(q_emb, protos)

    def _diverged(self, what: str) -> TrainingDivergedError:
        step = self.step + 1
        checkpoint.restore(self.net, self.optimizer, self.good_state)
        self.step = self.good_step
        del self.losses[self.good_step:], self.accuracies[self.good_step:]
        return TrainingDivergedError(
            f"Training diverged: the prototypical network's {what} at episode {step}. The "
            f"weights of episode {self.good_step} were restored. Try a smaller learning rate "
            f"(now {self.lr:g}).")

    def train(self, steps: int, history_every: int = 25) -> Iterator[Progress]:
        """``steps`` more episodes; ``Progress.metrics``: ``loss`` and ``accuracy`` (of the
        episode's queries, before the update), ``seconds``, ``steps_per_s``; ``history``
        (the loss at every episode) every ``history_every`` episodes and at the end."""
        t0, start = time.perf_counter(), self.step
        params = list(self.net.parameters())
        for _ in range(steps):
            with self.lock:
                self.net.train()
                ep = self._episode_data(
                    np.random.default_rng([self.seed, _PROTO_TRAIN, self.step]))
                logits = self._forward(ep)[3]
                loss = nn.functional.cross_entropy(logits, ep["query_y"])
                value = float(loss.detach())
                acc = float((logits.argmax(1) == ep["query_y"]).float().mean())
                if not math.isfinite(value):
                    raise self._diverged(f"loss became {value}")
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if not _finite(p.grad for p in params if p.grad is not None):
                    raise self._diverged("gradient became non-finite")
                self.good_state = checkpoint.snapshot(self.net, self.optimizer)
                self.good_step = self.step
                self.optimizer.step()
                self.step += 1
                self.losses.append(value)
                self.accuracies.append(acc)
                done = self.step - start == steps
                history = (np.asarray(self.losses, np.float32)
                           if self.step % history_every == 0 or done else np.zeros(0, np.float32))
            elapsed = time.perf_counter() - t0
            yield Progress(step=self.step, total=start + steps, loss=value,
                           metrics={"loss": value, "accuracy": acc, "seconds": elapsed,
                                    "steps_per_s": (self.step - start) / max(elapsed, 1e-9)},
                           history=history)

    @torch.no_grad()
    def episode(self, seed: int, grid: int = 100) -> ProtoTrace:
        """A fresh test episode (a pure function of ``seed`` and the options) through the
        current weights: embeddings, prototypes, both planes' decision regions on a
        ``grid × grid`` raster, the accuracy, and the input-space nearest-mean baseline."""
        grid = _int("The grid size", grid, 2, 2048)
        with self.lock:
            self.net.eval()
            ep = self._episode_data(np.random.default_rng([seed, _PROTO_EPISODE]))
            s_emb, q_emb, protos, logits = self._forward(ep)
            pred = logits.argmax(1)
            ext_in = _extent(torch.cat([ep["support_x"], ep["query_x"]]).cpu().numpy())
            pts = torch.as_tensor(_grid(ext_in, grid), device=self.device)
            regions_in = torch.cat([_sq_dist(self.net(c), protos).argmin(1)
                                    for c in pts.split(16384)])
            # the options this episode was made with (set_options may change them now)
            step, n_way, k_shot, family = self.step, self.n_way, self.k_shot, self.family
        # the drawn embedding plane: the coordinates themselves, or two principal axes
        all_emb = torch.cat([s_emb, q_emb, protos])
        if self.embed_dim == 2:
            def project(e):
                return e
        else:
            centre = all_emb.mean(0)
            axes = torch.linalg.svd(all_emb - centre, full_matrices=False)[2][:2].T

            def project(e):
                return (e - centre) @ axes
        s2, q2, p2 = project(s_emb), project(q_emb), project(protos)
        ext_emb = _extent(torch.cat([s2, q2, p2]).cpu().numpy())
        epts = torch.as_tensor(_grid(ext_emb, grid), device=self.device)
        regions_emb = _sq_dist(epts, p2).argmin(1)
        # the baseline: nearest class mean in the input plane, no learning
        means = prototypes(ep["support_x"], ep["support_y"], n_way)
        base_pred = _sq_dist(ep["query_x"], means).argmin(1)
        regions_base = _sq_dist(pts, means).argmin(1)

        def np_(t):
            return t.detach().cpu().numpy()

        return ProtoTrace(
            n_way=n_way, k_shot=k_shot, family=family, seed=seed, step=step,
            support_x=np_(ep["support_x"]), support_y=np_(ep["support_y"]),
            query_x=np_(ep["query_x"]), query_y=np_(ep["query_y"]), query_pred=np_(pred),
            support_emb=np_(s2), query_emb=np_(q2), prototypes=np_(p2),
            extent_input=ext_in, regions_input=np_(regions_in).reshape(grid, grid),
            extent_embedding=ext_emb, regions_embedding=np_(regions_emb).reshape(grid, grid),
            accuracy=float((pred == ep["query_y"]).float().mean()),
            baseline_accuracy=float((base_pred == ep["query_y"]).float().mean()),
            baseline_prototypes=np_(means),
            regions_baseline=np_(regions_base).reshape(grid, grid))
