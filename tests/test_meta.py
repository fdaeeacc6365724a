"""Meta-learning: MAML's meta-gradient against finite differences and against the
first-order formula plus its Hessian term, adaptation against torch.optim.SGD, the shared
task stream, evaluation statistics, rollback on divergence, and prototypical networks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from models import meta
from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import AdaptationTrace, MetaEvalTrace, MetaHistory, ProtoTrace


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _tasks(t: int, k: int, seed: int, dtype=torch.float32) -> tuple[torch.Tensor, ...]:
    """t tasks of k support and k query points: xs, ys, xq, yq [t, k, 1]."""
    rng = np.random.default_rng(seed)
    amp, phase = meta.sample_tasks(t, rng)
    x = rng.uniform(-5, 5, size=(t, 2 * k))
    y = meta.sinusoid(x, amp[:, None], phase[:, None])
    xt = torch.as_tensor(x[..., None], dtype=dtype)
    yt = torch.as_tensor(y[..., None], dtype=dtype)
    return xt[:, :k], yt[:, :k], xt[:, k:], yt[:, k:]


def _flat(d: dict[str, torch.Tensor]) -> torch.Tensor:
    return torch.cat([v.reshape(-1) for v in d.values()])


def _unflat(v: torch.Tensor, like: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    out, i = {}, 0
    for k, t in like.items():
        out[k] = v[i:i + t.numel()].reshape(t.shape)
        i += t.numel()
    return out


def _state(session: meta.MetaSession) -> dict[str, dict[str, torch.Tensor]]:
    return {m: {k: v.detach().clone() for k, v in p.items()} for m, p in session.params.items()}


# -- the tasks and the network -------------------------------------------------------------------
def test_tasks_are_the_papers_distribution():
    amp, phase = meta.sample_tasks(5000, np.random.default_rng(0))
    assert amp.shape == phase.shape == (5000,)
    assert amp.min() >= 0.1 and amp.max() <= 5.0 and phase.min() >= 0 and phase.max() <= math.pi
    ood, _ = meta.sample_tasks(5000, np.random.default_rng(0), amp_max=10.0)
    assert ood.max() > 9.5
    assert np.allclose(meta.sinusoid(np.array([math.pi / 2 + 0.3]), 2.0, 0.3), [2.0])


def test_init_params_is_seeded_and_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b = meta.init_params(seed=3), meta.init_params(seed=3)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["hidden1.weight"], meta.init_params(seed=4)["hidden1.weight"])
    assert {k: tuple(v.shape) for k, v in a.items()} == {
        "hidden1.weight": (40, 1), "hidden1.bias": (40,), "hidden2.weight": (40, 40),
        "hidden2.bias": (40,), "output.weight": (1, 40), "output.bias": (1,)}
    assert sum(v.numel() for v in a.values()) == 1761


def test_predict_is_the_module_with_those_weights():
    params = meta.init_params(seed=1)
    net = meta.SineNet()
    net.load_state_dict(params)
    x = torch.linspace(-5, 5, 17)[:, None]
    assert torch.allclose(meta.predict(params, x), net(x), atol=1e-6)
    assert meta.predict(params, torch.zeros(3, 4, 1)).shape == (3, 4, 1)


# -- adaptation ----------------------------------------------------------------------------------
def test_adapt_zero_steps_returns_the_params_unchanged():
    params = meta.init_params(seed=0)
    xs, ys, _, _ = _tasks(1, 5, seed=0)
    out = meta.adapt(params, xs[0], ys[0], 0.01, 0)
    assert len(out) == 1 and out[0].keys() == params.keys()
    assert all(out[0][k] is params[k] for k in params)


def test_adapt_is_plain_sgd():
    params = meta.init_params(seed=2)
    xs, ys, _, _ = _tasks(1, 10, seed=1)
    seq = meta.adapt(params, xs[0], ys[0], 0.01, 5)
    assert len(seq) == 6
    net = meta.SineNet()
    net.load_state_dict(params)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for step in range(1, 6):
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xs[0]), ys[0]).backward()
        opt.step()
        for k, v in net.named_parameters():
            assert torch.allclose(seq[step][k], v, atol=1e-6), (step, k)
            assert not seq[step][k].requires_grad


def test_batched_adaptation_equals_one_task_at_a_time():
    params = meta.init_params(seed=0)
    xs, ys, _, _ = _tasks(4, 5, seed=2)
    batched = meta.adapt_batched(params, xs, ys, 0.02, 3)
    for t in range(4):
        single = meta.adapt(params, xs[t], ys[t], 0.02, 3)
        for s in range(4):
            for k in params:
                assert torch.allclose(batched[s][k][t], single[s][k], atol=1e-5)


# -- meta-gradients ------------------------------------------------------------------------------
def test_maml_meta_gradient_matches_finite_differences():
    params = meta.init_params(hidden=4, seed=0, dtype=torch.float64)
    xs, ys, xq, yq = _tasks(2, 5, seed=3, dtype=torch.float64)
    alpha, steps = 0.05, 2
    g, loss = meta.meta_gradient(params, xs, ys, xq, yq, alpha, steps, order="second")

    def query_loss(flat: torch.Tensor) -> float:   # through adapt + predict, not torch.func
        p = _unflat(flat, params)
        total = 0.0
        for t in range(2):
            adapted = meta.adapt(p, xs[t], ys[t], alpha, steps)[-1]
            total += float(((meta.predict(adapted, xq[t]) - yq[t]) ** 2).mean())
        return total / 2

    theta, eps = _flat(params), 1e-6
    fd = torch.zeros_like(theta)
    for i in range(len(theta)):
        e = torch.zeros_like(theta)
        e[i] = eps
        fd[i] = (query_loss(theta + e) - query_loss(theta - e)) / (2 * eps)
    analytic = _flat(g)
    assert loss == pytest.approx(query_loss(theta), rel=1e-10)
    assert float((analytic - fd).norm() / fd.norm()) < 1e-3
    # and the same number through autograd and adapt(create_graph=True)
    leaf = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    total = sum(((meta.predict(meta.adapt(leaf, xs[t], ys[t], alpha, steps, create_graph=True)
                               [-1], xq[t]) - yq[t]) ** 2).mean() for t in range(2)) / 2
    autograd = torch.autograd.grad(total, list(leaf.values()))
    assert torch.allclose(torch.cat([a.reshape(-1) for a in autograd]), analytic, atol=1e-10)


def test_gradients_are_torch_funcs():
    """The autograd gradients (models/meta/maml.py does not use torch.func.grad, which
    imports PyTorch's compiler) against torch.func's own: one task, a vmapped batch of
    tasks, and MAML's meta-gradient written the torch.func way (grad through a vmapped
    inner loop of grads)."""
    from torch.func import grad, grad_and_value, vmap

    params = meta.init_params(hidden=8, seed=2, dtype=torch.float64)
    xs, ys, xq, yq = _tasks(3, 5, seed=6, dtype=torch.float64)
    g, loss = meta.mse_and_grad(params, xs[0], ys[0])
    g_ref, loss_ref = grad_and_value(meta.mse)(params, xs[0], ys[0])
    assert torch.allclose(loss, loss_ref, rtol=1e-12)
    assert all(torch.allclose(g[k], g_ref[k], rtol=1e-12, atol=1e-14) for k in params)
    batched = meta.adapt_batched(params, xs, ys, 0.05, 1)[-1]
    g, losses = meta.task_mse_and_grads(batched, xq, yq)
    g_ref, losses_ref = vmap(grad_and_value(meta.mse))(batched, xq, yq)
    assert losses.shape == (3,) and torch.allclose(losses, losses_ref, rtol=1e-12)
    assert all(torch.allclose(g[k], g_ref[k], rtol=1e-12, atol=1e-14) for k in params)

    def task_loss(p, x_s, y_s, x_q, y_q):
        for _ in range(2):
            step = grad(meta.mse)(p, x_s, y_s)
            p = {k: v - 0.05 * step[k] for k, v in p.items()}
        return meta.mse(p, x_q, y_q)

    def torch_func_meta_loss(p):
        return vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq).mean()

    g, loss = meta.meta_gradient(params, xs, ys, xq, yq, 0.05, 2, order="second")
    g_ref, loss_ref = grad_and_value(torch_func_meta_loss)(params)
    # the objective alone, of weights that need no gradient, is the same number
    assert float(meta.meta_loss(params, xs, ys, xq, yq, 0.05, 2)) == pytest.approx(
        float(loss_ref), rel=1e-12)
    assert loss == pytest.approx(float(loss_ref), rel=1e-12)
    assert all(torch.allclose(g[k], g_ref[k], rtol=1e-10, atol=1e-13) for k in params)


def test_first_order_maml_is_maml_without_the_hessian_term():
    # one inner step: MAML = mean_t (I − α H_t) g_t, FOMAML = mean_t g_t, where g_t is the
    # query gradient at the adapted weights and H_t the support-loss Hessian at θ
    params = meta.init_params(hidden=8, seed=1, dtype=torch.float64)
    xs, ys, xq, yq = _tasks(3, 5, seed=4, dtype=torch.float64)
    alpha = 0.05
    maml, _ = meta.meta_gradient(params, xs, ys, xq, yq, alpha, 1, order="second")
    fomaml, _ = meta.meta_gradient(params, xs, ys, xq, yq, alpha, 1, order="first")
    theta = _flat(params)
    g_mean, expected = torch.zeros_like(theta), torch.zeros_like(theta)
    for t in range(3):
        adapted = meta.adapt(params, xs[t], ys[t], alpha, 1)[-1]
        leaf = {k: v.clone().requires_grad_(True) for k, v in adapted.items()}
        g_t = _flat(dict(zip(leaf, torch.autograd.grad(meta.mse(leaf, xq[t], yq[t]),
                                                         list(leaf.values())), strict=True)))
        _, hv = torch.autograd.functional.hvp(
            lambda f, t=t: meta.mse(_unflat(f, params), xs[t], ys[t]), theta, g_t)
        g_mean += g_t / 3
        expected += (g_t - alpha * hv) / 3
    assert torch.allclose(_flat(fomaml), g_mean, atol=1e-10)
    assert torch.allclose(_flat(maml), expected, atol=1e-10)
    assert float((_flat(maml) - _flat(fomaml)).norm()) > 1e-6   # the term is not negligible


def test_reptile_with_one_task_and_outer_lr_one_jumps_to_the_adapted_weights():
    params = meta.init_params(seed=0)
    xs, ys, _, _ = _tasks(1, 10, seed=5)
    new = meta.reptile_update(params, xs, ys, 0.02, 4, outer_lr=1.0)
    adapted = meta.adapt(params, xs[0], ys[0], 0.02, 4)[-1]
    assert all(torch.allclose(new[k], adapted[k], atol=1e-6) for k in params)
    half = meta.reptile_update(params, xs, ys, 0.02, 4, outer_lr=0.5)
    assert all(torch.allclose(half[k], (params[k] + adapted[k]) / 2, atol=1e-6) for k in params)


# -- the session ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    """MAML and the pretrained baseline after 300 meta-steps (meta-batch 10), and the
    untrained session's evaluation."""
    torch.set_num_threads(1)
    session = meta.MetaSession(methods=("maml", "pretrained"), meta_batch=10, meta_lr=3e-3)
    before = session.evaluate(n_tasks=200, steps=1, seed=7)
    for _ in session.train(300):
        pass
    return session, before


def test_training_makes_maml_adapt_better(trained):
    session, before = trained
    after = session.evaluate(n_tasks=200, steps=1, seed=7)
    i = session.methods.index("maml")
    assert after.mse[i, 1] < 0.8 * before.mse[i, 1]
    assert after.mse[i, 1] + after.ci95[i, 1] < before.mse[i, 1] - before.ci95[i, 1]
    assert len(session.losses["maml"]) == session.step == 300


def test_every_method_consumes_the_same_stream():
    together = meta.MetaSession(meta_batch=4, k=5, seed=11)
    b0 = together.batch_digest(together.task_batch(0))
    assert b0 == together.batch_digest(together.task_batch(0))
    assert b0 != together.batch_digest(together.task_batch(1))
    for _ in together.train(4):
        pass
    for m in meta.METHODS:   # alone, each method ends exactly where it did in company
        alone = meta.MetaSession(meta_batch=4, k=5, seed=11, methods=(m,))
        for _ in alone.train(4):
            pass
        assert all(torch.equal(alone.params[m][k], together.params[m][k])
                   for k in alone.params[m]), m
        assert alone.losses[m] == together.losses[m]


def test_progress_reports_every_method():
    session = meta.MetaSession(meta_batch=3, k=5)
    reports = list(session.train(30))
    assert [r.step for r in reports] == list(range(1, 31))
    assert set(reports[0].metrics) == {f"loss_{m}" for m in meta.METHODS} | {"seconds",
                                                                             "steps_per_s"}
    assert reports[0].history.size == 0 and reports[0].trace is None
    for r in (reports[24], reports[29]):
        assert isinstance(r.trace, MetaHistory) and r.trace.methods == meta.METHODS
        assert r.trace.losses.shape == (4, r.step) and r.history.shape == (r.step,)
        assert np.allclose(r.history, r.trace.losses.mean(0))
    assert reports[-1].loss == pytest.approx(np.mean([session.losses[m][-1]
                                                      for m in meta.METHODS]))
    assert all(session.seconds[m] > 0 for m in meta.METHODS)


def test_options_are_checked_and_apply_from_the_next_step():
    session = meta.MetaSession(meta_batch=2, k=5, methods=("fomaml",))
    for bad in ({"inner_lr": 0}, {"inner_lr": math.nan}, {"k": 0}, {"meta_batch": 2.5},
                {"inner_steps": -1}, {"meta_lr": -1}, {"colour": 3}, {"k": True}):
        with pytest.raises(InvalidParameterError):
            session.set_options(**{"k": 7, **bad})
        assert session.k == 5
    session.set_options(k=7, meta_batch=3, meta_lr=1e-2, inner_steps=2)
    assert session.task_batch()["xs"].shape == (3, 7, 1)
    assert session.optimizers["fomaml"].param_groups[0]["lr"] == 1e-2
    list(session.train(1))
    with pytest.raises(InvalidParameterError):
        meta.MetaSession(methods=("maml", "anil"))


def test_evaluate_statistics_and_out_of_distribution(trained):
    session, _ = trained
    ev = session.evaluate(n_tasks=150, steps=4, seed=3)
    assert isinstance(ev, MetaEvalTrace)
    assert ev.mse.shape == ev.ci95.shape == (2, 5) and ev.seconds.shape == (2,)
    assert ev.task_mse.shape == (2, 5, 150) and ev.methods == ("maml", "pretrained")
    per_task = ev.task_mse.astype(np.float64)
    assert np.allclose(ev.mse, per_task.mean(-1), rtol=1e-5)
    assert np.allclose(ev.ci95, 1.96 * per_task.std(-1, ddof=1) / math.sqrt(150), rtol=1e-4)
    assert np.allclose(ev.median, np.median(per_task, -1), rtol=1e-5)
    assert ev.k == session.k and ev.amp_max == 5.0 and ev.step == 300
    again = session.evaluate(n_tasks=150, steps=4, seed=3)
    assert np.array_equal(again.mse, ev.mse)
    ood = session.evaluate(n_tasks=150, steps=4, seed=3, amp_max=10.0)
    assert (ood.mse > ev.mse).all()
    # the evaluation's adaptation is the same SGD as adapt_curves'
    task = session.test_task(5)
    assert task["x_support"].shape == task["y_support"].shape == (10,)
    assert np.allclose(task["y_support"], meta.sinusoid(task["x_support"], task["amplitude"],
                                                        task["phase"]), atol=1e-5)


def test_adapt_curves(trained):
    session, _ = trained
    task = session.test_task(2, k=5)
    grid = np.linspace(-5, 5, 50)
    tr = session.adapt_curves(task["x_support"], task["y_support"], grid, steps=10)
    assert isinstance(tr, AdaptationTrace)
    assert tr.predictions.shape == (2, 11, 50) and tr.methods == ("maml", "pretrained")
    assert not tr.predictions.flags.writeable
    seq = meta.adapt(session.params["maml"], torch.as_tensor(task["x_support"]),
                     torch.as_tensor(task["y_support"]), session.inner_lr, 10)
    with torch.no_grad():
        ref = meta.predict(seq[10], torch.as_tensor(grid, dtype=torch.float32)[:, None])[:, 0]
    assert np.allclose(tr.predictions[0, 10], ref.numpy(), atol=1e-5)
    # adapting lowers the support error; no support points, no change
    def support_mse(pred_step):
        on_support = np.interp(task["x_support"], grid, tr.predictions[0, pred_step])
        return np.mean((on_support - task["y_support"]) ** 2)
    assert support_mse(10) < support_mse(0)
    empty = session.adapt_curves([], [], grid, steps=3)
    assert np.array_equal(empty.predictions[:, 0], empty.predictions[:, 3])
    with pytest.raises(InvalidParameterError):
        session.adapt_curves([0.0, 1.0], [0.0], grid)


@pytest.mark.parametrize("option", [{"meta_lr": 1e7}, {"inner_lr": 1e12}])
def test_divergence_restores_the_last_good_weights(option):
    session = meta.MetaSession(meta_batch=5, k=5, methods=("maml", "reptile"))
    session.snapshot_every = 1        # a rollback point every good step: exactly one back
    states = [_state(session)]
    for _ in session.train(3):
        states.append(_state(session))
    session.set_options(**option)
    with pytest.raises(TrainingDivergedError, match=r"at step \d+.*restored.*Try a smaller"):
        for _ in session.train(50):
            states.append(_state(session))
    assert session.step == session.good_step >= 2
    assert len(session.losses["maml"]) == len(session.losses["reptile"]) == session.step
    good = states[session.step]
    for m in session.methods:
        for k, v in session.params[m].items():
            assert torch.isfinite(v).all()
            assert torch.equal(v, good[m][k]), (m, k)
    session.set_options(meta_lr=1e-3, inner_lr=0.01)
    list(session.train(2))   # and training goes on from there


# -- prototypical networks -----------------------------------------------------------------------
def test_episode_families():
    for family in meta.FAMILIES:
        ep = meta.make_episode(family, 4, 3, 6, np.random.default_rng(0))
        assert ep["support_x"].shape == (12, 2) and ep["query_x"].shape == (24, 2)
        assert np.array_equal(ep["support_y"], np.repeat(np.arange(4), 3))
    with pytest.raises(InvalidParameterError):
        meta.make_episode("spirals", 4, 3, 6, np.random.default_rng(0))


def test_prototypes_and_regions_follow_the_definition():
    session = meta.ProtoSession(n_way=3, k_shot=4, n_query=5, family="blobs")
    list(session.train(5))
    tr = session.episode(seed=1, grid=40)
    assert isinstance(tr, ProtoTrace)
    assert tr.support_x.shape == (12, 2) and tr.query_x.shape == (15, 2)
    assert tr.prototypes.shape == (3, 2) and tr.regions_embedding.shape == (40, 40)
    with torch.no_grad():
        emb = session.net(torch.as_tensor(np.array(tr.support_x))).numpy()
    assert np.allclose(tr.support_emb, emb, atol=1e-5)
    for c in range(3):
        assert np.allclose(tr.prototypes[c], emb[tr.support_y == c].mean(0), atol=1e-5)
    # the embedding plane's regions are the Voronoi cells of the prototypes
    x0, x1, y0, y1 = tr.extent_embedding
    gx = x0 + (np.arange(40) + 0.5) * (x1 - x0) / 40
    gy = y0 + (np.arange(40) + 0.5) * (y1 - y0) / 40
    pts = np.stack(np.meshgrid(gx, gy), -1)          # [row = y, col = x, 2]
    d = ((pts[:, :, None, :] - tr.prototypes[None, None]) ** 2).sum(-1)
    assert (d.argmin(-1) == tr.regions_embedding).mean() > 0.99   # ties on cell borders
    # query predictions, accuracy and the input-plane baseline
    qd = ((tr.query_emb[:, None] - tr.prototypes[None]) ** 2).sum(-1)
    assert np.array_equal(tr.query_pred, qd.argmin(1))
    assert tr.accuracy == pytest.approx((tr.query_pred == tr.query_y).mean())
    means = np.stack([tr.support_x[tr.support_y == c].mean(0) for c in range(3)])
    assert np.allclose(tr.baseline_prototypes, means, atol=1e-5)
    base = ((tr.query_x[:, None] - means[None]) ** 2).sum(-1).argmin(1)
    assert tr.baseline_accuracy == pytest.approx((base == tr.query_y).mean())


def test_prototypical_network_learns_rings_where_input_means_fail():
    session = meta.ProtoSession(n_way=5, k_shot=5, n_query=10, family="rings", lr=3e-3)
    reports = list(session.train(300))
    assert set(reports[-1].metrics) >= {"loss", "accuracy"}
    traces = [session.episode(seed=s, grid=8) for s in range(20)]
    acc = np.mean([t.accuracy for t in traces])
    baseline = np.mean([t.baseline_accuracy for t in traces])
    assert acc > 0.6 and acc > baseline + 0.2, (acc, baseline)   # chance is 0.2


def test_prototypical_divergence_restores():
    """The weights after a blow-up are those recorded after the last good step (not just
    whatever the session calls its good state)."""
    session = meta.ProtoSession(lr=1e-3, n_query=5)
    session.snapshot_every = 1        # a rollback point every good step: exactly one back

    def weights():
        return {k: v.detach().clone() for k, v in session.net.state_dict().items()}

    states = [weights()]
    for _ in session.train(3):
        states.append(weights())
    session.set_options(lr=1e30)
    with pytest.raises(TrainingDivergedError, match="learning rate"):
        for _ in session.train(20):
            states.append(weights())
    assert session.step == session.good_step >= 3 and len(session.losses) == session.step
    good = states[session.step]
    for k, v in session.net.state_dict().items():
        assert torch.isfinite(v).all() and torch.equal(v, good[k]), k


def test_the_evaluation_does_not_depend_on_how_many_tasks_adapt_at_once():
    """``evaluate`` adapts ``chunk`` test tasks at a time (the tab's 150, for memory): every
    task's MSE is the same to the bit whatever the chunk."""
    session = meta.MetaSession(meta_batch=4)
    for _ in session.train(3):
        pass
    whole = session.evaluate(n_tasks=60, steps=3, seed=5, chunk=60)
    for chunk in (7, 25):
        part = session.evaluate(n_tasks=60, steps=3, seed=5, chunk=chunk)
        assert np.array_equal(part.task_mse, whole.task_mse)
        assert np.array_equal(part.mse, whole.mse)
