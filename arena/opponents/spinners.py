"""Scripted opponents driven by continuous rates: SpinBot and VelociBot (docs/rules.md §14.1),
batched.

SpinBot: circles forever: body turn right at the full rate (the server limits it to 6.25 deg/turn
  at speed 5) while driving forward with its max speed set to 5 (the planner accelerates by 1 per
  turn). Gun and radar turn with the body; on a scan, and point-blank on a bot collision, it fires
  power 3 (fire assist aims the shot at the last scan).
VelociBot: the rate-based API demo: gun turn rate 15 always; a turn counter from the round start
  sets turn rate 0 and target speed +4 every 64 turns (at 0, 64, ...) and target speed -6 half-way
  (32, 96, ...), written raw, so reversing from +4 triggers the server's zero-crossing brake (4 -> 1
  -> -0.5 -> ..., docs/rules.md §4.1). When hit by a bullet it sets turn rate 5; on hitting a wall
  it negates its target speed. On a scan it fires power 1 (our addition: the one-line description
  names no shot, and a gun turning forever without firing would make it harmless).
Event reactions run before the turn's own logic, as the official API dispatches handlers first.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.base import Bool, ScriptedBot, fire_if_ready
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import MAX_TURN_RATE
from tankrl.shared.intent import Intent
from tankrl.shared.movement import new_target_speed


class SpinBot(ScriptedBot):
    """Circles right at max speed 5; fires power 3 on scans and on collisions."""

    name = "SpinBot"
    MAX_SPEED = 5.0
    POWER = 3.0

    def reset_round(self, mask: Bool) -> None:
        """SpinBot keeps no state."""

    def decide(self, view: BotView) -> Intent:
        intent = Intent.zeros(self.n)
        intent.turn_rate[:] = -MAX_TURN_RATE
        intent.target_speed[:] = new_target_speed(
            view.speed, np.full(self.n, np.inf), self.MAX_SPEED
        )
        intent.firepower[:] = fire_if_ready(view, self.POWER, view.scanned | view.hit_bot)
        return intent


class VelociBot(ScriptedBot):
    """Raw rates: gun 15/turn, target speed +4 / -6 every 32 turns, hit turn, wall reversal."""

    name = "VelociBot"
    GUN_TURN_RATE = 15.0
    PERIOD = 64
    FORWARD_SPEED = 4.0
    BACKWARD_SPEED = -6.0
    HIT_TURN_RATE = 5.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.counter = np.zeros(n, dtype=np.int64)
        self.target_speed = np.zeros(n)
        self.turn_rate = np.zeros(n)

    def reset_round(self, mask: Bool) -> None:
        self.counter[mask] = 0
        self.target_speed[mask] = 0.0
        self.turn_rate[mask] = 0.0

    def decide(self, view: BotView) -> Intent:
        self.turn_rate[view.hit_by_bullet] = self.HIT_TURN_RATE
        self.target_speed[view.hit_wall] *= -1.0
        phase = self.counter % self.PERIOD
        forward = phase == 0
        self.turn_rate[forward] = 0.0
        self.target_speed[forward] = self.FORWARD_SPEED
        self.target_speed[phase == self.PERIOD // 2] = self.BACKWARD_SPEED
        self.counter += 1
        intent = Intent.zeros(self.n)
        intent.target_speed[:] = self.target_speed
        intent.turn_rate[:] = self.turn_rate
        intent.gun_turn_rate[:] = self.GUN_TURN_RATE
        intent.firepower[:] = fire_if_ready(view, 1.0, view.scanned)
        return intent
