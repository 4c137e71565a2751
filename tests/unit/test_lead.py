"""Contract v4's lead aiming (actor/lead.py, the goto/lead decoder, the demonstrator under v4):
a standing enemy is aimed at whatever the lead, lead 1 meets an enemy that keeps its velocity,
and the demonstrator plays v4 exactly as it plays v3."""

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from tankrl.actor.actions import ActionDecoder
from tankrl.actor.expert import LEAD, GotoAimExpert
from tankrl.actor.lead import lead_point
from tankrl.actor.native_env import NativeEnv
from tankrl.shared.botview import BotView
from tankrl.shared.config import ArenaConfig
from tankrl.shared.contracts import V4, get_contract
from tankrl.shared.game_constants import BOT_RADIUS, bullet_speed

ViewFactory = Callable[..., BotView]


def _arrays(*values: float) -> list[np.ndarray]:
    return [np.array([v], dtype=np.float64) for v in values]


@pytest.mark.parametrize("lead", [-1.5, 0.0, 0.75, 1.5])
def test_a_standing_enemy_is_aimed_at_whatever_the_lead(lead: float) -> None:
    ox, oy, ex, ey, vx, vy, k, p = _arrays(100, 100, 500, 400, 0, 0, lead, 2)
    px, py = lead_point(ox, oy, ex, ey, vx, vy, k, p, 800.0, 600.0)
    assert (px[0], py[0]) == (500.0, 400.0)


def test_lead_one_meets_an_enemy_that_keeps_its_velocity() -> None:
    ox, oy, ex, ey, vx, vy, k, p = _arrays(100, 150, 500, 150, 0, 8, 1, 3)
    px, py = lead_point(ox, oy, ex, ey, vx, vy, k, p, 800.0, 600.0)
    flight = np.hypot(px - ox, py - oy) / bullet_speed(p)
    # where the enemy is when a bullet aimed at (px, py) arrives there: within its radius after
    # the 3 fixed-point steps, so the bullet hits
    assert px[0] == 500.0
    assert abs(py[0] - (ey[0] + vy[0] * flight[0])) < BOT_RADIUS
    assert py[0] > 400.0  # a real lead: 8 u/turn over ~40 turns of flight


def test_the_aim_point_stays_inside_the_walls() -> None:
    ox, oy, ex, ey, vx, vy, k, p = _arrays(100, 300, 700, 560, 8, 8, 1.5, 0.1)
    px, py = lead_point(ox, oy, ex, ey, vx, vy, k, p, 800.0, 600.0)
    assert (px[0], py[0]) == (800.0 - 18.0, 600.0 - 18.0)


@dataclasses.dataclass
class Enemy:
    x: np.ndarray
    y: np.ndarray
    speed: np.ndarray
    direction: np.ndarray


def test_the_v4_decoder_aims_by_the_decoded_lead_and_power(make_view: ViewFactory) -> None:
    view = make_view(2, x=np.array([100.0, 100.0]), y=np.array([200.0, 200.0]))
    enemy = Enemy(*(np.array(v) for v in ([500.0] * 2, [200.0] * 2, [8.0] * 2, [90.0] * 2)))
    raw = np.zeros((2, V4.action_size), dtype=np.float32)
    raw[1, 2] = np.arctanh(1.0 / 1.5)  # lead 1 in the second row, 0 (head-on) in the first
    raw[:, 4] = 6.0  # fire power ~3
    decoder = ActionDecoder(V4, 2)
    decoder.decode(raw, view, enemy)
    t = decoder.targets
    power = np.full(2, 0.1 + 2.9 / (1.0 + np.exp(-6.0)))
    vx, vy = 8.0 * np.cos(np.radians(enemy.direction)), 8.0 * np.sin(np.radians(enemy.direction))
    lead = np.array([0.0, 1.0])
    want = lead_point(view.x, view.y, enemy.x, enemy.y, vx, vy, lead, power, 800.0, 600.0)
    np.testing.assert_allclose(t.aim_x, want[0], atol=1e-6)
    np.testing.assert_allclose(t.aim_y, want[1], atol=1e-6)
    assert t.aim_y[0] == 200.0 and t.aim_y[1] > 350.0
    with pytest.raises(ValueError, match="pass the enemy"):
        decoder.decode(raw, view)


def test_the_demonstrator_plays_v4_exactly_as_v3() -> None:
    outcomes = []
    for name in ("v3", "v4"):
        env = NativeEnv(8, name, ("SpinBot", "Surfer"), ArenaConfig(max_turns_per_round=600), 5)
        expert = GotoAimExpert(env.contract, 800, 600)
        obs, won, turns = env.reset(), [], []
        for _ in range(700):
            r = env.step(expert.actions(obs))
            obs = r.obs
            done = r.terminated | r.truncated
            o = env.outcomes()[0]
            won += list(o.won[done])
            turns += list(o.turns[done])
        outcomes.append((won, turns))
    assert len(outcomes[0][0]) >= 8
    assert outcomes[0] == outcomes[1]


def test_the_demonstrator_leads_by_its_own_fraction_under_v4() -> None:
    expert = GotoAimExpert(get_contract("v4"), 800, 600)
    obs = np.random.default_rng(0).uniform(0, 1, (5, V4.obs_size)).astype(np.float32)
    lead = 1.5 * np.tanh(expert.actions(obs)[:, 2])
    np.testing.assert_allclose(lead, LEAD, rtol=1e-6)
