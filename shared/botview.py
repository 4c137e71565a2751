"""What a bot may see in one tick, as a batch of B bots: its own state, its scan and its events.

The rules engine fills one BotView per seat for the native env; the Bot API shell fills one with
B = 1 from a TickEventForBot. The EnemyTracker and the scripted opponents read nothing else, so a
decision is the same whether the bot plays hosted or native.
"""

from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I32 = npt.NDArray[np.int32]
Bool = npt.NDArray[np.bool_]


@dataclass
class BotView:
    """One tick as B bots see it. Every field is an array of shape [B]."""

    round_number: I32
    turn_number: I32
    arena_width: F64
    arena_height: F64
    # own state after this turn (BotState)
    x: F64
    y: F64
    direction: F64
    gun_direction: F64
    radar_direction: F64
    radar_sweep: F64
    speed: F64
    energy: F64
    gun_heat: F64
    turn_rate: F64
    gun_turn_rate: F64
    radar_turn_rate: F64
    enemy_count: I32
    # the nearest bot scanned this turn (ScannedBotEvent); valid where `scanned`
    scanned: Bool
    scan_bot_id: I32
    scan_x: F64
    scan_y: F64
    scan_direction: F64
    scan_speed: F64
    scan_energy: F64
    # BulletFiredEvent (own shot this turn)
    bullet_fired: Bool
    fired_power: F64
    # BulletHitBotEvent where this bot is the victim (sums over this turn's hits)
    hit_by_bullet: Bool
    hit_by_bullet_damage: F64
    hit_by_bullet_power: F64
    hit_by_bullet_direction: F64
    # BulletHitBotEvent where this bot's bullet hit another bot (sums over this turn's hits)
    bullet_hit: Bool
    bullet_hit_damage: F64
    bullet_hit_power: F64
    # BulletHitBulletEvent / BulletHitWallEvent for own bullets
    bullet_hit_bullet: Bool
    bullet_hit_wall: Bool
    # BotHitWallEvent
    hit_wall: Bool
    # BotHitBotEvent: the other bot's state after the collision, and whether this bot rammed
    hit_bot: Bool
    hit_bot_rammed: Bool
    hit_bot_x: F64
    hit_bot_y: F64
    hit_bot_energy: F64
    # BotDeathEvent for another bot, WonRoundEvent, SkippedTurnEvent
    enemy_died: Bool
    won_round: Bool
    skipped_turn: Bool

    @classmethod
    def zeros(cls, n: int) -> "BotView":
        """A view of n bots with every field zero/False (preallocated for in-place filling)."""
        kwargs = {name: np.zeros(n, dtype=dtype) for name, dtype in VIEW_DTYPES.items()}
        return cls(**kwargs)

    @property
    def size(self) -> int:
        return int(self.x.shape[0])

    def copy(self) -> "BotView":
        return BotView(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def select(self, index: npt.NDArray[np.intp] | slice) -> "BotView":
        """The sub-batch at `index` (a copy)."""
        return BotView(**{f.name: getattr(self, f.name)[index].copy() for f in fields(self)})


def _dtype(annotation: object) -> type[np.generic]:
    if annotation is I32:
        return np.int32
    if annotation is Bool:
        return np.bool_
    return np.float64


OWN_STATE: tuple[str, ...] = (
    "x",
    "y",
    "direction",
    "gun_direction",
    "radar_direction",
    "radar_sweep",
    "speed",
    "energy",
    "gun_heat",
    "turn_rate",
    "gun_turn_rate",
    "radar_turn_rate",
)
"""BotView's own-state fields, the ones named as in BotState's (the Bot API's) and the engine's
Bots: a hosted bot copies them from its tick, the native env from the engine."""

VIEW_DTYPES: dict[str, type[np.generic]] = {f.name: _dtype(f.type) for f in fields(BotView)}
"""The dtype of every BotView field, by name."""
