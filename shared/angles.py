"""Tank Royale angle math: normalisation, directions and bearings, in degrees.

Conventions (bot-math.md): 0 deg = east, counter-clockwise positive; a positive bearing means the
point lies to the left. Every public function takes a float or a float64 array, rejects NaN and
infinities naming the argument, and returns the same kind. Each is that check plus one kernel;
hot paths whose inputs are already known finite (actor.brain checks every BotView once) call the
kernels `relative_unchecked` and `offset_bearing_unchecked` directly.
"""

from typing import Any

import numpy as np

from shared.finite import FloatArray, Num, like, require_finite

# Folds as table lookups: r - shifts[number of edges <= r]. One searchsorted, one take and one
# subtract replace a comparison plus a masked add per edge (masked ufuncs are several times slower
# than plain ones, and these run several times per bot and turn). Subtracting 0.0 leaves every
# value, -0.0 included, bit for bit, so the results equal those of the masked version.
_RELATIVE_EDGES, _RELATIVE_SHIFTS = np.array([-180.0, 180.0]), np.array([-360.0, 0.0, 360.0])
_NEGATIVE_EDGES, _NEGATIVE_SHIFTS = np.array([0.0]), np.array([-360.0, 0.0])
_FULL_TURN_EDGES, _FULL_TURN_SHIFTS = np.array([360.0]), np.array([0.0, 360.0])
_FULL_TURN = np.array(360.0)  # a 0-d array: numpy converts a Python float operand on every call


def _fold(r: Any, edges: FloatArray, shifts: FloatArray) -> FloatArray:
    result: FloatArray = np.subtract(r, shifts.take(edges.searchsorted(r, "right")))
    return result


def _fold_absolute(r: Any) -> FloatArray:
    """(-360, 360) -> [0, 360): +360 below 0, then 360 back to 0 (a tiny negative + 360 rounds
    to 360)."""
    return _fold(_fold(r, _NEGATIVE_EDGES, _NEGATIVE_SHIFTS), _FULL_TURN_EDGES, _FULL_TURN_SHIFTS)


def normalize_absolute_angle(angle_deg: Num) -> Num:
    """Fold an angle into [0, 360) (fmod, +360 when negative, 360 folded back to 0)."""
    require_finite("angle_deg", angle_deg)
    return like(angle_deg, _fold_absolute(np.fmod(angle_deg, _FULL_TURN)))


def normalize_relative_angle(angle_deg: Num) -> Num:
    """Fold an angle into [-180, 180): 180 -> -180, 190 -> -170, -190 -> 170."""
    require_finite("angle_deg", angle_deg)
    return like(angle_deg, relative_unchecked(np.asarray(angle_deg, dtype=np.float64)))


def relative_unchecked(angle_deg: FloatArray | float) -> FloatArray:
    """normalize_relative_angle's kernel, for finite float64 arrays (no check; a new array)."""
    return _fold(np.fmod(angle_deg, _FULL_TURN), _RELATIVE_EDGES, _RELATIVE_SHIFTS)


def _direction(dx: Any, dy: Any) -> FloatArray:
    """Absolute direction in [0, 360) of the offset (dx, dy). atan2 in degrees already lies in
    [-180, 180], where fmod(., 360) is the identity, so only the fold remains."""
    return _fold_absolute(np.degrees(np.arctan2(dy, dx)))


def direction_to(from_x: Num, from_y: Num, x: Num, y: Num) -> Num:
    """Absolute direction in [0, 360) from (from_x, from_y) to (x, y)."""
    for name, v in (("from_x", from_x), ("from_y", from_y), ("x", x), ("y", y)):
        require_finite(name, v)
    return like(from_x, _direction(np.subtract(x, from_x), np.subtract(y, from_y)))


def calc_bearing(direction_deg: Num, heading_deg: Num) -> Num:
    """Relative angle in [-180, 180) from a heading to an absolute direction (+ = left)."""
    require_finite("direction_deg", direction_deg)
    require_finite("heading_deg", heading_deg)
    return like(direction_deg, relative_unchecked(np.subtract(direction_deg, heading_deg)))


def offset_bearing_unchecked(
    dx: FloatArray | float, dy: FloatArray | float, heading_deg: FloatArray | float
) -> FloatArray:
    """bearing_to's kernel: the bearing in [-180, 180) of the offset (dx, dy) = (x - from_x,
    y - from_y) seen facing heading_deg; finite float64 arrays, no check."""
    return relative_unchecked(np.subtract(_direction(dx, dy), heading_deg))


def bearing_to(from_x: Num, from_y: Num, heading_deg: Num, x: Num, y: Num) -> Num:
    """Bearing in [-180, 180) of (x, y) seen from a bot at (from_x, from_y) facing heading_deg.

    Pass the body, gun or radar direction as the heading for bearingTo, gunBearingTo and
    radarBearingTo.
    """
    for name, v in (("from_x", from_x), ("from_y", from_y), ("x", x), ("y", y)):
        require_finite(name, v)
    require_finite("heading_deg", heading_deg)
    dx, dy = np.subtract(x, from_x), np.subtract(y, from_y)
    return like(from_x, offset_bearing_unchecked(dx, dy, heading_deg))


def calc_delta_angle(target_deg: Num, source_deg: Num) -> Num:
    """target - source with one +-360 wrap, in [-180, 180]; inputs must be in [0, 360)."""
    require_finite("target_deg", target_deg)
    require_finite("source_deg", source_deg)
    d = np.subtract(target_deg, source_deg)
    d = np.where(d > 180.0, d - 360.0, np.where(d < -180.0, d + 360.0, d))
    return like(target_deg, d)
