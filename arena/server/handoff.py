"""The turn hand-off at TPS -1: the answer that completes a turn plays the next one in that
connection's read callback, instead of waking the game loop for it (the loop's wake-up is CPU
taken from the bots; `python -m bench.server_ab --a play_at_answer=false` compares). The game
loop takes over again for anything but a plain turn: a round's end, messages that must wait for
a slow client, or an error, which it finds here as `handed`.
"""

from dataclasses import dataclass

from tankrl.arena.server.game import Game, TurnOutput
from tankrl.arena.server.outbox import Late

Handed = tuple[TurnOutput, Late, float]
"""A turn played at its answers' arrival: its output, what it left to send, when it was sent."""


@dataclass
class TurnHandoff:
    enabled: bool
    """ServerOptions.play_at_answer."""
    game: Game | None = None
    """The game whose answers the game loop awaits (None: no turn is played at an answer)."""
    deadline: float = 0.0
    """Loop time by which the awaited answers are due; moves with every turn played here."""
    handed: Handed | Exception | None = None
    """What the game loop must carry on from: a turn it did not expect, or the error of one."""

    def accepts(self, game: Game, tps: int, stopping: bool) -> bool:
        """Whether the answer that completed `game`'s turn may play the next turn now."""
        return (
            self.game is game
            and tps < 0
            and self.enabled
            and self.handed is None
            and not (stopping or game.paused)
            and game.participants_left
        )

    def played(self, game: Game, result: TurnOutput, late: Late, sent: float) -> bool:
        """Record a turn played here; True if the game loop must take over (it ended a round or
        left messages to send with waiting), else the awaited turn's deadline moves on."""
        if late or result.round_ended:
            self.handed, self.game = (result, late, sent), None
            return True
        self.deadline = sent + game.setup.turn_timeout_us / 1e6
        return False

    def failed(self, error: Exception) -> None:
        """A turn played here raised: the game loop ends the game (not this bot's connection)."""
        self.handed, self.game = error, None

    def take(self) -> Handed | Exception | None:
        handed, self.handed = self.handed, None
        return handed
