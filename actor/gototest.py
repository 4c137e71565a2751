"""GotoTest: the v2 goto/aimTo controllers (actor.controllers) driven without a network, batched.

A demonstration bot for the controllers: it drives to a random point with the goto controller
until within 20 units, or until it has made no progress toward it for 25 turns, then picks the
next point (uniform in the arena, 50 units from the walls). The radar spins left at 45 deg/turn
on its own (all three adjust flags on, hence fire assist off, as the Bot API couples them); the
gun is aimed with the aimTo controller at the last scanned enemy position (the arena centre
before the first scan) and fires a seeded random power in [1, 2) when the gun bearing to that
point is within 3 deg, the gun is cold and energy exceeds the power. Same decider protocol as the
scripted opponents (arena.opponents), so the Bot API shell and the native env can both host it.
"""

from typing import ClassVar

import numpy as np
import numpy.typing as npt

from tankrl.actor.controllers import aim_to, goto
from tankrl.arena.rules import rng
from tankrl.shared.angles import bearing_to
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import MAX_RADAR_TURN_RATE
from tankrl.shared.intent import Intent

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

STREAM_GOTO = 50
"""GotoTest's draws use rng.STREAM_OPPONENT + STREAM_GOTO + (0: goal x, 1: goal y, 2: power)."""


class GotoTest:
    """n copies of the goto/aimTo prototype (one per arena), seeded per copy."""

    name: ClassVar[str] = "GotoTest"
    ARRIVAL_DISTANCE = 20.0
    STUCK_TURNS = 25
    MIN_PROGRESS = 0.5
    WALL_MARGIN = 50.0
    AIM_TOLERANCE_DEG = 3.0
    MIN_POWER, MAX_POWER = 1.0, 2.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        self.n = n
        self.seeds = np.broadcast_to(np.asarray(seeds, dtype=np.uint64), (n,)).copy()
        self.goal_x, self.goal_y = np.zeros(n), np.zeros(n)
        self.has_goal = np.zeros(n, dtype=np.bool_)
        self.last_distance = np.zeros(n)
        self.stuck = np.zeros(n, dtype=np.int64)
        self.aim_x, self.aim_y = np.zeros(n), np.zeros(n)
        self.seen = np.zeros(n, dtype=np.bool_)

    def reset_round(self, mask: Bool) -> None:
        """New round: no goal, no enemy seen yet."""
        self.has_goal[mask] = False
        self.seen[mask] = False
        self.stuck[mask] = 0

    def _draw(self, view: BotView, k: int) -> F64:
        stream = rng.STREAM_OPPONENT + STREAM_GOTO + k
        return rng.uniform(self.seeds, view.round_number, stream, view.turn_number)

    def _update_goal(self, view: BotView) -> None:
        """Keep the goal, or draw a new one where it was reached or progress stalled."""
        distance = np.hypot(self.goal_x - view.x, self.goal_y - view.y)
        stalled = self.last_distance - distance < self.MIN_PROGRESS
        self.stuck = np.where(self.has_goal & stalled, self.stuck + 1, 0)
        new = ~self.has_goal | (distance < self.ARRIVAL_DISTANCE) | (self.stuck >= self.STUCK_TURNS)
        m = self.WALL_MARGIN
        gx = m + self._draw(view, 0) * (view.arena_width - 2.0 * m)
        gy = m + self._draw(view, 1) * (view.arena_height - 2.0 * m)
        self.goal_x, self.goal_y = np.where(new, gx, self.goal_x), np.where(new, gy, self.goal_y)
        self.has_goal[:] = True
        self.stuck[new] = 0
        self.last_distance = np.hypot(self.goal_x - view.x, self.goal_y - view.y)

    def _update_aim(self, view: BotView) -> None:
        """Aim at this tick's scan, else the last one, else the arena centre."""
        self.aim_x = np.where(self.seen, self.aim_x, 0.5 * view.arena_width)
        self.aim_y = np.where(self.seen, self.aim_y, 0.5 * view.arena_height)
        self.aim_x = np.where(view.scanned, view.scan_x, self.aim_x)
        self.aim_y = np.where(view.scanned, view.scan_y, self.aim_y)
        self.seen |= view.scanned

    def decide(self, view: BotView) -> Intent:
        """Goto the goal, aim at the last scan, fire when on target; radar spins."""
        self._update_goal(view)
        self._update_aim(view)
        intent = Intent.zeros(self.n)
        turn_rate, target_speed = goto(
            view.x, view.y, view.direction, view.speed, self.goal_x, self.goal_y
        )
        intent.turn_rate[:], intent.target_speed[:] = turn_rate, target_speed
        intent.gun_turn_rate[:] = aim_to(view.x, view.y, view.gun_direction, self.aim_x, self.aim_y)
        intent.radar_turn_rate[:] = MAX_RADAR_TURN_RATE
        intent.adjust_gun_for_body_turn[:] = True
        intent.adjust_radar_for_gun_turn[:] = True
        intent.adjust_radar_for_body_turn[:] = True
        intent.fire_assist[:] = False
        error = bearing_to(view.x, view.y, view.gun_direction, self.aim_x, self.aim_y)
        power = self.MIN_POWER + (self.MAX_POWER - self.MIN_POWER) * self._draw(view, 2)
        fire = self.seen & (np.abs(error) <= self.AIM_TOLERANCE_DEG)
        fire &= (view.gun_heat == 0.0) & (view.energy > power)
        intent.firepower[:] = np.where(fire, power, 0.0)
        return intent
