"""The compiled angle rules (arena/rules/compiled_angles.py) against shared/angles.py, the one the
bots use: the normalisations bit for bit, directions and bearings to the last bits (numpy's
arctan2 is its own implementation)."""

import numpy as np

from tankrl.arena.rules import compiled_angles as ca
from tankrl.shared import angles

EDGES = [0.0, -0.0, 360.0, -360.0, 180.0, -180.0, 359.99999999999994, -1e-17, 720.0, 1e-300, 540.0]


def _angles() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate([rng.uniform(-1000.0, 1000.0, 20_000), EDGES])


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.int64)


def test_normalisations_match_shared_angles_bit_for_bit() -> None:
    a = _angles()
    absolute = np.array([ca.normalize_absolute(float(v)) for v in a])
    relative = np.array([ca.normalize_relative(float(v)) for v in a])
    assert (_bits(absolute) == _bits(angles.normalize_absolute_angle(a))).all()
    assert (_bits(relative) == _bits(angles.normalize_relative_angle(a))).all()
    assert ((absolute >= 0.0) & (absolute < 360.0)).all()
    assert ((relative >= -180.0) & (relative < 180.0)).all()


def test_directions_and_bearings_match_shared_angles() -> None:
    rng = np.random.default_rng(8)
    fx, fy, x, y, heading = rng.uniform(0.0, 800.0, (5, 5_000))
    direction = np.array([ca.direction_to(*v) for v in zip(fx, fy, x, y, strict=True)])
    bearing = np.array([ca.calc_bearing(d, h) for d, h in zip(direction, heading, strict=True)])
    np.testing.assert_allclose(direction, angles.direction_to(fx, fy, x, y), rtol=0, atol=1e-9)
    np.testing.assert_allclose(bearing, angles.calc_bearing(direction, heading), rtol=0, atol=1e-9)
    # the four axis directions are exact
    assert [ca.direction_to(0.0, 0.0, *p) for p in ((1, 0), (0, 1), (-1, 0), (0, -1))] == [
        0.0,
        90.0,
        180.0,
        270.0,
    ]
