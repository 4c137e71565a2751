"""Scripted opponent MyFirstBot (docs/rules.md §14.1), batched.

MyFirstBot: loops forward 100, gun right 360, back 100, gun right 360 (blocking moves; the radar
  follows the gun, so each gun spin sweeps the whole arena). It fires power 1 on every scan (fire
  assist aims at the scan). When hit by a bullet it turns at right angles to the bullet's path
  (the smaller of the two turns); like an official event handler, that turn blocks the loop until
  it is done, while the loop's own distance and gun turn keep running.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.base import Bool, ScriptedBot, fire_if_ready, perpendicular_turn
from tankrl.arena.opponents.moves import Moves, Script, Step
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent


class MyFirstBot(ScriptedBot):
    """Forward/back 100 with full gun spins; fires 1 on scans; turns perpendicular when hit."""

    name = "MyFirstBot"
    POWER = 1.0

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.moves = Moves(n)
        self.main = Script(
            n,
            (
                Step("forward", 100.0),
                Step("gun", -360.0),
                Step("forward", -100.0),
                Step("gun", -360.0),
            ),
        )
        self.dodge_turn = np.zeros(n)
        self.dodge = Script(n, (Step("turn", lambda v: self.dodge_turn),), loop_from=None)

    def reset_round(self, mask: Bool) -> None:
        self.moves.reset(mask)
        self.main.reset(mask, True)
        self.dodge.reset(mask, False)

    def decide(self, view: BotView) -> Intent:
        self.moves.observe(view)
        self.dodge.advance(view, self.moves)
        hit = view.hit_by_bullet & ~self.dodge.running
        self.dodge_turn = perpendicular_turn(view.direction, view.hit_by_bullet_direction)
        self.dodge.start(hit, view, self.moves)
        self.main.advance(view, self.moves, ~self.dodge.running)
        intent = self.moves.fill(view)
        intent.firepower[:] = fire_if_ready(view, self.POWER, view.scanned)
        return intent
