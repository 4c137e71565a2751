"""The PPO loss and update pass: the loss at ratio 1 (clip inactive), clipping against the stored
behaviour log-prob, what a pass reports, and a learning test on a bandit with a known optimum."""

import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest
import torch

from tankrl.learner.model import ActorCritic
from tankrl.learner.ppo import Batch, make_optimizer, ppo_loss, train_pass
from tankrl.learner.testing import random_tensors
from tankrl.learner.trainer import Trainer
from tankrl.shared.config import PPOConfig
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import NumpyPolicy
from tankrl.shared.wire import Trajectory

CFG = PPOConfig()


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """As the learner runs (learner.torch_threads = 1): intra-op threads on these tiny tensors
    only add synchronisation, which turns 20x slower when other processes share the cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _minibatch(n: int = 32, seed: int = 0):
    model = ActorCritic.from_tensors(V2, random_tensors(V2, hidden=16, seed=seed))
    g = torch.Generator().manual_seed(seed)
    obs = torch.randn(n, V2.obs_size, generator=g)
    with torch.no_grad():  # actions sampled from the policy, as a bot stores them
        mean, _ = model(obs)
        noise = torch.randn(n, V2.action_size, generator=g)
        actions = mean + model.clamped_log_std().exp() * noise
    advantages = torch.randn(n, generator=g)
    returns = torch.randn(n, generator=g)
    return model, obs, actions, advantages, returns


def test_loss_at_ratio_one_is_minus_mean_advantage_minus_entropy_plus_value_loss():
    model, obs, actions, advantages, returns = _minibatch()
    with torch.no_grad():
        behaviour_logp, entropy, values = model.evaluate(obs, actions)
    parts = ppo_loss(model, obs, actions, behaviour_logp, advantages, returns, CFG)
    value_loss = 0.5 * ((values - returns) ** 2).mean()
    expected = -advantages.mean() - CFG.ent_coef * entropy.mean() + CFG.vf_coef * value_loss
    torch.testing.assert_close(parts.loss, expected)
    torch.testing.assert_close(parts.pg_loss, -advantages.mean())
    torch.testing.assert_close(parts.v_loss, value_loss)
    assert float(parts.approx_kl) == pytest.approx(0.0, abs=1e-7)
    assert float(parts.clip_fraction) == 0.0


def test_ratio_is_against_the_stored_behaviour_logprob_and_clipped():
    model, obs, actions, _, returns = _minibatch()
    with torch.no_grad():
        current_logp, _, _ = model.evaluate(obs, actions)
    behaviour_logp = current_logp - np.log(1.5)  # the new policy makes these actions 1.5x likelier
    advantages = torch.ones(len(obs))
    parts = ppo_loss(model, obs, actions, behaviour_logp, advantages, returns, CFG)
    torch.testing.assert_close(parts.pg_loss, torch.tensor(-(1.0 + CFG.clip_coef)))
    assert float(parts.clip_fraction) == 1.0
    # a clipped objective gives the actor no policy gradient
    model.zero_grad()
    parts.pg_loss.backward()
    assert all(p.grad is None or float(p.grad.abs().max()) == 0 for p in model.actor.parameters())
    negative = ppo_loss(model, obs, actions, behaviour_logp, -advantages, returns, CFG)
    torch.testing.assert_close(negative.pg_loss, torch.tensor(1.5))  # pessimistic side unclipped


def test_train_pass_covers_every_turn_each_epoch_and_reports_statistics():
    model, obs, actions, advantages, returns = _minibatch(n=200)
    with torch.no_grad():
        logp, _, values = model.evaluate(obs, actions)
    batch = Batch(obs, actions, logp, values, advantages, returns)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    stats = train_pass(model, make_optimizer(model, CFG), batch, CFG, torch.Generator())
    assert stats["minibatches"] == CFG.update_epochs * 4  # ceil(200 / 64) per epoch
    assert stats["turns"] == 200
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction"):
        assert np.isfinite(stats[key]), key
    residual = float((returns - values).var(correction=0) / returns.var(correction=0))
    assert stats["explained_variance"] == pytest.approx(1.0 - residual, rel=1e-5)
    assert stats["approx_kl"] > 0 and 0 <= stats["clip_fraction"] <= 1
    assert any(not torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_target_kl_ends_the_pass_once_the_policy_moved_too_far():
    """A narrow policy (std e^-2) moves far in KL with each Adam step: with target_kl the pass
    stops after the first minibatch over 1.5 x target_kl instead of running every epoch."""
    model, obs, actions, advantages, returns = _minibatch(n=200)
    with torch.no_grad():
        model.log_std.fill_(-2.0)
        logp, _, values = model.evaluate(obs, actions)
    batch = Batch(obs, actions, logp, values, advantages, returns)
    cfg = dataclasses.replace(CFG, learning_rate=1e-2, target_kl=1e-4)
    stats = train_pass(model, make_optimizer(model, cfg), batch, cfg, torch.Generator())
    assert stats["stopped_early"] == 1.0
    assert stats["minibatches"] < cfg.update_epochs * 4
    off = dataclasses.replace(cfg, target_kl=0.0)
    stats = train_pass(model, make_optimizer(model, off), batch, off, torch.Generator())
    assert stats["stopped_early"] == 0.0 and stats["minibatches"] == off.update_epochs * 4


TARGET = np.array([0.6, -0.4, 0.3, 0.0, -0.5], dtype=np.float32)


def _bandit_round(policy: NumpyPolicy, rng: np.random.Generator, turns: int) -> Trajectory:
    """Every turn is a one-step episode: reward = -|a - TARGET|^2, then terminal."""
    obs = np.zeros((turns, V1.obs_size), dtype=np.float32)
    actions, logprobs, values = policy.act(obs, rng)
    rewards = -((actions - TARGET) ** 2).sum(axis=1).astype(np.float32)
    return Trajectory(
        "bandit", 0, 0, V1.sha256, obs, actions, logprobs, values, rewards,
        np.ones(turns, dtype=bool), np.zeros(turns, dtype=bool),
    )  # fmt: skip


def test_learning_moves_the_policy_mean_to_the_known_optimum():
    cfg = dataclasses.replace(CFG, learning_rate=3e-3, hidden_size=16, log_std_init=-0.5)
    trainer = Trainer(V1, cfg, seed=0)
    rng = np.random.default_rng(0)
    obs = np.zeros((1, V1.obs_size), dtype=np.float32)

    def evaluate() -> tuple[float, float]:
        policy = NumpyPolicy(V1, trainer.policy_tensors())
        mean, _ = policy.forward(obs)
        returns = _bandit_round(policy, rng, 2048).rewards.mean()
        return float(np.linalg.norm(mean[0] - TARGET)), float(returns)

    start_distance, start_return = evaluate()
    for _ in range(40):
        trainer.train([_bandit_round(NumpyPolicy(V1, trainer.policy_tensors()), rng, 512)])
    distance, mean_return = evaluate()
    assert start_distance > 0.9
    assert distance < 0.15, f"policy mean still {distance:.3f} from the optimum"
    assert mean_return > start_return + 0.5


def test_a_far_off_behaviour_logprob_does_not_turn_the_weights_into_nan():
    model, obs, actions, advantages, returns = _minibatch(n=128)
    with torch.no_grad():
        logp, _, values = model.evaluate(obs, actions)
    batch = Batch(obs, actions, logp - 500.0, values, -advantages.abs(), returns)
    stats = train_pass(model, make_optimizer(model, CFG), batch, CFG, torch.Generator())
    assert np.isfinite(stats["loss"])
    assert all(torch.isfinite(p).all() for p in model.parameters())
