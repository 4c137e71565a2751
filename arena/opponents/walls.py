"""Scripted opponents that live at the walls: Walls and Corners (docs/rules.md §14.1), batched.

Walls: at round start turns right by (direction mod 90) to face a wall square on, drives until it
  hits that wall, turns the gun right 90 and the body right 90; from then on it drives along the
  wall until the next wall stops it and turns right 90, forever (clockwise round the perimeter
  with the gun pointing inward; gun and radar follow the body). It fires power 2 on every scan;
  while driving along a wall it "peeks": a scan there also asks for a rescan, so a bot ahead of
  the corner keeps being seen and shot before it turns.
Corners: picks one of the four corners at random when created and keeps it across rounds. Each
  round it turns to face the wall of that corner's first side (corner k: direction 90 k), drives
  into it, turns left 90 and drives into the second wall, turns the gun left 90 to look back along
  the second wall, then sweeps gun (and radar) left 90 and right 90 over the inward quadrant
  forever. On a scan it fires power 1 if the bot is farther than 200 or its own energy is
  below 15, power 2 if farther than 50, else 3. When it dies while its enemy lives (a bad death;
  it must see its death tick) it moves on to the next corner (counter-clockwise) for later rounds.
Driving "into a wall" is forward(5000): the official API cancels the distance on a wall hit.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.base import F64, Bool, ScriptedBot, fire_if_ready, scan_distance
from tankrl.arena.opponents.moves import Moves, Script, Step
from tankrl.arena.rules import rng
from tankrl.shared.angles import normalize_relative_angle
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

FAR = 5000.0
"""forward() distance that only a wall (or a ram) ends."""


class Walls(ScriptedBot):
    """Clockwise round the perimeter, gun inward; fires 2 on scans, peeks with rescan."""

    name = "Walls"
    POWER = 2.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.script = Script(
            n,
            (
                Step("turn", lambda v: -np.mod(v.direction, 90.0)),
                Step("forward", FAR),
                Step("gun", -90.0),
                Step("turn", -90.0),
                Step("forward", FAR),  # along a wall: peeking
                Step("turn", -90.0),
            ),
            loop_from=4,
        )

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.script.reset(mask, True)

    def decide(self, view: BotView) -> Intent:
        self.moves.observe(view)
        self.script.advance(view, self.moves)
        peeking = self.script.step == 4
        intent = self.moves.fill(view)
        intent.firepower[:] = fire_if_ready(view, self.POWER, view.scanned)
        intent.rescan[:] = view.scanned & peeking
        return intent


class Corners(ScriptedBot):
    """Drives into its (remembered) corner and sweeps the gun over the arena; power by distance."""

    name = "Corners"
    STREAM_CORNER = 0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        u = rng.uniform(self.seeds, 0, rng.STREAM_OPPONENT + self.STREAM_CORNER, 0)
        self.corner = np.minimum((u * 4.0).astype(np.int64), 3)
        """0..3: the corner between the walls in direction 90 k and 90 (k + 1)."""
        self.switched = np.zeros(n, dtype=np.bool_)
        self.moves = Moves(n)
        self.script = Script(
            n,
            (
                Step("turn", self._face_first_wall),
                Step("forward", FAR),
                Step("turn", 90.0),
                Step("forward", FAR),
                Step("gun", 90.0),
                Step("gun", 90.0),
                Step("gun", -90.0),
            ),
            loop_from=5,
        )

    def _face_first_wall(self, view: BotView) -> F64:
        return normalize_relative_angle(90.0 * self.corner - view.direction)

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.script.reset(mask, True)
        self.switched[mask] = False

    def decide(self, view: BotView) -> Intent:
        bad_death = (view.energy < 0.0) & ~view.enemy_died & ~self.switched
        self.corner = np.where(bad_death, (self.corner + 1) % 4, self.corner)
        self.switched |= bad_death
        self.moves.observe(view)
        self.script.advance(view, self.moves)
        intent = self.moves.fill(view)
        distance = scan_distance(view)
        power = np.where(
            (distance > 200.0) | (view.energy < 15.0), 1.0, np.where(distance > 50.0, 2.0, 3.0)
        )
        intent.firepower[:] = fire_if_ready(view, power, view.scanned)
        return intent
