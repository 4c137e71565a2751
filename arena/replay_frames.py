"""Replay frames: re-simulate a recorded battle (arena/replay.py) on the one engine and take what a
viewer draws after every turn — bots, bullets, radar sweeps, hits, accumulated scores.

Every turn's state hash is checked against the recording; a mismatch raises ReplayMismatchError.
Input: a `Replay` read by `read_replay`; output: one `Frame` per recorded turn (game coordinates,
y up, degrees). Pure: no I/O; the replay page (deploy/replay_cmd.py) encodes the frames.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tankrl.arena.replay import Replay, ReplayError, apply_turn, engine_for
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.state_hash import state_hash


class ReplayMismatchError(ReplayError):
    """Re-simulating the recorded intents did not reproduce a recorded turn's state."""


@dataclass(frozen=True)
class BotFrame:
    """One seat after the turn. A dead bot keeps its last position with `alive` False."""

    x: float
    y: float
    direction: float
    gun_direction: float
    radar_direction: float
    radar_sweep: float
    """Signed degrees the radar swept this turn: the scan arc runs from `radar_direction -
    radar_sweep` to `radar_direction` (docs/rules.md §5)."""
    energy: float
    alive: bool
    scanned: bool
    """Whether this bot's radar saw another bot this turn."""
    score: float
    """Total score accumulated over the finished rounds (changes when a round ends)."""
    wins: int
    """Rounds finished in first place."""


@dataclass(frozen=True)
class BulletFrame:
    bullet_id: int
    owner: int
    """Seat of the bot that fired it."""
    x: float
    y: float
    direction: float
    power: float


@dataclass(frozen=True)
class Blast:
    """Something to flash on this turn: a bullet hit ("hit", "wall", "bullet") or a death."""

    kind: str
    x: float
    y: float


@dataclass(frozen=True)
class Frame:
    round_number: int
    turn_number: int
    bots: tuple[BotFrame, ...]
    bullets: tuple[BulletFrame, ...]
    blasts: tuple[Blast, ...]
    round_ended: bool


_BULLET_BLASTS = {
    "BulletHitBotEvent": "hit",
    "BulletHitWallEvent": "wall",
    "BulletHitBulletEvent": "bullet",
}


def _blasts(engine: Engine, events: list[dict[str, Any]]) -> tuple[Blast, ...]:
    out = []
    for ev in events:
        kind = _BULLET_BLASTS.get(ev.get("type", ""))
        if kind is not None:
            out.append(Blast(kind, float(ev["bullet"]["x"]), float(ev["bullet"]["y"])))
        elif ev.get("type") == "BotDeathEvent":
            seat = int(ev["victimId"]) - 1
            out.append(Blast("death", float(engine.bots.x[0, seat]), float(engine.bots.y[0, seat])))
    return tuple(out)


def frame_of(engine: Engine, events: list[dict[str, Any]] | None = None) -> Frame:
    """What a viewer draws of arena 0 of `engine` after its last step (`events`: the recorded
    observer events of that turn, for the blasts)."""
    b, bl, ev, totals = engine.bots, engine.bullets, engine.events, engine.totals
    bots = tuple(
        BotFrame(
            x=float(b.x[0, i]),
            y=float(b.y[0, i]),
            direction=float(b.direction[0, i]),
            gun_direction=float(b.gun_direction[0, i]),
            radar_direction=float(b.radar_direction[0, i]),
            radar_sweep=float(b.radar_sweep[0, i]),
            energy=float(b.energy[0, i]),
            alive=bool(b.in_map[0, i]),
            scanned=bool(ev.scans[0, i].any()),
            score=float(totals.total[0, i]),
            wins=int(totals.first_places[0, i]),
        )
        for i in range(engine.n_bots)
    )
    slots = [k for k in range(engine.bullet_width) if bl.active[k, 0]]
    slots.sort(key=lambda k: int(bl.bullet_id[k, 0]))
    bullets = tuple(
        BulletFrame(
            bullet_id=int(bl.bullet_id[k, 0]),
            owner=int(bl.owner[k, 0]),
            x=float(bl.x[k, 0]),
            y=float(bl.y[k, 0]),
            direction=float(bl.direction[k, 0]),
            power=float(bl.power[k, 0]),
        )
        for k in slots
    )
    return Frame(
        round_number=int(engine.round_number[0]),
        turn_number=int(engine.turn_number[0]),
        bots=bots,
        bullets=bullets,
        blasts=_blasts(engine, events or []),
        round_ended=bool(ev.round_ended[0]),
    )


def iter_frames(replay: Replay) -> Iterator[Frame]:
    """Re-simulate `replay` turn by turn, checking each state hash, and yield its frames."""
    engine = engine_for(replay)
    for index, record in enumerate(replay.turns):
        apply_turn(engine, record)
        got = state_hash(engine, 0)
        if got != record.get("hash"):
            raise ReplayMismatchError(
                f"turn {record.get('turn')} of round {record.get('round')} (record {index}) does "
                f"not re-simulate: state hash {got[:12]}… != recorded "
                f"{str(record.get('hash'))[:12]}… — the replay was recorded by different rules "
                "or has been altered"
            )
        yield frame_of(engine, record.get("events"))


def replay_frames(replay: Replay) -> list[Frame]:
    """One frame per recorded turn (see `iter_frames`)."""
    return list(iter_frames(replay))
