"""The engine's preallocated arrays: bots [B, N], bullets [B, K], round scores, and the events of
the last turn. The rules modules read and write these in place; views and the server read them.

Every field is a row of a block: one zeroed array per (dtype, shape) class of a group's fields, so
the compiled rules (numba) take a group as two to five arrays and index them with the row constants
at the end of this module (`bf[X, a, i]` is `bots.x[a, i]`). Groups are NamedTuples (TurnEvents a
dataclass: its sparse bullet events are replaced every turn).
"""

import math
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from tankrl.arena.rules.game_setup import GameSetup
from tankrl.shared.game_constants import (
    MAX_FIREPOWER,
    MIN_FIREPOWER,
    bullet_speed,
    gun_heat_after_firing,
)

F64 = npt.NDArray[np.float64]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]


class Bots(NamedTuple):
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


class StoredIntents(NamedTuple):
    """The persistent intent of every bot [B, N] (docs/protocol.md §7.3)."""

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


class Bullets(NamedTuple):
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


class Scores(NamedTuple):
    """Per-round scoring state [B, N] and the damage table [B, N(dealer), N(victim)]."""

    bullet_damage: F64
    ram_hits: F64
    survival: F64
    last_survivor_bonus: F64
    bullet_damage_to: F64
    ram_hits_to: F64
    killed_by_bullet_of: I32
    killed_by_ram_of: I32


class Totals(NamedTuple):
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


def _field_types(cls: type) -> dict[str, Any]:
    """Field name -> annotated type, for NamedTuples and dataclasses alike."""
    if hasattr(cls, "_fields"):
        return dict(cls.__annotations__)
    return {f.name: f.type for f in fields(cls)}


def _alloc(
    cls: type, shape_of: dict[str, tuple[int, ...]], dtypes: dict[str, type], **extra: object
) -> object:
    """One zeroed block per (dtype, shape) class of fields, in field order; each field is a row
    (a contiguous view) of its class's block, so the compiled rules can take a whole group as a
    few arrays (see `blocks` and `row`)."""
    names = [name for name in _field_types(cls) if name in shape_of]
    classes: dict[tuple[type, tuple[int, ...]], list[str]] = {}
    for name in names:
        classes.setdefault((dtypes[name], shape_of[name]), []).append(name)
    views: dict[str, object] = {}
    for (dtype, shape), members in classes.items():
        block: npt.NDArray[Any] = np.zeros((len(members), *shape), dtype=dtype)
        views.update({name: block[k] for k, name in enumerate(members)})
    return cls(**{name: views[name] for name in names}, **extra)


def blocks(group: Any) -> tuple[Any, ...]:
    """The blocks behind a group's fields, in the order of their first field."""
    out: list[Any] = []
    for name in _field_types(type(group)):
        value = getattr(group, name)
        if not isinstance(value, np.ndarray):
            continue
        base = value.base
        assert base is not None and base.ndim == value.ndim + 1, f"{name} is not a block row"
        if not any(base is b for b in out):
            out.append(base)
    return tuple(out)


def row(cls: type, name: str) -> int:
    """The row of field `name` in its block (its index among the fields of the same dtype and
    shape); the compiled rules index blocks with these as constants."""
    types = _field_types(cls)
    dtypes = _dtypes(cls)
    shaped = _SHAPE_CLASS.get(cls, {})
    key = (dtypes[name], shaped.get(name, ""))
    same = [f for f in types if (dtypes[f], shaped.get(f, "")) == key]
    return same.index(name)


_SHAPE_CLASS: dict[type, dict[str, str]] = {}
"""Fields whose shape differs from their group's usual one (set below), for `row`."""


def _dtypes(cls: type) -> dict[str, type]:
    out: dict[str, type] = {}
    for name, kind in _field_types(cls).items():
        if kind is I64:
            out[name] = np.int64
        elif kind is Bool:
            out[name] = np.bool_
        elif kind is I32:
            out[name] = np.int32
        else:
            out[name] = np.float64
    return out


def bullet_capacity(setup: GameSetup, n_bots: int) -> int:
    """Slots per arena: enough for every bot firing as often as possible for a bullet's lifetime.

    A bullet lives at most diagonal / 11 + 2 turns; a gun fires at most every
    ceil(1.02 / cooling) turns.
    """
    diagonal = math.hypot(setup.arena_width, setup.arena_height)
    lifetime = math.ceil(diagonal / bullet_speed(MAX_FIREPOWER)) + 2
    interval = max(1, math.ceil(gun_heat_after_firing(MIN_FIREPOWER) / setup.gun_cooling_rate))
    return n_bots * (lifetime // interval + 2)


def alloc_bots(b: int, n: int) -> Bots:
    shapes: dict[str, tuple[int, ...]] = {name: (b, n) for name in Bots._fields}
    return _alloc(Bots, shapes, _dtypes(Bots))  # type: ignore[return-value]


def alloc_intents(b: int, n: int) -> StoredIntents:
    shapes: dict[str, tuple[int, ...]] = {name: (b, n) for name in StoredIntents._fields}
    intents: StoredIntents = _alloc(StoredIntents, shapes, _dtypes(StoredIntents))  # type: ignore[assignment]
    intents.fire_assist[:] = True
    return intents


def alloc_bullets(b: int, k: int) -> Bullets:
    shapes: dict[str, tuple[int, ...]] = {name: (k, b) for name in Bullets._fields}
    return _alloc(Bullets, shapes, _dtypes(Bullets))  # type: ignore[return-value]


def alloc_scores(b: int, n: int) -> Scores:
    shapes: dict[str, tuple[int, ...]] = {name: (b, n) for name in Scores._fields}
    shapes["bullet_damage_to"] = shapes["ram_hits_to"] = (b, n, n)
    return _alloc(Scores, shapes, _dtypes(Scores))  # type: ignore[return-value]


def alloc_totals(b: int, n: int) -> Totals:
    return _alloc(Totals, {name: (b, n) for name in Totals._fields}, _dtypes(Totals))  # type: ignore[return-value]


def alloc_events(b: int, n: int) -> TurnEvents:
    shapes: dict[str, tuple[int, ...]] = {
        f.name: {"pair": (b, n, n), "arena": (b,)}.get(
            _SHAPE_CLASS[TurnEvents].get(f.name, ""), (b, n)
        )
        for f in fields(TurnEvents)
        if f.name != "bullets"
    }
    events = _alloc(TurnEvents, shapes, _dtypes(TurnEvents), bullets=BulletEvents.empty())
    return events  # type: ignore[return-value]


_SHAPE_CLASS.update(
    {
        Scores: {"bullet_damage_to": "pair", "ram_hits_to": "pair"},
        TurnEvents: {
            "scans": "pair",
            "bot_bot": "pair",
            "rammed": "pair",
            "round_ended": "arena",
            "game_ended": "arena",
        },
    }
)

# ---- block rows, for the compiled rules ----------------------------------------------------------
# Bots
X = row(Bots, "x")
Y = row(Bots, "y")
DIRECTION = row(Bots, "direction")
GUN_DIRECTION = row(Bots, "gun_direction")
RADAR_DIRECTION = row(Bots, "radar_direction")
SPEED = row(Bots, "speed")
ENERGY = row(Bots, "energy")
GUN_HEAT = row(Bots, "gun_heat")
TURN_RATE = row(Bots, "turn_rate")
GUN_TURN_RATE = row(Bots, "gun_turn_rate")
RADAR_TURN_RATE = row(Bots, "radar_turn_rate")
RADAR_SWEEP = row(Bots, "radar_sweep")
IN_MAP = row(Bots, "in_map")
WALL_EVENT_PREV = row(Bots, "wall_event_prev")
SCANNED_PREV = row(Bots, "scanned_prev")
SCANNED_PREV_X = row(Bots, "scanned_prev_x")
SCANNED_PREV_Y = row(Bots, "scanned_prev_y")
X0 = row(Bots, "x0")
Y0 = row(Bots, "y0")
DIRECTION0 = row(Bots, "direction0")
GUN_DIRECTION0 = row(Bots, "gun_direction0")
RADAR_DIRECTION0 = row(Bots, "radar_direction0")
# StoredIntents
INTENT_TARGET_SPEED = row(StoredIntents, "target_speed")
INTENT_TURN_RATE = row(StoredIntents, "turn_rate")
INTENT_GUN_TURN_RATE = row(StoredIntents, "gun_turn_rate")
INTENT_RADAR_TURN_RATE = row(StoredIntents, "radar_turn_rate")
INTENT_FIREPOWER = row(StoredIntents, "firepower")
INTENT_ADJUST_GUN_FOR_BODY_TURN = row(StoredIntents, "adjust_gun_for_body_turn")
INTENT_ADJUST_RADAR_FOR_GUN_TURN = row(StoredIntents, "adjust_radar_for_gun_turn")
INTENT_ADJUST_RADAR_FOR_BODY_TURN = row(StoredIntents, "adjust_radar_for_body_turn")
INTENT_RESCAN = row(StoredIntents, "rescan")
INTENT_FIRE_ASSIST = row(StoredIntents, "fire_assist")
# Bullets
BULLET_ACTIVE = row(Bullets, "active")
BULLET_OWNER = row(Bullets, "owner")
BULLET_BULLET_ID = row(Bullets, "bullet_id")
BULLET_POWER = row(Bullets, "power")
BULLET_SPEED = row(Bullets, "speed")
BULLET_START_X = row(Bullets, "start_x")
BULLET_START_Y = row(Bullets, "start_y")
BULLET_DIRECTION = row(Bullets, "direction")
BULLET_UX = row(Bullets, "ux")
BULLET_UY = row(Bullets, "uy")
BULLET_TICK = row(Bullets, "tick")
BULLET_X = row(Bullets, "x")
BULLET_Y = row(Bullets, "y")
BULLET_NEXT_X = row(Bullets, "next_x")
BULLET_NEXT_Y = row(Bullets, "next_y")
# Scores
SCORE_BULLET_DAMAGE = row(Scores, "bullet_damage")
SCORE_RAM_HITS = row(Scores, "ram_hits")
SCORE_SURVIVAL = row(Scores, "survival")
SCORE_LAST_SURVIVOR_BONUS = row(Scores, "last_survivor_bonus")
SCORE_BULLET_DAMAGE_TO = row(Scores, "bullet_damage_to")
SCORE_RAM_HITS_TO = row(Scores, "ram_hits_to")
SCORE_KILLED_BY_BULLET_OF = row(Scores, "killed_by_bullet_of")
SCORE_KILLED_BY_RAM_OF = row(Scores, "killed_by_ram_of")
# TurnEvents
EVENT_FIRED = row(TurnEvents, "fired")
EVENT_FIRED_SLOT = row(TurnEvents, "fired_slot")
EVENT_SCANS = row(TurnEvents, "scans")
EVENT_SCAN_ENERGY = row(TurnEvents, "scan_energy")
EVENT_SCAN_X = row(TurnEvents, "scan_x")
EVENT_SCAN_Y = row(TurnEvents, "scan_y")
EVENT_SCAN_DIRECTION = row(TurnEvents, "scan_direction")
EVENT_SCAN_SPEED = row(TurnEvents, "scan_speed")
EVENT_BOT_WALL = row(TurnEvents, "bot_wall")
EVENT_BOT_BOT = row(TurnEvents, "bot_bot")
EVENT_RAMMED = row(TurnEvents, "rammed")
EVENT_HITBOT_ENERGY = row(TurnEvents, "hitbot_energy")
EVENT_HITBOT_X = row(TurnEvents, "hitbot_x")
EVENT_HITBOT_Y = row(TurnEvents, "hitbot_y")
EVENT_DIED = row(TurnEvents, "died")
EVENT_WON_ROUND = row(TurnEvents, "won_round")
EVENT_ROUND_ENDED = row(TurnEvents, "round_ended")
EVENT_GAME_ENDED = row(TurnEvents, "game_ended")
