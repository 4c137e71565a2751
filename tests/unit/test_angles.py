"""shared.angles: every angle test vector in docs/rules.md §A (normalisation edge cases,
directionTo, bearings with positive = left, calcDeltaAngle) and ValueError naming a non-finite
argument."""

import math

import numpy as np
import pytest

from tankrl.shared.angles import (
    bearing_to,
    calc_bearing,
    calc_delta_angle,
    direction_to,
    normalize_absolute_angle,
    normalize_relative_angle,
)


@pytest.mark.parametrize(
    ("angle", "expected"),
    [(0.0, 0.0), (360.0, 0.0), (-90.0, 270.0), (725.0, 5.0), (-1e-20, 0.0), (359.5, 359.5)],
)
def test_normalize_absolute_angle_folds_into_0_360(angle: float, expected: float) -> None:
    result = normalize_absolute_angle(angle)
    assert result == expected
    assert 0.0 <= result < 360.0


@pytest.mark.parametrize(
    ("angle", "expected"),
    [
        (180.0, -180.0),
        (-180.0, -180.0),
        (190.0, -170.0),
        (-190.0, 170.0),
        (540.0, -180.0),
        (360.0, 0.0),
        (179.0, 179.0),
        (-179.0, -179.0),
    ],
)
def test_normalize_relative_angle_folds_into_minus_180_180(angle: float, expected: float) -> None:
    assert normalize_relative_angle(angle) == expected


def test_angles_accept_arrays_elementwise() -> None:
    angles = np.array([180.0, -190.0, 540.0, 360.0])
    np.testing.assert_array_equal(normalize_relative_angle(angles), [-180.0, 170.0, -180.0, 0.0])
    np.testing.assert_array_equal(normalize_absolute_angle(angles), [180.0, 170.0, 180.0, 0.0])


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (10.0, 0.0, 0.0),
        (0.0, 10.0, 90.0),
        (-10.0, 0.0, 180.0),
        (0.0, -10.0, 270.0),
        (5.0, 5.0, 45.0),
    ],
)
def test_direction_to_is_counter_clockwise_from_east(x: float, y: float, expected: float) -> None:
    assert direction_to(0.0, 0.0, x, y) == pytest.approx(expected)


def test_bearing_is_positive_to_the_left() -> None:
    # facing east: north is on the left (+90), south on the right (-90)
    assert bearing_to(0.0, 0.0, 0.0, 0.0, 10.0) == pytest.approx(90.0)
    assert bearing_to(0.0, 0.0, 0.0, 0.0, -10.0) == pytest.approx(-90.0)
    # facing north: west is on the left
    assert bearing_to(100.0, 100.0, 90.0, 50.0, 100.0) == pytest.approx(90.0)
    assert calc_bearing(10.0, 350.0) == pytest.approx(20.0)
    assert calc_bearing(350.0, 10.0) == pytest.approx(-20.0)


def test_calc_delta_angle_wraps_once() -> None:
    assert calc_delta_angle(10.0, 350.0) == pytest.approx(20.0)
    assert calc_delta_angle(350.0, 10.0) == pytest.approx(-20.0)
    assert calc_delta_angle(180.0, 0.0) == 180.0


def test_results_are_python_floats_for_scalar_inputs() -> None:
    for value in (
        normalize_absolute_angle(1),
        normalize_relative_angle(190),
        direction_to(0, 0, 1, 1),
        bearing_to(0, 0, 0, 1, 1),
    ):
        assert type(value) is float


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_inputs_raise_naming_the_argument(bad: float) -> None:
    with pytest.raises(ValueError, match="angle_deg"):
        normalize_relative_angle(bad)
    with pytest.raises(ValueError, match="angle_deg"):
        normalize_absolute_angle(np.array([0.0, bad]))
    with pytest.raises(ValueError, match="from_y"):
        direction_to(0.0, bad, 1.0, 1.0)
    with pytest.raises(ValueError, match="heading_deg"):
        bearing_to(0.0, 0.0, bad, 1.0, 1.0)
