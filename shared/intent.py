"""A batch of BotIntents (docs/protocol.md §7.3): what B bots ask the server to do next turn.

Deciders (the PPO brain, the scripted opponents) write one; the rules engine applies it, the Bot
API shell copies it into the official API's intent. Float fields are float64, flags are bool.
"""

from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]


@dataclass
class Intent:
    """Per-bot intent fields, each an array of shape [B]."""

    target_speed: F64
    turn_rate: F64
    gun_turn_rate: F64
    radar_turn_rate: F64
    firepower: F64
    adjust_gun_for_body_turn: Bool
    adjust_radar_for_gun_turn: Bool
    adjust_radar_for_body_turn: Bool
    rescan: Bool
    fire_assist: Bool

    @classmethod
    def zeros(cls, n: int) -> "Intent":
        """The server's defaults for an intent with every field omitted (fire assist on)."""
        z = np.zeros(n, dtype=np.float64)
        f = np.zeros(n, dtype=np.bool_)
        return cls(
            z,
            z.copy(),
            z.copy(),
            z.copy(),
            z.copy(),
            f,
            f.copy(),
            f.copy(),
            f.copy(),
            np.ones(n, dtype=np.bool_),
        )

    @property
    def size(self) -> int:
        return int(self.target_speed.shape[0])

    def copy(self) -> "Intent":
        return Intent(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def assign(self, index: npt.NDArray[np.intp] | slice, other: "Intent") -> None:
        """Write `other`'s rows into this batch at `index`."""
        for f in fields(self):
            getattr(self, f.name)[index] = getattr(other, f.name)


INTENT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Intent))
