"""The native env (actor/native_env.py, actor/gym_env.py): the Gymnasium Env passes check_env,
observations stay in bounds, a seed fixes an episode, rounds auto-reset in next-step mode, and
the vector env steps B arenas."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tankrl.actor.gym_env import TankRoyaleEnv, TankRoyaleVectorEnv
from tankrl.actor.native_env import NativeEnv
from tankrl.shared.config import ArenaConfig


@pytest.mark.filterwarnings("ignore:.*Box action space.*:UserWarning")
def test_gymnasium_check_env_passes() -> None:
    # raw actions are unbounded Gaussian samples (the decoder squashes them): the checker warns
    check_env(TankRoyaleEnv("v2", "SpinBot"), skip_render_check=True)
    check_env(TankRoyaleEnv("v1", "Walls"), skip_render_check=True)


def test_same_seed_same_episode_and_obs_in_bounds() -> None:
    rollouts = []
    for _ in range(2):
        env = TankRoyaleEnv("v2", "Crazy")
        obs, _ = env.reset(seed=42)
        rng = np.random.default_rng(0)
        seen = [obs]
        for _ in range(300):
            obs, _reward, terminated, truncated, _ = env.step(
                rng.standard_normal(6).astype(np.float32)
            )
            assert env.observation_space.contains(obs)
            seen.append(obs)
            if terminated or truncated:
                break
        rollouts.append(np.stack(seen))
    np.testing.assert_array_equal(rollouts[0], rollouts[1])


def test_next_step_autoreset_and_round_outcomes() -> None:
    env = NativeEnv(4, "v2", ("Target", "SpinBot"), ArenaConfig(max_turns_per_round=60), seed=3)
    env.reset()
    rng = np.random.default_rng(1)
    ended_seen = False
    for _ in range(130):
        r = env.step(rng.standard_normal((4, 6)).astype(np.float32))
        if ended_seen_now := (r.terminated | r.truncated).any():
            done = r.terminated | r.truncated
            nxt = env.step(rng.standard_normal((4, 6)).astype(np.float32))
            assert nxt.started[done].all()  # the next observation is turn 1 of a new round
            assert (nxt.rewards[done] == 0).all()
            ended_seen = ended_seen_now
            break
    assert ended_seen
    assert r.truncated.any()  # 60-turn rounds against Target cannot end otherwise


def test_vector_env_steps_b_arenas() -> None:
    venv = TankRoyaleVectorEnv(8, "v2", ("SpinBot", "Walls"), seed=5)
    obs, info = venv.reset()
    assert obs.shape == (8, 44) and list(info["opponent"]) == ["SpinBot", "Walls"] * 4
    obs, rewards, term, _trunc, _ = venv.step(np.zeros((8, 6), np.float32))
    assert obs.shape == (8, 44) and rewards.shape == (8,) and term.dtype == bool
    assert np.isfinite(obs).all() and (np.abs(obs) <= 1).all()
