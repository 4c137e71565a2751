"""Bot-side movement math: turn limits, the speed planner and the stop distance.

Exactly the official Bot API helpers as docs/rules.md §A states them (getNewTargetSpeed,
calcMaxTurnRate, getDistanceTraveledUntilStop), and the turn-limited speed of the goto
controller (ours, not the Bot API's). Used by the goto controller and the scripted
opponents' emulation of blocking moves. Floats in, floats out; arrays in, arrays out. The public
functions reject non-finite input naming the argument; the goto controller, whose inputs
actor.brain has checked once per BotView, calls their `*_unchecked` kernels.
"""

import numpy as np

from tankrl.shared.finite import FloatArray, Num, like, require_finite, require_not_nan
from tankrl.shared.game_constants import ACCELERATION, DECELERATION, MAX_SPEED, MAX_TURN_RATE

_DECEL = abs(DECELERATION)


def max_turn_rate(speed: Num) -> Num:
    """Largest body turn rate at a speed: 10 - 0.75 * |clamp(speed, -8, 8)|."""
    require_finite("speed", speed)
    return like(speed, max_turn_rate_unchecked(speed))


def max_turn_rate_unchecked(speed: FloatArray | float) -> FloatArray:
    """max_turn_rate's kernel, for finite speeds (no check)."""
    result: FloatArray = MAX_TURN_RATE - 0.75 * np.minimum(np.abs(speed), MAX_SPEED)
    return result


def max_speed_for_distance(distance: Num) -> Num:
    """Largest speed from which a bot can still stop exactly within `distance` (>= 0, finite)."""
    require_finite("distance", distance)
    return like(distance, _max_speed_for_distance(np.asarray(distance, dtype=np.float64)))


# The kernels' constants as 0-d float64 arrays: numpy converts a Python float operand on every
# call, which costs about half of a one-element operation (B = 1 runs the planner every turn).
# For float64 operands the results are the same bits.
_ZERO, _ONE, _TWO = np.array(0.0), np.array(1.0), np.array(2.0)
_DECEL_0D, _ACCEL_0D = np.array(_DECEL), np.array(ACCELERATION)
_STOP_SLOPE = np.array(4.0 * 2.0 / _DECEL)
_MAX_SPEED_0D = np.array(MAX_SPEED)


def _max_speed_for_distance(d: FloatArray) -> FloatArray:
    t = np.maximum(_ONE, np.ceil((np.sqrt(_STOP_SLOPE * d + _ONE) - _ONE) / _TWO))
    t_1 = t - _ONE
    decel_distance = (t / _TWO) * t_1 * _DECEL_0D
    result: FloatArray = t_1 * _DECEL_0D + (d - decel_distance) / t
    return result


def _max_deceleration(backward_speed: FloatArray) -> FloatArray:
    decel_time = backward_speed / _DECEL_0D
    accel_time = _ONE - decel_time
    result: FloatArray = (
        np.minimum(_ONE, decel_time) * _DECEL_0D + np.maximum(_ZERO, accel_time) * _ACCEL_0D
    )
    return result


def turn_limited_speed(distance: Num, bearing_deg: Num) -> Num:
    """Largest speed from which a bot, turning at max_turn_rate of that speed, still drives
    through a point `distance` away at `bearing_deg` off its heading (at most 10 / 0.75 = 13.3).

    The circle tangent to the heading through the point has radius R = d / (2 |sin bearing|);
    at speed v the tightest circle has radius v / (maxTurn(v) * pi / 180), so
    v <= 10 k d / (2 |sin bearing| + 0.75 k d) with k = pi / 180. Straight ahead (or behind)
    the limit is at least 10 / 0.75; at the point itself (distance 0) it is 0.
    """
    require_finite("distance", distance)
    require_finite("bearing_deg", bearing_deg)
    d = np.asarray(distance, dtype=np.float64)
    sin = np.abs(np.sin(np.radians(np.asarray(bearing_deg, dtype=np.float64))))
    return like(distance, turn_limited_speed_unchecked(d, sin))


_K_TURN = np.array(MAX_TURN_RATE * np.pi / 180.0)  # 10 k
_K_SLOPE = np.array(0.75 * np.pi / 180.0)  # 0.75 k
_TINY = np.array(1e-12)


def turn_limited_speed_unchecked(distance: FloatArray, abs_sin_bearing: FloatArray) -> FloatArray:
    """turn_limited_speed's kernel from |sin(bearing)|; finite inputs, distance >= 0, no check."""
    below = np.maximum(_K_SLOPE * distance + _TWO * abs_sin_bearing, _TINY)  # 0 / tiny = 0
    result: FloatArray = _K_TURN * distance / below
    return result


def new_target_speed(speed: Num, distance: Num, max_speed: Num | float = MAX_SPEED) -> Num:
    """The target speed to request this turn to travel `distance` (getNewTargetSpeed).

    A negative distance means backwards; +-inf means full speed. The result never brakes by more
    than 2 or accelerates by more than 1 per turn, so the server never sees a zero crossing.
    """
    require_finite("speed", speed)
    require_not_nan("distance", distance)
    require_finite("max_speed", max_speed)
    d = np.asarray(distance, dtype=np.float64)
    sign = 1.0 - 2.0 * (d < 0.0)  # mirror a backward move onto a forward one
    v = np.multiply(speed, sign)
    result = forward_target_speed_unchecked(v, np.abs(d), np.asarray(max_speed, dtype=np.float64))
    return like(speed, result * sign)


def forward_target_speed_unchecked(
    speed: FloatArray, distance: FloatArray, max_speed: FloatArray | float = _MAX_SPEED_0D
) -> FloatArray:
    """new_target_speed's kernel for a forward move: distance >= 0 (+inf allowed), the speed
    signed relative to that move; finite inputs, no check. For such inputs new_target_speed's
    mirroring multiplies by 1.0, so both give the same bits."""
    infinite = np.isinf(distance)
    if np.count_nonzero(infinite):
        d = np.where(infinite, _ZERO, distance)
        target = np.where(infinite, max_speed, np.minimum(max_speed, _max_speed_for_distance(d)))
    else:
        target = np.minimum(max_speed, _max_speed_for_distance(distance))
    # clamp to [v - 2, v + 1] moving forward, [v - 1, v + maxDecel(-v)] backward; maxDecel(0) = 1
    low = speed - (_ONE + (speed >= _ZERO))
    high = speed + _max_deceleration(np.maximum(-speed, _ZERO))
    result: FloatArray = np.minimum(np.maximum(target, low), high)
    return result


def distance_until_stop(speed: Num, max_speed: float = MAX_SPEED) -> Num:
    """Distance travelled while braking from `speed` to 0 with the planner (8 -> 12, 2 -> 0)."""
    require_finite("speed", speed)
    s = np.abs(np.asarray(speed, dtype=np.float64))
    total = np.zeros_like(s)
    while bool((s > 0.0).any()):
        s = np.where(s > 0.0, new_target_speed(s, np.zeros_like(s), max_speed), 0.0)
        total = total + s
    return like(speed, total)
