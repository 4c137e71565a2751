"""Rules §7.4-7.6: bots against walls (first-hit damage and events), bots against bots (0.6 each,
revert, ramming flags, ram scoring) and the final clamp. In place on Bots [B, N].
"""

import numpy as np

from arena import rng
from arena.state import F64, I32, Bool, Bots, Scores, TurnEvents
from shared.angles import calc_bearing, direction_to
from shared.game_constants import BOT_RADIUS, RAM_DAMAGE


def _push_inside(bots: Bots, width: F64, height: F64, mask: Bool) -> Bool:
    """Put bots poking out of the arena back on the boundary along their movement segment.

    x first (y interpolated on the old->new line), then y (x recomputed from the original
    segment). Returns which bots were outside. `width`/`height` are [B, 1].
    """
    x, y, x0, y0 = bots.x, bots.y, bots.x0, bots.y0
    dx, dy = x - x0, y - y0
    lo_x, hi_x = BOT_RADIUS, width - BOT_RADIUS
    lo_y, hi_y = BOT_RADIUS, height - BOT_RADIUS
    out_x = mask & ((x < lo_x) | (x > hi_x))
    new_x = np.where(x < lo_x, lo_x, hi_x)
    safe_dx = np.where(dx == 0.0, 1.0, dx)
    y1 = np.where(out_x & (dx != 0.0), y0 + dy * (new_x - x0) / safe_dx, y)
    x1 = np.where(out_x, new_x, x)
    out_y = mask & ((y1 < lo_y) | (y1 > hi_y))
    new_y = np.where(y1 < lo_y, lo_y, hi_y)
    safe_dy = np.where(dy == 0.0, 1.0, dy)
    x2 = np.where(out_y & (dy != 0.0), x0 + dx * (new_y - y0) / safe_dy, x1)
    y2 = np.where(out_y, new_y, y1)
    bots.x[:] = x2
    bots.y[:] = y2
    return out_x | out_y


def bot_wall_collisions(
    bots: Bots, width: F64, height: F64, mask: Bool, events: TurnEvents
) -> None:
    """§7.4: push back, speed 0; damage max(|v|/2 - 1, 0) and an event only on a first hit."""
    hit = _push_inside(bots, width, height, mask)
    first = hit & ~bots.wall_event_prev
    damage = np.maximum(np.abs(bots.speed) / 2.0 - 1.0, 0.0)
    bots.energy -= np.where(first, damage, 0.0)
    bots.speed[:] = np.where(hit, 0.0, bots.speed)
    events.bot_wall[:] = first
    bots.wall_event_prev[:] = np.where(mask, first, bots.wall_event_prev)


def _rams(bots: Bots, i: int, j: int) -> Bool:
    """Whether bot i rams bot j: moving toward it (|bearing| < 90 forward, > 90 backward)."""
    bearing = np.abs(
        calc_bearing(
            direction_to(bots.x[:, i], bots.y[:, i], bots.x[:, j], bots.y[:, j]),
            bots.direction[:, i],
        )
    )
    speed = bots.speed[:, i]
    return ((speed > 0.0) & (bearing < 90.0)) | ((speed < 0.0) & (bearing > 90.0))


def bot_bot_collisions(
    bots: Bots,
    scores: Scores,
    events: TurnEvents,
    running: Bool,
    first_turn: Bool,
    seeds: F64,
    round_number: I32,
    width: F64,
    height: F64,
) -> None:
    """§7.5 for every pair (i < j) of bots in the map, in index order."""
    n = bots.x.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            both = running & bots.in_map[:, i] & bots.in_map[:, j]
            dist = np.hypot(bots.x[:, i] - bots.x[:, j], bots.y[:, i] - bots.y[:, j])
            hit = both & (dist <= 2.0 * BOT_RADIUS)
            if not hit.any():
                continue
            _apply_ram(bots, scores, events, hit, i, j)
            _revert(bots, hit, first_turn, i, j, seeds, round_number, width, height)
            for a, o in ((i, j), (j, i)):
                events.hitbot_energy[:, o] = np.where(
                    hit, bots.energy[:, o], events.hitbot_energy[:, o]
                )
                events.hitbot_x[:, o] = np.where(hit, bots.x[:, o], events.hitbot_x[:, o])
                events.hitbot_y[:, o] = np.where(hit, bots.y[:, o], events.hitbot_y[:, o])


def _apply_ram(bots: Bots, scores: Scores, events: TurnEvents, hit: Bool, i: int, j: int) -> None:
    ram_i, ram_j = hit & _rams(bots, i, j), hit & _rams(bots, j, i)
    before_i, before_j = bots.energy[:, i].copy(), bots.energy[:, j].copy()
    bots.energy[:, i] -= np.where(hit, RAM_DAMAGE, 0.0)
    bots.energy[:, j] -= np.where(hit, RAM_DAMAGE, 0.0)
    for a, o, rammed, before_o in ((i, j, ram_i, before_j), (j, i, ram_j, before_i)):
        scores.ram_hits[:, a] += rammed
        scores.ram_hits_to[:, a, o] += rammed
        killed = rammed & (before_o >= 0.0) & (bots.energy[:, o] < 0.0)
        scores.killed_by_ram_of[:, o] = np.where(killed, a, scores.killed_by_ram_of[:, o])
        events.rammed[:, a, o] |= rammed
        bots.speed[:, a] = np.where(rammed, 0.0, bots.speed[:, a])
    events.bot_bot[:, i, j] |= hit
    events.bot_bot[:, j, i] |= hit


def _revert(
    bots: Bots,
    hit: Bool,
    first_turn: Bool,
    i: int,
    j: int,
    seeds: F64,
    round_number: I32,
    width: F64,
    height: F64,
) -> None:
    """Both bots back to their start-of-turn positions; on turn 1 bot j is teleported instead."""
    teleport = hit & first_turn
    for k in (i, j):
        back = hit & ~(teleport & (k == j))
        bots.x[:, k] = np.where(back, bots.x0[:, k], bots.x[:, k])
        bots.y[:, k] = np.where(back, bots.y0[:, k], bots.y[:, k])
    if teleport.any():
        w, h = width[:, 0], height[:, 0]
        ux = rng.uniform(seeds, round_number, rng.STREAM_TELEPORT_X, j)
        uy = rng.uniform(seeds, round_number, rng.STREAM_TELEPORT_Y, j)
        tx = BOT_RADIUS + ux * (w - 2.0 * BOT_RADIUS)
        ty = BOT_RADIUS + uy * (h - 2.0 * BOT_RADIUS)
        bots.x[:, j] = np.where(teleport, tx, bots.x[:, j])
        bots.y[:, j] = np.where(teleport, ty, bots.y[:, j])


def clamp_into_arena(bots: Bots, width: F64, height: F64, mask: Bool) -> None:
    """§7.6: the same push-back without damage or events, then a hard clamp for corner cases."""
    _push_inside(bots, width, height, mask)
    bots.x[:] = np.where(mask, np.clip(bots.x, BOT_RADIUS, width - BOT_RADIUS), bots.x)
    bots.y[:] = np.where(mask, np.clip(bots.y, BOT_RADIUS, height - BOT_RADIUS), bots.y)
