"""One DAgger rollout in the native env: play a policy's means (or the labels themselves) and label
every observation with what a labeller would do there.

Shared by the warm start (`deploy/pretrain.py`, labels: the scripted demonstrator) and the final
consolidation (`deploy/distill.py`, labels: the demonstrator or the trained policy, per arena).
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import torch

from tankrl.actor.native_env import NativeEnv
from tankrl.learner.model import ActorCritic

F32 = npt.NDArray[np.float32]
Labeller = Callable[[F32], F32]
"""Observations [N, obs] of every seat -> the raw actions [N, A] to learn there."""


def rollout(
    env: NativeEnv,
    obs: F32,
    turns: int,
    label: Labeller,
    model: ActorCritic | None,
    beta: float,
    rng: np.random.Generator,
    wins: dict[str, list[bool]],
) -> tuple[F32, F32, F32, npt.NDArray[np.bool_], F32]:
    """Play `turns` turns from `obs`: the labels where rng < beta (everywhere without a model),
    else the model's means. Returns (observations [T, N, obs], labels [T, N, A], rewards [T, N],
    round boundaries [T, N] (a round ended or started), the observations after the last turn);
    each finished round's outcome is appended to `wins[opponent]`."""
    n = env.num_envs
    all_obs = np.empty((turns, n, obs.shape[1]), np.float32)
    labels = np.empty((turns, n, env.contract.action_size), np.float32)
    rewards = np.empty((turns, n), np.float32)
    ends = np.empty((turns, n), np.bool_)
    names = np.tile(env.opponent_names, len(env.seats))
    for t in range(turns):
        target = label(obs)
        act = target
        if model is not None:
            with torch.no_grad():
                mean = model(torch.as_tensor(obs))[0].numpy()
            act = np.where((rng.random(n) < beta)[:, None], target, mean).astype(np.float32)
        all_obs[t], labels[t] = obs, target
        r = env.step(act)
        rewards[t] = r.rewards
        done = r.terminated | r.truncated
        ends[t] = done | r.started
        if done.any():
            won = np.tile(env.outcomes()[0].won, len(env.seats))
            for i in np.nonzero(done)[0]:
                wins.setdefault(str(names[i]), []).append(bool(won[i]))
        obs = r.obs
    return all_obs, labels, rewards, ends, obs
