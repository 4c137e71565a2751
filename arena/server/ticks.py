"""docs/protocol.md §7: the engine's state and events of one arena as TickEventForBot and
TickEventForObserver JSON objects (camelCase dicts), with the in-tick event objects.

A hot path (every bot and the observers, every turn): `ArenaTurn` reads a turn's engine arrays
once into Python lists, and every message of that turn is built from those lists.
Bot ids are seat + 1. Events are built in a fixed order (the official server's order is arbitrary).
Our choice (docs/rules.md §13.2): BotDeathEvent goes to every bot still receiving ticks, not only to
observers.
"""

from collections.abc import Iterable
from operator import itemgetter
from typing import Any, Final

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.state import Bots, TurnEvents, row

Json = dict[str, Any]

BOT_STATE_FIELDS: Final = (
    ("energy", "energy"),
    ("x", "x"),
    ("y", "y"),
    ("direction", "direction"),
    ("gunDirection", "gun_direction"),
    ("radarDirection", "radar_direction"),
    ("radarSweep", "radar_sweep"),
    ("speed", "speed"),
    ("turnRate", "turn_rate"),
    ("gunTurnRate", "gun_turn_rate"),
    ("radarTurnRate", "radar_turn_rate"),
    ("gunHeat", "gun_heat"),
)
"""BotState's float fields in message order: (protocol key, Bots array); enemyCount follows."""
_BOT_STATE_KEYS: Final = tuple(key for key, _ in BOT_STATE_FIELDS)
_PICK_STATE: Final = itemgetter(*(row(Bots, name) for _, name in BOT_STATE_FIELDS))
"""Picks the BotState fields, in order, from a seat's column of the bots' float block (all of
them are float [B, N] fields): cheaper than numpy's fancy indexing of the rows."""
_FIRED, _BOT_WALL, _DIED, _WON_ROUND = (
    row(TurnEvents, name) for name in ("fired", "bot_wall", "died", "won_round")
)
"""Rows of the events' bool [B, N] block (read in one call: a hot path's numpy calls are few)."""
_SCANS, _BOT_BOT, _RAMMED = (row(TurnEvents, name) for name in ("scans", "bot_bot", "rammed"))
"""Rows of the events' bool [B, N, N] block."""
_SCAN_COLUMNS: Final = ("scan_energy", "scan_x", "scan_y", "scan_direction", "scan_speed")
_HIT_BOT_COLUMNS: Final = ("hitbot_energy", "hitbot_x", "hitbot_y")
_BULLET_COLUMNS: Final = (
    *("bullet_id", "owner", "power", "x", "y", "direction"),
    *("start_x", "start_y"),
)


def _per_seat(group: Any, names: Iterable[str], arena: int) -> list[tuple[Any, ...]]:
    """Rows of [B, N] arrays transposed: per seat, a tuple of the named fields' values."""
    return list(zip(*(getattr(group, name)[arena].tolist() for name in names), strict=True))


class ArenaTurn:
    """One arena after a turn, read from the engine's arrays once as Python values (lists of
    floats, ints and bools, indexed by seat or bullet slot). Valid until the engine steps again."""

    def __init__(self, engine: Engine, arena: int) -> None:
        b, ev, a = engine.bots, engine.events, arena
        self.round_number = int(engine.round_number[a])
        self.turn_number = int(engine.turn_number[a])
        self.n = engine.n_bots
        floats = b.x.base  # the bots' float block [fields, B, N]
        assert floats is not None
        self.states: list[tuple[float, ...]] = list(map(_PICK_STATE, floats[:, a].T.tolist()))
        """Per seat, the BotState floats in BOT_STATE_FIELDS order (one read of the float block)."""
        flags = ev.fired.base  # the events' bool [B, N] block
        pairs = ev.scans.base  # and their bool [B, N, N] block
        assert flags is not None and pairs is not None
        seat_flags, pair_flags = flags[:, a].tolist(), pairs[:, a].tolist()
        self.died: list[bool] = seat_flags[_DIED]
        self.ticked = [m or d for m, d in zip(b.in_map[a].tolist(), self.died, strict=True)]
        """Whether each seat gets a tick: alive, or died this turn."""
        self.enemy_count = sum(self.ticked)
        """Bots receiving a tick this turn; a bot's enemyCount is this minus itself."""
        self.won_round: list[bool] = seat_flags[_WON_ROUND]
        self.bot_wall: list[bool] = seat_flags[_BOT_WALL]
        # rarer events: their values are read only on a turn that has one
        self.fired: list[bool] = seat_flags[_FIRED]
        self.fired_slot: list[int] = ev.fired_slot[a].tolist() if any(self.fired) else []
        self.scans: list[list[bool]] = pair_flags[_SCANS]
        self.scanned: list[tuple[Any, ...]] = []
        if any(map(any, self.scans)):
            self.scanned = _per_seat(ev, _SCAN_COLUMNS, a)
        self.bot_bot: list[list[bool]] = pair_flags[_BOT_BOT]
        self.rammed: list[list[bool]] = pair_flags[_RAMMED]
        self.hit_bot: list[tuple[Any, ...]] = []
        if any(map(any, self.bot_bot)):
            self.hit_bot = _per_seat(ev, _HIT_BOT_COLUMNS, a)
        self._read_bullet_events(engine, arena)
        self._read_bullets(engine, arena)

    def _read_bullet_events(self, engine: Engine, a: int) -> None:
        be = engine.events.bullets
        self.walls: list[int] = []
        self.pairs: list[tuple[int, int]] = []
        self.hits: list[tuple[int, int, float, float]] = []
        if be.wall_arena.size:
            walls = zip(be.wall_arena.tolist(), be.wall_slot.tolist(), strict=True)
            self.walls = [s for r, s in walls if r == a]
        if be.pair_arena.size:
            pairs = zip(be.pair_arena.tolist(), be.pair_a.tolist(), be.pair_b.tolist(), strict=True)
            self.pairs = [(j, k) for r, j, k in pairs if r == a]
        if be.hit_arena.size:
            columns = (be.hit_slot, be.hit_victim, be.hit_damage, be.hit_victim_energy)
            hits = zip(be.hit_arena.tolist(), *(c.tolist() for c in columns), strict=True)
            self.hits = [(s, v, damage, energy) for r, s, v, damage, energy in hits if r == a]

    def _read_bullets(self, engine: Engine, a: int) -> None:
        """Slots below bullet_width; the columns are read when a bullet flies or has an event."""
        bl, w = engine.bullets, engine.bullet_width
        active = bl.active[:w, a].tolist() if w else []
        flying = [k for k in range(w) if active[k]]
        cols: list[list[Any]] = [[] for _ in _BULLET_COLUMNS]
        if flying or self.walls or self.pairs or self.hits or self.fired_slot:
            cols = [getattr(bl, name)[:w, a].tolist() for name in _BULLET_COLUMNS]
        self.bullet_id, self.owner, self.power, self.x, self.y, self.direction = cols[:6]
        self.start_x, self.start_y = cols[6:]
        self.flying = sorted(flying, key=self.bullet_id.__getitem__)
        """Slots of the bullets in flight, in creation (bullet id) order."""

    def bot_state(self, seat: int) -> Json:
        """BotState of one seat after the turn."""
        state = dict(zip(_BOT_STATE_KEYS, self.states[seat], strict=True))
        state["enemyCount"] = self.enemy_count - self.ticked[seat]
        return state

    def bullet_state(self, slot: int, muzzle: bool = False) -> Json:
        """BulletState of a bullet (at the muzzle for BulletFiredEvent)."""
        return {
            "bulletId": self.bullet_id[slot],
            "ownerId": self.owner[slot] + 1,
            "power": self.power[slot],
            "x": (self.start_x if muzzle else self.x)[slot],
            "y": (self.start_y if muzzle else self.y)[slot],
            "direction": self.direction[slot],
        }

    def fired_event(self, seat: int) -> Json:
        bullet = self.bullet_state(self.fired_slot[seat], muzzle=True)
        return {"type": "BulletFiredEvent", "turnNumber": self.turn_number, "bullet": bullet}

    def wall_event(self, seat: int) -> Json:
        return {"type": "BotHitWallEvent", "turnNumber": self.turn_number, "victimId": seat + 1}

    def death_event(self, seat: int) -> Json:
        return {"type": "BotDeathEvent", "turnNumber": self.turn_number, "victimId": seat + 1}

    def scanned_event(self, seat: int, target: int) -> Json:
        energy, x, y, direction, speed = self.scanned[target]
        return {
            "type": "ScannedBotEvent",
            "turnNumber": self.turn_number,
            "scannedByBotId": seat + 1,
            "scannedBotId": target + 1,
            "energy": energy,
            "x": x,
            "y": y,
            "direction": direction,
            "speed": speed,
        }

    def bot_bot_event(self, seat: int, other: int) -> Json:
        energy, x, y = self.hit_bot[other]
        return {
            "type": "BotHitBotEvent",
            "turnNumber": self.turn_number,
            "botId": seat + 1,
            "victimId": other + 1,
            "energy": energy,
            "x": x,
            "y": y,
            "rammed": self.rammed[seat][other],
        }

    def bullet_events(self, seat: int | None) -> list[Json]:
        """Bullet events for one bot (seat) or, with seat None, the observer copies."""
        turn, owner, out = self.turn_number, self.owner, []
        for s in self.walls:
            if seat is None or owner[s] == seat:
                bullet = self.bullet_state(s)
                out.append({"type": "BulletHitWallEvent", "turnNumber": turn, "bullet": bullet})
        for j, k in self.pairs:
            for own, other in ((j, k), (k, j)):
                if seat is None and own != j:
                    continue  # observers get one copy per collision
                if seat is None or owner[own] == seat:
                    out.append(
                        {
                            "type": "BulletHitBulletEvent",
                            "turnNumber": turn,
                            "bullet": self.bullet_state(own),
                            "hitBullet": self.bullet_state(other),
                        }
                    )
        for s, v, damage, energy in self.hits:
            if seat is None or v == seat or owner[s] == seat:
                out.append(
                    {
                        "type": "BulletHitBotEvent",
                        "turnNumber": turn,
                        "victimId": v + 1,
                        "bullet": self.bullet_state(s),
                        "damage": damage,
                        "energy": energy,
                    }
                )
        return out

    def bot_events(self, seat: int) -> list[Json]:
        """The in-tick events one bot receives this turn."""
        turn, others = self.turn_number, range(self.n)
        out: list[Json] = []
        if self.fired[seat]:
            out.append(self.fired_event(seat))
        scans = self.scans[seat]
        out += [self.scanned_event(seat, j) for j in others if scans[j]]
        if self.walls or self.pairs or self.hits:
            out += self.bullet_events(seat)
        if self.bot_wall[seat]:
            out.append(self.wall_event(seat))
        bumped = self.bot_bot[seat]
        out += [self.bot_bot_event(seat, j) for j in others if bumped[j]]
        died = self.died
        out += [self.death_event(j) for j in others if died[j]]
        if self.won_round[seat]:
            out.append({"type": "WonRoundEvent", "turnNumber": turn})
        return out

    def bot_tick(self, seat: int) -> Json:
        """TickEventForBot: own state, own bullets in flight, own events."""
        owner = self.owner
        return {
            "type": "TickEventForBot",
            "roundNumber": self.round_number,
            "turnNumber": self.turn_number,
            "botState": self.bot_state(seat),
            "bulletStates": [self.bullet_state(k) for k in self.flying if owner[k] == seat],
            "events": self.bot_events(seat),
        }

    def observer_events(self) -> list[Json]:
        """The observers' copies of this turn's scans, shots, hits, collisions and deaths."""
        seats = range(self.n)
        out: list[Json] = []
        for seat in seats:
            if self.fired[seat]:
                out.append(self.fired_event(seat))
            scans = self.scans[seat]
            out += [self.scanned_event(seat, j) for j in seats if scans[j]]
        out += self.bullet_events(None)
        for seat in seats:
            if self.bot_wall[seat]:
                out.append(self.wall_event(seat))
            bumped = self.bot_bot[seat]
            out += [self.bot_bot_event(seat, j) for j in seats if bumped[j]]
        out += [self.death_event(seat) for seat in seats if self.died[seat]]
        return out

    def observer_tick(self, names: list[tuple[str, str, str]]) -> Json:
        """TickEventForObserver: every bot (with id, sessionId, name, version), every bullet, and
        the observer copies of the events. `names[seat]` = (sessionId, name, version)."""
        states = []
        for seat in range(self.n):
            if self.ticked[seat]:
                session, name, version = names[seat]
                state = self.bot_state(seat)
                state.update(id=seat + 1, sessionId=session, name=name, version=version)
                states.append(state)
        return {
            "type": "TickEventForObserver",
            "roundNumber": self.round_number,
            "turnNumber": self.turn_number,
            "botStates": states,
            "bulletStates": [self.bullet_state(k) for k in self.flying],
            "events": self.observer_events(),
        }


def receives_tick(engine: Engine, arena: int, seat: int) -> bool:
    """A bot gets a tick while alive, and once more on the turn it dies."""
    return bool(engine.bots.in_map[arena, seat] or engine.events.died[arena, seat])


def tick_for_bot(engine: Engine, arena: int, seat: int) -> Json:
    """TickEventForBot of one seat (ArenaTurn.bot_tick builds every seat's from one read)."""
    return ArenaTurn(engine, arena).bot_tick(seat)


def events_for_bot(engine: Engine, arena: int, seat: int) -> list[Json]:
    """The in-tick events one bot receives this turn."""
    return ArenaTurn(engine, arena).bot_events(seat)


def tick_for_observer(engine: Engine, arena: int, names: list[tuple[str, str, str]]) -> Json:
    """TickEventForObserver; `names[seat]` = (sessionId, name, version)."""
    return ArenaTurn(engine, arena).observer_tick(names)
