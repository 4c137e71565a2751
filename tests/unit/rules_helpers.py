"""Helpers for the rules tests (tests/unit/test_rules_*.py): build an engine, start a round, put
bots where a test needs them by writing the engine's arrays, set intents, step, and read the
turn's events as the protocol's event objects.

Every helper works on arena 0 unless told otherwise; seat i is bot id i + 1.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server.ticks import events_for_bot
from tankrl.shared.intent import INTENT_FIELDS, Intent

# Parking spots far from each other and from the walls (800 x 600 arena).
PARK = ((100.0, 100.0), (700.0, 500.0), (700.0, 100.0), (100.0, 500.0))


def make_engine(n_bots: int = 2, n_arenas: int = 1, seeds: Any = 0, **setup: Any) -> Engine:
    """An engine with the 1v1 defaults, `setup` overriding GameSetup fields."""
    if "max_number_of_participants" not in setup:
        setup["max_number_of_participants"] = None
    return Engine(GameSetup(**setup), n_arenas, n_bots, seeds=seeds)


def started(n_bots: int = 2, park: bool = True, **kw: Any) -> Engine:
    """An engine after turn 1 of round 1 (no intents), bots parked at fixed spots, still, facing
    east, gun heat 0 (ready to fire) unless `park` is False."""
    engine = make_engine(n_bots, **kw)
    engine.step()
    if park:
        for seat in range(n_bots):
            x, y = PARK[seat % len(PARK)]
            place(engine, seat, x, y, 0.0, gun_heat=0.0)
    return engine


def place(
    engine: Engine,
    seat: int,
    x: float | None = None,
    y: float | None = None,
    direction: float | None = None,
    *,
    gun: float | None = None,
    radar: float | None = None,
    speed: float | None = None,
    energy: float | None = None,
    gun_heat: float | None = None,
    arena: int = 0,
) -> None:
    """Write one bot's state. `direction` also sets gun and radar unless they are given."""
    b = engine.bots
    values = {
        "x": x,
        "y": y,
        "direction": direction,
        "gun_direction": direction if gun is None else gun,
        "radar_direction": direction if radar is None else radar,
        "speed": speed,
        "energy": energy,
        "gun_heat": gun_heat,
    }
    for name, value in values.items():
        if value is not None:
            getattr(b, name)[arena, seat] = value
    b.wall_event_prev[arena, seat] = False


def intent(n: int = 1, **fields: Any) -> Intent:
    """An Intent batch of size n: the server's defaults, `fields` overriding."""
    it = Intent.zeros(n)
    for name, value in fields.items():
        if name not in INTENT_FIELDS:
            raise KeyError(name)
        getattr(it, name)[:] = value
    return it


def step(engine: Engine, *intents: dict[str, Any] | None) -> Engine:
    """Set intents (positional: seat 0, seat 1, ...; None = keep the stored one) and step."""
    for seat, fields in enumerate(intents):
        if fields is not None:
            engine.set_intent(seat, intent(engine.n_arenas, **fields))
    engine.step()
    return engine


def run(engine: Engine, turns: int, *intents: dict[str, Any] | None) -> Engine:
    """Step `turns` times with the same intents."""
    for _ in range(turns):
        step(engine, *intents)
    return engine


def run_until(
    engine: Engine,
    done: Callable[[Engine], bool],
    max_turns: int,
    *intents: dict[str, Any] | None,
) -> int:
    """Step until `done(engine)` holds after a turn; returns the number of turns stepped."""
    for k in range(1, max_turns + 1):
        step(engine, *intents)
        if done(engine):
            return k
    raise AssertionError(f"condition not reached within {max_turns} turns")


def events(engine: Engine, seat: int, kind: str | None = None) -> list[dict[str, Any]]:
    """The in-tick events seat `seat` receives for the last turn (optionally of one type)."""
    out = events_for_bot(engine, 0, seat)
    return [e for e in out if kind is None or e["type"] == kind]


def bot(engine: Engine, seat: int, arena: int = 0) -> dict[str, float]:
    """One bot's state as plain floats."""
    b = engine.bots
    names = ("x", "y", "direction", "gun_direction", "radar_direction", "radar_sweep", "speed")
    names += ("energy", "gun_heat", "turn_rate", "gun_turn_rate", "radar_turn_rate")
    out = {name: float(getattr(b, name)[arena, seat]) for name in names}
    out["in_map"] = bool(b.in_map[arena, seat])
    return out


def bullet_column(engine: Engine, name: str, arena: int = 0) -> np.ndarray:
    """One arena's slots of a Bullets field (the arrays are slot-major [K, B])."""
    arr = getattr(engine.bullets, name)
    if arr.shape == (engine.capacity, engine.n_arenas):
        return arr[:, arena]
    return arr[arena]


def flying(engine: Engine, arena: int = 0) -> list[dict[str, float]]:
    """The bullets in flight, in id order."""
    active = bullet_column(engine, "active", arena)
    ids = bullet_column(engine, "bullet_id", arena)
    slots = sorted(np.nonzero(active)[0].tolist(), key=lambda k: ids[k])
    names = ("bullet_id", "owner", "power", "speed", "x", "y", "direction", "start_x", "start_y")
    cols = {name: bullet_column(engine, name, arena) for name in names}
    return [{name: float(cols[name][k]) for name in names} for k in slots]


def new_speed(v: float, t: float) -> float:
    """Independent oracle for calcNewBotSpeed (docs/rules.md §4.1), written from the rules'
    text."""
    if v < 0.0:
        return -new_speed(-v, -t)
    if v == 0.0:
        r = min(t, 1.0) if t >= 0.0 else max(t, -1.0)
        return max(min(r, 8.0), -8.0)
    if t > 0.0:
        if t >= v:
            return min(v + min(t - v, 1.0), 8.0)
        return max(v + max(t - v, -2.0), -8.0)
    if t == 0.0:
        return 0.0
    return v / 2.0 - 1.0
