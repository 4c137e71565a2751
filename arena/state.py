"""The engine's preallocated arrays: bots [B, N], bullets [B, K], round scores, and the events of
the last turn. The rules modules read and write these in place; views and the server read them.
"""

import math
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from arena.game_setup import GameSetup
from shared.game_constants import MAX_FIREPOWER, MIN_FIREPOWER

F64 = npt.NDArray[np.float64]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]


@dataclass
class Bots:
    """Per-bot state [B, N]. `in_map` is False once a bot died (it is then frozen)."""

    x: F64
    y: F64
    direction: F64
    gun_direction: F64
    radar_direction: F64
    speed: F64
    energy: F64
    gun_heat: F64
    turn_rate: F64
    gun_turn_rate: F64
    radar_turn_rate: F64
    radar_sweep: F64
    in_map: Bool
    wall_event_prev: Bool
    scanned_prev: Bool
    scanned_prev_x: F64
    scanned_prev_y: F64
    # start-of-turn copies
    x0: F64
    y0: F64
    direction0: F64
    gun_direction0: F64
    radar_direction0: F64


@dataclass
class StoredIntents:
    """The persistent intent of every bot [B, N] (protocol §7.3)."""

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


@dataclass
class Bullets:
    """Bullets in flight, slot-major [K, B] (slot k of every arena is one contiguous row). A new
    bullet takes its arena's first free slot; creation order is the order of `bullet_id`. Only
    slots below `Engine.bullet_width` are ever used, so per-turn work runs on rows [:width].

    Position at `tick` = start + speed * tick * (ux, uy), the unit vector of `direction`; `x, y`
    and `next_x, next_y` cache the positions at tick and tick + 1 after each advance. A removed
    bullet (active False) keeps its data until its slot is reused, so events can read it.
    """

    active: Bool
    owner: I32
    bullet_id: I32
    power: F64
    speed: F64
    start_x: F64
    start_y: F64
    direction: F64
    ux: F64
    uy: F64
    tick: F64
    x: F64
    y: F64
    next_x: F64
    next_y: F64


@dataclass
class Scores:
    """Per-round scoring state [B, N] and the damage table [B, N(dealer), N(victim)]."""

    bullet_damage: F64
    ram_hits: F64
    survival: F64
    last_survivor_bonus: F64
    bullet_damage_to: F64
    ram_hits_to: F64
    killed_by_bullet_of: I32
    killed_by_ram_of: I32


@dataclass
class Totals:
    """Scores accumulated over the game [B, N] (floats; rounded only in results)."""

    survival: F64
    last_survivor_bonus: F64
    bullet_damage: F64
    bullet_kill_bonus: F64
    ram_damage: F64
    ram_kill_bonus: F64
    total: F64
    first_places: I32
    second_places: I32
    third_places: I32


@dataclass
class BulletEvents:
    """This turn's bullet events as sparse records, in the order they were applied.

    Slots index Bullets; a removed bullet's slot keeps its data until the next turn's firing.
    """

    wall_arena: I64  # BulletHitWallEvent
    wall_slot: I64
    pair_arena: I64  # BulletHitBulletEvent: two bullets
    pair_a: I64
    pair_b: I64
    hit_arena: I64  # BulletHitBotEvent
    hit_slot: I64
    hit_victim: I64
    hit_damage: F64
    hit_victim_energy: F64

    @classmethod
    def empty(cls) -> "BulletEvents":
        i = np.zeros(0, dtype=np.int64)
        f = np.zeros(0, dtype=np.float64)
        return cls(i, i, i, i, i, i, i, i, f, f)


@dataclass
class TurnEvents:
    """What happened in the last turn, for views, the server's events and replays."""

    fired: Bool  # [B, N] a bullet left this bot's gun
    fired_slot: I32  # [B, N] its slot, or -1
    scans: Bool  # [B, N(scanner), N(target)]
    scan_energy: F64  # [B, N] target state when scanned (after movement, before bullets)
    scan_x: F64
    scan_y: F64
    scan_direction: F64
    scan_speed: F64
    bot_wall: Bool  # [B, N] BotHitWallEvent
    bot_bot: Bool  # [B, N, N] i and j collided
    rammed: Bool  # [B, N, N] i rammed j
    hitbot_energy: F64  # [B, N] this bot's energy/position right after its last collision
    hitbot_x: F64
    hitbot_y: F64
    died: Bool  # [B, N]
    won_round: Bool  # [B, N]
    round_ended: Bool  # [B]
    game_ended: Bool  # [B]
    bullets: BulletEvents


def _alloc(cls: type, shape_of: dict[str, tuple[int, ...]], dtypes: dict[str, type]) -> object:
    return cls(**{f.name: np.zeros(shape_of[f.name], dtype=dtypes[f.name]) for f in fields(cls)})


def _dtypes(cls: type) -> dict[str, type]:
    out: dict[str, type] = {}
    for f in fields(cls):
        if f.type is I64:
            out[f.name] = np.int64
        elif f.type is Bool:
            out[f.name] = np.bool_
        elif f.type is I32:
            out[f.name] = np.int32
        else:
            out[f.name] = np.float64
    return out


def bullet_capacity(setup: GameSetup, n_bots: int) -> int:
    """Slots per arena: enough for every bot firing as often as possible for a bullet's lifetime.

    A bullet lives at most diagonal / 11 + 2 turns; a gun fires at most every
    ceil(1.02 / cooling) turns.
    """
    diagonal = math.hypot(setup.arena_width, setup.arena_height)
    lifetime = math.ceil(diagonal / (20.0 - 3.0 * MAX_FIREPOWER)) + 2
    interval = max(1, math.ceil((1.0 + MIN_FIREPOWER / 5.0) / setup.gun_cooling_rate))
    return n_bots * (lifetime // interval + 2)


def alloc_bots(b: int, n: int) -> Bots:
    shapes: dict[str, tuple[int, ...]] = {f.name: (b, n) for f in fields(Bots)}
    return _alloc(Bots, shapes, _dtypes(Bots))  # type: ignore[return-value]


def alloc_intents(b: int, n: int) -> StoredIntents:
    shapes: dict[str, tuple[int, ...]] = {f.name: (b, n) for f in fields(StoredIntents)}
    intents: StoredIntents = _alloc(StoredIntents, shapes, _dtypes(StoredIntents))  # type: ignore[assignment]
    intents.fire_assist[:] = True
    return intents


def alloc_bullets(b: int, k: int) -> Bullets:
    shapes: dict[str, tuple[int, ...]] = {f.name: (k, b) for f in fields(Bullets)}
    return _alloc(Bullets, shapes, _dtypes(Bullets))  # type: ignore[return-value]


def alloc_scores(b: int, n: int) -> Scores:
    shapes: dict[str, tuple[int, ...]] = {f.name: (b, n) for f in fields(Scores)}
    shapes["bullet_damage_to"] = shapes["ram_hits_to"] = (b, n, n)
    return _alloc(Scores, shapes, _dtypes(Scores))  # type: ignore[return-value]


def alloc_totals(b: int, n: int) -> Totals:
    return _alloc(Totals, {f.name: (b, n) for f in fields(Totals)}, _dtypes(Totals))  # type: ignore[return-value]


def alloc_events(b: int, n: int) -> TurnEvents:
    dtypes = _dtypes(TurnEvents)
    kwargs: dict[str, object] = {}
    for f in fields(TurnEvents):
        if f.name == "bullets":
            kwargs[f.name] = BulletEvents.empty()
            continue
        shape: tuple[int, ...] = (b, n)
        if f.name in ("scans", "bot_bot", "rammed"):
            shape = (b, n, n)
        elif f.name in ("round_ended", "game_ended"):
            shape = (b,)
        kwargs[f.name] = np.zeros(shape, dtype=dtypes[f.name])
    return TurnEvents(**kwargs)  # type: ignore[arg-type]
