"""The consolidation after PPO (train.distill_*): the demonstrator labels the turns against the
opponents named for it and the trained policy every other turn; the result becomes latest/ with
the next version, PPO's policy is kept, a run stopped by a signal is not consolidated."""

from pathlib import Path

import numpy as np
import pytest
import torch

from tankrl.actor.expert import GotoAimExpert
from tankrl.actor.native_env import NativeEnv
from tankrl.deploy.distill import BEFORE_DISTILL, distill, labeller
from tankrl.deploy.train import TrainResult, _consolidate
from tankrl.learner import bc, checkpoints
from tankrl.learner.model import ActorCritic
from tankrl.shared.config import ConfigError, RunConfig
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy_files import encode_policy

CONTRACT = get_contract("v4")
OPPONENTS = ("Target", "MyFirstBot")


def _cfg(**train: object) -> RunConfig:
    return RunConfig.from_dict(
        {
            "contract": "v4",
            "actors": {"opponents": ["Surfer"]},
            "ppo": {"minibatch_size": 256},
            "train": {
                "distill_turns": 3 * 8 * 400,
                "distill_iterations": 3,
                "distill_arenas": 8,
                "distill_steps": 900,
                "distill_lr": 3e-3,
                "distill_opponents": list(OPPONENTS),
                "distill_demonstrated": ["MyFirstBot"],
                **train,
            },
        }
    ).validate()


def _trained_run(run_dir: Path, cfg: RunConfig) -> ActorCritic:
    """A run dir whose latest/ is policy_version 7 of a (random) policy: what PPO left."""
    teacher = ActorCritic.initial(CONTRACT, 32, seed=3, log_std_init=-0.7)
    files = encode_policy(CONTRACT, 7, teacher.to_tensors(), cfg.to_dict())
    state = {"policy_version": 7, "rounds_trained": 11, "turns_trained": 1234, "trainer": {}}
    checkpoints.write_latest(run_dir, files, None, state)
    return teacher


def _observations(play: ActorCritic | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Observations of 200 turns of `play`'s means (default the demonstrator) against OPPONENTS,
    and which rows are against the demonstrated opponent."""
    env = NativeEnv(4, CONTRACT, OPPONENTS, seed=99)
    expert = GotoAimExpert(CONTRACT, 800, 600)
    obs, rows = env.reset(), []
    for _ in range(200):
        rows.append(obs)
        with torch.no_grad():
            act = expert.actions(obs) if play is None else play(torch.as_tensor(obs))[0].numpy()
        obs = env.step(act).obs
    demonstrated = np.tile(env.opponent_names == "MyFirstBot", 200)
    return np.concatenate(rows), demonstrated


def test_the_labels_are_the_demonstrators_only_on_its_opponents_rows() -> None:
    obs, demonstrated = _observations()
    teacher = ActorCritic.initial(CONTRACT, 32, seed=3)
    expert = GotoAimExpert(CONTRACT, 800, 600)
    labels = labeller(teacher, expert.actions, demonstrated)(obs)
    np.testing.assert_array_equal(labels[demonstrated], expert.actions(obs[demonstrated]))
    with torch.no_grad():
        means = teacher(torch.as_tensor(obs))[0].numpy()
    np.testing.assert_array_equal(labels[~demonstrated], means[~demonstrated])
    assert not np.allclose(labels[demonstrated], means[demonstrated], atol=0.05)


def test_consolidation_copies_each_teacher_where_it_is_named(tmp_path: Path) -> None:
    cfg = _cfg()
    teacher = _trained_run(tmp_path, cfg)
    lines: list[str] = []
    result = distill(cfg, tmp_path, lines.append)
    assert len(lines) == 3 and lines[-1].startswith("distill 3/3")
    assert result.policy_version == 8
    latest = checkpoints.read_policy_dir(tmp_path / checkpoints.LATEST, CONTRACT)
    assert latest.policy_version == 8
    assert (latest.state["rounds_trained"], latest.state["turns_trained"]) == (11, 1234)
    kept = checkpoints.read_policy_dir(tmp_path / BEFORE_DISTILL, CONTRACT)
    assert kept.policy_version == 7
    for name, tensor in teacher.to_tensors().items():
        np.testing.assert_array_equal(kept.tensors[name], tensor)
    np.testing.assert_array_equal(latest.tensors["critic.4.bias"], kept.tensors["critic.4.bias"])

    student = ActorCritic.from_tensors(CONTRACT, latest.tensors)
    obs, demonstrated = _observations(student)  # where it plays: DAgger's distribution
    expert = GotoAimExpert(CONTRACT, 800, 600)
    target = torch.as_tensor(labeller(teacher, expert.actions, demonstrated)(obs))
    with torch.no_grad():
        after = bc.squared_error(CONTRACT, student(torch.as_tensor(obs))[0], target).mean(-1)
        before = bc.squared_error(CONTRACT, teacher(torch.as_tensor(obs))[0], target).mean(-1)
    demo, rest = torch.as_tensor(demonstrated), torch.as_tensor(~demonstrated)
    assert after[demo].mean() < 0.5 * before[demo].mean()  # moved towards the demonstrator
    assert after[rest].mean() < 0.25 * before[demo].mean()  # and stayed near the policy elsewhere


def test_a_run_stopped_by_a_signal_is_not_consolidated(tmp_path: Path) -> None:
    cfg = _cfg()
    _trained_run(tmp_path, cfg)
    lines: list[str] = []
    stopped = TrainResult(tmp_path, 7, 1.0, "signal 15", {})
    assert _consolidate(cfg, tmp_path, stopped, lines.append).policy_version == 7
    assert lines == ["consolidation skipped: stopped by signal 15"]
    assert not (tmp_path / BEFORE_DISTILL).exists()
    timed_out = TrainResult(tmp_path, 7, 1.0, "time limit", {})
    assert _consolidate(cfg, tmp_path, timed_out, lines.append).policy_version == 8
    assert (tmp_path / BEFORE_DISTILL).is_dir()


def test_bad_consolidation_settings_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="distill_opponents"):
        RunConfig.from_dict({"train": {"distill_turns": 100}}).validate()
    with pytest.raises(ConfigError, match="SpinBot"):
        _cfg(distill_demonstrated=["SpinBot"])
    with pytest.raises(ConfigError, match="_steps"):
        _cfg(distill_steps=0)
