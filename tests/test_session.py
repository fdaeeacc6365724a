"""The session base of models/: checked steps, rollback, the snapshot schedule, device moves
and the ``train`` generator, on a least-squares problem small enough to follow by hand."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from models.errors import DeviceUnavailableError, InvalidParameterError, TrainingDivergedError
from models.session import StepOutcome, TrainingSession
from models.traces import Progress


class _InfGrad(torch.autograd.Function):
    """0 forward, an infinite gradient backward: a finite loss with a non-finite gradient."""

    @staticmethod
    def forward(ctx, w):
        return w.sum() * 0

    @staticmethod
    def backward(ctx, grad):
        return torch.full((1, 3), math.inf) * grad


class Regression(TrainingSession):
    """Linear least squares; ``poison_at`` makes the loss of that step NaN (via the data),
    ``poison_grad_at`` its gradient (the weights stay finite)."""

    def __init__(self, device="cpu", lr=1e-2, poison_at=None, poison_grad_at=None):
        gen = torch.Generator().manual_seed(0)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            self.model = torch.nn.Linear(3, 1)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.x = torch.randn(64, 3, generator=gen)
        self.y = self.x @ torch.tensor([[1.0], [-2.0], [0.5]])
        self.poison_at, self.poison_grad_at = poison_at, poison_grad_at
        self.moved_data_to = None
        self.weights_at: dict[int, torch.Tensor] = {}
        self._init_session(device, lr=lr)

    def _move_data(self, device):
        self.x, self.y = self.x.to(device), self.y.to(device)
        self.moved_data_to = device

    def _train_step(self, run):
        self.weights_at[self.step] = self.model.weight.detach().clone()
        x = self.x
        if self.step == self.poison_at:
            x = x * math.nan
        loss = F.mse_loss(self.model(x), self.y)
        if self.step == self.poison_grad_at:
            loss = loss + _InfGrad.apply(self.model.weight)
        return StepOutcome(self.checked_step(loss), metrics={"mse": float(loss.detach())})


def test_train_yields_progress_and_resumes():
    s = Regression()
    out = list(s.train(5, every=2))
    assert [p.step for p in out] == [1, 2, 3, 4, 5]
    assert all(isinstance(p, Progress) and p.total == 5 for p in out)
    # the whole curve on reporting steps only (2, 4 and the last)
    assert [len(p.history) for p in out] == [0, 2, 0, 4, 5]
    assert out[-1].metrics["mse"] == pytest.approx(out[-1].loss)
    assert out[-1].metrics["steps_per_s"] > 0
    gen = s.train(10)
    next(gen)
    gen.close()                       # the consumer stops iterating
    assert s.step == 6
    list(s.train(4))
    assert s.step == 10 and len(s.losses) == 10
    assert s.losses[-1] < s.losses[0]


def test_snapshots_follow_the_schedule_not_every_step():
    s = Regression()
    s.snapshot_every = 10
    list(s.train(35))
    # one at construction, then at steps 10, 20 and 30
    assert s.snapshots_taken == 4 and s.good_step == 30
    one = Regression()
    one.snapshot_every = 1
    list(one.train(5))
    # step 0 is the construction copy itself; then steps 1..4
    assert one.snapshots_taken == 1 + 4 and one.good_step == 4


@pytest.mark.parametrize("kind", ["loss", "grad"])
def test_divergence_rolls_back_to_the_last_rollback_point(kind):
    s = Regression(**{"poison_at" if kind == "loss" else "poison_grad_at": 13})
    s.snapshot_every = 5
    with pytest.raises(TrainingDivergedError) as err:
        list(s.train(20))
    # the rollback point before step 13 was taken at step 10
    assert s.step == s.good_step == 10 and len(s.losses) == 10
    assert torch.equal(s.model.weight, s.weights_at[10])
    msg = str(err.value)
    assert "at step 14" in msg and "weights of step 10 were restored" in msg
    assert ("loss became nan" if kind == "loss" else "gradient became non-finite") in msg
    assert all(math.isfinite(v) for v in s.losses)


def test_a_divergence_before_the_first_scheduled_snapshot_restores_the_initial_weights():
    s = Regression(poison_at=3)
    initial = s.model.weight.detach().clone()
    with pytest.raises(TrainingDivergedError, match="weights of step 0 were restored"):
        list(s.train(10))
    assert torch.equal(s.model.weight, initial) and s.step == 0 and s.losses == []
    # Adam's state is the initial one too (no moments yet)
    assert not s.optimizer.state


def test_rollback_restores_adam_state_and_keeps_a_learning_rate_set_since():
    s = Regression(poison_at=7)
    s.snapshot_every = 4
    list(s.train(4))                          # rollback point at step 4
    adam = {k: v.clone() for k, v in s.optimizer.state[s.model.weight].items()}
    list(s.train(2))
    s.set_lr(1e-4)
    with pytest.raises(TrainingDivergedError):
        list(s.train(5))
    for k, v in s.optimizer.state[s.model.weight].items():
        assert torch.equal(v, adam[k]), k
    assert s.optimizer.param_groups[0]["lr"] == 1e-4 and s.lr == 1e-4
    s.poison_at = None
    list(s.train(3))                          # training goes on from the rollback point
    assert s.step == 7


def test_device_move_takes_data_and_optimizer_state():
    s = Regression()
    list(s.train(2))
    s.to("cpu")
    assert s.moved_data_to == torch.device("cpu") and s.device == torch.device("cpu")
    with pytest.raises(DeviceUnavailableError):
        s.to("cuda:7")
    assert s.device == torch.device("cpu")
    with pytest.raises(DeviceUnavailableError):
        Regression(device="no-such-device")


def test_bad_arguments_are_refused_before_training():
    s = Regression()
    with pytest.raises(InvalidParameterError):
        list(s.train(-1))
    with pytest.raises(InvalidParameterError):
        s.set_lr(float("nan"))
    assert s.step == 0 and s.lr == 1e-2


def test_a_device_move_takes_the_rollback_point_along():
    from models import checkpoint

    s = Regression()
    list(s.train(12))                          # a rollback point with Adam moments in it
    moved = checkpoint.move_snapshot(s.good_state[0], torch.device("cpu"))
    assert set(moved) == {"model", "optimizer"}
    for k, v in s.good_state[0]["model"].items():
        assert torch.equal(moved["model"][k], v)
    assert moved["optimizer"]["state"].keys() == s.good_state[0]["optimizer"]["state"].keys()
    s.to("cpu")
    assert all(t.device.type == "cpu" for t in s.good_state[0]["model"].values())
    s.poison_at = 14
    with pytest.raises(TrainingDivergedError, match="weights of step 10 were restored"):
        list(s.train(5))
    assert torch.equal(s.model.weight, s.weights_at[10])


def _hold_lock(session):
    """A thread holding ``session.lock`` (as a long trace does) until the returned event
    is set; returns (event, thread) once the lock is held."""
    import threading

    holding, let_go = threading.Event(), threading.Event()

    def trace():
        with session.lock:
            holding.set()
            let_go.wait(5)

    t = threading.Thread(target=trace)
    t.start()
    holding.wait(5)
    return let_go, t


def test_a_new_learning_rate_never_waits_for_the_lock_and_the_next_step_uses_it():
    """The GUI thread sets the learning rate while a long trace holds the lock: the call
    returns at once, and the change is made before the next step (or trace) runs."""
    import time

    s = Regression()
    let_go, t = _hold_lock(s)    # a background trace holding the lock
    t0 = time.perf_counter()
    s.set_lr(0.5)
    s.set_lr(0.25)               # in the order asked for: the last one stands
    assert time.perf_counter() - t0 < 0.5
    assert s.lr == 1e-2          # not yet: the trace still holds the lock
    let_go.set()
    t.join(5)
    next(iter(s.train(1)))
    assert s.lr == 0.25
    assert all(g["lr"] == 0.25 for g in s.optimizer.param_groups)
    s.set_lr(0.125)              # lock free: at once
    assert s.lr == 0.125
    with pytest.raises(InvalidParameterError):
        s.set_lr(-1.0)           # checked on the caller's thread, nothing queued
    assert s.lr == 0.125


def test_a_device_move_never_waits_for_the_lock_and_is_made_before_the_next_step():

    s = Regression()
    let_go, t = _hold_lock(s)
    with pytest.raises(DeviceUnavailableError):
        s.to("cuda:7")                 # refused at once, on the caller's thread
    assert s.to("cpu") is s            # returns while the trace still holds the lock
    assert s.moved_data_to is None
    let_go.set()
    t.join(5)
    next(iter(s.train(1)))
    assert s.moved_data_to == torch.device("cpu")


def test_meta_options_never_wait_for_the_lock_and_bad_ones_change_nothing():
    """The meta-learning tab changes K or the learning rates while a long evaluation
    holds the lock: the call returns at once; a bad value is refused at once."""
    import time

    from models.meta import MetaSession, ProtoSession

    for s, good, bad, read in [
            (MetaSession(), {"k": 7, "meta_lr": 0.003}, {"k": 0},
             lambda s: (s.k, s.meta_lr)),
            (ProtoSession(), {"n_way": 3, "lr": 0.004}, {"n_way": 1},
             lambda s: (s.n_way, s.lr))]:
        before = read(s)
        let_go, t = _hold_lock(s)
        t0 = time.perf_counter()
        s.set_options(**good)
        with pytest.raises(InvalidParameterError):
            s.set_options(**bad)
        assert time.perf_counter() - t0 < 0.5
        assert read(s) == before                   # not yet: the lock is held
        let_go.set()
        t.join(5)
        assert read(s) == tuple(good.values())     # made by the holder as it let go


def test_a_state_saved_without_foreach_keeps_the_sessions_foreach_adam():
    """Session files saved before the sessions' Adam took foreach=True hold foreach None
    in their groups; loading one keeps how the optimizer runs and takes what it computes
    (moments, step counts, betas)."""
    from models.flows import FlowSession

    a = FlowSession("realnvp", "two_moons", num_flows=2, hidden_dim=8, batch_size=64)
    for _ in a.train(3):
        pass
    tensors, meta = a.save_state()
    for group in meta["optimizers"][0]["param_groups"]:
        group["foreach"] = None                        # as an older file has it
        group["betas"] = (0.8, 0.9)
    b = FlowSession("realnvp", "two_moons", num_flows=2, hidden_dim=8, batch_size=64)
    b.load_state(tensors, meta)
    assert all(g["foreach"] is True for g in b.optimizer.param_groups)
    assert all(tuple(g["betas"]) == (0.8, 0.9) for g in b.optimizer.param_groups)
    state_a, state_b = a.optimizer.state_dict()["state"], b.optimizer.state_dict()["state"]
    for pid in state_a:
        torch.testing.assert_close(state_b[pid]["exp_avg"], state_a[pid]["exp_avg"])
