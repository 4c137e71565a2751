"""Replays: record a battle as a msgpack stream and re-simulate it on the engine.

Stream: one header map {format, version, behavior_version, setup, seed, n_bots, names, meta,
initial_positions}, then one map per turn {round, turn, intents: [[10 fields] per seat], hash,
events: [observer events]}, then a footer {results}. Re-simulation feeds the recorded intents to a
fresh B = 1 engine with the same seed and compares every turn's state hash.
"""

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgpack
import numpy as np

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.state_hash import state_hash
from tankrl.arena.server.ticks import tick_for_observer
from tankrl.shared.game_constants import BEHAVIOR_VERSION
from tankrl.shared.intent import INTENT_FIELDS, Intent

FORMAT = "tankrl-replay"
VERSION = 1


class ReplayError(ValueError):
    """A replay file is not a tankrl replay or is damaged."""


class ReplayRecorder:
    """Records one arena of an engine while it is stepped through `step()` (or the pair
    `before_step()` / `after_step()` around the caller's own `engine.step()`)."""

    def __init__(
        self,
        path: str | Path,
        engine: Engine,
        arena: int = 0,
        names: list[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.engine, self.arena = engine, arena
        self._file: IO[bytes] = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._intents: list[list[Any]] = []
        self.turns = 0
        names = names or [f"bot{i + 1}" for i in range(engine.n_bots)]
        self._names = [(f"seat{i}", n, "") for i, n in enumerate(names)]
        init = None
        if engine.initial_positions is not None:
            init = [np.asarray(a[arena]).tolist() for a in engine.initial_positions]
        self._write(
            {
                "format": FORMAT,
                "version": VERSION,
                "behavior_version": BEHAVIOR_VERSION,
                "setup": engine.setup.to_dict(),
                "seed": int(engine.seeds[arena]),
                "n_bots": engine.n_bots,
                "names": names,
                "meta": meta or {},
                "initial_positions": init,
            }
        )

    def _write(self, obj: dict[str, Any]) -> None:
        self._file.write(msgpack.packb(obj, use_bin_type=True))

    def before_step(self) -> None:
        """Snapshot the stored intents the next step will use."""
        it, a = self.engine.intents, self.arena
        self._intents = [
            [getattr(it, name)[a, seat].item() for name in INTENT_FIELDS]
            for seat in range(self.engine.n_bots)
        ]

    def after_step(self) -> None:
        """Write the turn: its intents, state hash and observer events."""
        e, a = self.engine, self.arena
        self._write(
            {
                "round": int(e.round_number[a]),
                "turn": int(e.turn_number[a]),
                "intents": self._intents,
                "hash": state_hash(e, a),
                "events": tick_for_observer(e, a, self._names)["events"],
            }
        )
        self.turns += 1

    def step(self) -> None:
        self.before_step()
        self.engine.step()
        self.after_step()

    def close(self, results: list[dict[str, Any]] | None = None) -> None:
        if self._file.closed:
            return
        self._write(
            {"results": results if results is not None else self.engine.results(self.arena)}
        )
        self._file.close()


@dataclass
class Replay:
    header: dict[str, Any]
    turns: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] | None = None

    @property
    def setup(self) -> GameSetup:
        return GameSetup.from_dict(self.header["setup"])


def _records(path: str | Path) -> Iterator[Any]:
    with open(path, "rb") as f:
        unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=True, max_buffer_size=2**30)
        try:
            yield from unpacker
        except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as e:
            raise ReplayError(f"{path}: damaged replay stream ({e})") from None


def read_replay(path: str | Path) -> Replay:
    it = _records(path)
    header = next(it, None)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ReplayError(f"{path} is not a {FORMAT} file")
    if header.get("version") != VERSION:
        raise ReplayError(f"{path}: replay version {header.get('version')}, expected {VERSION}")
    replay = Replay(header)
    for rec in it:
        if not isinstance(rec, dict):
            raise ReplayError(f"{path}: unexpected record {type(rec).__name__}")
        if "results" in rec:
            replay.results = rec["results"]
        else:
            replay.turns.append(rec)
    return replay


@dataclass
class ResimResult:
    turns: int
    mismatches: list[tuple[int, int]]
    """(round, turn) of every turn whose state hash differs from the recording."""


def engine_for(replay: Replay) -> Engine:
    """A fresh B = 1 engine set up as the recorded battle was."""
    h = replay.header
    engine = Engine(replay.setup, 1, int(h["n_bots"]), seeds=[int(h["seed"])])
    if h.get("initial_positions") is not None:
        x, y, direction = (
            np.asarray([[math.nan if v is None else v for v in a]], dtype=np.float64)
            for a in h["initial_positions"]
        )
        engine.initial_positions = (x, y, direction)
    return engine


def apply_turn(engine: Engine, record: dict[str, Any]) -> None:
    """Set every seat's recorded intent and step."""
    for seat, values in enumerate(record["intents"]):
        intent = Intent.zeros(1)
        for name, value in zip(INTENT_FIELDS, values, strict=True):
            getattr(intent, name)[0] = value
        engine.set_intent(seat, intent)
    engine.step()


def resimulate(replay: Replay) -> ResimResult:
    engine = engine_for(replay)
    mismatches = []
    for rec in replay.turns:
        apply_turn(engine, rec)
        if state_hash(engine, 0) != rec["hash"]:
            mismatches.append((int(rec["round"]), int(rec["turn"])))
    return ResimResult(len(replay.turns), mismatches)
