"""shared.policy: tensor names and shapes, the log-std floor, sampling and log-probabilities,
observation normalisation, the dims sampled when playing for keeps, and check_tensors'
rejections."""

import math

import numpy as np
import pytest

from tankrl.shared.contracts import V1, V2, Contract
from tankrl.shared.policy import (
    LOG_STD_FLOOR,
    OBS_NORM_CLIP,
    NumpyPolicy,
    PolicyShapeError,
    check_tensors,
    init_tensors,
    parse_sampled,
    tensor_shapes,
)


def _obs(n: int, size: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (n, size)).astype(np.float32)


def test_tensor_names_and_shapes_follow_torch_sequential() -> None:
    shapes = tensor_shapes(V2, hidden=64)
    assert shapes["actor.0.weight"] == (64, 44)
    assert shapes["actor.4.weight"] == (6, 64)
    assert shapes["critic.4.weight"] == (1, 64)
    assert shapes["log_std"] == (6,)
    assert set(shapes) == {
        f"{net}.{i}.{kind}"
        for net in ("actor", "critic")
        for i in "024"
        for kind in ("weight", "bias")
    } | {"log_std"}
    assert tensor_shapes(V1)["actor.0.weight"] == (64, 42)


@pytest.mark.parametrize("contract", [V1, V2], ids=["v1", "v2"])
def test_forward_and_act_shapes(contract: Contract) -> None:
    policy = NumpyPolicy(contract, init_tensors(contract, hidden=32))
    obs = _obs(5, contract.obs_size)
    mean, value = policy.forward(obs)
    assert mean.shape == (5, contract.action_size) and value.shape == (5,)
    actions, logp, values = policy.act(obs, np.random.default_rng(0))
    assert actions.shape == mean.shape and logp.shape == (5,) and values.shape == (5,)
    assert actions.dtype == logp.dtype == values.dtype == np.float32


def test_log_std_is_floored_at_minus_3() -> None:
    tensors = init_tensors(V2, log_std_init=-10.0)
    policy = NumpyPolicy(V2, tensors)
    np.testing.assert_array_equal(policy.log_std, np.full(6, LOG_STD_FLOOR, dtype=np.float32))
    np.testing.assert_allclose(policy.std, math.exp(-3.0), rtol=1e-6)


def test_log_prob_matches_act_and_the_gaussian_density() -> None:
    tensors = init_tensors(V2, seed=3)
    tensors["log_std"] = np.linspace(-1.0, 0.5, 6).astype(np.float32)
    policy = NumpyPolicy(V2, tensors)
    obs = _obs(64, 44, seed=1)
    actions, logp, _ = policy.act(obs, np.random.default_rng(2))
    np.testing.assert_allclose(policy.log_prob(obs, actions), logp, rtol=1e-5, atol=1e-5)
    mean, _ = policy.forward(obs)
    std = np.exp(tensors["log_std"].astype(np.float64))
    z = (actions - mean) / std
    expected = (-0.5 * z**2 - np.log(std) - 0.5 * math.log(2 * math.pi)).sum(axis=1)
    np.testing.assert_allclose(logp, expected, rtol=1e-4, atol=1e-4)


def test_deterministic_action_is_the_mean() -> None:
    policy = NumpyPolicy(V2, init_tensors(V2, seed=4))
    obs = _obs(8, 44)
    actions, _, values = policy.act(obs, np.random.default_rng(0), deterministic=True)
    mean, value = policy.forward(obs)
    np.testing.assert_array_equal(actions, mean)
    np.testing.assert_array_equal(values, value)


def test_playing_for_keeps_samples_only_the_play_sampled_dims() -> None:
    tensors = init_tensors(V2, seed=4)
    policy = NumpyPolicy(V2, tensors, play_sampled=("goto_y", "goto_x"))
    assert policy.play_sampled == ("goto_x", "goto_y")  # the contract's order
    obs = _obs(64, 44)
    mean, _ = policy.forward(obs)
    actions, _, _ = policy.act(obs, np.random.default_rng(7), deterministic=True)
    np.testing.assert_array_equal(actions[:, 2:], mean[:, 2:])  # aim and fire: the means
    spread = (actions[:, :2] - mean[:, :2]) / policy.std[:2]  # goto: N(0, 1) around the means
    assert 0.7 < float(spread.std()) < 1.3 and abs(float(spread.mean())) < 0.3
    again, _, _ = policy.act(obs, np.random.default_rng(7), deterministic=True)
    np.testing.assert_array_equal(again, actions)  # seeded
    training, _, _ = policy.act(obs, np.random.default_rng(7))
    assert not np.array_equal(training[:, 2:], mean[:, 2:])  # training still samples every dim


def test_play_sampled_names_dims_of_the_contract() -> None:
    with pytest.raises(
        ValueError, match=r"unknown action dim\(s\) aim_z for contract v2: it has goto_x"
    ):
        NumpyPolicy(V2, init_tensors(V2, seed=4), play_sampled=("aim_z",))
    every = tuple(a.name for a in V2.actions)
    assert parse_sampled(V2, "all") == every
    assert parse_sampled(V2, "none") == parse_sampled(V2, "") == ()
    assert parse_sampled(V2, " fire_power, goto_x ") == ("goto_x", "fire_power")


def test_results_of_successive_calls_do_not_alias() -> None:
    policy = NumpyPolicy(V2, init_tensors(V2, seed=4))
    mean1, value1 = policy.forward(_obs(8, 44, seed=1))
    keep = mean1.copy(), value1.copy()
    policy.forward(_obs(8, 44, seed=2))
    policy.forward(_obs(3, 44, seed=3))
    np.testing.assert_array_equal(mean1, keep[0])
    np.testing.assert_array_equal(value1, keep[1])


def test_obs_norm_is_applied_when_present() -> None:
    tensors = init_tensors(V2, seed=5)
    plain = NumpyPolicy(V2, tensors)
    mean = np.linspace(-0.5, 0.5, 44).astype(np.float32)
    var = np.linspace(0.1, 4.0, 44).astype(np.float32)
    normed = NumpyPolicy(V2, {**tensors, "obs_norm.mean": mean, "obs_norm.var": var})
    obs = _obs(16, 44)
    obs[0, 0] = 1e6  # clipped to OBS_NORM_CLIP
    expected_in = np.clip((obs - mean) / np.sqrt(var + 1e-8), -OBS_NORM_CLIP, OBS_NORM_CLIP)
    got_mean, got_value = normed.forward(obs)
    want_mean, want_value = plain.forward(expected_in.astype(np.float32))
    np.testing.assert_allclose(got_mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_value, want_value, rtol=1e-5, atol=1e-6)
    assert not np.allclose(plain.forward(obs)[1], got_value)


def test_check_tensors_rejects_bad_sets() -> None:
    good = init_tensors(V2)
    check_tensors(V2, good)
    wrong_shape = {**good, "actor.2.weight": np.zeros((64, 63), np.float32)}
    with pytest.raises(PolicyShapeError, match=r"actor\.2\.weight"):
        check_tensors(V2, wrong_shape)
    with pytest.raises(PolicyShapeError, match="unknown"):
        check_tensors(V2, {**good, "actor.6.weight": np.zeros((1,), np.float32)})
    missing = {k: v for k, v in good.items() if k != "critic.4.bias"}
    with pytest.raises(PolicyShapeError, match="missing"):
        check_tensors(V2, missing)
    bad = good["log_std"].copy()
    bad[2] = np.nan
    with pytest.raises(PolicyShapeError, match="non-finite"):
        check_tensors(V2, {**good, "log_std": bad})
    with pytest.raises(PolicyShapeError, match="obs_norm"):
        check_tensors(V2, {**good, "obs_norm.mean": np.zeros(44, np.float32)})
    with pytest.raises(PolicyShapeError):
        NumpyPolicy(V1, good)  # v2 weights for a v1 policy
