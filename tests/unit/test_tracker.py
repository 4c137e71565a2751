"""actor.tracker.EnemyTracker: radar sweep / lock / widen (against a geometric model of the
server's scan), dead reckoning, the history window, the exact energy estimate and fire detection
with every false positive the rules allow (our bullets, rams, walls, inactivity zaps, its gains)."""

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import BotView

ViewFactory = Callable[..., BotView]

SCAN_RADIUS, BOT_RADIUS = 1200.0, 18.0


def _segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def in_scan(x: float, y: float, radar_before: float, sweep: float, ex: float, ey: float) -> bool:
    """docs/rules.md §5: the enemy's 18-unit circle touches the sector swept from radar_before."""
    if math.hypot(ex - x, ey - y) > SCAN_RADIUS + BOT_RADIUS:
        return False
    start = radar_before if sweep >= 0 else radar_before + sweep
    angle = math.degrees(math.atan2(ey - y, ex - x))
    if sweep != 0.0 and (angle - start) % 360.0 <= abs(sweep):
        return True
    for arm in (start, start + abs(sweep)):
        end_x = x + SCAN_RADIUS * math.cos(math.radians(arm))
        end_y = y + SCAN_RADIUS * math.sin(math.radians(arm))
        if _segment_distance(ex, ey, x, y, end_x, end_y) <= BOT_RADIUS:
            return True
    return False


def play(
    make_view: ViewFactory, turns: int, enemy: Any, own: Any, radar: float = 10.0
) -> list[bool]:
    """Turn 1 (nobody moves, no scan), then `turns` turns with the tracker's radar rate."""
    tracker = EnemyTracker(1)
    tracker.update(make_view(turn_number=1, radar_direction=radar))
    scans = []
    for turn in range(2, turns + 2):
        rate = float(tracker.radar_turn_rate()[0])
        assert abs(rate) <= 45.0
        (x, y, heading, speed), (ex, ey, eh, es) = own(turn), enemy(turn)
        seen = in_scan(x, y, radar, rate, ex, ey)
        radar = (radar + rate) % 360.0
        scans.append(seen)
        view = make_view(
            turn_number=turn, x=x, y=y, direction=heading, speed=speed, radar_direction=radar,
            scanned=seen, scan_x=ex, scan_y=ey, scan_direction=eh, scan_speed=es,
        )  # fmt: skip
        tracker.update(view)
    return scans


def still(x: float, y: float) -> Any:
    return lambda turn: (x, y, 0.0, 0.0)


def circling(cx: float, cy: float, r: float, deg_per_turn: float) -> Any:
    def at(turn: int) -> tuple[float, float, float, float]:
        a = math.radians(deg_per_turn * turn)
        speed = 2 * r * math.sin(math.radians(deg_per_turn) / 2)
        return cx + r * math.cos(a), cy + r * math.sin(a), (math.degrees(a) + 90) % 360, speed

    return at


def test_radar_sweeps_45_until_the_first_scan(make_view: ViewFactory) -> None:
    tracker = EnemyTracker(2)
    rates = []
    for turn in range(1, 10):
        tracker.update(make_view(2, turn_number=turn, radar_direction=(45.0 * turn) % 360))
        rates.append(tracker.radar_turn_rate().copy())
    rates_arr = np.array(rates)
    assert np.all(np.abs(rates_arr) == 45.0)
    assert np.all(rates_arr == rates_arr[0])  # one direction, no back and forth


def test_lock_scans_a_stationary_enemy_every_turn(make_view: ViewFactory) -> None:
    scans = play(make_view, 80, enemy=lambda t: (600.0, 450.0, 0.0, 0.0), own=still(200.0, 300.0))
    first = scans.index(True)
    assert first <= 8  # a full circle takes 8 turns at 45
    assert all(scans[first:])


def test_lock_holds_on_a_circling_enemy_while_we_drive(make_view: ViewFactory) -> None:
    def own(turn: int) -> tuple[float, float, float, float]:
        return 100.0 + 8.0 * turn, 100.0, 0.0, 8.0

    scans = play(make_view, 70, enemy=circling(450.0, 400.0, 100.0, 4.0), own=own)
    first = scans.index(True)
    assert first <= 8
    assert all(scans[first:])


@pytest.mark.parametrize(("radar_at_loss", "sign"), [(75.0, 1.0), (105.0, -1.0)])
def test_radar_widens_after_two_missed_turns_toward_the_last_bearing(
    make_view: ViewFactory, radar_at_loss: float, sign: float
) -> None:
    tracker = EnemyTracker(1)
    seen = {"scanned": True, "scan_x": 400.0, "scan_y": 500.0}  # due north, 200 away
    for turn in range(1, 4):
        tracker.update(make_view(turn_number=turn, radar_direction=80.0, **seen))
    locked = float(tracker.radar_turn_rate()[0])
    assert locked == pytest.approx(10.0 + math.degrees(math.atan(36.0 / 200.0)))  # + overshoot
    tracker.update(make_view(turn_number=4, radar_direction=radar_at_loss))
    assert abs(tracker.radar_turn_rate()[0]) < 45.0  # one miss: still aiming at the estimate
    radar = radar_at_loss
    for turn in range(5, 13):
        tracker.update(make_view(turn_number=turn, radar_direction=radar))
        assert tracker.radar_turn_rate()[0] == sign * 45.0  # one direction, a full circle
        radar = (radar + sign * 45.0) % 360.0
    tracker.update(make_view(turn_number=13, radar_direction=radar, **seen))
    assert abs(tracker.radar_turn_rate()[0]) < 45.0  # found again: locked


def test_dead_reckoning_moves_the_estimate_and_stays_in_the_arena(make_view: ViewFactory) -> None:
    tracker = EnemyTracker(2)
    tracker.update(
        make_view(2, turn_number=1, scanned=True, scan_x=[400.0, 770.0], scan_y=300.0,
                   scan_direction=[90.0, 0.0], scan_speed=8.0)
    )  # fmt: skip
    for turn, (y0, x1) in enumerate([(308.0, 778.0), (316.0, 782.0), (324.0, 782.0)], start=2):
        tracker.update(make_view(2, turn_number=turn))
        assert tracker.x[0] == pytest.approx(400.0) and tracker.y[0] == pytest.approx(y0)
        assert tracker.x[1] == pytest.approx(x1) and tracker.y[1] == 300.0
    assert list(tracker.turns_since_scan) == [3, 3]


def test_history_holds_the_previous_five_estimates(make_view: ViewFactory) -> None:
    tracker = EnemyTracker(1)
    tracker.update(make_view(turn_number=1))
    before = tracker.history()[:, 0].reshape(5, 4)
    np.testing.assert_array_equal(before, [[400.0, 300.0, 0.0, 100.0]] * 5)  # defaults
    for turn in range(2, 9):
        tracker.update(
            make_view(turn_number=turn, scanned=True, scan_x=100.0 + 10 * turn, scan_y=200.0,
                       scan_speed=float(turn), scan_energy=100.0 - turn)
        )  # fmt: skip
    history = tracker.history()[:, 0].reshape(5, 4)  # t-1 .. t-5 after the scan of turn 8
    for age, row in enumerate(history, start=1):
        turn = 8 - age
        np.testing.assert_allclose(row, [100.0 + 10 * turn, 200.0, turn, 100.0 - turn])


def scans(make_view: ViewFactory, energies: list[float], **per_tick: list[Any]) -> EnemyTracker:
    """A tracker fed one scanned tick per energy; per_tick gives other fields tick by tick."""
    tracker = EnemyTracker(1)
    for i, energy in enumerate(energies):
        fields = {k: v[i] for k, v in per_tick.items()}
        fields.setdefault("turn_number", 100 + i)
        fields.setdefault("scanned", True)
        fields.setdefault("scan_x", 600.0)
        fields.setdefault("scan_y", 300.0)
        tracker.update(make_view(scan_energy=energy, **fields))
    return tracker


def test_fire_detection_finds_a_two_point_drop(make_view: ViewFactory) -> None:
    assert scans(make_view, [100.0, 98.0]).fire_power[0] == pytest.approx(2.0)
    assert scans(make_view, [100.0, 99.9]).fire_power[0] == pytest.approx(0.1)
    assert scans(make_view, [100.0, 100.0]).fire_power[0] == 0.0
    assert scans(make_view, [100.0, 96.0]).fire_power[0] == 0.0  # more than 3: not a shot
    assert scans(make_view, [98.0]).fire_power[0] == 0.0  # first scan: nothing to compare


def test_fire_detection_over_missed_turns(make_view: ViewFactory) -> None:
    tracker = scans(make_view, [100.0, 0.0, 98.5], scanned=[True, False, True])
    assert tracker.fire_power[0] == pytest.approx(1.5)


def test_our_bullet_damage_is_not_a_shot(make_view: ViewFactory) -> None:
    # our bullet hits after the scan of tick 1; the scan of tick 2 shows it
    hit = {"bullet_hit": [False, True, False], "bullet_hit_damage": [0.0, 4.0, 0.0]}
    assert scans(make_view, [100.0, 100.0, 96.0], **hit).fire_power[0] == 0.0
    assert scans(make_view, [100.0, 100.0, 94.0], **hit).fire_power[0] == pytest.approx(2.0)


def test_its_gain_from_hitting_us_does_not_hide_a_shot(make_view: ViewFactory) -> None:
    gain = {"hit_by_bullet": [True, False], "hit_by_bullet_power": [2.0, 0.0]}
    assert scans(make_view, [100.0, 105.0], **gain).fire_power[0] == pytest.approx(1.0)
    assert scans(make_view, [100.0, 106.0], **gain).fire_power[0] == 0.0


def test_a_ram_is_not_a_shot(make_view: ViewFactory) -> None:
    ram = {"hit_bot": [False, True], "hit_bot_energy": [0.0, 99.4]}
    assert scans(make_view, [100.0, 99.4], **ram).fire_power[0] == 0.0
    assert scans(make_view, [100.0, 98.4], **ram).fire_power[0] == pytest.approx(1.0)


def test_a_wall_hit_is_not_a_shot(make_view: ViewFactory) -> None:
    wall = {"scan_x": [770.0, 782.0], "scan_speed": [8.0, 0.0]}
    assert scans(make_view, [100.0, 97.0], **wall).fire_power[0] == 0.0
    assert scans(make_view, [100.0, 96.5], **wall).fire_power[0] == pytest.approx(0.5)
    stopped_mid_field = {"scan_x": [500.0, 508.0], "scan_speed": [8.0, 0.0]}
    assert scans(make_view, [100.0, 97.0], **stopped_mid_field).fire_power[0] == pytest.approx(3.0)


def zapped_energies(turns: range, last_hit: int = 0) -> list[float]:
    """The enemy energy each scan shows: zaps happen after the scan, from turn last_hit + 451."""
    first_zap = last_hit + 451 if last_hit else 452
    return [100.0 - 0.1 * max(0, t - first_zap) for t in turns]


def test_inactivity_zaps_are_not_shots(make_view: ViewFactory) -> None:
    turns = range(440, 480)
    tracker = EnemyTracker(1)
    for turn, energy in zip(turns, zapped_energies(turns), strict=True):
        tracker.update(make_view(turn_number=turn, scanned=True, scan_x=600.0, scan_energy=energy))
        assert tracker.fire_power[0] == 0.0, turn
    assert tracker.energy[0] == pytest.approx(100.0 - 0.1 * (479 - 452 + 1))


def test_a_bullet_hit_restarts_the_inactivity_count(make_view: ViewFactory) -> None:
    turns = range(200, 680)
    tracker = EnemyTracker(1)
    for turn, energy in zip(turns, zapped_energies(turns, last_hit=200), strict=True):
        hit = turn == 200
        scanned = energy - 4.0 * (turn > 200)  # our hit of turn 200 shows from scan 201 on
        tracker.update(
            make_view(turn_number=turn, scanned=True, scan_x=600.0, scan_energy=scanned,
                      bullet_hit=hit, bullet_hit_damage=4.0 * hit)
        )  # fmt: skip
        assert tracker.fire_power[0] == 0.0, turn


def test_energy_estimate_applies_our_hits_at_once(make_view: ViewFactory) -> None:
    tracker = scans(make_view, [100.0, 0.0], scanned=[True, False], bullet_hit=[False, True],
                    bullet_hit_damage=[0.0, 10.0])  # fmt: skip
    assert tracker.energy[0] == pytest.approx(90.0)


def test_reset_forgets_only_the_masked_bots(make_view: ViewFactory) -> None:
    tracker = EnemyTracker(2)
    tracker.update(make_view(2, turn_number=1, scanned=True, scan_x=100.0, scan_energy=50.0))
    tracker.reset(np.array([True, False]))
    assert list(tracker.known) == [False, True]
    assert tracker.x[0] == 400.0 and tracker.energy[0] == 100.0
    assert tracker.x[1] == 100.0 and tracker.energy[1] == 50.0
    assert tracker.radar_turn_rate()[0] == 45.0
