"""docs/rules.md §7.4-7.6: bots against walls (first-hit damage and events), bots against bots (0.6
each, revert, ramming flags, ram scoring) and the final clamp. Compiled (numba), in place on one
arena of the bots' blocks (arena.rules.state).
"""

from numba import njit

from tankrl.arena.rules.compiled_angles import calc_bearing, direction_to
from tankrl.arena.rules.state import (
    DIRECTION,
    ENERGY,
    EVENT_BOT_BOT,
    EVENT_BOT_WALL,
    EVENT_HITBOT_ENERGY,
    EVENT_HITBOT_X,
    EVENT_HITBOT_Y,
    EVENT_RAMMED,
    F64,
    I32,
    IN_MAP,
    SCORE_KILLED_BY_RAM_OF,
    SCORE_RAM_HITS,
    SCORE_RAM_HITS_TO,
    SPEED,
    WALL_EVENT_PREV,
    X0,
    Y0,
    Bool,
    X,
    Y,
)
from tankrl.shared.game_constants import BOT_RADIUS, RAM_DAMAGE


@njit(cache=True)
def _push_inside(bf: F64, a: int, i: int, width: float, height: float) -> bool:
    """Put a bot poking out of the arena back on the boundary along its movement segment.

    x first (y interpolated on the old->new line), then y (x recomputed from the original
    segment). Returns whether the bot was outside.
    """
    hx, hy = width - BOT_RADIUS, height - BOT_RADIUS
    x, y = bf[X, a, i], bf[Y, a, i]
    if not (x < BOT_RADIUS or x > hx or y < BOT_RADIUS or y > hy):
        return False
    x0, y0 = bf[X0, a, i], bf[Y0, a, i]
    dx, dy = x - x0, y - y0
    x1, y1 = x, y
    if x < BOT_RADIUS or x > hx:
        new_x = BOT_RADIUS if x < BOT_RADIUS else hx
        if dx != 0.0:
            y1 = y0 + dy * (new_x - x0) / dx
        x1 = new_x
    x2, y2 = x1, y1
    if y1 < BOT_RADIUS or y1 > hy:
        new_y = BOT_RADIUS if y1 < BOT_RADIUS else hy
        if dy != 0.0:
            x2 = x0 + dx * (new_y - y0) / dy
        y2 = new_y
    bf[X, a, i] = x2
    bf[Y, a, i] = y2
    return True


@njit(cache=True)
def bot_wall(bf: F64, bb: Bool, a: int, i: int, width: float, height: float, evb: Bool) -> None:
    """§7.4 for a moving bot: push back, speed 0; damage max(|v|/2 - 1, 0) and an event only on
    a first hit."""
    hit = _push_inside(bf, a, i, width, height)
    first = hit and not bb[WALL_EVENT_PREV, a, i]
    evb[EVENT_BOT_WALL, a, i] = first
    if first:
        bf[ENERGY, a, i] -= max(abs(bf[SPEED, a, i]) / 2.0 - 1.0, 0.0)
    if hit:
        bf[SPEED, a, i] = 0.0
    bb[WALL_EVENT_PREV, a, i] = first


@njit(cache=True)
def _rams(bf: F64, a: int, i: int, j: int) -> bool:
    """Whether bot i rams bot j: moving toward it (forward: |bearing| < 90, backward:
    |bearing| > 90), bearing from its new heading."""
    to_j = direction_to(bf[X, a, i], bf[Y, a, i], bf[X, a, j], bf[Y, a, j])
    bearing = abs(calc_bearing(to_j, bf[DIRECTION, a, i]))
    speed = bf[SPEED, a, i]
    return (speed > 0.0 and bearing < 90.0) or (speed < 0.0 and bearing > 90.0)


@njit(cache=True)
def bot_bot(
    bf: F64,
    bb: Bool,
    scf: F64,
    sct: F64,
    sci: I32,
    evp: Bool,
    evf: F64,
    a: int,
    first_turn: bool,
    teleport_x: F64,
    teleport_y: F64,
) -> None:
    """§7.5 for every pair (i < j) of bots in the map of arena a, in index order. On turn 1 the
    second bot of a colliding pair goes to (teleport_x, teleport_y)[a, j] (drawn by the caller)."""
    n = bf.shape[2]
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = bf[X, a, i] - bf[X, a, j], bf[Y, a, i] - bf[Y, a, j]
            if dx * dx + dy * dy > (2.0 * BOT_RADIUS) ** 2:
                continue
            if not (bb[IN_MAP, a, i] and bb[IN_MAP, a, j]):
                continue
            _apply_ram(bf, scf, sct, sci, evp, a, i, j)
            bf[X, a, i], bf[Y, a, i] = bf[X0, a, i], bf[Y0, a, i]
            if first_turn:
                bf[X, a, j], bf[Y, a, j] = teleport_x[a, j], teleport_y[a, j]
            else:
                bf[X, a, j], bf[Y, a, j] = bf[X0, a, j], bf[Y0, a, j]
            for o in (i, j):
                evf[EVENT_HITBOT_ENERGY, a, o] = bf[ENERGY, a, o]
                evf[EVENT_HITBOT_X, a, o] = bf[X, a, o]
                evf[EVENT_HITBOT_Y, a, o] = bf[Y, a, o]


@njit(cache=True)
def _apply_ram(bf: F64, scf: F64, sct: F64, sci: I32, evp: Bool, a: int, i: int, j: int) -> None:
    ram_i, ram_j = _rams(bf, a, i, j), _rams(bf, a, j, i)
    before_i, before_j = bf[ENERGY, a, i], bf[ENERGY, a, j]
    bf[ENERGY, a, i] -= RAM_DAMAGE
    bf[ENERGY, a, j] -= RAM_DAMAGE
    for me, other, rammed, before_other in ((i, j, ram_i, before_j), (j, i, ram_j, before_i)):
        if not rammed:
            continue
        scf[SCORE_RAM_HITS, a, me] += 1.0
        sct[SCORE_RAM_HITS_TO, a, me, other] += 1.0
        if before_other >= 0.0 and bf[ENERGY, a, other] < 0.0:
            sci[SCORE_KILLED_BY_RAM_OF, a, other] = me
        evp[EVENT_RAMMED, a, me, other] = True
        bf[SPEED, a, me] = 0.0
    evp[EVENT_BOT_BOT, a, i, j] = True
    evp[EVENT_BOT_BOT, a, j, i] = True


@njit(cache=True)
def clamp_into_arena(bf: F64, a: int, i: int, width: float, height: float) -> None:
    """§7.6: the same push-back without damage or events, then a hard clamp for corner cases."""
    _push_inside(bf, a, i, width, height)
    bf[X, a, i] = min(max(bf[X, a, i], BOT_RADIUS), width - BOT_RADIUS)
    bf[Y, a, i] = min(max(bf[Y, a, i], BOT_RADIUS), height - BOT_RADIUS)
