"""The scripted-opponent protocol and what every opponent shares: seeded draws, the official
API's set_fire check and a few bearings, all over batches [n] of independent copies.

An opponent reads one BotView per tick (own state, this tick's scan, own events) and answers with
the Intent for the next turn, exactly as the Bot API shell (actor.botapi_shell) hosts it.
"""

from typing import ClassVar

import numpy as np
import numpy.typing as npt

from tankrl.arena.rules import rng
from tankrl.shared.angles import bearing_to, normalize_relative_angle
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]


class ScriptedBot:
    """n independent copies of one scripted bot (one per arena), seeded per copy."""

    name: ClassVar[str] = ""

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        self.n = n
        self.seeds = np.broadcast_to(np.asarray(seeds, dtype=np.uint64), (n,)).copy()

    def reset_round(self, mask: Bool) -> None:
        """Forget the round-local state of the copies in `mask` (a new round starts)."""
        raise NotImplementedError

    def reset_battle(self, mask: Bool) -> None:
        """Forget what the copies in `mask` learned about their enemy: a new battle starts (the
        host calls it before that battle's first reset_round). Default: nothing is learned."""

    def decide(self, view: BotView) -> Intent:
        """The intent answering this tick (the host applies it next turn)."""
        raise NotImplementedError

    def draw(self, view: BotView, stream: int, *keys: npt.ArrayLike) -> F64:
        """Uniform [0, 1) draws [n] keyed by (seed, round, STREAM_OPPONENT + stream, turn, keys)."""
        return rng.uniform(
            self.seeds, view.round_number, rng.STREAM_OPPONENT + stream, view.turn_number, *keys
        )


def fire_if_ready(view: BotView, power: float | F64, want: Bool) -> F64:
    """The firepower the official `set_fire(power)` leaves in the intent: `power` where wanted,
    the gun is cold (heat exactly 0) and energy >= power; 0 elsewhere (the call is refused)."""
    p = np.broadcast_to(np.asarray(power, dtype=np.float64), want.shape)
    ok = want & (view.gun_heat == 0.0) & (view.energy >= p)
    return np.where(ok, p, 0.0)


def scan_bearing(view: BotView, heading: F64) -> F64:
    """Bearing of this tick's scanned bot from `heading` (0 where nothing was scanned)."""
    b = bearing_to(view.x, view.y, heading, view.scan_x, view.scan_y)
    return np.where(view.scanned, b, 0.0)


def scan_distance(view: BotView) -> F64:
    """Distance to this tick's scanned bot (0 where nothing was scanned)."""
    return np.where(view.scanned, np.hypot(view.scan_x - view.x, view.scan_y - view.y), 0.0)


def perpendicular_turn(direction: F64, bullet_direction: F64) -> F64:
    """The smallest left turn (deg, in [-90, 90)) that puts the body at right angles to a bullet's
    path, i.e. to dodge sideways."""
    t = normalize_relative_angle(bullet_direction + 90.0 - direction)
    return np.where(t >= 90.0, t - 180.0, np.where(t < -90.0, t + 180.0, t))
