"""Scripted opponents always on the move: RamFire and Crazy (docs/rules.md §14.1), batched.

RamFire: searches by turning the body 5 deg per turn (left or right: the side its last target was
  on). On a scan it turns to face the scanned bot and then drives the scanned distance + 5 into
  it (two blocking moves; scans in between are ignored) and, once there, asks for a rescan. On a
  bot collision it fires with power scaled to the other bot's energy (> 16: 3, > 10: 2, > 4: 1,
  > 2: 0.5, > 0.4: 0.1, else none), turns to face it and drives 40 more (a new ram). Gun and
  radar follow the body; fire assist aims the shot at the last scan.
Crazy: drives forward "for ever" (40000) while weaving with blocking body turns: left 90, right
  180, left 180, repeated. Our randomisation: each weave turn is scaled by a seeded factor drawn
  in [0.75, 1.25) when the turn starts, so copies with different seeds weave differently. On
  hitting a wall, or ramming a bot itself, it reverses (back 40000 / forward 40000). It fires
  power 1 on every scan.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.base import (
    F64,
    Bool,
    ScriptedBot,
    fire_if_ready,
    scan_bearing,
    scan_distance,
)
from tankrl.arena.opponents.moves import Moves, Script, Step
from tankrl.shared.angles import bearing_to
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

_RAM_POWER = ((16.0, 3.0), (10.0, 2.0), (4.0, 1.0), (2.0, 0.5), (0.4, 0.1))
"""RamFire's firepower by the rammed bot's energy: (energy above, power), first match wins."""


def ram_power(energy: F64) -> F64:
    """RamFire's firepower for a rammed bot with `energy` (0 = do not fire)."""
    return np.select([energy > e for e, _ in _RAM_POWER], [p for _, p in _RAM_POWER], 0.0)


class RamFire(ScriptedBot):
    """Turns to face scanned bots and rams them; fires on contact by the victim's energy."""

    name = "RamFire"
    SEARCH_STEP = 5.0
    OVERSHOOT = 5.0
    FOLLOW_UP = 40.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.turn_direction = np.ones(n)
        self.aim_turn = np.zeros(n)
        self.aim_distance = np.zeros(n)
        self.search = Script(n, (Step("turn", lambda v: self.SEARCH_STEP * self.turn_direction),))
        self.charge = Script(
            n,
            (Step("turn", lambda v: self.aim_turn), Step("forward", lambda v: self.aim_distance)),
            loop_from=None,
        )

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.search.reset(mask, True)
        self.charge.reset(mask, False)
        self.turn_direction[mask] = 1.0

    def decide(self, view: BotView) -> Intent:
        self.moves.observe(view)
        arrived = self.charge.advance(view, self.moves)
        hit = view.hit_bot
        seen = view.scanned & ~self.charge.running & ~hit
        react = hit | seen
        hit_bearing = bearing_to(view.x, view.y, view.direction, view.hit_bot_x, view.hit_bot_y)
        bearing = np.where(hit, hit_bearing, scan_bearing(view, view.direction))
        side = np.where(bearing >= 0.0, 1.0, -1.0)
        self.turn_direction = np.where(react, side, self.turn_direction)
        self.aim_turn = np.where(react, bearing, self.aim_turn)
        ahead = np.where(hit, self.FOLLOW_UP, scan_distance(view) + self.OVERSHOOT)
        self.aim_distance = np.where(react, ahead, self.aim_distance)
        self.charge.start(react, view, self.moves)
        self.search.advance(view, self.moves, ~self.charge.running)
        intent = self.moves.fill(view)
        intent.firepower[:] = fire_if_ready(view, ram_power(view.hit_bot_energy), hit)
        intent.rescan[:] = arrived & ~self.charge.running
        return intent


class Crazy(ScriptedBot):
    """Drives far while weaving left 90 / right 180 / left 180 (seeded jitter); reverses at walls
    and after its own rams; fires power 1 on scans."""

    name = "Crazy"
    FAR = 40000.0
    WEAVE = (90.0, -180.0, 180.0)

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.forward = np.ones(n, dtype=np.bool_)
        self.fresh = np.ones(n, dtype=np.bool_)
        self.weave = Script(
            n,
            (
                Step("turn", lambda v: self._weave(v, 0)),
                Step("turn", lambda v: self._weave(v, 1)),
                Step("turn", lambda v: self._weave(v, 2)),
            ),
        )

    def _weave(self, view: BotView, i: int) -> F64:
        return self.WEAVE[i] * (0.75 + 0.5 * self.draw(view, i))

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.weave.reset(mask, True)
        self.forward[mask] = True
        self.fresh[mask] = True

    def decide(self, view: BotView) -> Intent:
        moves = self.moves
        moves.observe(view)
        moves.start("forward", self.fresh, self.FAR)
        self.fresh[:] = False
        reverse = view.hit_wall | view.hit_bot_rammed
        self.forward ^= reverse
        moves.start("forward", reverse, np.where(self.forward, self.FAR, -self.FAR))
        self.weave.advance(view, moves)
        intent = moves.fill(view)
        intent.firepower[:] = fire_if_ready(view, 1.0, view.scanned)
        return intent
