"""Tank Royale angle math: normalisation, directions and bearings, in degrees.

Conventions (bot-math.md): 0 deg = east, counter-clockwise positive; a positive bearing means the
point lies to the left. Every function takes a float or a float64 array and returns the same kind.
"""

import numpy as np

from shared.finite import FloatArray, Num, like, require_finite


def normalize_absolute_angle(angle_deg: Num) -> Num:
    """Fold an angle into [0, 360) (fmod, +360 when negative, 360 folded back to 0)."""
    require_finite("angle_deg", angle_deg)
    return like(angle_deg, _absolute(angle_deg))


# The kernels below fix up fmod's remainder in place where a mask says so: the same values as
# nested np.where, with a third of the numpy calls (they run several times per bot and turn).


def _absolute(angle_deg: Num) -> FloatArray:
    r = np.asarray(np.fmod(angle_deg, 360.0), dtype=np.float64)
    np.add(r, 360.0, out=r, where=r < 0.0)
    np.subtract(r, 360.0, out=r, where=r >= 360.0)
    return r


def normalize_relative_angle(angle_deg: Num) -> Num:
    """Fold an angle into [-180, 180): 180 -> -180, 190 -> -170, -190 -> 170."""
    require_finite("angle_deg", angle_deg)
    return like(angle_deg, _relative(np.asarray(angle_deg, dtype=np.float64)))


def _relative(angle_deg: FloatArray) -> FloatArray:
    r = np.asarray(np.fmod(angle_deg, 360.0), dtype=np.float64)
    np.subtract(r, 360.0, out=r, where=r >= 180.0)
    np.add(r, 360.0, out=r, where=r < -180.0)
    return r


def direction_to(from_x: Num, from_y: Num, x: Num, y: Num) -> Num:
    """Absolute direction in [0, 360) from (from_x, from_y) to (x, y)."""
    for name, v in (("from_x", from_x), ("from_y", from_y), ("x", x), ("y", y)):
        require_finite(name, v)
    d = np.degrees(np.arctan2(np.subtract(y, from_y), np.subtract(x, from_x)))
    return like(from_x, _absolute(d))


def calc_bearing(direction_deg: Num, heading_deg: Num) -> Num:
    """Relative angle in [-180, 180) from a heading to an absolute direction (+ = left)."""
    require_finite("direction_deg", direction_deg)
    require_finite("heading_deg", heading_deg)
    return like(direction_deg, _relative(np.subtract(direction_deg, heading_deg)))


def bearing_to(from_x: Num, from_y: Num, heading_deg: Num, x: Num, y: Num) -> Num:
    """Bearing in [-180, 180) of (x, y) seen from a bot at (from_x, from_y) facing heading_deg.

    Pass the body, gun or radar direction as the heading for bearingTo, gunBearingTo and
    radarBearingTo.
    """
    return calc_bearing(direction_to(from_x, from_y, x, y), heading_deg)


def calc_delta_angle(target_deg: Num, source_deg: Num) -> Num:
    """target - source with one +-360 wrap, in [-180, 180]; inputs must be in [0, 360)."""
    require_finite("target_deg", target_deg)
    require_finite("source_deg", source_deg)
    d = np.subtract(target_deg, source_deg)
    d = np.where(d > 180.0, d - 360.0, np.where(d < -180.0, d + 360.0, d))
    return like(target_deg, d)
