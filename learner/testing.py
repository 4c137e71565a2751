"""Public test helpers: synthetic rounds and random policies for tests and benchmarks.

Rounds are played by a NumpyPolicy on random observations (so log-probs and values are the
behaviour policy's own), which is what a bot sends; nothing here touches Ray or files.
"""

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract
from tankrl.shared.policy import NumpyPolicy, init_tensors
from tankrl.shared.wire import InfoValue, Trajectory


def random_tensors(
    contract: Contract, hidden: int = 16, seed: int = 0, obs_norm: bool = False
) -> dict[str, npt.NDArray[np.float32]]:
    """A policy with every tensor random (larger than the init's 0.01 head, so outputs differ)."""
    rng = np.random.default_rng(seed)
    tensors = {
        k: rng.normal(0.0, 0.5, v.shape).astype(np.float32)
        for k, v in init_tensors(contract, hidden, seed).items()
    }
    tensors["log_std"] = rng.uniform(-4.0, 0.5, contract.action_size).astype(np.float32)
    if obs_norm:
        tensors["obs_norm.mean"] = rng.normal(0.0, 1.0, contract.obs_size).astype(np.float32)
        tensors["obs_norm.var"] = rng.uniform(0.1, 4.0, contract.obs_size).astype(np.float32)
    return tensors


def synthetic_round(
    contract: Contract,
    policy: NumpyPolicy,
    turns: int = 100,
    *,
    bot_id: str = "bot-0",
    round_id: int = 0,
    policy_version: int = 0,
    seed: int = 0,
    info: dict[str, InfoValue] | None = None,
    truncated: bool = False,
) -> Trajectory:
    """One round of random observations played by `policy`; it ends with a terminal turn
    (or, with `truncated`, an interruption bootstrapped from the policy's value)."""
    rng = np.random.default_rng(seed)
    obs = rng.standard_normal((turns, contract.obs_size)).astype(np.float32)
    actions, logprobs, values = policy.act(obs, rng)
    terminals = np.zeros(turns, dtype=bool)
    truncations = np.zeros(turns, dtype=bool)
    (truncations if truncated else terminals)[-1] = True
    bootstrap = float(policy.value(obs[-1:])[0]) if truncated else 0.0
    return Trajectory(
        bot_id=bot_id,
        round_id=round_id,
        policy_version=policy_version,
        contract_sha256=contract.sha256,
        obs=obs,
        actions=actions,
        logprobs=logprobs,
        values=values,
        rewards=rng.standard_normal(turns).astype(np.float32),
        terminals=terminals,
        truncations=truncations,
        bootstrap_value=bootstrap,
        info=dict(info or {}),
    )
