"""Rules §4: the speed update with its zero-crossing quirks, move-then-turn, and the turn limits and
adjust flags applied server-side. Operates in place on Bots [B, N] for the bots in `mask`.
"""

import numpy as np

from arena.state import F64, Bool, Bots, StoredIntents
from shared.angles import normalize_absolute_angle
from shared.game_constants import (
    ACCELERATION,
    DECELERATION,
    MAX_GUN_TURN_RATE,
    MAX_RADAR_TURN_RATE,
    MAX_SPEED,
)
from shared.movement import max_turn_rate


def new_bot_speed(speed: F64, target: F64) -> F64:
    """calcNewBotSpeed (§4.1): +1 accel, -2 brake, instant stop at target 0, v/2 - 1 on crossing.

    Mirror-symmetric: for a negative speed the rule runs on (-v, -t) and is negated.
    """
    m = np.where(speed < 0.0, -1.0, 1.0)
    v = speed * m
    t = target * m
    same_sign = np.where(
        t >= v,
        np.minimum(v + np.minimum(t - v, ACCELERATION), MAX_SPEED),
        np.maximum(v + np.maximum(t - v, DECELERATION), -MAX_SPEED),
    )
    moving = np.where(t > 0.0, same_sign, np.where(t == 0.0, 0.0, v / 2.0 - 1.0))
    from_rest = np.clip(t, -ACCELERATION, ACCELERATION)
    return np.asarray(np.where(v == 0.0, from_rest, moving) * m, dtype=np.float64)


def execute_intents(bots: Bots, intents: StoredIntents, mask: Bool) -> None:
    """Speed update, move along the start-of-turn heading, then turn body, gun and radar (§4.1-4.3).

    Only bots where `mask` is True (enabled bots in running arenas) execute their intent; the
    others keep their state, including the rates and sweep they last reported.
    """
    everyone = bool(mask.all())
    speed = new_bot_speed(bots.speed, intents.target_speed)
    if not everyone:
        speed = np.where(mask, speed, bots.speed)
    rad = np.radians(bots.direction)
    step = speed if everyone else speed * mask
    bots.x += step * np.cos(rad)
    bots.y += step * np.sin(rad)
    bots.speed[:] = speed

    limit = max_turn_rate(speed)
    b = np.clip(intents.turn_rate, -limit, limit)
    g = np.clip(intents.gun_turn_rate, -MAX_GUN_TURN_RATE, MAX_GUN_TURN_RATE)
    r = np.clip(intents.radar_turn_rate, -MAX_RADAR_TURN_RATE, MAX_RADAR_TURN_RATE)
    agb, arg, arb = (
        intents.adjust_gun_for_body_turn,
        intents.adjust_radar_for_gun_turn,
        intents.adjust_radar_for_body_turn,
    )
    gun_turn = b * ~agb + g
    radar_turn = gun_turn + r - g * arg + b * (arg & agb) - b * arb
    if not everyone:
        b, gun_turn, radar_turn = b * mask, gun_turn * mask, radar_turn * mask
    bots.direction[:] = normalize_absolute_angle(bots.direction + b)
    bots.gun_direction[:] = normalize_absolute_angle(bots.gun_direction + gun_turn)
    bots.radar_direction[:] = normalize_absolute_angle(bots.radar_direction + radar_turn)
    # bots that did not execute (disabled) keep reporting their last rates and sweep
    np.copyto(bots.turn_rate, b, where=mask)
    np.copyto(bots.gun_turn_rate, g, where=mask)
    np.copyto(bots.radar_turn_rate, r, where=mask)
    np.copyto(bots.radar_sweep, radar_turn, where=mask)
