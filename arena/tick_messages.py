"""Protocol §7: the engine's state and events of one arena as TickEventForBot and
TickEventForObserver JSON objects (camelCase dicts), with the in-tick event objects.

Bot ids are seat + 1. Events are built in a fixed order (the official server's order is arbitrary).
Our choice (rules §13.2): BotDeathEvent goes to every bot still receiving ticks, not only to
observers.
"""

from typing import Any

import numpy as np

from arena.engine import Engine

Json = dict[str, Any]


def bullet_state(engine: Engine, arena: int, slot: int, muzzle: bool = False) -> Json:
    """BulletState of a bullet (at the muzzle for BulletFiredEvent)."""
    bl = engine.bullets
    x = bl.start_x if muzzle else bl.x
    y = bl.start_y if muzzle else bl.y
    return {
        "bulletId": int(bl.bullet_id[slot, arena]),
        "ownerId": int(bl.owner[slot, arena]) + 1,
        "power": float(bl.power[slot, arena]),
        "x": float(x[slot, arena]),
        "y": float(y[slot, arena]),
        "direction": float(bl.direction[slot, arena]),
    }


def bot_state(engine: Engine, arena: int, seat: int) -> Json:
    """BotState of one seat after the turn."""
    b = engine.bots
    enemies = sum(
        1
        for j in range(engine.n_bots)
        if j != seat and (b.in_map[arena, j] or engine.events.died[arena, j])
    )
    return {
        "energy": float(b.energy[arena, seat]),
        "x": float(b.x[arena, seat]),
        "y": float(b.y[arena, seat]),
        "direction": float(b.direction[arena, seat]),
        "gunDirection": float(b.gun_direction[arena, seat]),
        "radarDirection": float(b.radar_direction[arena, seat]),
        "radarSweep": float(b.radar_sweep[arena, seat]),
        "speed": float(b.speed[arena, seat]),
        "turnRate": float(b.turn_rate[arena, seat]),
        "gunTurnRate": float(b.gun_turn_rate[arena, seat]),
        "radarTurnRate": float(b.radar_turn_rate[arena, seat]),
        "gunHeat": float(b.gun_heat[arena, seat]),
        "enemyCount": enemies,
    }


def _event(kind: str, turn: int, **fields: Any) -> Json:
    return {"type": kind, "turnNumber": turn, **fields}


def events_for_bot(engine: Engine, arena: int, seat: int) -> list[Json]:
    """The in-tick events one bot receives this turn."""
    ev, turn = engine.events, int(engine.turn_number[arena])
    out: list[Json] = []
    n = engine.n_bots
    if ev.fired[arena, seat]:
        out.append(
            _event(
                "BulletFiredEvent",
                turn,
                bullet=bullet_state(engine, arena, int(ev.fired_slot[arena, seat]), muzzle=True),
            )
        )
    for j in range(n):
        if ev.scans[arena, seat, j]:
            out.append(
                _event(
                    "ScannedBotEvent",
                    turn,
                    scannedByBotId=seat + 1,
                    scannedBotId=j + 1,
                    **_scan_fields(engine, arena, j),
                )
            )
    out += _bullet_events(engine, arena, seat)
    if ev.bot_wall[arena, seat]:
        out.append(_event("BotHitWallEvent", turn, victimId=seat + 1))
    for j in range(n):
        if ev.bot_bot[arena, seat, j]:
            out.append(
                _event(
                    "BotHitBotEvent",
                    turn,
                    botId=seat + 1,
                    victimId=j + 1,
                    energy=float(ev.hitbot_energy[arena, j]),
                    x=float(ev.hitbot_x[arena, j]),
                    y=float(ev.hitbot_y[arena, j]),
                    rammed=bool(ev.rammed[arena, seat, j]),
                )
            )
    for j in range(n):
        if ev.died[arena, j]:
            out.append(_event("BotDeathEvent", turn, victimId=j + 1))
    if ev.won_round[arena, seat]:
        out.append(_event("WonRoundEvent", turn))
    return out


def _scan_fields(engine: Engine, arena: int, target: int) -> Json:
    ev = engine.events
    return {
        "energy": float(ev.scan_energy[arena, target]),
        "x": float(ev.scan_x[arena, target]),
        "y": float(ev.scan_y[arena, target]),
        "direction": float(ev.scan_direction[arena, target]),
        "speed": float(ev.scan_speed[arena, target]),
    }


def _bullet_events(engine: Engine, arena: int, seat: int | None) -> list[Json]:
    """Bullet events for one bot (seat) or, with seat None, the observer copies."""
    be, bl, turn = engine.events.bullets, engine.bullets, int(engine.turn_number[arena])
    out: list[Json] = []
    for a, s in zip(be.wall_arena, be.wall_slot, strict=True):
        if a == arena and (seat is None or bl.owner[s, a] == seat):
            out.append(_event("BulletHitWallEvent", turn, bullet=bullet_state(engine, a, s)))
    for a, j, k in zip(be.pair_arena, be.pair_a, be.pair_b, strict=True):
        if a != arena:
            continue
        for own, other in ((j, k), (k, j)):
            if seat is None and own != j:
                continue  # observers get one copy per collision
            if seat is None or bl.owner[own, a] == seat:
                out.append(
                    _event(
                        "BulletHitBulletEvent",
                        turn,
                        bullet=bullet_state(engine, a, own),
                        hitBullet=bullet_state(engine, a, other),
                    )
                )
    for h in range(be.hit_arena.size):
        a, s, v = int(be.hit_arena[h]), int(be.hit_slot[h]), int(be.hit_victim[h])
        if a != arena:
            continue
        if seat is None or v == seat or bl.owner[s, a] == seat:
            out.append(
                _event(
                    "BulletHitBotEvent",
                    turn,
                    victimId=v + 1,
                    bullet=bullet_state(engine, a, s),
                    damage=float(be.hit_damage[h]),
                    energy=float(be.hit_victim_energy[h]),
                )
            )
    return out


def receives_tick(engine: Engine, arena: int, seat: int) -> bool:
    """A bot gets a tick while alive, and once more on the turn it dies."""
    return bool(engine.bots.in_map[arena, seat] or engine.events.died[arena, seat])


def tick_for_bot(engine: Engine, arena: int, seat: int) -> Json:
    """TickEventForBot: own state, own bullets in flight, own events."""
    bl = engine.bullets
    w = engine.bullet_width
    own = [int(k) for k in np.nonzero(bl.active[:w, arena] & (bl.owner[:w, arena] == seat))[0]]
    own.sort(key=lambda k: int(bl.bullet_id[k, arena]))
    return {
        "type": "TickEventForBot",
        "roundNumber": int(engine.round_number[arena]),
        "turnNumber": int(engine.turn_number[arena]),
        "botState": bot_state(engine, arena, seat),
        "bulletStates": [bullet_state(engine, arena, k) for k in own],
        "events": events_for_bot(engine, arena, seat),
    }


def tick_for_observer(engine: Engine, arena: int, names: list[tuple[str, str, str]]) -> Json:
    """TickEventForObserver: every bot (with id, sessionId, name, version), every bullet, and the
    observer copies of scans, shots, hits, collisions and deaths. `names[seat]` =
    (sessionId, name, version)."""
    ev, turn = engine.events, int(engine.turn_number[arena])
    bl, w = engine.bullets, engine.bullet_width
    states = []
    for seat in range(engine.n_bots):
        if not receives_tick(engine, arena, seat):
            continue
        session, name, version = names[seat]
        states.append(
            {
                **bot_state(engine, arena, seat),
                "id": seat + 1,
                "sessionId": session,
                "name": name,
                "version": version,
            }
        )
    flying = sorted(
        np.nonzero(bl.active[:w, arena])[0].tolist(), key=lambda k: int(bl.bullet_id[k, arena])
    )
    events: list[Json] = []
    for seat in range(engine.n_bots):
        if ev.fired[arena, seat]:
            events.append(
                _event(
                    "BulletFiredEvent",
                    turn,
                    bullet=bullet_state(
                        engine, arena, int(ev.fired_slot[arena, seat]), muzzle=True
                    ),
                )
            )
        for j in range(engine.n_bots):
            if ev.scans[arena, seat, j]:
                events.append(
                    _event(
                        "ScannedBotEvent",
                        turn,
                        scannedByBotId=seat + 1,
                        scannedBotId=j + 1,
                        **_scan_fields(engine, arena, j),
                    )
                )
    events += _bullet_events(engine, arena, None)
    for seat in range(engine.n_bots):
        if ev.bot_wall[arena, seat]:
            events.append(_event("BotHitWallEvent", turn, victimId=seat + 1))
        for j in range(engine.n_bots):
            if ev.bot_bot[arena, seat, j]:
                events.append(
                    _event(
                        "BotHitBotEvent",
                        turn,
                        botId=seat + 1,
                        victimId=j + 1,
                        energy=float(ev.hitbot_energy[arena, j]),
                        x=float(ev.hitbot_x[arena, j]),
                        y=float(ev.hitbot_y[arena, j]),
                        rammed=bool(ev.rammed[arena, seat, j]),
                    )
                )
    for seat in range(engine.n_bots):
        if ev.died[arena, seat]:
            events.append(_event("BotDeathEvent", turn, victimId=seat + 1))
    return {
        "type": "TickEventForObserver",
        "roundNumber": int(engine.round_number[arena]),
        "turnNumber": turn,
        "botStates": states,
        "bulletStates": [bullet_state(engine, arena, k) for k in flying],
        "events": events,
    }
