"""The compiled turn: docs/rules.md §9's steps 3-12 and 14-15 for every arena in one numba pass
over the state's blocks (arena/rules/state.py), calling the rules modules' per-arena and per-bot
functions in that order. arena/rules/engine.py sizes the arrays and calls `turn` once a step.
"""

import numpy as np
from numba import njit

from tankrl.arena.rules import bullets as gun
from tankrl.arena.rules import collisions, motion, radar, scoring
from tankrl.arena.rules.state import (
    BULLET_ACTIVE,
    DIRECTION,
    DIRECTION0,
    EVENT_BOT_BOT,
    EVENT_BOT_WALL,
    EVENT_RAMMED,
    EVENT_ROUND_ENDED,
    EVENT_SCANS,
    EVENT_WON_ROUND,
    F64,
    GUN_DIRECTION,
    GUN_DIRECTION0,
    I32,
    I64,
    IN_MAP,
    INTENT_FIREPOWER,
    INTENT_GUN_TURN_RATE,
    INTENT_RADAR_TURN_RATE,
    INTENT_TARGET_SPEED,
    INTENT_TURN_RATE,
    RADAR_DIRECTION,
    RADAR_DIRECTION0,
    SCANNED_PREV,
    SCANNED_PREV_X,
    SCANNED_PREV_Y,
    X0,
    Y0,
    Bool,
    X,
    Y,
)


@njit(cache=True)
def turn_starts(game_over: Bool, needs_round: Bool, turn_number: I32) -> tuple[bool, bool]:
    """(whether a running arena starts a round now, whether one is about to play turn 1): the
    two checks before every step in one call (numpy mask arithmetic and any() cost microseconds
    each: at B = 1 they were half the step)."""
    starts = firsts = False
    for a in range(game_over.shape[0]):
        if not game_over[a]:
            starts = starts or needs_round[a]
            firsts = firsts or needs_round[a] or turn_number[a] == 0
    return starts, firsts


@njit(cache=True)
def turn(
    bf: F64,
    bb: Bool,
    itf: F64,
    itb: Bool,
    bla: Bool,
    bli: I32,
    blf: F64,
    scf: F64,
    sct: F64,
    sci: I32,
    evb: Bool,
    evi: I32,
    evp: Bool,
    evf: F64,
    eva: Bool,
    width: F64,
    height: F64,
    turn_number: I32,
    inactivity: I32,
    next_id: I32,
    game_over: Bool,
    teleport_x: F64,
    teleport_y: F64,
    w: int,
    cooling: float,
    max_inactivity: int,
    count: I64,
    log_i: I64,
    log_f: F64,
) -> tuple[int, int, int]:
    """§9 steps 3-12 and 14-15 for every arena, on the state's blocks (bots bf/bb, intents
    itf/itb, bullets bla/bli/blf, scores scf/sct/sci, events evb/evi/evp/evf/eva).

    Returns (0, or 1 when an arena ran out of bullet slots, or 2 when the bullet event log is too
    small; the new bullet width; how many arenas' rounds ended). The turn's bullet events go to
    count, log_i and log_f (see arena/rules/bullets.py), which the caller sizes
    (Engine._log_room)."""
    n_arenas, n = bf.shape[1], bf.shape[2]
    for a in range(n_arenas):
        running = not game_over[a]
        eva[EVENT_ROUND_ENDED, a] = False
        for i in range(n):
            evb[EVENT_WON_ROUND, a, i] = False
            for j in range(n):
                evp[EVENT_BOT_BOT, a, i, j] = False
                evp[EVENT_RAMMED, a, i, j] = False
            bf[X0, a, i], bf[Y0, a, i] = bf[X, a, i], bf[Y, a, i]
            bf[DIRECTION0, a, i] = bf[DIRECTION, a, i]
            bf[GUN_DIRECTION0, a, i] = bf[GUN_DIRECTION, a, i]
            bf[RADAR_DIRECTION0, a, i] = bf[RADAR_DIRECTION, a, i]
        if running:
            turn_number[a] += 1
        for i in range(n):  # guns, then moves: firing can leave a bot disabled (§3)
            enabled = running and bb[IN_MAP, a, i] and not scoring.disabled(bf, bb, a, i)
            slot = gun.fire_or_cool(
                bf, bb, itf, itb, bla, bli, blf, a, i, enabled, next_id, cooling, evb, evi
            )
            if slot == gun.NO_SLOT:
                return 1, w, 0
            w = max(w, slot + 1)
        for i in range(n):
            if running and bb[IN_MAP, a, i] and not scoring.disabled(bf, bb, a, i):
                motion.execute_intent(bf, itf, itb, a, i)
        first_turn = turn_number[a] == 1
        for i in range(n):
            if running and bb[IN_MAP, a, i] and not first_turn:
                collisions.bot_wall(bf, bb, a, i, width[a], height[a], evb)
            else:
                evb[EVENT_BOT_WALL, a, i] = False
        if running:
            collisions.bot_bot(
                bf, bb, scf, sct, sci, evp, evf, a, first_turn, teleport_x, teleport_y
            )
        for i in range(n):
            if running and bb[IN_MAP, a, i]:
                collisions.clamp_into_arena(bf, a, i, width[a], height[a])
        radar.scan(bf, bb, itb, a, running, evp, evf)
        remember_scans(bf, bb, evp, a, running)

    flying = 0  # room for the bullet events: every bullet, every pair of one arena, every hit
    pairs = 0
    for a in range(n_arenas):
        f = 0
        for k in range(w):
            f += bla[BULLET_ACTIVE, k, a]
        flying += f
        pairs += f * (f - 1) // 2
    if max(pairs, flying * max(n - 1, 1)) > log_i.shape[1]:
        return 2, w, 0
    count[:] = 0

    ended = 0
    for a in range(n_arenas):
        running = not game_over[a]
        any_hit = gun.resolve(
            bla, bli, blf, bf, bb, scf, sct, sci, a, running, w, width[a], height[a],
            count, log_i, log_f,
        )  # fmt: skip
        scoring.inactivity(bf, bb, inactivity, a, any_hit, running, max_inactivity)
        for i in range(n):  # §9 step 3.13: disabled bots' target speed, turn rates and power are 0
            if scoring.disabled(bf, bb, a, i):
                itf[INTENT_TARGET_SPEED, a, i] = 0.0
                itf[INTENT_TURN_RATE, a, i] = 0.0
                itf[INTENT_GUN_TURN_RATE, a, i] = 0.0
                itf[INTENT_RADAR_TURN_RATE, a, i] = 0.0
                itf[INTENT_FIREPOWER, a, i] = 0.0
        scoring.deaths(bf, bb, scf, a, running, evb)
        eva[EVENT_ROUND_ENDED, a] = scoring.round_over(bf, bb, bla, a, running, w)
        ended += eva[EVENT_ROUND_ENDED, a]
    return 0, w, ended


@njit(cache=True)
def remember_scans(bf: F64, bb: Bool, evp: Bool, a: int, running: bool) -> None:
    """Keep, per bot, whether it scanned this turn and the nearest scanned position (for fire
    assist next turn)."""
    n = bf.shape[2]
    for i in range(n):
        nearest, best = -1, np.inf
        for j in range(n):
            if evp[EVENT_SCANS, a, i, j]:
                d = np.hypot(bf[X, a, j] - bf[X, a, i], bf[Y, a, j] - bf[Y, a, i])
                if d < best:
                    nearest, best = j, d
        if running:
            bb[SCANNED_PREV, a, i] = nearest >= 0
        if nearest >= 0:
            bf[SCANNED_PREV_X, a, i] = bf[X, a, nearest]
            bf[SCANNED_PREV_Y, a, i] = bf[Y, a, nearest]
