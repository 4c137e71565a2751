"""docs/rules.md §6-§7.3: guns (fire or cool, fire assist), bullets in flight (advance, leave the
arena, hit bullets, hit bots) and their scoring. Compiled (numba), one arena at a time, on
slot-major Bullets [K, B].

Only slots below `w` (Engine.bullet_width: the most bullets any arena has had at once) are ever
used. The order of application follows bullet ids (creation order), as the server's bullet list
does; the turn's bullet events go to a log in that order.
"""

import math

import numpy as np
from numba import njit

from tankrl.arena.rules.compiled_angles import DEG, direction_to
from tankrl.arena.rules.state import (
    BULLET_ACTIVE,
    BULLET_BULLET_ID,
    BULLET_DIRECTION,
    BULLET_NEXT_X,
    BULLET_NEXT_Y,
    BULLET_OWNER,
    BULLET_POWER,
    BULLET_SPEED,
    BULLET_START_X,
    BULLET_START_Y,
    BULLET_TICK,
    BULLET_UX,
    BULLET_UY,
    BULLET_X,
    BULLET_Y,
    ENERGY,
    EVENT_FIRED,
    EVENT_FIRED_SLOT,
    F64,
    GUN_DIRECTION,
    GUN_HEAT,
    I32,
    I64,
    IN_MAP,
    INTENT_FIRE_ASSIST,
    INTENT_FIREPOWER,
    RADAR_DIRECTION,
    SCANNED_PREV,
    SCANNED_PREV_X,
    SCANNED_PREV_Y,
    SCORE_BULLET_DAMAGE,
    SCORE_BULLET_DAMAGE_TO,
    SCORE_KILLED_BY_BULLET_OF,
    Bool,
    X,
    Y,
)
from tankrl.shared import game_constants
from tankrl.shared.game_constants import (
    BOT_RADIUS,
    BULLET_HIT_ENERGY_GAIN_FACTOR,
    MAX_BULLET_SPEED,
    MAX_FIREPOWER,
    MIN_FIREPOWER,
)

NO_SLOT = -2
"""fire_or_cool's answer when every slot of the arena is taken (the capacity formula is wrong)."""

# The turn's bullet events (BulletLog): rows of an int64 block [8, room] and a float64 block
# [2, room], appended in the order they were applied; count[kind] says how many of each were
# written.
WALL, PAIR, HIT = 0, 1, 2
"""Kinds, indexing `count`."""
WALL_ARENA, WALL_SLOT, PAIR_ARENA, PAIR_A, PAIR_B, HIT_ARENA, HIT_SLOT, HIT_VICTIM = range(8)
"""Rows of the int block (PAIR_A is the lower slot of the two)."""
HIT_DAMAGE, HIT_VICTIM_ENERGY = range(2)
"""Rows of the float block."""


class BulletCapacityError(RuntimeError):
    """An arena has more bullets in flight than its slots; the capacity formula is wrong."""


damage = njit(cache=True)(game_constants.bullet_damage)
bullet_speed = njit(cache=True)(game_constants.bullet_speed)
gun_heat_after_firing = njit(cache=True)(game_constants.gun_heat_after_firing)


@njit(cache=True)
def fire_or_cool(
    bf: F64,
    bb: Bool,
    itf: F64,
    itb: Bool,
    bla: Bool,
    bli: I32,
    blf: F64,
    a: int,
    i: int,
    enabled: bool,
    next_id: I32,
    cooling: float,
    evb: Bool,
    evi: I32,
) -> int:
    """§6 for bot i of arena a: a cold, enabled gun fires the intent's power if energy allows;
    every other gun cools. Returns the new bullet's slot, -1 if none, NO_SLOT if all are taken."""
    evb[EVENT_FIRED, a, i] = False
    evi[EVENT_FIRED_SLOT, a, i] = -1
    cold = enabled and bf[GUN_HEAT, a, i] == 0.0
    f = itf[INTENT_FIREPOWER, a, i]
    if not cold:
        bf[GUN_HEAT, a, i] = max(bf[GUN_HEAT, a, i] - cooling, 0.0)
        return -1
    if not (f >= MIN_FIREPOWER and bf[ENERGY, a, i] > f):
        return -1
    p = min(f, MAX_FIREPOWER)
    bf[GUN_HEAT, a, i] = gun_heat_after_firing(p)
    bf[ENERGY, a, i] -= f
    evb[EVENT_FIRED, a, i] = True
    slot = -1
    for k in range(bla.shape[1]):
        if not bla[BULLET_ACTIVE, k, a]:
            slot = k
            break
    if slot < 0:
        return NO_SLOT
    direction = bf[GUN_DIRECTION, a, i]
    if (
        itb[INTENT_FIRE_ASSIST, a, i]
        and bb[SCANNED_PREV, a, i]
        and bf[GUN_DIRECTION, a, i] == bf[RADAR_DIRECTION, a, i]
    ):
        direction = direction_to(
            bf[X, a, i], bf[Y, a, i], bf[SCANNED_PREV_X, a, i], bf[SCANNED_PREV_Y, a, i]
        )
    rad = direction * DEG
    x, y = bf[X, a, i], bf[Y, a, i]
    bla[BULLET_ACTIVE, slot, a] = True
    bli[BULLET_OWNER, slot, a] = i
    bli[BULLET_BULLET_ID, slot, a] = next_id[a]
    blf[BULLET_POWER, slot, a] = p
    blf[BULLET_SPEED, slot, a] = bullet_speed(p)
    blf[BULLET_START_X, slot, a] = x
    blf[BULLET_START_Y, slot, a] = y
    blf[BULLET_DIRECTION, slot, a] = direction
    blf[BULLET_UX, slot, a] = math.cos(rad)
    blf[BULLET_UY, slot, a] = math.sin(rad)
    blf[BULLET_TICK, slot, a] = 0.0
    blf[BULLET_X, slot, a] = x
    blf[BULLET_Y, slot, a] = y
    next_id[a] += 1
    evi[EVENT_FIRED_SLOT, a, i] = slot
    return slot


@njit(cache=True)
def advance(bla: Bool, blf: F64, a: int, running: bool, w: int) -> None:
    """§6: every bullet in flight moves one tick; caches x, y (tick) and next_x, next_y (tick+1)."""
    for k in range(w):
        if running and bla[BULLET_ACTIVE, k, a]:
            blf[BULLET_TICK, k, a] += 1.0
        sp, ux, uy = blf[BULLET_SPEED, k, a], blf[BULLET_UX, k, a], blf[BULLET_UY, k, a]
        d = sp * blf[BULLET_TICK, k, a]
        x = blf[BULLET_START_X, k, a] + d * ux
        y = blf[BULLET_START_Y, k, a] + d * uy
        blf[BULLET_X, k, a], blf[BULLET_Y, k, a] = x, y
        blf[BULLET_NEXT_X, k, a] = x + sp * ux
        blf[BULLET_NEXT_Y, k, a] = y + sp * uy


@njit(cache=True)
def flying_by_id(bla: Bool, bli: I32, a: int, w: int) -> I64:
    """Slots of arena a's bullets in flight, in bullet id order."""
    slots = np.empty(w, np.int64)
    n = 0
    for k in range(w):
        if bla[BULLET_ACTIVE, k, a]:
            bid = bli[BULLET_BULLET_ID, k, a]
            m = n
            while m > 0 and bli[BULLET_BULLET_ID, slots[m - 1], a] > bid:
                slots[m] = slots[m - 1]
                m -= 1
            slots[m] = k
            n += 1
    return slots[:n]


@njit(cache=True)
def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True)
def segments_intersect(
    p1x: float,
    p1y: float,
    q1x: float,
    q1y: float,
    p2x: float,
    p2y: float,
    q2x: float,
    q2y: float,
) -> bool:
    """Segment intersection including touching and collinear overlap."""
    o1 = _orient(p1x, p1y, q1x, q1y, p2x, p2y)
    o2 = _orient(p1x, p1y, q1x, q1y, q2x, q2y)
    o3 = _orient(p2x, p2y, q2x, q2y, p1x, p1y)
    o4 = _orient(p2x, p2y, q2x, q2y, q1x, q1y)
    if o1 == 0.0 and o2 == 0.0 and o3 == 0.0 and o4 == 0.0:
        return (
            max(p1x, q1x) >= min(p2x, q2x)
            and max(p2x, q2x) >= min(p1x, q1x)
            and max(p1y, q1y) >= min(p2y, q2y)
            and max(p2y, q2y) >= min(p1y, q1y)
        )
    return o1 * o2 <= 0.0 and o3 * o4 <= 0.0


@njit(cache=True)
def _touches_bot(blf: F64, bf: F64, k: int, a: int, j: int) -> bool:
    """§7.2: bullet k's segment (tick -> tick + 1) touches bot j's circle (inclusive)."""
    reach = BOT_RADIUS + MAX_BULLET_SPEED
    px, py = bf[X, a, j] - blf[BULLET_X, k, a], bf[Y, a, j] - blf[BULLET_Y, k, a]
    if abs(px) > reach or abs(py) > reach:
        return False
    vx, vy = blf[BULLET_UX, k, a], blf[BULLET_UY, k, a]
    along = min(max(px * vx + py * vy, 0.0), blf[BULLET_SPEED, k, a])
    qx, qy = px - along * vx, py - along * vy
    return bool(qx * qx + qy * qy <= BOT_RADIUS * BOT_RADIUS)


@njit(cache=True)
def resolve(
    bla: Bool,
    bli: I32,
    blf: F64,
    bf: F64,
    bb: Bool,
    scf: F64,
    sct: F64,
    sci: I32,
    a: int,
    running: bool,
    w: int,
    width: float,
    height: float,
    count: I64,
    log_i: I64,
    log_f: F64,
) -> bool:
    """Advance, walls, then bullet-bullet and bullet-bot detection (both on the bullets left after
    the walls), then apply, for arena a. Appends the events to the log (count, log_i, log_f);
    returns whether any bullet hit a bot."""
    advance(bla, blf, a, running, w)
    for k in flying_by_id(bla, bli, a, w):  # §7.1: at or past a wall
        x, y = blf[BULLET_X, k, a], blf[BULLET_Y, k, a]
        if x <= 0.0 or y <= 0.0 or x >= width or y >= height:
            bla[BULLET_ACTIVE, k, a] = False
            log_i[WALL_ARENA, count[WALL]], log_i[WALL_SLOT, count[WALL]] = a, k
            count[WALL] += 1
    flying = flying_by_id(bla, bli, a, w)
    first_pair = count[PAIR]
    limit = (2.0 * MAX_BULLET_SPEED) ** 2
    x, y, nx, ny = blf[BULLET_X], blf[BULLET_Y], blf[BULLET_NEXT_X], blf[BULLET_NEXT_Y]
    for p in range(flying.size):  # §7.3: segments cross and next positions within 2 x 19.7
        for q in range(p + 1, flying.size):
            j, k = min(flying[p], flying[q]), max(flying[p], flying[q])
            dx, dy = nx[k, a] - nx[j, a], ny[k, a] - ny[j, a]
            if dx * dx + dy * dy > limit:
                continue
            if segments_intersect(
                x[j, a], y[j, a], nx[j, a], ny[j, a], x[k, a], y[k, a], nx[k, a], ny[k, a]
            ):
                c = count[PAIR]
                log_i[PAIR_ARENA, c], log_i[PAIR_A, c], log_i[PAIR_B, c] = a, j, k
                count[PAIR] += 1
    first_hit = count[HIT]
    for k in flying:  # §7.2: own bullets excluded
        for v in range(bf.shape[2]):
            if v == bli[BULLET_OWNER, k, a] or not bb[IN_MAP, a, v]:
                continue
            if _touches_bot(blf, bf, k, a, v):
                c = count[HIT]
                log_i[HIT_ARENA, c], log_i[HIT_SLOT, c], log_i[HIT_VICTIM, c] = a, k, v
                count[HIT] += 1
    # every colliding pair counts (both were detected before any removal)
    for c in range(first_pair, count[PAIR]):
        bla[BULLET_ACTIVE, log_i[PAIR_A, c], a] = False
        bla[BULLET_ACTIVE, log_i[PAIR_B, c], a] = False
    for h in range(first_hit, count[HIT]):
        k, victim = log_i[HIT_SLOT, h], log_i[HIT_VICTIM, h]
        dmg, energy = _apply_hit(bla, bli, blf, bf, bb, scf, sct, sci, a, k, victim)
        log_f[HIT_DAMAGE, h], log_f[HIT_VICTIM_ENERGY, h] = dmg, energy
    return bool(count[HIT] > first_hit)


@njit(cache=True)
def _apply_hit(
    bla: Bool,
    bli: I32,
    blf: F64,
    bf: F64,
    bb: Bool,
    scf: F64,
    sct: F64,
    sci: I32,
    a: int,
    k: int,
    victim: int,
) -> tuple[float, float]:
    """Damage, 3p back to a shooter still in the map, kill credit; the bullet is gone. Returns
    the damage and the victim's energy after."""
    owner, power = bli[BULLET_OWNER, k, a], blf[BULLET_POWER, k, a]
    dmg = damage(power)
    before = bf[ENERGY, a, victim]
    bf[ENERGY, a, victim] = before - dmg
    if bb[IN_MAP, a, owner]:
        bf[ENERGY, a, owner] += BULLET_HIT_ENERGY_GAIN_FACTOR * power
    scored = max(min(dmg, before), 0.0)
    scf[SCORE_BULLET_DAMAGE, a, owner] += scored
    sct[SCORE_BULLET_DAMAGE_TO, a, owner, victim] += scored
    if before >= 0.0 and bf[ENERGY, a, victim] < 0.0:
        sci[SCORE_KILLED_BY_BULLET_OF, a, victim] = owner
    bla[BULLET_ACTIVE, k, a] = False
    return dmg, bf[ENERGY, a, victim]
