"""Rules §5: radar scans. A bot that moved or asked to rescan sweeps the circular sector between its
old and new radar direction (radius 1200; a ray when the sweep is 0) and sees every bot whose
18-unit circle touches it. Fills TurnEvents.scans [B, scanner, target] and the scan snapshots.
"""

import numpy as np

from arena.state import F64, Bool, Bots, StoredIntents, TurnEvents
from shared.game_constants import BOT_RADIUS, RADAR_RADIUS


def _arm_touches(cross: F64, along: F64) -> Bool:
    """Whether an arm (segment of length 1200 from the scanner along a unit vector) touches the
    target circle, given the target's signed distance from the arm's line (`cross`) and its
    projection on the arm (`along`)."""
    s = np.clip(along, 0.0, RADAR_RADIUS)
    # distance^2 from the target centre to the closest point of the arm
    d2 = cross * cross + (along - s) * (along - s)
    return np.asarray(d2 <= BOT_RADIUS * BOT_RADIUS)


def scanning(bots: Bots, intents: StoredIntents) -> Bool:
    """Bots that scan this turn: rescan, or any of x, y, body, gun, radar changed (exactly)."""
    moved = (
        (bots.x != bots.x0)
        | (bots.y != bots.y0)
        | (bots.direction != bots.direction0)
        | (bots.gun_direction != bots.gun_direction0)
        | (bots.radar_direction != bots.radar_direction0)
    )
    return np.asarray(bots.in_map & (intents.rescan | moved))


def scan(bots: Bots, intents: StoredIntents, running: Bool, events: TurnEvents) -> None:
    """Detect every (scanner, target) pair of this turn."""
    scanners = scanning(bots, intents) & running[:, None]
    n = bots.x.shape[1]
    sweep = bots.radar_sweep
    start = np.radians(bots.radar_direction - np.maximum(sweep, 0.0))
    end = start + np.radians(np.abs(sweep))
    u1x, u1y, u2x, u2y = np.cos(start), np.sin(start), np.cos(end), np.sin(end)
    for s in range(n):
        for t in range(n):
            if t == s:
                continue
            dx = bots.x[:, t] - bots.x[:, s]
            dy = bots.y[:, t] - bots.y[:, s]
            c1 = u1x[:, s] * dy - u1y[:, s] * dx  # > 0: target left of (CCW from) the first arm
            c2 = dx * u2y[:, s] - dy * u2x[:, s]  # > 0: target right of (CW from) the second arm
            near = dx * dx + dy * dy <= (RADAR_RADIUS + BOT_RADIUS) ** 2
            seen = (c1 >= 0.0) & (c2 >= 0.0) & (sweep[:, s] != 0.0)
            # arms: only targets within 18 of an arm's line need the exact segment test
            maybe = ~seen & ((np.abs(c1) <= BOT_RADIUS) | (np.abs(c2) <= BOT_RADIUS))
            if maybe.any():
                a = np.nonzero(maybe)[0]
                dxa, dya = dx[a], dy[a]
                arm1 = _arm_touches(c1[a], u1x[a, s] * dxa + u1y[a, s] * dya)
                arm2 = _arm_touches(c2[a], u2x[a, s] * dxa + u2y[a, s] * dya)
                seen[a] = arm1 | arm2
            events.scans[:, s, t] = seen & near & scanners[:, s] & bots.in_map[:, t]
    events.scan_energy[:] = bots.energy
    events.scan_x[:] = bots.x
    events.scan_y[:] = bots.y
    events.scan_direction[:] = bots.direction
    events.scan_speed[:] = bots.speed
