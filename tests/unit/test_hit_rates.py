"""Contract v5's hit-rate features (actor/hit_rates.py) on hand-built ticks: our shots and hits
move our rate, the enemy's detected shots and its hits on us move its rate, each new shot decays
the old counts, and a new round starts from the prior."""

import numpy as np
import pytest
from conftest import build_view

from tankrl.actor.expert import GotoAimExpert
from tankrl.actor.hit_rates import DECAY, PRIOR_RATE, PRIOR_SHOTS, HitRates
from tankrl.actor.native_env import NativeEnv
from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.config import ArenaConfig
from tankrl.shared.contracts import V5


class Bots:
    def __init__(self, n: int = 1) -> None:
        self.n, self.turn, self.energy = n, 10, 100.0
        self.tracker, self.rates = EnemyTracker(n), HitRates(n)

    def tick(self, enemy_fires: float = 0.0, **fields: object) -> np.ndarray:
        """One turn; the enemy's energy drops by `enemy_fires` (a shot the tracker detects)."""
        self.energy -= enemy_fires
        self.turn += 1
        view = build_view(
            self.n, turn_number=self.turn, scanned=True, scan_x=400.0, scan_y=500.0,
            scan_energy=self.energy, **fields,
        )  # fmt: skip
        self.tracker.update(view)
        return self.rates.update(view, self.tracker).copy()


def rate(hits: float, shots: float) -> float:
    return (hits + PRIOR_RATE * PRIOR_SHOTS) / (shots + PRIOR_SHOTS)


def test_a_round_starts_at_the_prior_and_our_hits_raise_our_rate() -> None:
    bots = Bots()
    np.testing.assert_allclose(bots.tick(), [[PRIOR_RATE], [PRIOR_RATE]])
    bots.tick(bullet_fired=True, fired_power=2.0)
    f = bots.tick(bullet_hit=True)  # that shot lands
    assert f[0, 0] == pytest.approx(rate(1.0, 1.0))
    f = bots.tick(bullet_fired=True, fired_power=2.0)  # a second shot decays the first
    assert f[0, 0] == pytest.approx(rate(DECAY, 1.0 + DECAY))
    assert f[1, 0] == PRIOR_RATE  # the enemy has not fired


def test_the_enemys_detected_shots_and_hits_on_us_set_its_rate() -> None:
    bots = Bots()
    bots.tick()
    f = bots.tick(enemy_fires=3.0)  # detected from the energy drop
    assert f[1, 0] == pytest.approx(rate(0.0, 1.0))
    f = bots.tick(hit_by_bullet=True, hit_by_bullet_power=3.0)
    assert f[1, 0] == pytest.approx(rate(1.0, 1.0))
    for _ in range(30):  # thirty misses: the hit has all but decayed away
        bots.tick()
        f = bots.tick(enemy_fires=1.0)
    assert f[1, 0] < 0.1 and f[0, 0] == PRIOR_RATE


def test_a_new_round_forgets_the_last_one_for_those_bots_only() -> None:
    bots = Bots(2)
    bots.tick(bullet_fired=True, fired_power=1.0)
    bots.tick(bullet_hit=True)
    bots.rates.reset(np.array([True, False]))
    np.testing.assert_allclose(bots.rates.features[:, 0], PRIOR_RATE)
    assert bots.rates.features[0, 1] == pytest.approx(rate(1.0, 1.0))


def test_in_the_engine_they_tell_surfer_from_a_simple_bot() -> None:
    """The demonstrator's rounds (native, 16 arenas, turns 150-400): Surfer's guess-factor gun hits
    us more often than MyFirstBot's, and we hit MyFirstBot more often than Surfer."""
    names = [f.name for f in V5.features]
    cols = [names.index("own_hit_rate"), names.index("enemy_hit_rate")]
    expert = GotoAimExpert(V5, 800, 600)
    means = {}
    for opponent in ("Surfer", "MyFirstBot"):
        env = NativeEnv(16, V5, (opponent,), ArenaConfig(), seed=3)
        obs, seen = env.reset(), []
        for t in range(400):
            obs = env.step(expert.actions(obs)).obs
            if t >= 150:
                seen.append(obs[:, cols])
        means[opponent] = np.concatenate(seen).mean(axis=0)
    assert means["Surfer"][1] > means["MyFirstBot"][1] + 0.05
    assert means["MyFirstBot"][0] > means["Surfer"][0] + 0.05
