"""The official Bot API's blocking moves (`forward(100)`, `turn_right(65)`, `turn_gun_left(360)`),
emulated for batches [n] of scripted bots with the client-side planner, plus step sequences.

`Moves` keeps four independent channels per bot, as the official `Bot` does: remaining distance,
body turn, gun turn and radar turn. Each tick `observe` subtracts what really happened (distance
= this turn's speed; a turn = the direction change with one +-360 wrap, finished once the change
reaches what remains), a bot wall hit or a ram of its own cancels the distance, and `fill` asks
for `target_speed = new_target_speed(speed, remaining)` and turn rates = what remains, clamped to
+-10 / +-20 / +-45 like the official validator. A move is finished when its distance is 0 and the
bot stands still (as `Bot.forward` waits); a turn when nothing remains.

Deliberate difference: the official Python API 1.4.0 subtracts the *planned* next speed and never
the first turn's, so its `forward(100)` from rest travels 101 units; ours travels exactly 100.

`Script` runs a list of steps (one blocking call each) per bot. Like the official `wait_for`, a
started step is checked at the next tick at the earliest, so every step takes at least one turn,
and the next step starts on the tick the previous one is seen finished.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tankrl.arena.opponents.base import F64, I64, Bool
from tankrl.shared.angles import calc_delta_angle
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import (
    MAX_GUN_TURN_RATE,
    MAX_RADAR_TURN_RATE,
    MAX_SPEED,
    MAX_TURN_RATE,
)
from tankrl.shared.intent import Intent
from tankrl.shared.movement import new_target_speed

CHANNELS = ("forward", "turn", "gun", "radar")
"""Step kinds: distance (+ forward), body / gun / radar turn (+ left, counter-clockwise)."""

_NEAR_ZERO = 1e-5
"""A remaining turn below this counts as done (the official API's tolerance)."""


class Moves:
    """Remaining distance and body, gun and radar turns [n] of the blocking moves in progress."""

    def __init__(self, n: int, max_speed: float = MAX_SPEED) -> None:
        self.distance = np.zeros(n)
        self.turn = np.zeros(n)
        self.gun_turn = np.zeros(n)
        self.radar_turn = np.zeros(n)
        self.max_speed = max_speed
        self._previous = np.zeros((3, n))
        self._seen = np.zeros(n, dtype=np.bool_)

    def reset(self, mask: Bool) -> None:
        """Nothing in progress for the bots in `mask` (round start)."""
        for remaining in (self.distance, self.turn, self.gun_turn, self.radar_turn):
            remaining[mask] = 0.0
        self._seen[mask] = False

    def observe(self, view: BotView) -> None:
        """Subtract what the last turn did from every channel (call first in `decide`)."""
        now = np.stack((view.direction, view.gun_direction, view.radar_direction))
        delta = np.where(self._seen, calc_delta_angle(now, self._previous), 0.0)
        for i, remaining in enumerate((self.turn, self.gun_turn, self.radar_turn)):
            left = np.where(np.abs(remaining) <= np.abs(delta[i]), 0.0, remaining - delta[i])
            remaining[:] = np.where(np.abs(left) < _NEAR_ZERO, 0.0, left)
        self.distance -= np.where(self._seen, view.speed, 0.0)
        self.distance[view.hit_wall | view.hit_bot_rammed] = 0.0
        self._previous[:] = now
        self._seen[:] = True

    def start(self, kind: str, mask: Bool, amount: float | F64) -> None:
        """Begin a blocking move (`forward`/`turn`/`gun`/`radar`, + = forward / left)."""
        remaining = self.channel(kind)
        remaining[mask] = np.broadcast_to(np.asarray(amount, dtype=np.float64), mask.shape)[mask]

    def channel(self, kind: str) -> F64:
        """The remaining-amount array [n] of one step kind."""
        return {
            "forward": self.distance,
            "turn": self.turn,
            "gun": self.gun_turn,
            "radar": self.radar_turn,
        }[kind]

    def done(self, kind: str, view: BotView) -> Bool:
        """Whether the channel's move is finished (a distance also needs the bot to stand still)."""
        if kind == "forward":
            return np.asarray((self.distance == 0.0) & (view.speed == 0.0))
        return np.asarray(self.channel(kind) == 0.0)

    def fill(self, view: BotView, intent: Intent | None = None) -> Intent:
        """Write the four channels' requests into `intent` (default: a fresh one); return it."""
        out = Intent.zeros(view.size) if intent is None else intent
        out.target_speed[:] = new_target_speed(view.speed, self.distance, self.max_speed)
        out.turn_rate[:] = np.clip(self.turn, -MAX_TURN_RATE, MAX_TURN_RATE)
        out.gun_turn_rate[:] = np.clip(self.gun_turn, -MAX_GUN_TURN_RATE, MAX_GUN_TURN_RATE)
        out.radar_turn_rate[:] = np.clip(self.radar_turn, -MAX_RADAR_TURN_RATE, MAX_RADAR_TURN_RATE)
        return out


Amount = float | Callable[[BotView], F64]
"""A step's amount: a constant, or computed from the tick on which the step starts."""


@dataclass(frozen=True)
class Step:
    """One blocking call: `kind` in CHANNELS and its amount (deg + = left, units + = forward)."""

    kind: str
    amount: Amount


class Script:
    """A sequence of steps per bot. `loop_from` is the step index a looping script returns to;
    None makes a one-shot script (a reaction) that stops after its last step. A looping script
    starts out running (a bot's main loop), a one-shot one idle until `start`."""

    def __init__(self, n: int, steps: Sequence[Step], loop_from: int | None = 0) -> None:
        if not steps or any(s.kind not in CHANNELS for s in steps):
            raise ValueError(f"steps must be non-empty with kinds in {CHANNELS}")
        self.steps = tuple(steps)
        self.loop_from = loop_from
        self._kinds = tuple(dict.fromkeys(s.kind for s in self.steps))
        self._kind_of_step = np.array([self._kinds.index(s.kind) for s in self.steps])
        self._bots = np.arange(n)
        self.step: I64 = np.full(n, -1, dtype=np.int64)
        """Index of the running step; -1 = not started yet."""
        self.running = np.full(n, loop_from is not None, dtype=np.bool_)

    def reset(self, mask: Bool, running: bool) -> None:
        """Back to before the first step; `running` says whether the script should start."""
        self.step[mask] = -1
        self.running[mask] = running

    def start(self, mask: Bool, view: BotView, moves: Moves) -> None:
        """(Re)start the script at its first step for the bots in `mask`, on this tick."""
        self.reset(mask, True)
        self._begin(mask, view, moves)

    def advance(self, view: BotView, moves: Moves, mask: Bool | None = None) -> Bool:
        """Start the next step where the running one is finished (only for bots in `mask`).

        Returns the bots whose one-shot script finished its last step on this tick.
        """
        active = self.running if mask is None else self.running & mask
        done = active & ((self.step < 0) | self._step_done(view, moves))
        finished = np.zeros_like(done)
        if self.loop_from is None:
            finished = done & (self.step == len(self.steps) - 1)
            self.running &= ~finished
        self._begin(done & ~finished, view, moves)
        return finished

    def _step_done(self, view: BotView, moves: Moves) -> Bool:
        """Whether each bot's running step is finished (meaningless where step < 0)."""
        if len(self._kinds) == 1:
            return moves.done(self._kinds[0], view)
        done = np.stack([moves.done(kind, view) for kind in self._kinds])
        return np.asarray(done[self._kind_of_step[np.maximum(self.step, 0)], self._bots])

    def _begin(self, mask: Bool, view: BotView, moves: Moves) -> None:
        """Move the bots in `mask` to their next step and start it."""
        if not mask.any():
            return
        nxt = self.step + 1
        if self.loop_from is not None:
            nxt = np.where(nxt >= len(self.steps), self.loop_from, nxt)
        self.step[mask] = nxt[mask]
        for i, s in enumerate(self.steps):
            starts = mask & (self.step == i)
            if starts.any():
                amount = s.amount(view) if callable(s.amount) else s.amount
                moves.start(s.kind, starts, amount)
