"""The warm start: a short behaviour-cloning run leaves a valid latest/ (policy_version 0) that the
learner's start-up resumes from, with the configured log-std; bad settings are clear errors."""

from pathlib import Path

import numpy as np
import pytest

from tankrl.deploy.pretrain import WARM_START, pretrain
from tankrl.learner import checkpoints
from tankrl.shared.config import ConfigError, RunConfig
from tankrl.shared.contracts import ContractError, get_contract
from tankrl.shared.policy_package import load_policy


def _cfg(**train: int) -> RunConfig:
    return RunConfig.from_dict(
        {
            "actors": {"opponents": ["Target", "SpinBot"]},
            "ppo": {"log_std_init": -1.5, "minibatch_size": 512},
            "train": {"pretrain_arenas": 8, "pretrain_iterations": 2, **train},
        }
    ).validate()


def test_warm_start_writes_a_policy_the_learner_resumes(tmp_path: Path) -> None:
    lines: list[str] = []
    result = pretrain(_cfg(pretrain_turns=8 * 2 * 400), tmp_path, lines.append)
    assert len(lines) == 2 and "pretrain 2/2" in lines[-1]
    start = checkpoints.startup(tmp_path, get_contract("v2"))
    assert start.source == checkpoints.LATEST and start.loaded is not None
    assert start.loaded.policy_version == 0
    np.testing.assert_allclose(start.loaded.tensors["log_std"], -1.5)
    assert result.samples == 2 * 8 * 100  # the last 300 turns of each rollout are held back
    kept = load_policy(tmp_path / WARM_START)  # the warm start alone, for later comparison
    np.testing.assert_array_equal(kept[1]["log_std"], start.loaded.tensors["log_std"])
    assert kept[2]["policy_version"] == 0


def test_warm_start_refuses_a_motor_contract(tmp_path: Path) -> None:
    cfg = RunConfig.from_dict({"contract": "v1", "train": {"pretrain_turns": 1000}})
    with pytest.raises(ContractError, match="v1"):
        pretrain(cfg, tmp_path)


def test_bad_warm_start_settings_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="pretrain"):
        RunConfig.from_dict({"train": {"pretrain_iterations": 0}}).validate()
