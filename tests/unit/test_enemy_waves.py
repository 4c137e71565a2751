"""Contract v3's wave features (actor/enemy_waves.py) on hand-built ticks: a shot the tracker
detects becomes a wave from where the enemy stood, whose time to reach us counts down at the
bullet's speed and disappears once it has passed; where we stand on it is a guess factor signed
by the way we were moving; the enemy's lateral speed and reversal age follow its scans."""

import math

import numpy as np
import pytest
from conftest import build_view

from tankrl.actor.enemy_waves import ETA_TURNS, EnemyWaves
from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.game_constants import bullet_speed

ENEMY = (400.0, 500.0)  # 200 north of us (we stand at 400, 300)


def tick(tracker: EnemyTracker, waves: EnemyWaves, turn: int, **fields: object) -> np.ndarray:
    view = build_view(turn_number=turn, scanned=True, scan_x=ENEMY[0], scan_y=ENEMY[1], **fields)
    tracker.update(view)
    return waves.update(view, tracker).copy()


def test_a_detected_shot_is_a_wave_that_reaches_us_at_the_bullets_speed() -> None:
    tracker, waves = EnemyTracker(1), EnemyWaves(1)
    assert tick(tracker, waves, 10, scan_energy=100.0)[0, 0] == 1.0  # no wave yet
    f = tick(tracker, waves, 11, scan_energy=97.5)  # a 2.5 shot, fired in turn 11 from (400, 500)
    speed = bullet_speed(2.5)
    assert f[0, 0] == pytest.approx((200.0 - speed) / speed / ETA_TURNS)
    f = tick(tracker, waves, 12, scan_energy=97.5)
    assert f[0, 0] == pytest.approx((200.0 - 2 * speed) / speed / ETA_TURNS)
    turns = math.ceil(200.0 / speed)
    assert tick(tracker, waves, 10 + turns + 1, scan_energy=97.5)[0, 0] == 1.0  # passed us
    assert tick(tracker, waves, 10 + turns + 2, scan_energy=97.5)[1, 0] == 0.0


def test_where_we_stand_on_the_wave_is_a_guess_factor_signed_by_our_direction() -> None:
    tracker, waves = EnemyTracker(1), EnemyWaves(1)
    # moving east (heading 0) at 8: counter-clockwise around an enemy to our north
    tick(tracker, waves, 10, speed=8.0, direction=0.0)
    tick(tracker, waves, 11, speed=8.0, direction=0.0, scan_energy=98.0, x=420.0)
    f = tick(tracker, waves, 12, speed=8.0, direction=0.0, scan_energy=98.0, x=460.0)
    # fired from (400, 500) at us at (400, 300): 40 units east the angle is atan(40 / 200) ...
    angle = math.atan2(300.0 - 500.0, 460.0 - 400.0) - math.atan2(300.0 - 500.0, 400.0 - 400.0)
    escape = math.asin(8.0 / bullet_speed(2.0))
    assert f[1, 0] == pytest.approx(angle / escape)  # ... forward (+) in our direction
    assert f[1, 0] > 0.0


def test_the_enemys_lateral_speed_and_reversal_age() -> None:
    tracker, waves = EnemyTracker(1), EnemyWaves(1)
    f = tick(tracker, waves, 10, scan_speed=6.0, scan_direction=0.0)  # east: clockwise around us
    assert f[2, 0] == pytest.approx(-6.0 / 8.0)
    f = tick(tracker, waves, 40, scan_speed=6.0, scan_direction=0.0)
    assert f[3, 0] == pytest.approx(30.0 / 60.0)  # 30 turns since it set off that way
    f = tick(tracker, waves, 41, scan_speed=6.0, scan_direction=180.0)  # it reversed
    assert f[2, 0] == pytest.approx(6.0 / 8.0) and f[3, 0] == 0.0
    waves.reset(np.ones(1, dtype=np.bool_))
    assert waves.features[:, 0].tolist() == [1.0, 0.0, 0.0, 0.0]
