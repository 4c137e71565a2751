"""Gymnasium interfaces to the native env: `TankRoyaleEnv` (one arena, a `gymnasium.Env` that
passes `check_env`) and `TankRoyaleVectorEnv` (B arenas, next-step autoreset).

Observations are the contract's floats in [-1, 1]; actions are the raw (pre-squash) network
outputs the contract's decoder turns into goto/aimTo (v2) or motor (v1) commands.
"""

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv

from tankrl.actor.native_env import NativeEnv
from tankrl.shared.config import ArenaConfig
from tankrl.shared.contracts import Contract, get_contract

F32 = npt.NDArray[np.float32]


def _spaces(contract: Contract) -> tuple[Any, Any]:
    obs = gym.spaces.Box(-1.0, 1.0, (contract.obs_size,), np.float32)
    act = gym.spaces.Box(-np.inf, np.inf, (contract.action_size,), np.float32)
    return obs, act


def _infos(env: NativeEnv, k: int | None = None) -> dict[str, Any]:
    """Per-arena info arrays (vector env), or plain Python values for arena `k` (single env)."""
    out = env.outcomes()[0]
    done = env.arenas.ended | env.arenas.truncated
    if k is not None:
        info: dict[str, Any] = {"opponent": str(env.opponent_names[k])}
        if done[k]:
            info.update(
                round_won=bool(out.won[k]),
                round_score=float(out.score[k]),
                round_turns=int(out.turns[k]),
            )
        return info
    info = {"opponent": env.opponent_names.copy()}
    if done.any():
        info.update(
            round_won=out.won.copy(),
            round_score=out.score.copy(),
            round_turns=out.turns.copy(),
            _round_won=done.copy(),
        )
    return info


class TankRoyaleEnv(gym.Env[F32, F32]):
    """One 1v1 arena against a scripted opponent; an episode is one round."""

    metadata = {"render_modes": []}  # noqa: RUF012 (gymnasium declares it an instance variable)

    def __init__(
        self,
        contract: Contract | str = "v2",
        opponent: str = "SpinBot",
        arena: ArenaConfig | None = None,
    ) -> None:
        self.contract = get_contract(contract) if isinstance(contract, str) else contract
        self.opponent, self.arena_config = opponent, arena
        self.observation_space, self.action_space = _spaces(self.contract)
        self._env: NativeEnv | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[F32, dict[str, Any]]:
        super().reset(seed=seed)
        if self._env is None or seed is not None:
            s = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else seed
            self._env = NativeEnv(1, self.contract, (self.opponent,), self.arena_config, s)
        obs = self._env.reset()
        return obs[0], _infos(self._env, 0)

    def step(self, action: F32) -> tuple[F32, float, bool, bool, dict[str, Any]]:
        if self._env is None:
            raise RuntimeError("call reset() before step()")
        r = self._env.step(np.asarray(action, dtype=np.float32)[None, :])
        return (
            r.obs[0],
            float(r.rewards[0]),
            bool(r.terminated[0]),
            bool(r.truncated[0]),
            _infos(self._env, 0),
        )


class TankRoyaleVectorEnv(VectorEnv[F32, F32, F32]):
    """B arenas stepped together; autoreset in next-step mode."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        contract: Contract | str = "v2",
        opponents: Sequence[str] = ("SpinBot",),
        arena: ArenaConfig | None = None,
        seed: int = 0,
    ) -> None:
        self.contract = get_contract(contract) if isinstance(contract, str) else contract
        self._args = (num_envs, self.contract, tuple(opponents), arena)
        self._env = NativeEnv(num_envs, self.contract, tuple(opponents), arena, seed)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(self.contract)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[F32, dict[str, Any]]:
        if seed is not None:
            s = seed if isinstance(seed, int) else int(seed[0])
            self._env = NativeEnv(*self._args, seed=s)
        return self._env.reset(), _infos(self._env)

    def step(self, actions: F32) -> tuple[F32, F32, Any, Any, dict[str, Any]]:
        r = self._env.step(actions)
        return r.obs, r.rewards, r.terminated, r.truncated, _infos(self._env)
