"""Parity between native and hosted play (architecture.md): with the same seed, weights and
scripted opponent, a round played natively (NativeEnv, B = 1) and hosted (our server, the PPO bot
and the opponent on the official Bot API in subprocesses) gives identical observations, actions
and state hashes on every turn.
"""

from pathlib import Path

import numpy as np
import pytest

from tankrl.actor.botapi_shell import SEED_ENV
from tankrl.actor.native_env import NativeEnv
from tankrl.actor.native_runner import NativeRunner
from tankrl.actor.policy_slot import PolicySlot
from tankrl.actor.ppo_bot import (
    ENV_SEED,
    ENV_TRAJECTORIES,
    ENV_WEIGHTS,
    read_trajectory_file,
)
from tankrl.arena.replay import read_replay
from tankrl.arena.rules.state_hash import state_hash
from tankrl.arena.server.battle import BattleSpec, run_battle
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy import init_tensors
from tankrl.shared.policy_files import encode_policy

SAMPLING_SEED = 5


def native_round(contract_name: str, opponent: str, tensors: dict, seed: int):
    contract = get_contract(contract_name)
    env = NativeEnv(1, contract, (opponent,), seed=seed)
    runner = NativeRunner(env, PolicySlot(contract, tensors, 7), seed=SAMPLING_SEED)
    hashes = [state_hash(env.arenas.engine, 0)]  # turn 1, after reset
    finished = []
    while not finished:
        finished = runner.run(1)
        hashes.append(state_hash(env.arenas.engine, 0))
    return finished[0], hashes, int(env.arenas.seeds[0])


@pytest.mark.parametrize(
    ("contract_name", "opponent"), [("v2", "SpinBot"), ("v1", "Crazy"), ("v5", "Fire")]
)
def test_hosted_round_equals_native_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, contract_name: str, opponent: str
) -> None:
    contract = get_contract(contract_name)
    tensors = init_tensors(contract, seed=3, log_std_init=-0.5)
    policy_dir = tmp_path / "policy"
    policy_dir.mkdir()
    for name, data in encode_policy(contract, 7, tensors, {}).items():
        (policy_dir / name).write_bytes(data)

    native, native_hashes, arena_seed = native_round(contract_name, opponent, tensors, seed=11)

    trajectories = tmp_path / "hosted.traj"
    monkeypatch.setenv(ENV_WEIGHTS, str(policy_dir))
    monkeypatch.setenv(ENV_SEED, str(SAMPLING_SEED))
    monkeypatch.setenv(ENV_TRAJECTORIES, str(trajectories))
    monkeypatch.setenv(SEED_ENV, str(arena_seed))  # the scripted opponent's seed
    replay = tmp_path / "hosted.replay"
    result = run_battle(
        BattleSpec(
            bots=("TankRL", opponent),
            rounds=1,
            seed=arena_seed,
            record=replay,
            turn_timeout_us=5_000_000,
        )
    )
    assert result.rounds == 1

    (hosted,) = read_trajectory_file(str(trajectories))
    assert hosted.turns == native.turns > 10
    assert hosted.policy_version == 7
    np.testing.assert_array_equal(hosted.obs, native.obs)
    np.testing.assert_array_equal(hosted.actions, native.actions)
    np.testing.assert_array_equal(hosted.terminals, native.terminals)
    np.testing.assert_array_equal(hosted.rewards, native.rewards)
    hosted_hashes = [t["hash"] for t in read_replay(replay).turns]
    assert hosted_hashes == native_hashes
