"""Rollback points of a training session: a copy of the weights and the optimizer's
state, taken by ``models.session.TrainingSession`` every ``snapshot_every`` good steps,
restored when a step diverges, and moved with the model to another device."""

from __future__ import annotations

import torch


def snapshot(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """A deep copy of the model's and the optimizer's state (a few tens of thousands of
    floats for the course's models)."""
    clone = {k: v.detach().clone() for k, v in model.state_dict().items()}
    opt = optimizer.state_dict()
    opt_state = {i: {k: v.clone() if torch.is_tensor(v) else v for k, v in s.items()}
                 for i, s in opt["state"].items()}
    return {"model": clone, "optimizer": {"state": opt_state,
                                          "param_groups": opt["param_groups"]}}


def restore(model: torch.nn.Module, optimizer: torch.optim.Optimizer, state: dict) -> None:
    """Put back the weights and the optimizer's state (Adam's moments, step counts) that
    ``snapshot`` copied, but keep the hyper-parameters set since (a learning rate the
    user lowered after the snapshot, typically in reaction to the blow-up, stays)."""
    hyper = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    for group, kept in zip(optimizer.param_groups, hyper, strict=True):
        group.update(kept)


def move_snapshot(state: dict, device: torch.device) -> dict:
    """A ``snapshot`` with its tensors on ``device`` (scalars such as Adam's step count
    stay where they are, as in ``move_optimizer_state``)."""
    def move(v):
        return v.to(device) if torch.is_tensor(v) and v.dim() > 0 else v

    opt = state["optimizer"]
    return {"model": {k: move(v) for k, v in state["model"].items()},
            "optimizer": {"state": {i: {k: move(v) for k, v in s.items()}
                                    for i, s in opt["state"].items()},
                          "param_groups": opt["param_groups"]}}


def move_optimizer_state(optimizer: torch.optim.Optimizer, device: torch.device) -> None:
    """Adam's moment buffers follow the parameters to ``device`` (scalars such as the
    step count stay where they are)."""
    for state in optimizer.state.values():
        for k, v in state.items():
            if torch.is_tensor(v) and v.dim() > 0:
                state[k] = v.to(device)
