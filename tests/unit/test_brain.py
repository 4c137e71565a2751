"""actor.brain.Brain: one turn end to end (shapes, intent flags, radar from the tracker, caller-
owned arrays), batch-first consistency (B bots == B single brains), non-finite network outputs
reaching the intent as the safe action, the contract check, a finite intent for any view and
ValueError for a view whose geometry is not."""

import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tankrl.actor.brain import CHECKED_VIEW_FIELDS, Brain
from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import VIEW_DTYPES, BotView
from tankrl.shared.contracts import V1, V2, Contract, ContractError
from tankrl.shared.intent import INTENT_FIELDS, Intent
from tankrl.shared.policy import NumpyPolicy, init_tensors

ViewFactory = Callable[..., BotView]


def policy_for(contract: Contract, seed: int = 0) -> NumpyPolicy:
    tensors = init_tensors(contract, seed=seed)
    for name in ("actor.4.weight", "actor.4.bias"):  # livelier outputs than the 0.01 init
        tensors[name] = tensors[name] * 100.0 + 0.1
    return NumpyPolicy(contract, tensors)


def random_view(n: int, rng: np.random.Generator, scale: float = 1.0) -> BotView:
    """A view with every field random: realistic ranges times `scale`, arena 800x600."""
    view = BotView.zeros(n)
    for name, dtype in VIEW_DTYPES.items():
        field = getattr(view, name)
        if dtype is np.bool_:
            field[:] = rng.random(n) < 0.5
        elif dtype is np.int32:
            field[:] = rng.integers(1, 1000, n)
        else:
            field[:] = rng.uniform(-400.0, 800.0, n) * scale
    view.arena_width[:], view.arena_height[:] = 800.0, 600.0
    return view


def assert_intent_finite(intent: Intent) -> None:
    for name in INTENT_FIELDS:
        assert np.isfinite(getattr(intent, name)).all(), name


@pytest.mark.parametrize("contract", [V2, V1], ids=["v2", "v1"])
def test_step_produces_a_full_decision(make_view: ViewFactory, contract: Contract) -> None:
    brain, policy = Brain(contract, 3), policy_for(contract)
    decision = brain.step(make_view(3, gun_heat=0.0), policy, np.random.default_rng(0))
    assert decision.obs.shape == (3, contract.obs_size) and decision.obs.dtype == np.float32
    assert decision.actions.shape == (3, contract.action_size)
    assert decision.logprobs.shape == decision.values.shape == (3,)
    intent = decision.intent
    assert intent.adjust_gun_for_body_turn.all() and intent.adjust_radar_for_gun_turn.all()
    assert intent.adjust_radar_for_body_turn.all()
    assert not intent.fire_assist.any() and not intent.rescan.any()
    np.testing.assert_array_equal(intent.radar_turn_rate, brain.tracker.radar_turn_rate())
    assert np.all(np.abs(intent.radar_turn_rate) == 45.0)  # nothing scanned yet
    assert np.all(np.abs(intent.gun_turn_rate) <= 20.0) and np.all(np.abs(intent.turn_rate) <= 10.0)
    assert_intent_finite(intent)


def test_decision_arrays_belong_to_the_caller(make_view: ViewFactory) -> None:
    brain, policy, rng = Brain(V2, 2), policy_for(V2), np.random.default_rng(0)
    first = brain.step(make_view(2, x=[100.0, 200.0]), policy, rng)
    kept = first.obs.copy(), first.intent.copy()
    brain.step(make_view(2, x=[700.0, 600.0], speed=5.0), policy, rng)
    np.testing.assert_array_equal(first.obs, kept[0])
    for name in INTENT_FIELDS:
        np.testing.assert_array_equal(getattr(first.intent, name), getattr(kept[1], name))


@pytest.mark.parametrize("contract", [V2, V1], ids=["v2", "v1"])
def test_a_batch_decides_exactly_like_single_brains(contract: Contract) -> None:
    """Everything but the matmuls is elementwise, so bot i of a batch sees and does exactly what
    a brain of its own does. (BLAS sums differently for other batch sizes, so the policy here
    outputs its bias only: the network's float32 results can differ in the last bits.)"""
    rng = np.random.default_rng(3)
    tensors = init_tensors(contract, seed=2)
    tensors["actor.4.weight"][:] = 0.0
    tensors["actor.4.bias"][:] = np.linspace(-1.5, 2.0, contract.action_size)
    policy = NumpyPolicy(contract, tensors)
    batch = Brain(contract, 6)
    singles = [Brain(contract, 1) for _ in range(6)]
    for _ in range(20):
        view = random_view(6, rng)
        together = batch.step(view, policy, rng, deterministic=True)
        for i, single in enumerate(singles):
            alone = single.step(view.select(slice(i, i + 1)), policy, rng, deterministic=True)
            np.testing.assert_array_equal(together.obs[i], alone.obs[0])
            for name in INTENT_FIELDS:
                assert getattr(together.intent, name)[i] == getattr(alone.intent, name)[0], name
        np.testing.assert_array_equal(batch.last_reward, [s.last_reward[0] for s in singles])


class BrokenPolicy(NumpyPolicy):
    """A policy whose sampled action for bot 1 is NaN."""

    def act(self, obs, rng, deterministic=False):  # type: ignore[no-untyped-def]
        actions, logp, values = super().act(obs, rng, deterministic)
        actions[1, 0] = np.nan
        return actions, logp, values


def test_non_finite_network_output_becomes_the_safe_action(make_view: ViewFactory) -> None:
    brain = Brain(V2, 3)
    policy = BrokenPolicy(V2, policy_for(V2).tensors)
    decision = brain.step(make_view(3, speed=8.0, gun_heat=0.0), policy, np.random.default_rng(0))
    assert brain.nonfinite_actions == 1
    np.testing.assert_array_equal(brain.nonfinite_per_bot, [0, 1, 0])
    assert_intent_finite(decision.intent)
    intent = decision.intent
    assert (intent.target_speed[1], intent.turn_rate[1], intent.gun_turn_rate[1]) == (6.0, 0.0, 0.0)
    assert intent.firepower[1] == 0.0
    assert np.isnan(decision.actions[1, 0])  # the trajectory keeps what was sampled


@pytest.mark.parametrize("field", CHECKED_VIEW_FIELDS)
@pytest.mark.parametrize(("bad", "n_bots"), [(np.nan, 1), (np.inf, 1), (-np.inf, 2)])
def test_a_non_finite_view_geometry_is_rejected_naming_the_field(
    make_view: ViewFactory, field: str, bad: float, n_bots: int
) -> None:
    """The brain's math runs unchecked, so the view's geometry is checked once on the way in
    (one bot takes a scalar fast path, a batch the array path)."""
    view = make_view(n_bots)
    getattr(view, field)[-1] = bad
    with pytest.raises(ValueError, match=re.escape(f"view.{field}")):
        Brain(V2, n_bots).step(view, policy_for(V2), np.random.default_rng(0))


def test_a_non_finite_scan_is_rejected(make_view: ViewFactory) -> None:
    view = make_view(2, scanned=True, scan_x=[100.0, np.inf])
    with pytest.raises(ValueError, match=re.escape("enemy estimate.x")):
        Brain(V1, 2).step(view, policy_for(V1), np.random.default_rng(0))


def test_policy_of_another_contract_is_rejected(make_view: ViewFactory) -> None:
    brain = Brain(V2, 1)
    with pytest.raises(ContractError, match="v2"):
        brain.step(make_view(), policy_for(V1), np.random.default_rng(0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1.0, 1e3, 1e100, 1e300]))
def test_intent_is_finite_for_any_view(seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    for contract in (V2, V1):
        brain, policy = Brain(contract, 4), policy_for(contract)
        with np.errstate(over="ignore"):
            for _ in range(3):
                decision = brain.step(random_view(4, rng, scale), policy, rng)
                assert np.isfinite(decision.obs).all()
                assert_intent_finite(decision.intent)


def test_brain_radar_equals_a_standalone_tracker() -> None:
    """The brain aims the radar with the observation's enemy geometry; a tracker on its own
    computes that geometry itself. Both must give the same rates, bit for bit."""
    rng = np.random.default_rng(5)
    brain, policy = Brain(V2, 5), policy_for(V2)
    alone = EnemyTracker(5)
    for _ in range(30):
        view = random_view(5, rng)
        brain.step(view, policy, rng)
        alone.update(view)
        np.testing.assert_array_equal(brain.tracker.radar_turn_rate(), alone.radar_turn_rate())
