"""actor.reward and Brain.last_reward: my energy change minus the enemy's per turn (the enemy's
from the tracker, exact with our own hit events), 0 on a round's first tick, and score / 100 at
round end."""

from collections.abc import Callable

import numpy as np
import pytest

from tankrl.actor.brain import Brain
from tankrl.actor.reward import round_end_reward, turn_reward
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import V2

ViewFactory = Callable[..., BotView]


def a(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def test_turn_reward_from_known_energy_deltas() -> None:
    reward = turn_reward(a(90.0, 100.0, 97.0), a(100.0, 100.0, 100.0), a(96.0, 97.0, 106.0),
                         a(100.0, 100.0, 100.0))  # fmt: skip
    np.testing.assert_allclose(reward, [-6.0, 3.0, -9.0])


def test_round_end_reward_is_score_over_100() -> None:
    np.testing.assert_allclose(round_end_reward(a(150.0, 0.0, 62.5)), [1.5, 0.0, 0.625])


def test_brain_reward_uses_our_exact_hit_damage(make_view: ViewFactory) -> None:
    brain = Brain(V2, 1)
    brain.observe(make_view(turn_number=1, scanned=True, scan_x=600.0, scan_energy=100.0))
    assert brain.last_reward[0] == 0.0  # first tick of the round
    # we fired 2 (energy 98) and our earlier bullet hit for 10 after this tick's scan
    brain.observe(make_view(turn_number=2, energy=98.0, scanned=True, scan_x=600.0,
                            scan_energy=100.0, bullet_hit=True, bullet_hit_damage=10.0,
                            bullet_hit_power=2.0))  # fmt: skip
    assert brain.last_reward[0] == pytest.approx(-2.0 + 10.0)
    # we gain 3p = 6 from that hit (energy 104); the enemy is not scanned this turn
    brain.observe(make_view(turn_number=3, energy=104.0))
    assert brain.last_reward[0] == pytest.approx(6.0)
    # the next scan shows the enemy also fired 1.5 meanwhile
    brain.observe(make_view(turn_number=4, energy=104.0, scanned=True, scan_x=600.0,
                            scan_energy=88.5))  # fmt: skip
    assert brain.last_reward[0] == pytest.approx(1.5)


def test_reward_restarts_with_a_new_round(make_view: ViewFactory) -> None:
    brain = Brain(V2, 2)
    brain.observe(make_view(2, energy=100.0))
    brain.observe(make_view(2, energy=[90.0, 80.0]))
    np.testing.assert_allclose(brain.last_reward, [-10.0, -20.0])
    brain.reset(np.array([False, True]))
    brain.observe(make_view(2, energy=[85.0, 100.0]))
    np.testing.assert_allclose(brain.last_reward, [-5.0, 0.0])
