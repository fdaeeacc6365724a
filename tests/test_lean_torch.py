"""PyTorch's compiler (``torch._dynamo``, ~70 MB with sympy) stays out of the app's
process: the optimizers (models/optim.py), PyG's ``is_torch_instance``
(models/pyg_isinstance.py), the efficient tab's memory profiler and the meta-learners'
gradients. Each is checked against what PyTorch or PyG compute themselves."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import models.optim
from models.optim import Adam

ROOT = Path(__file__).resolve().parent.parent


def _fresh(code: str, timeout: int = 600) -> dict:
    """``code`` run in a fresh interpreter; the JSON it prints last."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _params(seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(5, 3, generator=g, dtype=torch.float64).requires_grad_(),
            torch.randn(3, generator=g, dtype=torch.float64).requires_grad_()]


def _run(optimizer, params, steps: int, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 5, generator=g, dtype=torch.float64)
    for _ in range(steps):
        optimizer.zero_grad()
        ((torch.tanh(x @ params[0] + params[1]) - 0.3) ** 2).sum().backward()
        optimizer.step()


def _same_state(a: torch.optim.Optimizer, b: torch.optim.Optimizer) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    if sa["param_groups"] != sb["param_groups"] or sa["state"].keys() != sb["state"].keys():
        return False
    return all(torch.equal(sa["state"][i][k], sb["state"][i][k])
               for i in sa["state"] for k in sa["state"][i])


@pytest.fixture
def lean(monkeypatch):
    """The lean path, even where something earlier in this process imported the compiler
    (models.optim then hands over to torch's path, tested in a fresh process below)."""
    assert models.optim._RAW_STEP is not None
    monkeypatch.setattr(models.optim, "compiler", lambda: None)


@pytest.mark.slow
def test_the_lean_path_is_in_place_on_the_pinned_torch():
    got = _fresh("""
        import json, models.optim as o
        print(json.dumps({"lean": o.LEAN, "own_step": "step" in o.Adam.__dict__}))
    """)
    assert got == {"lean": True, "own_step": True}, \
        "models.optim no longer recognises torch.optim's wrappers: check the torch pin"


@pytest.mark.parametrize("options", [{}, {"foreach": True}, {"foreach": False, "amsgrad": True},
                                     {"weight_decay": 0.1, "maximize": True, "foreach": True},
                                     {"betas": (0.8, 0.95), "eps": 1e-6}])
def test_adam_is_torch_adam_to_the_bit(lean, options):
    ours, theirs = _params(0), _params(0)
    a = Adam(ours, lr=0.05, **options)
    b = torch.optim.Adam(theirs, lr=0.05, **options)
    assert isinstance(a, torch.optim.Adam)
    _run(a, ours, 7, seed=1)
    _run(b, theirs, 7, seed=1)
    assert all(torch.equal(p, q) for p, q in zip(ours, theirs, strict=True))
    assert _same_state(a, b)
    assert torch.is_grad_enabled()                   # the step gave the grad mode back


def test_adam_state_dicts_load_both_ways_and_continue_alike(lean):
    first, second = _params(2), _params(2)
    a = torch.optim.Adam(first, lr=0.02, foreach=True)
    _run(a, first, 4, seed=3)
    b = Adam(second, lr=0.02, foreach=True)
    with torch.no_grad():
        for p, q in zip(second, first, strict=True):
            p.copy_(q)
    b.load_state_dict(copy.deepcopy(a.state_dict()))  # torch's state into ours (a copy:
    # loading keeps the tensors it is given, and both optimizers update theirs in place)
    _run(a, first, 3, seed=4)
    _run(b, second, 3, seed=4)
    assert all(torch.equal(p, q) for p, q in zip(first, second, strict=True))
    c = torch.optim.Adam(_params(2), lr=0.02, foreach=True)
    c.load_state_dict(b.state_dict())                # and ours into torch's
    assert _same_state(b, c)


def test_differentiable_adam_steps_keep_the_graph_as_torchs(lean):
    """``differentiable=True``: the step runs with grad enabled, so the updated weights
    are differentiable with respect to what they were computed from (torch's wrapper
    sets the same mode)."""
    grads = []
    for cls in (Adam, torch.optim.Adam):
        leaf = _params(7)[0]
        weight = leaf.clone()                        # not a leaf: allowed when differentiable
        opt = cls([weight], lr=0.1, weight_decay=0.3, differentiable=True)
        weight.grad = leaf.detach() * leaf          # a gradient that depends on leaf too
        opt.step()
        grads.append(torch.autograd.grad(weight.sum(), leaf)[0])
    assert torch.equal(grads[0], grads[1])


def test_a_closure_and_the_step_hooks_work_as_in_torch(lean):
    params = _params(5)
    opt = Adam(params, lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda *_: calls.append("pre"))
    opt.register_step_post_hook(lambda *_: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (params[0] ** 2).sum() + (params[1] ** 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert torch.is_tensor(loss) and calls == ["pre", "post"]


@pytest.mark.slow
def test_the_apps_models_train_without_importing_the_compiler():
    """Every kind of work the tabs do on their first visit and in training, in a fresh
    process: torch._dynamo, torch._inductor and sympy stay unimported."""
    got = _fresh("""
        import json, sys
        import models
        import torch
        from models.optim import Adam
        from models import checkpoint
        # an optimizer's whole life: build, step, zero, snapshot and restore
        p = [torch.randn(4, requires_grad=True)]
        opt = Adam(p, lr=0.1)
        (p[0] ** 2).sum().backward(); opt.step(); opt.zero_grad()
        net = torch.nn.Linear(4, 1)
        opt2 = Adam(net.parameters())
        checkpoint.restore(net, opt2, checkpoint.snapshot(net, opt2))
        # the sessions of the tabs that train
        from models.flows.session import FlowSession
        from models.meta.session import MetaSession
        from models.meta.proto import ProtoSession
        from models.transformer.session import Seq2SeqSession
        from models.graphs.builtins import karate_club
        from models.graphs.sessions import NodeClassificationSession
        for s in (FlowSession(), MetaSession(meta_batch=4), ProtoSession(),
                  Seq2SeqSession(), NodeClassificationSession(karate_club(), kind="gat")):
            for _ in s.train(2):
                pass
        MetaSession(meta_batch=4).evaluate(n_tasks=8, steps=2, seed=1)
        from models.ode.spiral import SpiralSession
        from models.graphs import GraphClassificationSession, LinkPredictionSession, motif_graphs
        from models.generation.graphrnn import GraphRNNGenerator
        import networkx as nx
        from models.ode.cnf import CNFSession
        from models.ode.solver import SolverConfig
        adjoint = SolverConfig(adjoint=True)
        for s in (SpiralSession(batch_size=8), SpiralSession(batch_size=8, solver=adjoint),
                  CNFSession(batch_size=16, hidden=8, solver=adjoint),
                  LinkPredictionSession(karate_club()),
                  GraphClassificationSession(motif_graphs(seed=0)),
                  GraphRNNGenerator([nx.cycle_graph(6), nx.path_graph(5)])):
            for _ in s.train(2):
                pass
        # the shell's warm-up, and the fits that build their own Adam
        from models.devices import warm_up
        warm_up(1)
        from models.transformer.positional_probe import fit_offset_map
        list(fit_offset_map(d_model=16, max_len=32, steps=3))
        from models.efficient_attention.linear import fit_linformer_projections
        q = torch.randn(1, 1, 32, 8)
        fit_linformer_projections(q, q, q, 8, steps=3)
        from models.graphs.builtins import builtin_graph
        from models.community.partition import undirected_edges
        from models.community.dmon import train_dmon
        doc = builtin_graph("karate")
        list(train_dmon(doc, *undirected_edges(doc), k=2, epochs=3))
        # PyG's models and utilities
        import torch_geometric
        from torch_geometric.nn import GCNConv, SAGEConv, GATConv
        from torch_geometric.utils import negative_sampling
        data = karate_club()
        for conv in (GCNConv(data.num_features, 4), SAGEConv(data.num_features, 4),
                     GATConv(data.num_features, 4, heads=2)):
            conv(data.x, data.edge_index).sum().backward()
        negative_sampling(data.edge_index, num_nodes=data.num_nodes)
        # the efficient tab's cost measure (memory through the CPU profiler)
        from models.efficient_attention.cost import measure_costs
        for _ in measure_costs(n_values=(64, 128), repeats=1, time_budget_s=5.0):
            pass
        SpiralSession(batch_size=8).compare_adjoint(repeats=1)
        print(json.dumps({m: m in sys.modules for m in ("torch._dynamo", "torch._inductor",
                                                        "sympy")}))
    """)
    # sympy: through torch's shape check of a grad_outputs tensor (models/ode/adjoint.py)
    assert got == {"torch._dynamo": False, "torch._inductor": False, "sympy": False}


@pytest.mark.slow
def test_once_the_compiler_is_imported_torch_takes_over_and_results_are_the_same():
    got = _fresh("""
        import json, sys
        import models, torch
        from models.optim import Adam
        def run():
            torch.manual_seed(0)
            net = torch.nn.Linear(3, 1)
            opt = Adam(net.parameters(), lr=0.1, foreach=True)
            x = torch.randn(8, 3)
            for _ in range(5):
                opt.zero_grad(); net(x).pow(2).sum().backward(); opt.step()
            return [v.tolist() for v in net.state_dict().values()], opt.state_dict()
        before, _ = run()
        import torch._dynamo
        after, state = run()
        print(json.dumps({"same": before == after, "steps": [float(s["step"])
                          for s in state["state"].values()]}))
    """)
    assert got["same"] and got["steps"] == [5.0, 5.0]


@pytest.mark.slow
def test_pyg_is_torch_instance_answers_as_pygs_own_on_a_compiled_module():
    got = _fresh("""
        import json, sys, importlib.util
        import models, torch, torch_geometric
        from torch_geometric.nn import GCNConv, MessagePassing
        from torch_geometric import isinstance as ours
        lean = 'torch._dynamo' not in sys.modules and ours.__file__.endswith('pyg_isinstance.py')
        spec = importlib.util.find_spec('torch_geometric')
        path = spec.submodule_search_locations[0] + '/isinstance.py'
        pyg_spec = importlib.util.spec_from_file_location('pyg_isinstance_ref', path)
        theirs = importlib.util.module_from_spec(pyg_spec); pyg_spec.loader.exec_module(theirs)
        conv = GCNConv(3, 2)
        compiled = torch.compile(conv, backend='eager')
        cases = [(conv, MessagePassing), (compiled, MessagePassing), (compiled, GCNConv),
                 (compiled, torch.nn.Linear), (conv, (torch.nn.Linear, GCNConv)), (3, int)]
        print(json.dumps({'lean': lean, 'cases': [[ours.is_torch_instance(o, c),
                          theirs.is_torch_instance(o, c)] for o, c in cases]}))
    """)
    assert got["lean"] is True
    assert [a for a, _ in got["cases"]] == [b for _, b in got["cases"]]
    assert [a for a, _ in got["cases"]] == [True, True, True, False, True, True]
