"""Observers' and controllers' turn messages held at TPS -1 and written together.

On a machine with fewer cores than bots plus server, every write to an observer or controller,
and that controller's read when it runs in the same process (`tankrl battle`), takes CPU from a
bot while every bot computes its turn; so their ticks are held for up to `observer_batch_s`
(ServerOptions) and written in one go (`python -m bench.server_ab --a observer_batch_s=0`
compares). Observers still get every message, in order: anything else sent to them writes the
held ones first (Outbox.broadcast).
"""

import math
from collections.abc import Iterable

from tankrl.arena.server.game import Game, TurnOutput


class ObserverBatch:
    """The held messages (encoded) and the loop time the first of them was held."""

    def __init__(self, batch_s: float, max_buffered_bytes: int) -> None:
        self.batch_s = batch_s
        self.max_buffered_bytes = max_buffered_bytes
        self.held: list[bytes] = []
        self.since = 0.0

    def add(self, frames: Iterable[bytes], now: float) -> None:
        if not self.held:
            self.since = now
        self.held += frames

    def take(self) -> list[bytes]:
        """The held messages, oldest first; none are held afterwards."""
        held, self.held = self.held, []
        return held

    def flush_at(self) -> float:
        """Loop time by which the held messages must be written (inf: none held)."""
        return self.since + self.batch_s if self.held else math.inf

    def may_hold(self, tps: int, game: Game, result: TurnOutput, now: float) -> bool:
        """Whether the held messages may wait for later turns': at TPS -1, mid-round, with no
        pause or debug step pending, until `flush_at` and while they fill at most half an
        outgoing buffer (so a batch alone never has to wait for a slow client)."""
        return (
            tps < 0
            and now < self.flush_at()
            and not (game.paused or game.debug_mode or result.round_ended)
            and 2 * sum(map(len, self.held)) < self.max_buffered_bytes
        )
