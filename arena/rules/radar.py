"""docs/rules.md §5: radar scans. A bot that moved or asked to rescan sweeps the circular sector
between its old and new radar direction (radius 1200; a ray when the sweep is 0) and sees every bot
whose 18-unit circle touches it. Compiled (numba): fills TurnEvents.scans [B, scanner, target] and
the scan snapshots of one arena.
"""

import math

from numba import njit

from tankrl.arena.rules.compiled_angles import DEG
from tankrl.arena.rules.state import (
    DIRECTION,
    DIRECTION0,
    ENERGY,
    EVENT_SCAN_DIRECTION,
    EVENT_SCAN_ENERGY,
    EVENT_SCAN_SPEED,
    EVENT_SCAN_X,
    EVENT_SCAN_Y,
    EVENT_SCANS,
    F64,
    GUN_DIRECTION,
    GUN_DIRECTION0,
    IN_MAP,
    INTENT_RESCAN,
    RADAR_DIRECTION,
    RADAR_DIRECTION0,
    RADAR_SWEEP,
    SPEED,
    X0,
    Y0,
    Bool,
    X,
    Y,
)
from tankrl.shared.game_constants import BOT_RADIUS, RADAR_RADIUS


@njit(cache=True)
def _arm_touches(cross: float, along: float) -> bool:
    """Whether an arm (segment of length 1200 from the scanner along a unit vector) touches the
    target circle, given the target's signed distance from the arm's line (`cross`) and its
    projection on the arm (`along`)."""
    s = min(max(along, 0.0), RADAR_RADIUS)
    # distance^2 from the target centre to the closest point of the arm
    return cross * cross + (along - s) * (along - s) <= BOT_RADIUS * BOT_RADIUS


@njit(cache=True)
def scanning(bf: F64, bb: Bool, itb: Bool, a: int, i: int) -> bool:
    """Bot i scans this turn: it is in the map and rescans or moved (x, y, body, gun or radar
    changed, exactly)."""
    moved = (
        bf[X, a, i] != bf[X0, a, i]
        or bf[Y, a, i] != bf[Y0, a, i]
        or bf[DIRECTION, a, i] != bf[DIRECTION0, a, i]
        or bf[GUN_DIRECTION, a, i] != bf[GUN_DIRECTION0, a, i]
        or bf[RADAR_DIRECTION, a, i] != bf[RADAR_DIRECTION0, a, i]
    )
    return bool(bb[IN_MAP, a, i]) and (bool(itb[INTENT_RESCAN, a, i]) or moved)


@njit(cache=True)
def scan(bf: F64, bb: Bool, itb: Bool, a: int, running: bool, evp: Bool, evf: F64) -> None:
    """Detect every (scanner, target) pair of arena a this turn and snapshot the targets."""
    n = bf.shape[2]
    for s in range(n):
        scans = running and scanning(bf, bb, itb, a, s)
        sweep = bf[RADAR_SWEEP, a, s]
        start = (bf[RADAR_DIRECTION, a, s] - max(sweep, 0.0)) * DEG
        end = start + abs(sweep) * DEG
        u1x, u1y, u2x, u2y = math.cos(start), math.sin(start), math.cos(end), math.sin(end)
        for t in range(n):
            if t == s:
                continue
            if not (scans and bb[IN_MAP, a, t]):
                evp[EVENT_SCANS, a, s, t] = False
                continue
            dx = bf[X, a, t] - bf[X, a, s]
            dy = bf[Y, a, t] - bf[Y, a, s]
            c1 = u1x * dy - u1y * dx  # > 0: target left of (CCW from) the first arm
            c2 = dx * u2y - dy * u2x  # > 0: target right of (CW from) the second arm
            near = dx * dx + dy * dy <= (RADAR_RADIUS + BOT_RADIUS) ** 2
            seen = c1 >= 0.0 and c2 >= 0.0 and sweep != 0.0
            # arms: only targets within 18 of an arm's line need the exact segment test
            if not seen and (abs(c1) <= BOT_RADIUS or abs(c2) <= BOT_RADIUS):
                seen = _arm_touches(c1, u1x * dx + u1y * dy) or _arm_touches(
                    c2, u2x * dx + u2y * dy
                )
            evp[EVENT_SCANS, a, s, t] = seen and near
    for i in range(n):
        evf[EVENT_SCAN_ENERGY, a, i] = bf[ENERGY, a, i]
        evf[EVENT_SCAN_X, a, i] = bf[X, a, i]
        evf[EVENT_SCAN_Y, a, i] = bf[Y, a, i]
        evf[EVENT_SCAN_DIRECTION, a, i] = bf[DIRECTION, a, i]
        evf[EVENT_SCAN_SPEED, a, i] = bf[SPEED, a, i]
