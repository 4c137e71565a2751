"""The behaviour-cloning anchor (ppo.bc_coef): which turns it labels, what it pulls, and what it
leaves alone. Rounds against ppo.bc_opponents get the demonstrator's actions as targets; every
other round trains by PPO alone."""

import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest
import torch

from tankrl.actor.expert import GotoAimExpert
from tankrl.learner.bc import squash
from tankrl.learner.model import ActorCritic
from tankrl.learner.ppo import Batch, make_optimizer, train_pass
from tankrl.learner.testing import random_tensors
from tankrl.learner.trainer import Trainer
from tankrl.shared.config import ConfigError, PPOConfig
from tankrl.shared.contracts import V4
from tankrl.shared.wire import Trajectory

ANCHORED = ("SpinBot", "MyFirstBot")
CFG = PPOConfig(bc_coef=10.0, bc_opponents=ANCHORED, hidden_size=16, minibatch_size=64)


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _round(opponent: str, turns: int, seed: int) -> Trajectory:
    rng = np.random.default_rng(seed)
    obs = rng.uniform(0.05, 0.95, (turns, V4.obs_size)).astype(np.float32)
    f32 = np.float32
    return Trajectory(
        "bot", seed, 0, V4.sha256, obs,
        rng.normal(size=(turns, V4.action_size)).astype(f32),
        np.full(turns, -5.0, f32), np.zeros(turns, f32), rng.normal(size=turns).astype(f32),
        np.eye(1, turns, turns - 1, dtype=bool)[0], np.zeros(turns, bool),
        info={"opponent": opponent},
    )  # fmt: skip


def test_rounds_against_the_anchored_opponents_get_the_demonstrators_actions():
    expert = GotoAimExpert(V4, 800, 600)
    seen: list[int] = []

    def demonstrator(obs: np.ndarray) -> np.ndarray:
        seen.append(len(obs))
        return expert.actions(obs)

    trainer = Trainer(V4, CFG, seed=0, demonstrator=demonstrator)
    rounds = [_round("SpinBot", 30, 1), _round("Surfer", 20, 2), _round("MyFirstBot", 10, 3)]
    batch = trainer.make_batch(rounds)
    assert batch.bc_mask is not None and batch.bc_actions is not None
    mask = batch.bc_mask.numpy()
    np.testing.assert_array_equal(mask, np.r_[np.ones(30), np.zeros(20), np.ones(10)])
    assert seen == [40]  # the demonstrator labels the anchored turns only, in one call
    labels = batch.bc_actions.numpy()
    np.testing.assert_allclose(labels[:30], expert.actions(rounds[0].obs))
    np.testing.assert_allclose(labels[50:], expert.actions(rounds[2].obs))
    assert not labels[30:50].any()


def test_without_the_anchor_a_batch_has_no_targets():
    trainer = Trainer(V4, dataclasses.replace(CFG, bc_coef=0.0), seed=0, demonstrator=None)
    batch = trainer.make_batch([_round("SpinBot", 30, 1)])
    assert batch.bc_actions is None and batch.bc_mask is None


def test_the_anchor_needs_a_demonstrator_and_opponents():
    with pytest.raises(ValueError, match="demonstrator"):
        Trainer(V4, CFG, seed=0)
    with pytest.raises(ConfigError, match="bc_opponents"):
        dataclasses.replace(CFG, bc_opponents=()).validate()
    with pytest.raises(ConfigError, match="bc_coef"):
        dataclasses.replace(CFG, bc_coef=-1.0).validate()


def _anchor_batch(mask: np.ndarray, target: np.ndarray, seed: int = 0):
    """A pass with zero advantages: PPO gives the actor no gradient, so only the anchor can."""
    model = ActorCritic.from_tensors(V4, random_tensors(V4, hidden=16, seed=seed))
    g = torch.Generator().manual_seed(seed)
    n = len(mask)
    obs = torch.rand(n, V4.obs_size, generator=g)
    with torch.no_grad():
        mean, values = model(obs)
        logp, _, _ = model.evaluate(obs, mean)
    batch = Batch(
        obs, mean, logp, values, torch.zeros(n), values.clone(),
        torch.as_tensor(np.tile(target, (n, 1))), torch.as_tensor(mask),
    )  # fmt: skip
    return model, obs, batch


def _squashed_mse(model: ActorCritic, obs: torch.Tensor, target: np.ndarray) -> float:
    with torch.no_grad():
        mean, _ = model(obs)
        t = torch.as_tensor(np.tile(target, (len(obs), 1)))
        return float(((squash(V4, mean) - squash(V4, t)) ** 2).mean())


def test_the_anchor_pulls_the_means_to_the_demonstrator_on_anchored_turns():
    target = np.array([1.0, -1.0, 0.5, 2.0, -0.5], np.float32)[: V4.action_size]
    mask = np.r_[np.ones(128), np.zeros(128)].astype(np.float32)
    model, obs, batch = _anchor_batch(mask, target)
    cfg = dataclasses.replace(CFG, learning_rate=3e-3, ent_coef=0.0)
    before = _squashed_mse(model, obs[:128], target)
    optimizer = make_optimizer(model, cfg)
    for _ in range(10):
        stats = train_pass(model, optimizer, batch, cfg, torch.Generator().manual_seed(0))
    after = _squashed_mse(model, obs[:128], target)
    assert after < 0.2 * before, (before, after)
    assert stats["bc_loss"] == pytest.approx(after, rel=0.5)


def test_unanchored_turns_give_the_actor_no_pull():
    target = np.full(V4.action_size, 2.0, np.float32)
    model, _, batch = _anchor_batch(np.zeros(256, np.float32), target)
    cfg = dataclasses.replace(CFG, learning_rate=3e-3, ent_coef=0.0)
    actor = [p.clone() for p in model.actor.parameters()]
    stats = train_pass(model, make_optimizer(model, cfg), batch, cfg, torch.Generator())
    assert stats["bc_loss"] == 0.0
    for p, q in zip(actor, model.actor.parameters(), strict=True):
        torch.testing.assert_close(p, q)
