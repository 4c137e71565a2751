"""The goto and aimTo controllers of contract v2 (docs/rules.md §A).

Called by actor.actions with the decoded goto/aim points and the bot's own state, arrays [B];
returns body turn rate, target speed and gun turn rate for the intent. Tank Royale angles:
degrees, positive turns left (counter-clockwise). `goto` and `aim_to` check their input;
`steer`, `gun_turn` and `goto_and_aim` run once per turn inside actor.brain, which has checked the
BotView (and made the points from finite arithmetic), so they call the unchecked math kernels.
"""

import numpy as np
import numpy.typing as npt

from tankrl.shared.angles import bearing_to, offset_bearing_unchecked, relative_unchecked
from tankrl.shared.finite import require_finite
from tankrl.shared.game_constants import MAX_GUN_TURN_RATE, MAX_SPEED
from tankrl.shared.movement import (
    forward_target_speed_unchecked,
    max_turn_rate_unchecked,
    turn_limited_speed_unchecked,
)

F64 = npt.NDArray[np.float64]

ARRIVAL_DISTANCE = 1.0
"""A goto target closer than this is reached: no turn, brake toward 0."""

REVERSE_BEARING_DEG = 90.0
"""From rest, drive backwards when the target's |bearing| exceeds this."""

KEEP_DIRECTION_DEG = 165.0
"""While moving, keep the way the bot moves (forward or backward) until the target lies more
than this off it: a target that slips a little behind is reached by turning, not by braking
into a reversal (which turns an imprecise goto point into speed sign flips)."""

# Operands of the per-turn path as 0-d arrays: numpy converts a Python float operand on every
# call, about half the cost of a one-element operation. Same values, same bits.
_ARRIVAL, _REVERSE = np.array(ARRIVAL_DISTANCE), np.array(REVERSE_BEARING_DEG)
_KEEP_MARGIN = np.array(KEEP_DIRECTION_DEG - REVERSE_BEARING_DEG)
_RADIANS, _MAX_SPEED = np.array(np.pi / 180.0), np.array(MAX_SPEED)
_HALF_TURN = np.array(180.0)
_GUN_MAX, _GUN_MIN = np.array(MAX_GUN_TURN_RATE), np.array(-MAX_GUN_TURN_RATE)
_DRIVE_SIGN = np.array([1.0, -1.0])
"""The drive direction's sign by `reverse` (False, True): 1 - 2 * reverse in one lookup."""


def goto(
    x: F64, y: F64, direction: F64, speed: F64, target_x: F64, target_y: F64
) -> tuple[F64, F64]:
    """Body turn rate and target speed [B] that drive each bot toward (target_x, target_y)."""
    bearing = bearing_to(x, y, direction, target_x, target_y)
    require_finite("speed", speed)
    return steer(bearing, np.hypot(target_x - x, target_y - y), speed)


def steer(bearing: F64, distance: F64, speed: F64) -> tuple[F64, F64]:
    """The goto law, given the target's body bearing and distance: (turn rate, target speed).

    Drive direction: from rest, reverse when |bearing| > 90; while moving, keep the current
    direction until the target lies more than KEEP_DIRECTION_DEG off it. The body steers by
    the effective bearing (the bearing of the bot's rear when reversing), clamped to
    max_turn_rate(speed), and the speed is capped so that the tightest turn still drives
    through the target (turn_limited_speed): a target off to the side slows the bot down to
    turn onto it instead of circling past it. The speed planner gets the speed relative to the
    chosen drive direction, so while |speed| > 2 a reversal first brakes by 2 per turn and
    never asks for the opposite sign (no server zero-crossing brake).
    Inputs must be finite (no check here).
    """
    threshold = np.multiply(np.sign(speed), _KEEP_MARGIN)  # +75 forward, -75 backward, 0 at rest
    reverse = np.abs(bearing) > np.add(threshold, _REVERSE, out=threshold)
    effective = bearing
    if np.count_nonzero(reverse):
        effective = np.where(reverse, relative_unchecked(bearing + _HALF_TURN), bearing)
    limit = max_turn_rate_unchecked(speed)
    turn_rate = np.minimum(effective, limit)
    np.maximum(turn_rate, np.negative(limit, out=limit), out=turn_rate)
    moving = distance >= _ARRIVAL
    np.multiply(turn_rate, moving, out=turn_rate)
    sign = _DRIVE_SIGN.take(reverse)
    distance = np.multiply(distance, moving)
    abs_sin = np.abs(np.sin(np.multiply(effective, _RADIANS)))
    cap = np.minimum(turn_limited_speed_unchecked(distance, abs_sin), _MAX_SPEED)
    # braking (distance 0) is odd in the speed, so `sign` cancels out for arrived bots; the
    # planner sees a forward move (distance >= 0), for which its mirroring is the identity
    relative = forward_target_speed_unchecked(np.multiply(sign, speed), distance, cap)
    return turn_rate, np.multiply(relative, sign, out=relative)


def aim_to(x: F64, y: F64, gun_direction: F64, aim_x: F64, aim_y: F64) -> F64:
    """Gun turn rate [B] toward (aim_x, aim_y) (the gun turns independently of the body)."""
    return gun_turn(bearing_to(x, y, gun_direction, aim_x, aim_y))


def gun_turn(gun_bearing: F64) -> F64:
    """The aimTo law: the gun bearing of the aim point clamped to +-20 deg/turn."""
    rate: F64 = np.minimum(gun_bearing, _GUN_MAX)
    np.maximum(rate, _GUN_MIN, out=rate)
    return rate


def goto_and_aim(
    x: F64, y: F64, headings: F64, speed: F64, points_x: F64, points_y: F64
) -> tuple[F64, F64, F64]:
    """goto and aim_to with one bearing computation: (turn rate, target speed, gun turn rate).

    `headings` [2, B] holds the body then the gun direction; `points_x`/`points_y` [2, B] the
    goto point then the aim point. Inputs must be finite (no check here).
    """
    dx, dy = np.subtract(points_x, x), np.subtract(points_y, y)
    bearings = offset_bearing_unchecked(dx, dy, headings)
    turn_rate, target_speed = steer(bearings[0], np.hypot(dx[0], dy[0]), speed)
    return turn_rate, target_speed, gun_turn(bearings[1])
