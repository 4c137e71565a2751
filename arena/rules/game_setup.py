"""GameSetup (docs/protocol.md §4): the rules parameters of one battle, with the 1v1 preset's
defaults.

The server builds it from a controller's StartGame, the native env from ArenaConfig; the engine
reads the physics parameters from it.
"""

from dataclasses import asdict, dataclass, fields
from typing import Any

GAME_TYPES = ("classic", "1v1", "twinduel", "melee", "custom")


class GameSetupError(ValueError):
    """A GameSetup field is missing or out of range; the message names it."""


@dataclass(frozen=True)
class GameSetup:
    game_type: str = "1v1"
    arena_width: int = 800
    arena_height: int = 600
    min_number_of_participants: int = 2
    max_number_of_participants: int | None = 2
    number_of_rounds: int = 10
    gun_cooling_rate: float = 0.1
    max_inactivity_turns: int = 450
    turn_timeout_us: int = 30_000
    ready_timeout_us: int = 10_000_000
    default_turns_per_second: int = 30

    def validate(self, game_types: tuple[str, ...] = GAME_TYPES) -> "GameSetup":
        """Apply the official server's StartGame validation (docs/protocol.md §6.1)."""
        if self.game_type not in game_types:
            raise GameSetupError(f"gameType {self.game_type!r} is not one of {list(game_types)}")
        if self.number_of_rounds < 1:
            raise GameSetupError("numberOfRounds must be at least 1")
        if self.arena_width <= 0 or self.arena_height <= 0:
            raise GameSetupError("arenaWidth and arenaHeight must be positive")
        if self.arena_width < 100 or self.arena_height < 100:
            raise GameSetupError("arenaWidth and arenaHeight must be at least 100 units")
        if self.min_number_of_participants < 1:
            raise GameSetupError("minNumberOfParticipants must be at least 1")
        if self.turn_timeout_us <= 0 or self.ready_timeout_us <= 0:
            raise GameSetupError("turnTimeout and readyTimeout must be positive")
        if not 0.0 < self.gun_cooling_rate <= 3.0:
            raise GameSetupError("gunCoolingRate must be in (0, 3]")
        if self.max_inactivity_turns < 0:
            raise GameSetupError("maxInactivityTurns must be >= 0")
        return self

    def to_protocol(self) -> dict[str, Any]:
        """The camelCase GameSetup object of the protocol (lock flags false)."""
        d = {
            "gameType": self.game_type,
            "arenaWidth": self.arena_width,
            "arenaHeight": self.arena_height,
            "minNumberOfParticipants": self.min_number_of_participants,
            "numberOfRounds": self.number_of_rounds,
            "gunCoolingRate": self.gun_cooling_rate,
            "maxInactivityTurns": self.max_inactivity_turns,
            "turnTimeout": self.turn_timeout_us,
            "readyTimeout": self.ready_timeout_us,
            "defaultTurnsPerSecond": self.default_turns_per_second,
        }
        if self.max_number_of_participants is not None:
            d["maxNumberOfParticipants"] = self.max_number_of_participants
        for name in (
            "ArenaWidth",
            "ArenaHeight",
            "MinNumberOfParticipants",
            "MaxNumberOfParticipants",
            "NumberOfRounds",
            "GunCoolingRate",
            "MaxInactivityTurns",
            "TurnTimeout",
            "ReadyTimeout",
        ):
            d[f"is{name}Locked"] = False
        return d

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameSetup":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
