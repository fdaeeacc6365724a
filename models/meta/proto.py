"""Prototypical networks (Snell et al. 2017) on 2D few-shot classification, on the one
session base.

An embedding network f maps every point; a class's prototype is the mean embedded
support point ``c_k = mean_{i: y_i = k} f(x_i)``; a query is classified by a softmax over
``−‖f(x) − c_k‖²``. In the embedding plane the decision regions are the Voronoi cells of
the prototypes.

Shapes:
    points [n, 2], labels int64[n], embeddings [n, D], prototypes [N, D].
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor, nn

from models.devices import device_for
from models.errors import InvalidParameterError, SessionFileError
from models.meta.checks import _int, _positive
from models.meta.options import FAMILIES
from models.meta.tasks import _PROTO_EPISODE, _PROTO_TRAIN
from models.session import Run, StepOutcome, TrainingSession, adam
from models.traces import Progress, ProtoTrace

__all__ = ["EmbeddingNet", "make_episode", "prototypes", "ProtoSession"]


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


def _extent(points: np.ndarray, margin: float = 0.15, reach: float = 1.6
            ) -> tuple[float, float, float, float]:
    """The square the regions are computed over: around the points' box padded by
    ``margin`` (at least 0.5), ``reach`` times its side. A drawn plane keeps its aspect
    and shows the points' box; a panel wider or taller than that box then still shows
    computed regions to its edges (a box-shaped raster left white bands beside it)."""
    lo, hi = points.min(0), points.max(0)
    pad = np.maximum((hi - lo) * margin, 0.5)
    lo, hi = lo - pad, hi + pad
    centre, half = (lo + hi) / 2, float((hi - lo).max()) / 2 * reach
    return (float(centre[0] - half), float(centre[0] + half), float(centre[1] - half),
            float(centre[1] + half))


def _grid(extent: tuple[float, float, float, float], g: int) -> np.ndarray:
    """Cell centres [g*g, 2], rows from y_min upwards, columns from x_min rightwards."""
    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(g) + 0.5) * (x1 - x0) / g
    ys = y0 + (np.arange(g) + 0.5) * (y1 - y0) / g
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    return np.stack([gx.reshape(-1), gy.reshape(-1)], 1).astype(np.float32)


class ProtoSession(TrainingSession):
    """A prototypical network trained episode by episode on one 2D task family.

    Each training step draws a fresh episode (seeded: episode s is a pure function of
    (seed, s)), embeds support and query points, and minimises the cross-entropy of
    ``softmax(−‖f(query) − c_k‖²)`` with Adam. ``embed_dim = 2`` lets the embedding be
    drawn as it is; with more dimensions ``episode`` shows the projection on the two
    principal axes of the prototypes and embedded points (the drawn regions are then the
    Voronoi cells of the projected prototypes, an approximation of the classifier).
    Divergence is handled as in every session (``TrainingSession``): back to the last
    rollback point, ``losses`` and ``accuracies`` cut to it.
    """

    unit = "episode"

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
        self.optimizer = adam(self.net.parameters(), lr=self.lr)
        self._init_session()
        self.accuracies: list[float] = []

    def _pairs(self) -> list[tuple[nn.Module, torch.optim.Optimizer]]:
        return [(self.net, self.optimizer)]

    def _records(self) -> list[list]:
        return [self.losses, self.accuracies]

    # -- session files -----------------------------------------------------------------------
    def _extra_state(self) -> tuple[dict[str, Tensor], dict]:
        return {}, {"seed": self.seed, "n_query": self.n_query}

    def load_state(self, tensors: dict[str, Tensor], meta: dict, name: str = "") -> None:
        """``TrainingSession.load_state`` plus the episode stream's seed and the query
        points per class (checked before anything changes: ``SessionFileError``)."""
        where = f"{name}: " if name else ""
        extra = meta.get("extra", {})
        seed = extra.get("seed", self.seed) if isinstance(extra, dict) else None
        n_query = extra.get("n_query", self.n_query) if isinstance(extra, dict) else None
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise SessionFileError(f"{where}the episode stream's seed {seed!r} is not a "
                                   "whole number ≥ 0.")
        try:
            _int("The number of query points per class", n_query, 1, 1000)
        except InvalidParameterError as exc:
            raise SessionFileError(f"{where}{exc}") from exc
        super().load_state(tensors, meta, name)

    def _load_extra_state(self, tensors: dict[str, Tensor], meta: dict) -> None:
        self.seed = int(meta.get("seed", self.seed))
        self.n_query = int(meta.get("n_query", self.n_query))

    def set_options(self, **kw) -> None:
        """Change ``family``, ``n_way``, ``k_shot``, ``n_query`` or ``lr`` (checked at
        once, applied from the next episode; never waits for a running step)."""
        checks = {"family": self._family, "n_way": lambda v: _int("N (ways)", v, 2, 50),
                  "k_shot": lambda v: _int("K (shots)", v, 1, 500),
                  "n_query": lambda v: _int("The number of query points per class", v, 1,
                                            1000),
                  "lr": lambda v: _positive("The learning rate", v)}
        unknown = sorted(set(kw) - set(checks))
        if unknown:
            raise InvalidParameterError(f"Unknown option(s) {', '.join(unknown)}.")
        values = {name: checks[name](v) for name, v in kw.items()}

        def change() -> None:          # under the lock now, or as a running step ends
            for name, v in values.items():
                setattr(self, name, v)
            for group in self.optimizer.param_groups:
                group["lr"] = self.lr

        self.lock.when_free(change)

    @staticmethod
    def _family(v) -> str:
        if v not in FAMILIES:
            raise InvalidParameterError(f"Unknown task family '{v}' (choose "
                                        f"{', '.join(FAMILIES)}).")
        return v

    def _episode_data(self, rng: np.random.Generator) -> dict[str, Tensor]:
        ep = make_episode(self.family, self.n_way, self.k_shot, self.n_query, rng)
        return {k: torch.as_tensor(v).to(self.device) for k, v in ep.items()}

    def _forward(self, ep: dict[str, Tensor]) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """(support embeddings, query embeddings, prototypes, logits = −squared distances)."""
        s_emb, q_emb = self.net(ep["support_x"]), self.net(ep["query_x"])
        protos = prototypes(s_emb, ep["support_y"], self.n_way)
        return s_emb, q_emb, protos, -_sq_dist(q_emb, protos)

    def _divergence_message(self, what: str, step: int) -> str:
        # the base's "the loss became nan" / "a gradient became non-finite" said of the
        # network: "the prototypical network's loss became nan"
        return super()._divergence_message(
            "the prototypical network's " + what.split(" ", 1)[1], step)

    def train(self, steps: int, history_every: int = 25) -> Iterator[Progress]:
        """``steps`` more episodes; ``Progress.metrics``: ``loss`` and ``accuracy`` (of the
        episode's queries, before the update), ``seconds``, ``steps_per_s``; ``history``
        (the loss at every episode) every ``history_every`` episodes and at the end."""
        return super().train(steps, every=history_every)

    def _train_step(self, run: Run) -> StepOutcome:
        self.net.train()
        ep = self._episode_data(np.random.default_rng([self.seed, _PROTO_TRAIN, self.step]))
        logits = self._forward(ep)[3]
        loss = nn.functional.cross_entropy(logits, ep["query_y"])
        acc = float((logits.argmax(1) == ep["query_y"]).float().mean())
        value = self.checked_step(loss)
        self.accuracies.append(acc)
        return StepOutcome(value, {"loss": value, "accuracy": acc})

    @torch.no_grad()
    def episode(self, seed: int, grid: int = 160) -> ProtoTrace:
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
