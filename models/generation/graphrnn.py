"""GraphRNN (You et al. 2018, §2.3): a graph written as a sequence of adjacency rows under a
breadth-first ordering, generated one row at a time by a node-level GRU, each row entry by
entry by an edge-level GRU.

Why this learned model: the community family's clustering comes from *which* earlier nodes
a new node links to: a node of the second community links to the nodes just before it
(its own community, under a breadth-first order), hardly ever to the first. An
autoregressive model sees every row written so far in its hidden state, so it learns that
switch. A graph VAE sampled from its N(0, I) prior draws every node's latent on its own,
so its edges are independent given those latents (a learned graphon); with an
inner-product decoder it cannot even say "p = 0.3 inside a block" (σ(z·z) ≥ 0.5 for two
nodes at the same latent point) without an added bias or an MLP decoder. No VGAE is built
here yet, so this is the reasoning, not a measured comparison. The edge-level GRU draws
one node's links jointly ("linked to one of these candidate parents"), which independent
entries per row (GraphRNN-S, tried first) cannot say; both variants, trained long, break
communities into pieces (exposure bias, below), so that is handled by self-scoring.

Here, unlike the paper, the node count n is drawn first from the training sizes
(``NodeCountPrior``) and given to the GRU as its initial state (h₀ = tanh(W·n/n_max + b)),
and exactly n rows are written: an all-zero row is then a node that starts a new
component, not the end of the graph, so disconnected training graphs are learned as they
are. M (how far back a row looks) is n_max − 1: every earlier node.

Trained longer, the model's samples get *worse* on the community family while its
teacher-forced loss (on held-out graphs too) keeps falling: it grows sure of rows given
exact histories, and a sampled history is never exact (exposure bias), so communities
break into pieces. As GraphRNN's own evaluation does (it scores saved epochs and keeps the
best), the generator scores itself every ``select_every`` steps: 64 sampled graphs against
the training graphs (never the held-out ones), degree + clustering MMD², and ``use_best()``
puts back the weights that scored best.

Shapes:
    inputs: float32[B, T, M] (row S_{t} at step t, S_0 all ones: the start token)
    sizes: float32[B]
    output: float32[B, T, M], the logits of row S_{t+1} at step t
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from models.errors import InvalidParameterError
from models.generation.metrics import clustering_mmd, degree_mmd
from models.generation.ordering import adjacency_rows, bfs_order, graph_from_rows
from models.generation.prior import NodeCountPrior, check_count, check_graphs
from models.session import Run, StepOutcome, TrainingSession, adam

__all__ = ["GraphRNN", "GraphRNNGenerator"]


class GraphRNN(nn.Module):
    """The two GRUs of GraphRNN. The *node-level* GRU reads the rows written so far (its
    initial state made from the node count) and hands its state to the *edge-level* GRU,
    which writes the next row entry by entry (each entry's input is the one before it, 1
    for the first), so the links of one new node are drawn jointly: "linked to one of
    these two, not both, not neither" is learnable, which independent entries (GraphRNN-S)
    cannot say. Sizes are a small version of the paper's (node 128, edge 16)."""

    def __init__(self, m: int, max_nodes: int, hidden: int = 64, edge_hidden: int = 16,
                 embed: int = 64, layers: int = 2):
        super().__init__()
        self.m, self.max_nodes, self.hidden, self.layers = m, max_nodes, hidden, layers
        self.edge_hidden = edge_hidden
        self.embed = nn.Sequential(nn.Linear(m, embed), nn.ReLU())
        self.size_to_state = nn.Linear(1, hidden * layers)
        self.node_rnn = nn.GRU(embed, hidden, num_layers=layers, batch_first=True)
        self.to_edge_state = nn.Sequential(nn.Linear(hidden, embed), nn.ReLU(),
                                           nn.Linear(embed, edge_hidden))
        self.edge_embed = nn.Sequential(nn.Linear(1, 8), nn.ReLU())
        self.edge_rnn = nn.GRU(8, edge_hidden, batch_first=True)
        self.edge_out = nn.Sequential(nn.Linear(edge_hidden, 8), nn.ReLU(), nn.Linear(8, 1))

    def initial_state(self, sizes: torch.Tensor) -> torch.Tensor:
        """float32[layers, B, hidden] from the node counts."""
        h = torch.tanh(self.size_to_state(sizes[:, None] / self.max_nodes))
        return h.view(-1, self.layers, self.hidden).transpose(0, 1).contiguous()

    def node_states(self, inputs: torch.Tensor, sizes: torch.Tensor,
                    state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """float32[B, T, hidden] after each row of ``inputs`` (float32[B, T, M]), and the
        GRU's last state."""
        if state is None:
            state = self.initial_state(sizes)
        return self.node_rnn(self.embed(inputs), state)

    def edge_logits(self, node_out: torch.Tensor, entries_in: torch.Tensor,
                    state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """float32[R, K] logits of a row's entries given the node-level state
        (float32[R, hidden]) and each entry's input (float32[R, K], the entry before it)."""
        if state is None:
            state = self.to_edge_state(node_out)[None].contiguous()
        out, state = self.edge_rnn(self.edge_embed(entries_in[..., None]), state)
        return self.edge_out(out)[..., 0], state

    def extra_repr(self) -> str:
        return (f"M={self.m}, max_nodes={self.max_nodes}, hidden={self.hidden}, "
                f"edge_hidden={self.edge_hidden}")


class GraphRNNGenerator(TrainingSession):
    """GraphRNN-S trained on a list of graphs: ``train(steps)`` yields ``Progress`` (the
    mean binary cross-entropy of a row entry); ``sample(n, seed)`` draws graphs.

    A step is one batch of up to ``batch_size`` training graphs (all of them when there
    are fewer; then a step is an epoch), each written under a fresh random breadth-first
    ordering, so the model learns the graph and not one ordering of it.
    """

    unit = "step"
    method = "graphrnn"

    def __init__(self, graphs: Sequence[nx.Graph], seed: int = 0, hidden: int = 64,
                 edge_hidden: int = 16, layers: int = 2, lr: float = 3e-3, batch_size: int = 128,
                 select_every: int = 50, device: str = "cpu"):
        self.graphs = check_graphs(graphs)
        for name, value in (("hidden", hidden), ("edge_hidden", edge_hidden), ("layers", layers),
                            ("batch_size", batch_size)):
            if check_count(value, name) < 1:
                raise InvalidParameterError(f"{name} must be at least 1, got {value}.")
        self.seed, self.batch_size = seed, int(batch_size)
        self.select_every = check_count(select_every, "select_every")
        #: (step, degree MMD², clustering MMD²) of each self-score against the training set
        self.selection: list[tuple[int, float, float]] = []
        self.best_step, self._best_state = 0, None
        self.prior = NodeCountPrior(self.graphs)
        self.m = max(self.prior.max - 1, 1)
        self.rng = np.random.default_rng(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = GraphRNN(self.m, self.prior.max, hidden=hidden,
                                  edge_hidden=edge_hidden, layers=layers)
        self.optimizer = adam(self.model.parameters(), lr=lr)
        self._queue: list[int] = []
        self._init_session(device, lr)

    # -- training ----------------------------------------------------------------------------
    def _next_batch(self) -> list[int]:
        if len(self._queue) < min(self.batch_size, len(self.graphs)):
            self._queue += self.rng.permutation(len(self.graphs)).tolist()
        batch, self._queue = self._queue[:self.batch_size], self._queue[self.batch_size:]
        return batch

    def _tensors(self, picks: list[int]):
        """inputs, targets, mask: float32[B, T, M]; sizes: float32[B]."""
        t_max = max(self.graphs[i].number_of_nodes() for i in picks) - 1
        b = len(picks)
        inputs = np.zeros((b, t_max, self.m), np.float32)
        targets = np.zeros_like(inputs)
        mask = np.zeros_like(inputs)
        inputs[:, 0, :] = 1.0                                    # the start token
        reach = np.minimum(np.arange(1, t_max + 1), self.m)      # row t sees t+1 nodes back
        for r, i in enumerate(picks):
            g = self.graphs[i]
            rows = adjacency_rows(g, bfs_order(g, self.rng), self.m)
            k = len(rows)
            targets[r, :k] = rows
            inputs[r, 1:k] = rows[:k - 1]
            mask[r, :k] = np.arange(self.m)[None, :] < reach[:k, None]
        sizes = np.asarray([self.graphs[i].number_of_nodes() for i in picks], np.float32)
        as_t = lambda a: torch.from_numpy(a).to(self.device)     # noqa: E731
        return as_t(inputs), as_t(targets), as_t(mask), as_t(sizes)

    def _train_step(self, run: Run) -> StepOutcome:
        self.model.train()
        inputs, targets, mask, sizes = self._tensors(self._next_batch())
        node_out, _ = self.model.node_states(inputs, sizes)
        rows = mask[..., 0] > 0                                 # the rows that exist
        targets, mask = targets[rows], mask[rows]
        entries_in = torch.cat([torch.ones_like(targets[:, :1]), targets[:, :-1]], dim=1)
        logits, _ = self.model.edge_logits(node_out[rows], entries_in)
        loss = (F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
                * mask).sum() / mask.sum()
        return StepOutcome(self.checked_step(loss, clip=1.0))

    def _after_step(self, outcome: StepOutcome, run: Run) -> None:
        """Every ``select_every`` steps (and at the last step of a call): score samples
        against the training graphs, keep the best weights; the scores go to
        ``Progress.metrics`` as ``train_degree_mmd`` and ``train_clustering_mmd``."""
        if not self.select_every or not (self.step % self.select_every == 0 or run.last):
            return
        if self.selection and self.selection[-1][0] == self.step:
            return
        reference = self.graphs[:200]
        samples = self.sample(64, seed=self.seed)
        deg, clu = degree_mmd(reference, samples), clustering_mmd(reference, samples)
        self.selection.append((self.step, deg, clu))
        outcome.metrics.update(train_degree_mmd=deg, train_clustering_mmd=clu)
        if min(d + c for _, d, c in self.selection) == deg + clu:
            with self.lock:
                self.best_step = self.step
                self._best_state = {k: v.detach().clone()
                                    for k, v in self.model.state_dict().items()}

    def use_best(self) -> int:
        """Put back the weights that scored best so far (see the module docstring);
        returns their step (the current step when nothing was scored)."""
        with self.lock:
            if self._best_state is None:
                return self.step
            self.model.load_state_dict(self._best_state)
            return self.best_step

    # -- sampling ----------------------------------------------------------------------------
    def sample(self, n: int, seed: int = 0) -> list[nx.Graph]:
        """``n`` graphs: node counts from the training sizes, then rows drawn one at a time
        (each entry a Bernoulli of its predicted probability). The same seed gives the same
        graphs."""
        n = check_count(n)
        if n == 0:
            return []
        with self.lock:
            return self._sample(n, seed)

    def sample_best(self, n: int, seed: int = 0) -> list[nx.Graph]:
        """``sample`` with the weights ``use_best`` would put back, the weights being
        trained left as they are (training goes on from where it was)."""
        n = check_count(n)
        if n == 0:
            return []
        with self.lock:
            if self._best_state is None or self.best_step == self.step:
                return self._sample(n, seed)
            current = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
            self.model.load_state_dict(self._best_state)
            try:
                return self._sample(n, seed)
            finally:
                self.model.load_state_dict(current)

    def best_shown_step(self) -> int:
        """The step whose weights ``sample_best`` uses."""
        return self.step if self._best_state is None else self.best_step

    def _sample(self, n: int, seed: int) -> list[nx.Graph]:
        """``sample``'s work, the lock held."""
        rng = np.random.default_rng(seed)
        sizes = self.prior.sample(n, rng)
        gen = torch.Generator(device=self.device).manual_seed(int(seed))
        t_max = int(sizes.max()) - 1
        rows = torch.zeros((n, t_max, self.m), device=self.device)
        with torch.no_grad():
            self.model.eval()
            x = torch.ones((n, 1, self.m), device=self.device)
            size_t = torch.as_tensor(sizes, dtype=torch.float32, device=self.device)
            state = None
            for t in range(t_max):
                out, state = self.model.node_states(x, size_t, state)
                entry, edge_state = torch.ones((n, 1), device=self.device), None
                for k in range(min(t + 1, self.m)):             # only nodes that exist
                    logit, edge_state = self.model.edge_logits(out[:, 0], entry, edge_state)
                    u = torch.rand((n, 1), generator=gen, device=self.device)
                    entry = (u < torch.sigmoid(logit)).float()
                    rows[:, t, k] = entry[:, 0]
                x = rows[:, t][:, None, :]
        rows_np = rows.cpu().numpy()
        return [graph_from_rows(rows_np[i], int(sizes[i])) for i in range(n)]

    # -- session files -----------------------------------------------------------------------
    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        """The best weights so far, their step, the self-scores and the batch queue (so a
        session opened elsewhere samples and trains on as this one would)."""
        tensors = {} if self._best_state is None else {
            f"best.{k}": v.detach().cpu().clone() for k, v in self._best_state.items()}
        return tensors, {"best_step": self.best_step, "queue": list(self._queue),
                         "selection": [list(s) for s in self.selection]}

    def _load_extra_state(self, tensors: dict[str, torch.Tensor], meta: dict) -> None:
        from models.errors import SessionFileError

        best = {k[len("best."):]: v for k, v in tensors.items() if k.startswith("best.")}
        own = self.model.state_dict()
        if best and (set(best) != set(own)
                     or any(best[k].shape != own[k].shape for k in own)):
            raise SessionFileError("the saved best GraphRNN weights do not fit the model.")
        queue = meta.get("queue", [])
        if not isinstance(queue, list) or not all(
                isinstance(i, int) and 0 <= i < len(self.graphs) for i in queue):
            raise SessionFileError("the saved GraphRNN batch queue is malformed.")
        step = meta.get("best_step", 0)
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.step:
            raise SessionFileError("the saved GraphRNN best step is malformed.")
        self._best_state = {k: v.to(self.device) for k, v in best.items()} or None
        self.best_step, self._queue = step, list(queue)
        self.selection = [tuple(s) for s in meta.get("selection", [])]

    def __repr__(self) -> str:
        return f"GraphRNNGenerator({self.model!r}, {self.prior}, step={self.step})"
