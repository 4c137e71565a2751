"""Behaviour cloning math (torch, no Ray): fit the actor's means to a demonstrator's actions and
the critic to observed discounted returns, as a warm start before PPO.

The action loss is the mean squared error after each dim's squash (sigmoid or tanh, as the
contract's decoder applies it), so saturated raw values that decode alike cost nothing; optional
per-dim weights let the dims that need precision (the aim point) count more.
"""

import numpy as np
import numpy.typing as npt
import torch

from tankrl.learner.model import ActorCritic
from tankrl.shared.contracts import Contract

F32 = npt.NDArray[np.float32]


def squash(contract: Contract, raw: torch.Tensor) -> torch.Tensor:
    """Each column of raw actions [N, A] through its dim's squash (what the decoder scales)."""
    cols = []
    for i, dim in enumerate(contract.actions):
        x = raw[:, i]
        cols.append(torch.sigmoid(x) if dim.squash == "sigmoid" else torch.tanh(x))
    return torch.stack(cols, dim=1)


def squared_error(contract: Contract, mean: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """[N, A] squared error between raw means and raw target actions after each dim's squash:
    the cloning loss, before it is averaged (and, in the warm start, weighted)."""
    return (squash(contract, mean) - squash(contract, target)) ** 2


def dim_weights(contract: Contract, aim: float, fire_power: float = 1.0) -> torch.Tensor:
    """[A] loss weights: `aim` for the aim dims, `fire_power` for fire_power, 1 for the rest."""
    return torch.tensor(
        [
            aim if d.name.startswith("aim_") else fire_power if d.name == "fire_power" else 1.0
            for d in contract.actions
        ]
    )


def bc_step(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    obs: torch.Tensor,
    target_actions: torch.Tensor,
    returns: torch.Tensor | None,
    value_coef: float = 0.5,
    dim_weights: torch.Tensor | None = None,
) -> tuple[float, float]:
    """One gradient step on a minibatch; returns (action loss, value loss; NaN without returns).
    The action loss reported is the unweighted mean; `dim_weights` [A] only shape the gradient."""
    mean, value = model(obs)
    err = squared_error(model.contract, mean, target_actions)
    action_loss = torch.mean(err)
    loss = action_loss if dim_weights is None else torch.mean(err * dim_weights)
    value_loss = torch.tensor(float("nan"))
    if returns is not None:
        value_loss = torch.mean((value - returns) ** 2)
        loss = loss + value_coef * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()  # type: ignore[no-untyped-call]
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return float(action_loss.detach()), float(value_loss.detach())


def fit(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    obs: F32,
    target_actions: F32,
    returns: F32 | None,
    steps: int,
    minibatch: int,
    generator: torch.Generator,
    lr: tuple[float, float] | None = None,
    dim_weights: torch.Tensor | None = None,
    pass_rows: torch.Tensor | None = None,
) -> dict[str, float]:
    """`steps` minibatch steps over shuffled passes of the data; mean losses of the last pass
    (at most one pass of steps). With `lr` = (first, last) the optimizer's learning rate decays
    log-linearly from first to last over these steps. `pass_rows` are the row indices one pass
    visits (a row listed k times weighs k times); by default every row once."""
    o = torch.as_tensor(obs)
    a = torch.as_tensor(target_actions)
    r = None if returns is None else torch.as_tensor(returns)
    rows_of_pass = torch.arange(len(o)) if pass_rows is None else pass_rows
    n = len(rows_of_pass)
    per_pass = epochs_to_steps(n, minibatch, 1)
    losses: list[tuple[float, float]] = []
    order = rows_of_pass[torch.randperm(n, generator=generator)]
    for step in range(steps):
        k = step % per_pass
        if k == 0 and step > 0:
            order = rows_of_pass[torch.randperm(n, generator=generator)]
        if lr is not None:
            rate = lr[0] * (lr[1] / lr[0]) ** (step / max(1, steps - 1))
            for group in optimizer.param_groups:
                group["lr"] = rate
        idx = order[k * minibatch : (k + 1) * minibatch]
        rows = None if r is None else r[idx]
        losses.append(bc_step(model, optimizer, o[idx], a[idx], rows, dim_weights=dim_weights))
    act, val = np.asarray(losses[-per_pass:], dtype=np.float64).mean(axis=0)
    return {"action_mse": float(act), "value_mse": float(val)}


def epochs_to_steps(samples: int, minibatch: int, epochs: int) -> int:
    """Minibatch steps in `epochs` passes over `samples`."""
    return epochs * -(-samples // minibatch)


def discounted_returns(rewards: F32, ends: npt.NDArray[np.bool_], gamma: float) -> F32:
    """Monte-Carlo returns [T, B] of rewards [T, B]; `ends[t]` marks a round's last turn.

    Turns after the last end of a column see a return cut at the rollout's end (biased low); the
    caller drops that tail.
    """
    out = np.zeros_like(rewards, dtype=np.float32)
    acc = np.zeros(rewards.shape[1], dtype=np.float32)
    for t in range(len(rewards) - 1, -1, -1):
        acc = rewards[t] + gamma * np.where(ends[t], 0.0, acc)
        out[t] = acc
    return out
