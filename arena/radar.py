"""Rules §5: radar scans. A bot that moved or asked to rescan sweeps the circular sector between its
old and new radar direction (radius 1200; a ray when the sweep is 0) and sees every bot whose
18-unit circle touches it. Fills TurnEvents.scans [B, scanner, target] and the scan snapshots.
"""

import numpy as np

from arena.state import F64, Bool, Bots, StoredIntents, TurnEvents
from shared.game_constants import BOT_RADIUS, RADAR_RADIUS


def _segment_hits_circle(
    px: F64, py: F64, ux: F64, uy: F64, length: float, cx: F64, cy: F64, r: float
) -> Bool:
    """Whether the segment p + s*u, s in [0, length] (u a unit vector) touches circle (c, r)."""
    s = np.clip((cx - px) * ux + (cy - py) * uy, 0.0, length)
    qx, qy = px + s * ux - cx, py + s * uy - cy
    return np.asarray(qx * qx + qy * qy <= r * r)


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
    events.scans[:] = False
    n = bots.x.shape[1]
    sweep = bots.radar_sweep
    start = np.radians(np.where(sweep >= 0.0, bots.radar_direction - sweep, bots.radar_direction))
    end = start + np.radians(np.abs(sweep))
    u1x, u1y, u2x, u2y = np.cos(start), np.sin(start), np.cos(end), np.sin(end)
    for s in range(n):
        if not scanners[:, s].any():
            continue
        for t in range(n):
            if t == s:
                continue
            dx = bots.x[:, t] - bots.x[:, s]
            dy = bots.y[:, t] - bots.y[:, s]
            near = np.hypot(dx, dy) <= RADAR_RADIUS + BOT_RADIUS
            between = (
                (sweep[:, s] != 0.0)
                & (u1x[:, s] * dy - u1y[:, s] * dx >= 0.0)
                & (dx * u2y[:, s] - dy * u2x[:, s] >= 0.0)
            )
            arm1 = _segment_hits_circle(
                bots.x[:, s],
                bots.y[:, s],
                u1x[:, s],
                u1y[:, s],
                RADAR_RADIUS,
                bots.x[:, t],
                bots.y[:, t],
                BOT_RADIUS,
            )
            arm2 = _segment_hits_circle(
                bots.x[:, s],
                bots.y[:, s],
                u2x[:, s],
                u2y[:, s],
                RADAR_RADIUS,
                bots.x[:, t],
                bots.y[:, t],
                BOT_RADIUS,
            )
            seen = scanners[:, s] & bots.in_map[:, t] & near & (between | arm1 | arm2)
            events.scans[:, s, t] = seen
    events.scan_energy[:] = bots.energy
    events.scan_x[:] = bots.x
    events.scan_y[:] = bots.y
    events.scan_direction[:] = bots.direction
    events.scan_speed[:] = bots.speed
