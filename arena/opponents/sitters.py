"""Scripted opponents that mostly sit still: Target, Fire and TrackFire (docs/rules.md §14.1),
batched.

Target: stands still and never fires or turns anything. Each time its energy falls below its
  trigger (80 at round start, then 60, 40, ...) it lowers the trigger by 20, turns right 65 deg
  and drives forward 100 (two blocking moves); a trigger passed while moving is served afterwards.
Fire: stands still turning its gun right 5 deg per turn (radar follows the gun, fire assist on).
  On a scan it fires power 3 if the target is closer than 50 and its own energy is above 50, else
  power 1, and holds the gun that turn with a rescan, so a target that stays in the radar ray keeps
  being scanned and shot. When hit by a bullet it turns at right angles to the bullet's path and
  drives 50, alternating forward and back on successive hits (the gun holds meanwhile).
TrackFire: stands still sweeping the gun right 10 deg per turn. On a scan it turns the gun left by
  the scanned bot's gun bearing (at most 20 per turn, continued while it remains) and, when that
  bearing is within 3 deg and the gun is cold, fires power 3 - |bearing|; a bearing of exactly 0
  asks for a rescan. On winning the round it spins the body left.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.base import (
    Bool,
    ScriptedBot,
    fire_if_ready,
    perpendicular_turn,
    scan_bearing,
)
from tankrl.arena.opponents.moves import Moves, Script, Step
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import MAX_TURN_RATE
from tankrl.shared.intent import Intent


class Target(ScriptedBot):
    """Sits still; below each energy trigger (80, 60, ...) turns right 65 and drives 100."""

    name = "Target"
    FIRST_TRIGGER = 80.0
    TRIGGER_STEP = 20.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.escape = Script(n, (Step("turn", -65.0), Step("forward", 100.0)), loop_from=None)
        self.trigger = np.full(n, self.FIRST_TRIGGER)

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.escape.reset(mask, False)
        self.trigger[mask] = self.FIRST_TRIGGER

    def decide(self, view: BotView) -> Intent:
        self.moves.observe(view)
        self.escape.advance(view, self.moves)
        fired = ~self.escape.running & (view.energy < self.trigger)
        self.trigger[fired] -= self.TRIGGER_STEP
        self.escape.start(fired, view, self.moves)
        return self.moves.fill(view)


class Fire(ScriptedBot):
    """Sits still turning the gun 5/turn; fires 3 or 1 with rescan on scans; dodges when hit."""

    name = "Fire"
    GUN_STEP = -5.0
    DODGE_DISTANCE = 50.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.sweep = Script(n, (Step("gun", self.GUN_STEP),))
        self.dodge = Script(
            n,
            (Step("turn", lambda v: self.dodge_turn), Step("forward", lambda v: self.dodge_way)),
            loop_from=None,
        )
        self.dodge_turn = np.zeros(n)
        self.dodge_way = np.full(n, self.DODGE_DISTANCE)

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.sweep.reset(mask, True)
        self.dodge.reset(mask, False)
        self.dodge_way[mask] = self.DODGE_DISTANCE

    def decide(self, view: BotView) -> Intent:
        self.moves.observe(view)
        finished = self.dodge.advance(view, self.moves)
        self.dodge_way[finished] *= -1.0
        hit = view.hit_by_bullet & ~self.dodge.running
        self.dodge_turn[:] = perpendicular_turn(view.direction, view.hit_by_bullet_direction)
        self.dodge.start(hit, view, self.moves)
        self.sweep.advance(view, self.moves, ~self.dodge.running & ~view.scanned)
        intent = self.moves.fill(view)
        close = np.hypot(view.scan_x - view.x, view.scan_y - view.y) < 50.0
        power = np.where(close & (view.energy > 50.0), 3.0, 1.0)
        intent.firepower[:] = fire_if_ready(view, power, view.scanned)
        intent.rescan[:] = view.scanned
        return intent


class TrackFire(ScriptedBot):
    """Sits still; turns the gun onto scanned bots, fires 3 - |error| within 3 deg; victory spin."""

    name = "TrackFire"
    SEARCH_STEP = -10.0
    AIM_TOLERANCE = 3.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)

    def decide(self, view: BotView) -> Intent:
        moves = self.moves
        moves.observe(view)
        error = scan_bearing(view, view.gun_direction)
        moves.start("gun", view.scanned, error)
        moves.start("gun", ~view.scanned & (moves.gun_turn == 0.0), self.SEARCH_STEP)
        intent = moves.fill(view)
        on_target = view.scanned & (np.abs(error) <= self.AIM_TOLERANCE)
        intent.firepower[:] = fire_if_ready(view, 3.0 - np.abs(error), on_target)
        intent.rescan[:] = view.scanned & (error == 0.0)
        intent.turn_rate[:] = np.where(view.won_round, MAX_TURN_RATE, intent.turn_rate)
        return intent
