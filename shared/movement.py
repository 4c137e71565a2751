"""Bot-side movement math: turn limits, the speed planner and the stop distance.

Exactly the official Bot API helpers as bot-math.md states them (getNewTargetSpeed,
calcMaxTurnRate, getDistanceTraveledUntilStop). Used by the goto controller and the scripted
opponents' emulation of blocking moves. Floats in, floats out; arrays in, arrays out. The public
functions reject non-finite input naming the argument; the goto controller, whose inputs
actor.brain has checked once per BotView, calls their `*_unchecked` kernels.
"""

import numpy as np

from shared.finite import FloatArray, Num, like, require_finite, require_not_nan
from shared.game_constants import ACCELERATION, DECELERATION, MAX_SPEED, MAX_TURN_RATE

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


_STOP_SLOPE = 4.0 * 2.0 / _DECEL


def _max_speed_for_distance(d: FloatArray) -> FloatArray:
    t = np.maximum(1.0, np.ceil((np.sqrt(_STOP_SLOPE * d + 1.0) - 1.0) / 2.0))
    t_1 = t - 1.0
    decel_distance = (t / 2.0) * t_1 * _DECEL
    result: FloatArray = t_1 * _DECEL + (d - decel_distance) / t
    return result


def _max_deceleration(backward_speed: FloatArray) -> FloatArray:
    decel_time = backward_speed / _DECEL
    accel_time = 1.0 - decel_time
    result: FloatArray = (
        np.minimum(1.0, decel_time) * _DECEL + np.maximum(0.0, accel_time) * ACCELERATION
    )
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
    speed: FloatArray, distance: FloatArray, max_speed: FloatArray | float = MAX_SPEED
) -> FloatArray:
    """new_target_speed's kernel for a forward move: distance >= 0 (+inf allowed), the speed
    signed relative to that move; finite inputs, no check. For such inputs new_target_speed's
    mirroring multiplies by 1.0, so both give the same bits."""
    infinite = np.isinf(distance)
    if np.count_nonzero(infinite):
        d = np.where(infinite, 0.0, distance)
        target = np.where(infinite, max_speed, np.minimum(max_speed, _max_speed_for_distance(d)))
    else:
        target = np.minimum(max_speed, _max_speed_for_distance(distance))
    # clamp to [v - 2, v + 1] moving forward, [v - 1, v + maxDecel(-v)] backward; maxDecel(0) = 1
    low = speed - (1.0 + (speed >= 0.0))
    high = speed + _max_deceleration(np.maximum(-speed, 0.0))
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
