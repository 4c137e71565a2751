"""actor.controllers: goto (forward/reverse choice with its hysteresis, steering, the
turn-limited speed, the sign-correct speed planner, arrival) and aimTo (direction and the +-20
cap), including gotos simulated with the server's speed rule. Tank Royale convention: a
positive rate turns left (counter-clockwise), so a target to the right gives a negative rate."""

import math

import numpy as np
import pytest

from tankrl.actor.controllers import aim_to, goto, goto_and_aim
from tankrl.shared.movement import max_turn_rate, new_target_speed, turn_limited_speed


def a(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def server_speed(v: float, t: float) -> float:
    """The official server's calcNewBotSpeed (docs/rules.md §4.1), as a test oracle."""
    if v < 0.0:
        return -server_speed(-v, -t)
    if v == 0.0:
        return max(-8.0, min(8.0, min(t, 1.0) if t >= 0.0 else max(t, -1.0)))
    if t > 0.0:
        return min(v + min(t - v, 1.0), 8.0) if t >= v else max(v + max(t - v, -2.0), -8.0)
    if t == 0.0:
        return 0.0
    return v / 2.0 - 1.0


def run_goto(x: float, y: float, heading: float, speed: float, tx: float, ty: float, turns: int):
    """Simulate `turns` turns: controller -> server speed -> move on the old heading -> turn."""
    trace = []
    for _ in range(turns):
        turn, target = goto(a(x), a(y), a(heading), a(speed), a(tx), a(ty))
        new_speed = server_speed(speed, float(target[0]))
        trace.append((speed, float(target[0]), new_speed))
        x += new_speed * math.cos(math.radians(heading))
        y += new_speed * math.sin(math.radians(heading))
        limit = max_turn_rate(new_speed)
        heading = (heading + max(-limit, min(limit, float(turn[0])))) % 360.0
        speed = new_speed
    return trace, (x, y, heading)


def test_target_ahead_drives_forward_and_turns_toward_it() -> None:
    left_turn, left_speed = goto(a(400), a(300), a(0), a(0), a(500), a(310))
    right_turn, right_speed = goto(a(400), a(300), a(0), a(0), a(500), a(290))
    assert left_speed[0] == 1.0 and right_speed[0] == 1.0
    assert left_turn[0] == pytest.approx(math.degrees(math.atan2(10, 100)))
    assert right_turn[0] == pytest.approx(-math.degrees(math.atan2(10, 100)))


def test_target_behind_reverses_and_steers_by_the_rear_bearing() -> None:
    turn, speed = goto(a(400), a(300), a(0), a(0), a(300), a(310))
    assert speed[0] == -1.0
    # raw bearing ~ +174.3; the rear of the bot points 5.7 deg to the right of the target
    assert turn[0] == pytest.approx(-math.degrees(math.atan2(10, 100)))


def test_turn_is_clamped_by_the_speed_dependent_limit() -> None:
    turn, _ = goto(a(400, 400), a(300, 300), a(0, 0), a(0, 8), a(400, 400), a(400, 400))
    np.testing.assert_allclose(turn, [10.0, 4.0])


def test_close_target_ramps_speed_down() -> None:
    _, speed = goto(
        a(400, 400, 400),
        a(300, 300, 300),
        a(0, 0, 0),
        a(8, 8, 8),
        a(410, 416, 600),
        a(300, 300, 300),
    )
    np.testing.assert_allclose(speed, [6.0, 7.0, 8.0])
    np.testing.assert_array_equal(speed, new_target_speed(a(8, 8, 8), a(10, 16, 200)))


@pytest.mark.parametrize(("speed", "expected"), [(0.0, 0.0), (5.0, 3.0), (-5.0, -3.0), (1.5, 0.0)])
def test_target_at_own_position_brakes_without_turning(speed: float, expected: float) -> None:
    for tx in (400.0, 400.5, 399.2):  # within 1 unit, ahead or behind
        turn, target = goto(a(400), a(300), a(30), a(speed), a(tx), a(300))
        assert turn[0] == 0.0
        assert target[0] == expected


def test_goto_100_straight_ahead_follows_the_planner_profile_and_stops_on_the_point() -> None:
    trace, (x, y, heading) = run_goto(100.0, 300.0, 0.0, 0.0, 200.0, 300.0, turns=25)
    speeds = [new for _, _, new in trace]
    assert speeds[:19] == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 7, 5, 3, 1, 0]
    assert speeds[19:] == [0] * 6
    positions = np.cumsum(speeds) + 100.0
    assert positions.max() == 200.0  # never overshoots
    assert (x, y, heading) == (200.0, 300.0, 0.0)


def test_reversal_at_full_speed_never_requests_the_opposite_sign_while_fast() -> None:
    trace, (x, y, heading) = run_goto(400.0, 300.0, 0.0, 8.0, 150.0, 300.0, turns=60)
    for speed, target, _ in trace:
        if abs(speed) > 2.0:
            assert math.copysign(1.0, target) == math.copysign(1.0, speed) and target != 0.0
    new_speeds = [new for _, _, new in trace]
    assert new_speeds[:4] == [6.0, 4.0, 2.0, 0.0]  # brakes by 2, no zero-crossing super brake
    assert min(new_speeds) == -8.0  # then drives backwards at full speed
    assert abs(x - 150.0) < 1.0 and y == 300.0 and heading == 0.0  # arrived, never turned round


def test_moving_forward_keeps_driving_forward_until_the_target_is_165_deg_off() -> None:
    # at speed 6, targets 100 away at bearings 120 and 170 (left): turn forward, then reverse
    x, y, heading = a(400, 400), a(300, 300), a(0, 0)
    tx, ty = 400 + 100 * np.cos(np.radians([120, 170])), 300 + 100 * np.sin(np.radians([120, 170]))
    turn, target = goto(x, y, heading, a(6, 6), tx, ty)
    assert target[0] > 0 and turn[0] == pytest.approx(max_turn_rate(6.0))  # turns left, forward
    assert 0 < target[1] == 4.0  # reversing: brakes by 2 first
    # moving backwards the same: keep reversing unless the target is within 15 deg of the nose
    # (the rear sees the targets at -60 and -10 deg; the first caps the speed to turn onto it)
    turn, target = goto(x, y, heading, a(-6, -6), tx, ty)
    assert target[0] == pytest.approx(-turn_limited_speed(100.0, 60.0)) and target[1] == -7.0


def test_target_off_to_the_side_slows_the_bot_to_turn_onto_it() -> None:
    # full speed, the point 60 away square to the left: brake and turn, never reverse, arrive
    trace, (x, y, _) = run_goto(400.0, 300.0, 0.0, 8.0, 400.0, 360.0, turns=60)
    speeds = [new for _, _, new in trace]
    assert min(speeds) >= 0.0 and speeds[:2] == [6.0, 4.0]
    assert math.hypot(x - 400.0, y - 360.0) < 1.0


def test_goto_drives_round_a_point_behind_without_reversing_while_fast() -> None:
    # a point 60 behind and 40 to the side at full speed: slows and turns round, forward
    trace, (x, y, _) = run_goto(400.0, 300.0, 0.0, 8.0, 340.0, 340.0, turns=80)
    assert min(new for _, _, new in trace) >= 0.0
    assert math.hypot(x - 340.0, y - 340.0) < 1.0


def test_aim_to_turns_toward_the_point_and_caps_at_20() -> None:
    x, y, gun = a(400, 400, 400, 400, 400), a(300, 300, 300, 300, 300), a(0, 0, 0, 0, 0)
    rate = aim_to(x, y, gun, a(500, 500, 500, 500, 300), a(310, 290, 300, 400, 300))
    expected_small = math.degrees(math.atan2(10, 100))
    np.testing.assert_allclose(rate, [expected_small, -expected_small, 0.0, 20.0, -20.0])


def test_aim_rate_is_always_within_20() -> None:
    rng = np.random.default_rng(0)
    n = 10_000
    rate = aim_to(
        rng.uniform(0, 800, n), rng.uniform(0, 600, n), rng.uniform(0, 360, n),
        rng.uniform(0, 800, n), rng.uniform(0, 600, n),
    )  # fmt: skip
    assert np.abs(rate).max() <= 20.0


def test_goto_and_aim_equals_the_two_controllers() -> None:
    rng = np.random.default_rng(1)
    n = 500
    x, y, body, gun = (rng.uniform(0, 800, n), rng.uniform(0, 600, n), rng.uniform(0, 360, n),
                       rng.uniform(0, 360, n))  # fmt: skip
    speed = rng.uniform(-8, 8, n)
    px, py = rng.uniform(0, 800, (2, n)), rng.uniform(0, 600, (2, n))
    turn, target, gun_rate = goto_and_aim(x, y, np.stack([body, gun]), speed, px, py)
    want_turn, want_target = goto(x, y, body, speed, px[0], py[0])
    np.testing.assert_array_equal(turn, want_turn)
    np.testing.assert_array_equal(target, want_target)
    np.testing.assert_array_equal(gun_rate, aim_to(x, y, gun, px[1], py[1]))
