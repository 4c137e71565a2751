"""docs/rules.md §4: the speed update with its zero-crossing quirks, move-then-turn, and the turn
limits and adjust flags applied server-side. Compiled (numba), in place on one bot of the bots'
float block (arena.rules.state).
"""

import math

from numba import njit

from tankrl.arena.rules.compiled_angles import DEG, normalize_absolute
from tankrl.arena.rules.state import (
    DIRECTION,
    F64,
    GUN_DIRECTION,
    GUN_TURN_RATE,
    INTENT_ADJUST_GUN_FOR_BODY_TURN,
    INTENT_ADJUST_RADAR_FOR_BODY_TURN,
    INTENT_ADJUST_RADAR_FOR_GUN_TURN,
    INTENT_GUN_TURN_RATE,
    INTENT_RADAR_TURN_RATE,
    INTENT_TARGET_SPEED,
    INTENT_TURN_RATE,
    RADAR_DIRECTION,
    RADAR_SWEEP,
    RADAR_TURN_RATE,
    SPEED,
    TURN_RATE,
    Bool,
    X,
    Y,
)
from tankrl.shared.game_constants import (
    ACCELERATION,
    DECELERATION,
    MAX_GUN_TURN_RATE,
    MAX_RADAR_TURN_RATE,
    MAX_SPEED,
    MAX_TURN_RATE,
)


@njit(cache=True)
def _clip(v: float, lo: float, hi: float) -> float:
    return min(max(v, lo), hi)


@njit(cache=True)
def new_bot_speed(speed: float, target: float) -> float:
    """calcNewBotSpeed (§4.1): +1 accel, -2 brake, instant stop at target 0, v/2 - 1 on crossing.

    Mirror-symmetric: for a negative speed the rule runs on (-v, -t) and is negated.
    """
    m = -1.0 if speed < 0.0 else 1.0
    v = speed * m
    t = target * m
    if v == 0.0:
        return _clip(t, -ACCELERATION, ACCELERATION) * m
    if t > 0.0:
        if t >= v:
            return min(v + min(t - v, ACCELERATION), MAX_SPEED) * m
        return max(v + max(t - v, DECELERATION), -MAX_SPEED) * m
    if t == 0.0:
        return 0.0 * m
    return (v / 2.0 - 1.0) * m


@njit(cache=True)
def max_turn_rate(speed: float) -> float:
    """shared.movement.max_turn_rate: 10 - 0.75 * min(|speed|, 8)."""
    return MAX_TURN_RATE - 0.75 * min(abs(speed), MAX_SPEED)


@njit(cache=True)
def execute_intent(bf: F64, itf: F64, itb: Bool, a: int, i: int) -> None:
    """Speed update, move along the start-of-turn heading, then turn body, gun and radar (§4.1-4.3)
    for bot i of arena a, which is enabled (a bot that does not execute keeps its state, including
    the rates and sweep it last reported)."""
    speed = new_bot_speed(bf[SPEED, a, i], itf[INTENT_TARGET_SPEED, a, i])
    rad = bf[DIRECTION, a, i] * DEG
    bf[X, a, i] += speed * math.cos(rad)
    bf[Y, a, i] += speed * math.sin(rad)
    bf[SPEED, a, i] = speed

    limit = max_turn_rate(speed)
    b = _clip(itf[INTENT_TURN_RATE, a, i], -limit, limit)
    g = _clip(itf[INTENT_GUN_TURN_RATE, a, i], -MAX_GUN_TURN_RATE, MAX_GUN_TURN_RATE)
    r = _clip(itf[INTENT_RADAR_TURN_RATE, a, i], -MAX_RADAR_TURN_RATE, MAX_RADAR_TURN_RATE)
    agb = itb[INTENT_ADJUST_GUN_FOR_BODY_TURN, a, i]
    arg = itb[INTENT_ADJUST_RADAR_FOR_GUN_TURN, a, i]
    arb = itb[INTENT_ADJUST_RADAR_FOR_BODY_TURN, a, i]
    gun_turn = g if agb else b + g
    radar_turn = gun_turn + r
    if arg:
        radar_turn -= g
        if agb:
            radar_turn += b
    if arb:
        radar_turn -= b
    bf[DIRECTION, a, i] = normalize_absolute(bf[DIRECTION, a, i] + b)
    bf[GUN_DIRECTION, a, i] = normalize_absolute(bf[GUN_DIRECTION, a, i] + gun_turn)
    bf[RADAR_DIRECTION, a, i] = normalize_absolute(bf[RADAR_DIRECTION, a, i] + radar_turn)
    bf[TURN_RATE, a, i] = b
    bf[GUN_TURN_RATE, a, i] = g
    bf[RADAR_TURN_RATE, a, i] = r
    bf[RADAR_SWEEP, a, i] = radar_turn
