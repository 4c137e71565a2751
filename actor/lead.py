"""Lead aiming: the point to shoot at so a bullet meets an enemy that keeps a fraction of its
velocity, the aim rule of contract v4's `aim_lead` and of the scripted demonstrator.

With lead k the aim point is the enemy's position plus k times its velocity times the bullet's
flight time to that point (fixed-point iterations, each point clipped into the arena's reachable
area): k = 1 is linear targeting, 0 head-on, a negative k bets on a reversal. Whatever k, a
standing enemy is aimed at exactly, so learning where to lead cannot cost aim at the simple case.
Pure numpy on arrays [B].
"""

import numpy as np
import numpy.typing as npt

from tankrl.shared.game_constants import BOT_RADIUS, bullet_speed

F64 = npt.NDArray[np.float64]

LEAD_ITERATIONS = 3
"""Flight time and aim point are refined this many times (the flight time depends on the point)."""


def lead_point(
    own_x: F64,
    own_y: F64,
    enemy_x: F64,
    enemy_y: F64,
    enemy_vx: F64,
    enemy_vy: F64,
    lead: F64,
    power: F64,
    width: F64 | float,
    height: F64 | float,
) -> tuple[F64, F64]:
    """Aim point (x, y) for bullets of `power` and lead fraction `lead` (see the module doc)."""
    speed = bullet_speed(power)
    px, py = enemy_x, enemy_y
    for _ in range(LEAD_ITERATIONS):
        reach = lead * np.hypot(px - own_x, py - own_y) / speed
        px = np.clip(enemy_x + reach * enemy_vx, BOT_RADIUS, np.subtract(width, BOT_RADIUS))
        py = np.clip(enemy_y + reach * enemy_vy, BOT_RADIUS, np.subtract(height, BOT_RADIUS))
    return np.asarray(px, dtype=np.float64), np.asarray(py, dtype=np.float64)
