"""Generalised advantage estimation over trajectories (pure numpy).

Input: per-turn rewards, behaviour values, terminal and truncation flags of one round (or several
concatenated), plus the value to bootstrap from after the last turn. Output: advantages and
returns (advantages + values) for the PPO pass.

Where an episode ends after turn t:
- terminal[t] (natural end or death): the next value is 0;
- truncation[t] at the last turn (an interruption): the next value is `bootstrap_value`;
- truncation[t] before the last turn: the next state's value is unknown, so V(s_t) stands in;
- the last turn with neither flag is treated as a truncation (bootstrap_value follows).
The running advantage restarts at every end, so nothing leaks across episodes.
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tankrl.shared.wire import Trajectory

F32 = npt.NDArray[np.float32]


def compute_gae(
    rewards: npt.ArrayLike,
    values: npt.ArrayLike,
    terminals: npt.ArrayLike,
    truncations: npt.ArrayLike,
    bootstrap_value: float,
    gamma: float,
    gae_lambda: float,
) -> tuple[F32, F32]:
    """(advantages, returns) for one trajectory; see the module docstring for the end rules."""
    r = np.asarray(rewards, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    term = np.asarray(terminals, dtype=bool)
    trunc = np.asarray(truncations, dtype=bool) & ~term
    n = r.shape[0]
    if not (v.shape == term.shape == trunc.shape == (n,)):
        raise ValueError("rewards, values, terminals and truncations must be 1-d of equal length")
    next_values = np.empty(n)
    next_values[:-1] = v[1:]
    next_values[trunc] = v[trunc]  # a truncation mid-trajectory: V(s_t) stands in
    ends = term | trunc
    if n:
        next_values[-1] = bootstrap_value  # the last turn, unless terminal, bootstraps
        ends[-1] = True
    next_values[term] = 0.0
    deltas = r + gamma * next_values - v
    advantages = np.empty(n)
    running = 0.0
    decay = gamma * gae_lambda
    for t in range(n - 1, -1, -1):
        running = deltas[t] + (0.0 if ends[t] else decay * running)
        advantages[t] = running
    return advantages.astype(np.float32), (advantages + v).astype(np.float32)


def gae_for_rounds(
    rounds: Sequence[Trajectory],
    gamma: float,
    gae_lambda: float,
    rewards: Sequence[npt.ArrayLike] | None = None,
) -> tuple[F32, F32]:
    """Concatenated (advantages, returns) for several rounds, in order.

    `rewards` replaces each round's own rewards (e.g. scaled ones) when given.
    """
    advs: list[F32] = []
    rets: list[F32] = []
    for i, tr in enumerate(rounds):
        r = tr.rewards if rewards is None else rewards[i]
        a, ret = compute_gae(
            r, tr.values, tr.terminals, tr.truncations, tr.bootstrap_value, gamma, gae_lambda
        )
        advs.append(a)
        rets.append(ret)
    if not advs:
        empty = np.zeros(0, dtype=np.float32)
        return empty, empty.copy()
    return np.concatenate(advs), np.concatenate(rets)
