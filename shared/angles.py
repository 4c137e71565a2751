"""Tank Royale angle math: normalisation, directions and bearings, in degrees.

Conventions (docs/rules.md §A): 0 deg = east, counter-clockwise positive; a positive bearing means
the point lies to the left. Every public function takes a float or a float64 array, rejects NaN and
infinities naming the argument, and returns the same kind. Each is that check plus one kernel; hot
paths whose inputs are already known finite (actor.brain checks every BotView once) call the kernels
`relative_unchecked` and `offset_bearing_unchecked` directly.
"""

from typing import Any

import numpy as np

from tankrl.shared.finite import FloatArray, Num, like, require_finite

_FULL_TURN = np.array(360.0)  # a 0-d array: numpy converts a Python float operand on every call
_MINUS_FULL_TURN = np.array(-360.0)
_MASKED_FROM = 64
"""Arrays of at least this many elements fold with comparisons and `where` (a few fast passes
over memory); smaller ones with one table lookup (fewest numpy calls, which dominate at B = 1)."""


class _Fold:
    """r - shifts[number of edges <= r], for sorted edges and one shift per interval.

    Small arrays: one searchsorted, one take and one subtract replace a comparison plus a masked
    add per edge (masked ufuncs are several times slower than plain ones, and these run several
    times per bot and turn). Large arrays: r - shifts[0], then per edge where(r >= edge, r - shift,
    .); binary search per element costs more there than a few vectorised passes. Both subtract the
    same shift from each element, and subtracting 0.0 leaves every value, -0.0 included, bit for
    bit, so both give the results of the masked version exactly.
    """

    def __init__(self, edges: list[float], shifts: list[float]):
        self._edges, self._shifts = np.array(edges), np.array(shifts)
        self._first = np.array(shifts[0])
        self._steps = [(np.array(e), np.array(s)) for e, s in zip(edges, shifts[1:], strict=True)]

    def __call__(self, r: Any) -> FloatArray:
        if r.size < _MASKED_FROM:
            result: FloatArray = np.subtract(
                r, self._shifts.take(self._edges.searchsorted(r, "right"))
            )
            return result
        folded = r if not self._first else np.subtract(r, self._first)
        for edge, shift in self._steps:
            shifted = r if not shift else np.subtract(r, shift)
            folded = np.where(np.greater_equal(r, edge), shifted, folded)
        return np.asarray(folded)


def turn_remainder(angle_deg: Any, out: FloatArray | None = None) -> FloatArray:
    """fmod(angle, 360) of a finite float64 array (no check), optionally in place. fmod is the
    identity on (-360, 360), so large arrays already inside skip it: two reductions cost a fraction
    of fmod's per-element division, and the result is the same bit for bit."""
    a = np.asarray(angle_deg)
    if a.size >= _MASKED_FROM and a.max() < _FULL_TURN and a.min() > _MINUS_FULL_TURN:
        if out is None or out is a:
            return a
        np.copyto(out, a)
        return out
    result: FloatArray = np.fmod(a, _FULL_TURN, out=out)
    return result


_fold_relative = _Fold([-180.0, 180.0], [-360.0, 0.0, 360.0])
_fold_negative = _Fold([0.0], [-360.0, 0.0])
_fold_full_turn = _Fold([360.0], [0.0, 360.0])


def _fold_absolute(r: Any) -> FloatArray:
    """(-360, 360) -> [0, 360): +360 below 0, then 360 back to 0 (a tiny negative + 360 rounds
    to 360)."""
    return _fold_full_turn(_fold_negative(r))


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
    return _fold_relative(turn_remainder(angle_deg))


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
