"""shared/angles.py's rules for one float, compiled (numba) for the rules engine's scalar loops.

The same operations in the same order as the numpy forms (fmod, one fold, atan2 in degrees): the
normalisations agree bit for bit; directions agree to the last bits only, as numpy's arctan2 is its
own (SIMD) implementation and numba calls the C library's. tests/unit/test_compiled_angles.py
checks both. Inputs are finite (the engine only holds finite state).
"""

import math

import numpy as np
from numba import njit

DEG = math.pi / 180.0
"""Degrees to radians, as numpy.radians multiplies."""
RAD = 180.0 / math.pi
"""Radians to degrees, as numpy.degrees multiplies."""


@njit(cache=True)
def fold_absolute(r: float) -> float:
    """(-360, 360) -> [0, 360): +360 below 0, then 360 back to 0."""
    if r < 0.0:
        r = r + 360.0
    if r >= 360.0:
        r = r - 360.0
    return r


@njit(cache=True)
def normalize_absolute(angle: float) -> float:
    """Fold an angle into [0, 360)."""
    r: float = np.fmod(angle, 360.0)
    return fold_absolute(r)


@njit(cache=True)
def normalize_relative(angle: float) -> float:
    """Fold an angle into [-180, 180)."""
    r: float = np.fmod(angle, 360.0)
    if r < -180.0:
        return r + 360.0
    if r >= 180.0:
        return r - 360.0
    return r


@njit(cache=True)
def direction_to(from_x: float, from_y: float, x: float, y: float) -> float:
    """Absolute direction in [0, 360) from (from_x, from_y) to (x, y)."""
    return fold_absolute(math.atan2(y - from_y, x - from_x) * RAD)


@njit(cache=True)
def calc_bearing(direction: float, heading: float) -> float:
    """Relative angle in [-180, 180) from a heading to an absolute direction (+ = left)."""
    return normalize_relative(direction - heading)
