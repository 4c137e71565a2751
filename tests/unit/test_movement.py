"""shared.movement: the speed planner, turn limits and stop distance against every test vector in
docs/rules.md §A and against the official Bot API wheel (IntentValidator) on random inputs."""

import math

import numpy as np
import pytest

from tankrl.shared.movement import (
    distance_until_stop,
    max_speed_for_distance,
    max_turn_rate,
    new_target_speed,
    turn_limited_speed,
)


@pytest.mark.parametrize(
    ("speed", "expected"),
    [(0.0, 10.0), (1.0, 9.25), (4.0, 7.0), (5.0, 6.25), (8.0, 4.0), (-8.0, 4.0), (12.0, 4.0)],
)
def test_max_turn_rate(speed: float, expected: float) -> None:
    assert max_turn_rate(speed) == expected


@pytest.mark.parametrize(
    ("distance", "expected"),
    [(0, 0), (1, 1), (2, 2), (3, 2.5), (4, 3), (6, 4), (9, 5), (12, 6), (16, 7), (20, 8), (30, 10)],
)
def test_max_speed_for_distance_samples(distance: float, expected: float) -> None:
    assert max_speed_for_distance(float(distance)) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("speed", "distance", "max_speed", "expected"),
    [
        (0.0, 100.0, 8.0, 1.0),  # shared vectors
        (8.0, 0.0, 8.0, 6.0),
        (8.0, 100.0, 4.0, 6.0),
        (0.0, -100.0, 8.0, -1.0),
        (8.0, 14.0, 8.0, 6.5),  # observed table
        (8.0, 16.0, 8.0, 7.0),
        (8.0, 20.0, 8.0, 8.0),
        (8.0, 1000.0, 5.0, 6.0),
        (-1.0, 100.0, 8.0, 0.5),
        (-0.5, 100.0, 8.0, 0.75),
        (-3.0, 100.0, 8.0, -1.0),
        (3.0, -math.inf, 8.0, 1.0),
        (0.0, math.inf, 8.0, 1.0),
    ],
)
def test_new_target_speed_vectors(
    speed: float, distance: float, max_speed: float, expected: float
) -> None:
    result = new_target_speed(speed, distance, max_speed)
    assert type(result) is float
    assert result == pytest.approx(expected)


def test_speed_profile_from_rest_to_100_sums_to_exactly_100() -> None:
    speed, remaining, profile = 0.0, 100.0, []
    while True:
        speed = new_target_speed(speed, remaining)
        profile.append(speed)
        remaining -= speed
        if speed == 0.0:
            break
    assert profile == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 7, 5, 3, 1, 0]
    assert sum(profile) == 100.0
    assert all(type(s) is float for s in profile)


@pytest.mark.parametrize(("speed", "expected"), [(8.0, 12.0), (2.0, 0.0), (-8.0, 12.0)])
def test_distance_until_stop(speed: float, expected: float) -> None:
    result = distance_until_stop(speed)
    assert type(result) is float
    assert result == expected


def test_arrays_in_arrays_out() -> None:
    result = new_target_speed(np.array([0.0, 8.0]), np.array([100.0, 0.0]))
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, [1.0, 6.0])


def test_non_finite_inputs_raise_naming_the_argument() -> None:
    with pytest.raises(ValueError, match="speed"):
        max_turn_rate(math.nan)
    with pytest.raises(ValueError, match="speed"):
        new_target_speed(math.inf, 10.0)
    with pytest.raises(ValueError, match="distance"):
        new_target_speed(0.0, math.nan)
    with pytest.raises(ValueError, match="distance"):
        new_target_speed(np.zeros(2), np.array([1.0, math.nan]))
    with pytest.raises(ValueError, match="max_speed"):
        new_target_speed(0.0, 10.0, math.inf)
    with pytest.raises(ValueError, match="distance"):
        max_speed_for_distance(math.inf)


def test_turn_limited_speed_drives_through_the_point_on_the_tightest_circle() -> None:
    rng = np.random.default_rng(3)
    distance, bearing = rng.uniform(1.0, 400.0, 1000), rng.uniform(-180.0, 180.0, 1000)
    v = turn_limited_speed(distance, bearing)
    # at speed v the tightest circle (radius v / maxTurn(v) in radians) is the one tangent to
    # the heading through the point: radius d / (2 |sin bearing|)
    radius = v / np.radians(max_turn_rate(np.minimum(v, 8.0)))
    through = distance / (2.0 * np.abs(np.sin(np.radians(bearing))))
    slow = v < 8.0
    np.testing.assert_allclose(radius[slow], through[slow], rtol=1e-9)
    assert turn_limited_speed(100.0, 0.0) == pytest.approx(10.0 / 0.75)  # straight ahead
    assert turn_limited_speed(0.0, 0.0) == 0.0 and turn_limited_speed(0.0, 90.0) == 0.0
    assert turn_limited_speed(50.0, 90.0) < turn_limited_speed(50.0, 30.0) < 8.0
    with pytest.raises(ValueError, match="bearing_deg"):
        turn_limited_speed(10.0, math.nan)


def _random_planner_inputs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    speed = rng.uniform(-12.0, 12.0, n)
    speed[: n // 10] = np.round(speed[: n // 10])  # integer speeds hit the branch edges
    distance = np.concatenate(
        [
            rng.uniform(-300.0, 300.0, n // 2),
            rng.uniform(-3.0, 3.0, n // 4),
            np.round(rng.uniform(-40.0, 40.0, n - n // 2 - n // 4)),
        ]
    )
    distance[rng.random(n) < 0.05] = math.inf
    distance[rng.random(n) < 0.05] = -math.inf
    max_speed = rng.uniform(0.0, 8.0, n)
    max_speed[rng.random(n) < 0.3] = 8.0
    return speed, distance, max_speed


def test_planner_matches_the_official_wheel() -> None:
    validator = pytest.importorskip(
        "robocode_tank_royale.bot_api.internal.intent_validator"
    ).IntentValidator
    speed, distance, max_speed = _random_planner_inputs(4000, seed=7)
    ours = new_target_speed(speed, distance, max_speed)
    for i in range(speed.size):
        theirs = validator.get_new_target_speed(
            float(speed[i]), float(distance[i]), float(max_speed[i])
        )
        assert ours[i] == pytest.approx(theirs, rel=1e-12, abs=1e-12), (
            speed[i],
            distance[i],
            max_speed[i],
        )
        scalar = new_target_speed(float(speed[i]), float(distance[i]), float(max_speed[i]))
        assert scalar == ours[i]


def test_stop_distance_matches_the_official_wheel() -> None:
    validator = pytest.importorskip(
        "robocode_tank_royale.bot_api.internal.intent_validator"
    ).IntentValidator
    rng = np.random.default_rng(8)
    speeds = np.concatenate([rng.uniform(-10.0, 10.0, 2000), np.arange(-8.0, 8.5, 0.5)])
    ours = distance_until_stop(speeds)
    for s, d in zip(speeds, ours, strict=True):
        assert d == pytest.approx(validator.get_distance_traveled_until_stop(float(s), 8.0))
