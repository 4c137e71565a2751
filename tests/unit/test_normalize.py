"""The optional normalisations: running mean/var matches a one-shot computation, reward scaling
divides by the std of the discounted return (restarting at round ends), and observation
statistics are saved in the policy, survive a checkpoint round trip with the optimizer state,
and are applied by NumpyPolicy exactly as by the torch model."""

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tankrl.learner import checkpoints as ck
from tankrl.learner.normalize import RewardScaler, RunningMeanStd
from tankrl.learner.testing import synthetic_round
from tankrl.learner.trainer import Trainer
from tankrl.shared.config import PPOConfig
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy
from tankrl.shared.policy_files import encode_policy


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """As the learner runs (learner.torch_threads = 1): intra-op threads on these tiny tensors
    only add synchronisation, which turns 20x slower when other processes share the cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@settings(max_examples=50)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.integers(0, 10_000))
def test_running_statistics_equal_one_shot_statistics(sizes: list[int], seed: int):
    rng = np.random.default_rng(seed)
    batches = [rng.normal(3.0, 2.0, (n, 4)) for n in sizes]
    rms = RunningMeanStd(np.zeros(4), np.ones(4), 0.0)
    for b in batches:
        rms.update(b)
    everything = np.concatenate(batches)
    np.testing.assert_allclose(rms.mean, everything.mean(0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rms.var, everything.var(0), rtol=1e-9, atol=1e-9)
    assert rms.count == len(everything)
    back = RunningMeanStd.from_dict(rms.to_dict())
    np.testing.assert_array_equal(back.var, rms.var)
    assert back.count == rms.count


def test_reward_scaler_divides_by_the_std_of_the_discounted_return():
    scaler = RewardScaler(gamma=0.5)
    rewards = np.array([1.0, 1.0, 1.0, 4.0], dtype=np.float32)
    ends = np.array([False, True, False, True])
    scaled = scaler.scale(rewards, ends)
    returns = np.array([1.0, 1.5, 1.0, 4.5])  # restarts after the first end
    np.testing.assert_allclose(scaled, rewards / np.sqrt(returns.var() + 1e-8), rtol=1e-3)
    assert scaler.std == np.sqrt(scaler.stats.var + 1e-8)


def _shifted_rounds(n: int, seed: int, policy: NumpyPolicy):
    rounds = []
    for i in range(n):
        tr = synthetic_round(V2, policy, 200, round_id=i, seed=seed + i)
        tr.obs = (tr.obs * 3.0 + 5.0).astype(np.float32)  # mean 5, var 9
        rounds.append(tr)
    return rounds


def test_obs_statistics_go_into_the_saved_policy_and_numpy_applies_them(tmp_path: Path):
    cfg = dataclasses.replace(PPOConfig(), norm_obs=True, hidden_size=16)
    trainer = Trainer(V2, cfg, seed=1)
    start = trainer.policy_tensors()
    np.testing.assert_array_equal(start["obs_norm.mean"], 0.0)  # identity before any data
    np.testing.assert_array_equal(start["obs_norm.var"], 1.0)
    trainer.train(_shifted_rounds(2, 0, NumpyPolicy(V2, start)))
    tensors = trainer.policy_tensors()
    assert abs(float(tensors["obs_norm.mean"].mean()) - 5.0) < 0.2
    assert abs(float(tensors["obs_norm.var"].mean()) - 9.0) < 0.8

    optimizer, state = trainer.training_state()
    ck.write_latest(tmp_path, encode_policy(V2, 1, tensors, {}), optimizer, {"trainer": state})
    loaded = ck.read_policy_dir(tmp_path / "latest", V2)
    numpy_policy = NumpyPolicy(V2, loaded.tensors)
    obs = (np.random.default_rng(9).standard_normal((64, V2.obs_size)) * 3 + 5).astype(np.float32)
    np_mean, np_value = numpy_policy.forward(obs)
    with torch.no_grad():
        mean, value = trainer.model(torch.from_numpy(obs))
    np.testing.assert_allclose(np_mean, mean.numpy(), atol=1e-5)
    np.testing.assert_allclose(np_value, value.numpy(), atol=1e-5)

    resumed = Trainer(V2, cfg, seed=1, tensors=loaded.tensors)
    resumed.load_training_state(loaded.optimizer, loaded.state["trainer"])
    assert trainer.obs_stats is not None and resumed.obs_stats is not None
    assert resumed.obs_stats.count == trainer.obs_stats.count == 400 + 1e-4
    assert (
        resumed.optimizer.state_dict()["state"].keys()
        == trainer.optimizer.state_dict()["state"].keys()
    )


def test_normalisation_is_off_by_default():
    trainer = Trainer(V2, PPOConfig(hidden_size=8))
    assert "obs_norm.mean" not in trainer.policy_tensors()
    assert trainer.obs_stats is None and trainer.reward_scaler is None
