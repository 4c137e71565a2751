"""Rules §7.4-7.6: bots against walls (first-hit damage and events), bots against bots (0.6 each,
revert, ramming flags, ram scoring) and the final clamp. In place on Bots [B, N]; `width` and
`height` are [B].
"""

import numpy as np

from arena import rng
from arena.state import F64, I32, I64, Bool, Bots, Scores, TurnEvents
from shared.angles import calc_bearing, direction_to
from shared.game_constants import BOT_RADIUS, RAM_DAMAGE


def _push_inside(bots: Bots, width: F64, height: F64, mask: Bool) -> Bool:
    """Put bots poking out of the arena back on the boundary along their movement segment.

    x first (y interpolated on the old->new line), then y (x recomputed from the original
    segment). Returns which bots were outside; only rows with such bots are touched.
    """
    hi_x, hi_y = (width - BOT_RADIUS)[:, None], (height - BOT_RADIUS)[:, None]
    x, y = bots.x, bots.y
    out = mask & ((x < BOT_RADIUS) | (x > hi_x) | (y < BOT_RADIUS) | (y > hi_y))
    if not out.any():
        return out
    a, i = np.nonzero(out)
    x, y, x0, y0 = bots.x[a, i], bots.y[a, i], bots.x0[a, i], bots.y0[a, i]
    hx, hy = hi_x[a, 0], hi_y[a, 0]
    dx, dy = x - x0, y - y0
    out_x = (x < BOT_RADIUS) | (x > hx)
    new_x = np.where(x < BOT_RADIUS, BOT_RADIUS, hx)
    with np.errstate(divide="ignore", invalid="ignore"):
        y1 = np.where(out_x & (dx != 0.0), y0 + dy * (new_x - x0) / dx, y)
        x1 = np.where(out_x, new_x, x)
        out_y = (y1 < BOT_RADIUS) | (y1 > hy)
        new_y = np.where(y1 < BOT_RADIUS, BOT_RADIUS, hy)
        x2 = np.where(out_y & (dy != 0.0), x0 + dx * (new_y - y0) / dy, x1)
    bots.x[a, i] = x2
    bots.y[a, i] = np.where(out_y, new_y, y1)
    return out


def bot_wall_collisions(
    bots: Bots, width: F64, height: F64, mask: Bool, events: TurnEvents
) -> None:
    """§7.4: push back, speed 0; damage max(|v|/2 - 1, 0) and an event only on a first hit."""
    hit = _push_inside(bots, width, height, mask)
    first = hit & ~bots.wall_event_prev
    events.bot_wall[:] = first
    if hit.any():
        damage = np.maximum(np.abs(bots.speed) / 2.0 - 1.0, 0.0)
        np.subtract(bots.energy, damage, out=bots.energy, where=first)
        bots.speed[hit] = 0.0
    np.copyto(bots.wall_event_prev, first, where=mask)


def _rams(bots: Bots, a: I64, i: int, j: int) -> Bool:
    """Whether bot i rams bot j in arenas `a`: moving toward it (forward: |bearing| < 90,
    backward: |bearing| > 90), bearing from its new heading."""
    bearing = np.abs(
        calc_bearing(
            direction_to(bots.x[a, i], bots.y[a, i], bots.x[a, j], bots.y[a, j]),
            bots.direction[a, i],
        )
    )
    speed = bots.speed[a, i]
    return np.asarray(((speed > 0.0) & (bearing < 90.0)) | ((speed < 0.0) & (bearing > 90.0)))


def bot_bot_collisions(
    bots: Bots,
    scores: Scores,
    events: TurnEvents,
    running: Bool,
    first_turn: Bool,
    seeds: "rng.U64",
    round_number: I32,
    width: F64,
    height: F64,
) -> None:
    """§7.5 for every pair (i < j) of bots in the map, in index order."""
    n = bots.x.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = bots.x[:, i] - bots.x[:, j], bots.y[:, i] - bots.y[:, j]
            hit = (dx * dx + dy * dy <= (2.0 * BOT_RADIUS) ** 2) & running
            hit &= bots.in_map[:, i] & bots.in_map[:, j]
            if not hit.any():
                continue
            a = np.nonzero(hit)[0]
            _apply_ram(bots, scores, events, a, i, j)
            _revert(bots, a, first_turn[a], i, j, seeds[a], round_number[a], width[a], height[a])
            for o in (i, j):
                events.hitbot_energy[a, o] = bots.energy[a, o]
                events.hitbot_x[a, o] = bots.x[a, o]
                events.hitbot_y[a, o] = bots.y[a, o]


def _apply_ram(bots: Bots, scores: Scores, events: TurnEvents, a: I64, i: int, j: int) -> None:
    ram_i, ram_j = _rams(bots, a, i, j), _rams(bots, a, j, i)
    before = {i: bots.energy[a, i].copy(), j: bots.energy[a, j].copy()}
    bots.energy[a, i] -= RAM_DAMAGE
    bots.energy[a, j] -= RAM_DAMAGE
    for me, other, rammed in ((i, j, ram_i), (j, i, ram_j)):
        r = a[rammed]
        scores.ram_hits[r, me] += 1.0
        scores.ram_hits_to[r, me, other] += 1.0
        killed = rammed & (before[other] >= 0.0) & (bots.energy[a, other] < 0.0)
        scores.killed_by_ram_of[a[killed], other] = me
        events.rammed[r, me, other] = True
        bots.speed[r, me] = 0.0
    events.bot_bot[a, i, j] = True
    events.bot_bot[a, j, i] = True


def _revert(
    bots: Bots,
    a: I64,
    first_turn: Bool,
    i: int,
    j: int,
    seeds: "rng.U64",
    round_number: I32,
    width: F64,
    height: F64,
) -> None:
    """Both bots back to their start-of-turn positions; on turn 1 bot j is teleported instead."""
    for k in (i, j):
        back = a if k == i else a[~first_turn]
        bots.x[back, k] = bots.x0[back, k]
        bots.y[back, k] = bots.y0[back, k]
    if first_turn.any():
        t = a[first_turn]
        keys = (seeds[first_turn], round_number[first_turn])
        ux = rng.uniform(*keys, rng.STREAM_TELEPORT_X, j)
        uy = rng.uniform(*keys, rng.STREAM_TELEPORT_Y, j)
        bots.x[t, j] = BOT_RADIUS + ux * (width[first_turn] - 2.0 * BOT_RADIUS)
        bots.y[t, j] = BOT_RADIUS + uy * (height[first_turn] - 2.0 * BOT_RADIUS)


def clamp_into_arena(bots: Bots, width: F64, height: F64, mask: Bool) -> None:
    """§7.6: the same push-back without damage or events, then a hard clamp for corner cases."""
    if _push_inside(bots, width, height, mask).any():
        hi_x, hi_y = (width - BOT_RADIUS)[:, None], (height - BOT_RADIUS)[:, None]
        np.copyto(bots.x, np.clip(bots.x, BOT_RADIUS, hi_x), where=mask)
        np.copyto(bots.y, np.clip(bots.y, BOT_RADIUS, hi_y), where=mask)
