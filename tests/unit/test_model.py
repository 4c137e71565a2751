"""The torch ActorCritic matches the numpy policy bots run: tensor names and shapes, the shared
orthogonal init, and forward outputs and log-probs to 1e-5 for the same weights (v1 and v2)."""

import numpy as np
import pytest
import torch

from tankrl.learner.model import ActorCritic
from tankrl.learner.testing import random_tensors
from tankrl.shared.contracts import V1, V2, Contract
from tankrl.shared.policy import LOG_STD_FLOOR, NumpyPolicy, init_tensors, tensor_shapes


@pytest.mark.parametrize("contract", [V1, V2], ids=lambda c: c.name)
@pytest.mark.parametrize("hidden", [64, 16])
def test_state_dict_names_and_shapes_are_the_policy_tensors(contract: Contract, hidden: int):
    model = ActorCritic(contract, hidden)
    got = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert got == tensor_shapes(contract, hidden)


def test_obs_norm_adds_exactly_the_two_statistics_tensors():
    model = ActorCritic(V2, 64, norm_obs=True)
    extra = set(model.state_dict()) - set(tensor_shapes(V2, 64))
    assert extra == {"obs_norm.mean", "obs_norm.var"}
    assert {n for n, _ in model.named_parameters()} == set(tensor_shapes(V2, 64))


def test_initial_model_holds_the_shared_init_tensors():
    model = ActorCritic.initial(V2, 64, seed=7, log_std_init=-0.5)
    expected = init_tensors(V2, 64, seed=7, log_std_init=-0.5)
    got = model.to_tensors()
    assert set(got) == set(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)


@pytest.mark.parametrize("contract", [V1, V2], ids=lambda c: c.name)
@pytest.mark.parametrize("obs_norm", [False, True], ids=["raw", "obs_norm"])
def test_torch_and_numpy_agree_to_1e5(contract: Contract, obs_norm: bool):
    tensors = random_tensors(contract, hidden=64, seed=3, obs_norm=obs_norm)
    assert tensors["log_std"].min() < LOG_STD_FLOOR  # the floor is exercised
    numpy_policy = NumpyPolicy(contract, tensors)
    model = ActorCritic.from_tensors(contract, tensors)
    rng = np.random.default_rng(1)
    obs = rng.normal(0.0, 2.0, (257, contract.obs_size)).astype(np.float32)
    actions, np_logp, np_values = numpy_policy.act(obs, rng)
    np_mean, _ = numpy_policy.forward(obs)
    with torch.no_grad():
        mean, values = model(torch.from_numpy(obs))
        logp, entropy, values2 = model.evaluate(torch.from_numpy(obs), torch.from_numpy(actions))
    np.testing.assert_allclose(mean.numpy(), np_mean, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(values.numpy(), np_values, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(values2.numpy(), np_values, atol=1e-5, rtol=1e-5)
    # log-probs divide by std down to e^-3, which magnifies float32 rounding of the means 20x
    np.testing.assert_allclose(logp.numpy(), np_logp, atol=1e-3)
    np.testing.assert_allclose(logp.numpy(), numpy_policy.log_prob(obs, actions), atol=1e-3)
    expected_entropy = (0.5 + 0.5 * np.log(2 * np.pi) + numpy_policy.log_std).sum()
    np.testing.assert_allclose(entropy.numpy(), expected_entropy, rtol=1e-5)


def test_tensors_round_trip_through_the_model():
    tensors = random_tensors(V2, hidden=32, seed=5, obs_norm=True)
    back = ActorCritic.from_tensors(V2, tensors).to_tensors()
    assert set(back) == set(tensors)
    for name, value in tensors.items():
        np.testing.assert_array_equal(back[name], value, err_msg=name)
        assert back[name].dtype == np.float32


def test_log_std_below_the_floor_gets_no_gradient_but_above_it_does():
    model = ActorCritic.initial(V1, 16)
    with torch.no_grad():
        model.log_std[:] = torch.tensor([-5.0, -1.0, 0.0, -3.5, 0.2])
    obs, actions = torch.zeros(4, V1.obs_size), torch.full((4, V1.action_size), 2.0)
    logp, _, _ = model.evaluate(obs, actions)
    logp.sum().backward()
    grad = model.log_std.grad
    assert grad is not None
    assert grad[0] == 0 and grad[3] == 0
    assert grad[1] != 0 and grad[2] != 0
