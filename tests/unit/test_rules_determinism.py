"""Determinism and replays (docs/rules.md §11 "everything else is deterministic given the intents",
with our seeded placement): two runs of a 10-round battle with the same seed and the same scripted
intents give identical state-hash sequences (another seed gives another); a battle recorded with
ReplayRecorder re-simulates with 0 mismatches and the recorded results; a tampered recording is
detected; arena k of a B = 8 battle has the same hash sequence as a B = 1 engine seeded with arena
k's seed and fed arena k's intents (batch independence).

The scripted bots drive in changing arcs (walls, the odd ram), keep the gun and radar together on
the enemy and fire power 3 whenever they scanned it last turn (fire assist aims), with gun cooling
0.5 so that rounds are short.
"""

from pathlib import Path

import msgpack
import numpy as np
import pytest
from rules_helpers import make_engine

from tankrl.arena.replay import Replay, ReplayRecorder, read_replay, resimulate
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.state_hash import state_hash
from tankrl.shared.intent import INTENT_FIELDS, Intent

SEED = 2024
SETUP = {"number_of_rounds": 10, "gun_cooling_rate": 0.5}
MAX_TURNS = 20_000


def scripted(engine: Engine) -> list[Intent]:
    """Both seats' intents for every arena, from the state after the last turn."""
    b, n = engine.bots, engine.n_arenas
    t = engine.turn_number.astype(np.float64)
    out = []
    for seat in (0, 1):
        other = 1 - seat
        aim = np.degrees(np.arctan2(b.y[:, other] - b.y[:, seat], b.x[:, other] - b.x[:, seat]))
        it = Intent.zeros(n)
        it.target_speed[:] = 5.0 * np.sign(np.sin(t / 23.0 + 1.7 * seat))
        it.turn_rate[:] = 10.0 * np.sin(t / 11.0 + seat)
        it.gun_turn_rate[:] = (aim - b.gun_direction[:, seat] + 180.0) % 360.0 - 180.0
        it.adjust_gun_for_body_turn[:] = True  # the radar turns with the gun only
        it.firepower[:] = np.where(engine.events.scans[:, seat, other], 3.0, 0.0)
        out.append(it)
    return out


def battle(seed: int, recorder_path: Path | None = None) -> tuple[list[str], Engine]:
    engine = make_engine(seeds=seed, **SETUP)
    recorder = ReplayRecorder(recorder_path, engine) if recorder_path else None
    hashes = []
    while not engine.game_over[0]:
        for seat, it in enumerate(scripted(engine)):
            engine.set_intent(seat, it)
        if recorder:
            recorder.step()
        else:
            engine.step()
        hashes.append(state_hash(engine, 0))
        assert len(hashes) < MAX_TURNS
    if recorder:
        recorder.close()
    return hashes, engine


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Engine, Path]:
    path = tmp_path_factory.mktemp("replay") / "battle.tkr"
    hashes, engine = battle(SEED, path)
    return hashes, engine, path


def test_the_battle_is_a_real_10_round_battle(recorded: tuple[list[str], Engine, Path]) -> None:
    _, engine, _ = recorded
    assert engine.round_number[0] == 10 and engine.game_over[0]
    results = engine.results(0)
    assert sum(r["firstPlaces"] for r in results) >= 10
    assert sum(r["bulletDamage"] for r in results) > 300


def test_same_seed_same_intents_same_hash_sequence(
    recorded: tuple[list[str], Engine, Path],
) -> None:
    hashes, engine, _ = recorded
    again, engine2 = battle(SEED)
    assert again == hashes
    assert engine2.results(0) == engine.results(0)


def test_another_seed_gives_another_battle(recorded: tuple[list[str], Engine, Path]) -> None:
    hashes, _, _ = recorded
    other = make_engine(seeds=SEED + 1, **SETUP)
    other.step()
    assert state_hash(other, 0) != hashes[0]


def test_recorded_battle_resimulates_with_zero_mismatches(
    recorded: tuple[list[str], Engine, Path],
) -> None:
    hashes, engine, path = recorded
    replay = read_replay(path)
    assert [rec["hash"] for rec in replay.turns] == hashes
    assert replay.header["seed"] == SEED
    assert replay.results == engine.results(0)
    res = resimulate(replay)
    assert res.turns == len(hashes)
    assert res.mismatches == []


def rewrite(path: Path, out: Path, change: dict[int, dict[str, object]]) -> None:
    """Copy a replay stream, updating record number k (0 = the header) with change[k]."""
    with open(path, "rb") as f:
        records = list(msgpack.Unpacker(f, raw=False, strict_map_key=True))
    with open(out, "wb") as f:
        for k, rec in enumerate(records):
            f.write(msgpack.packb({**rec, **change.get(k, {})}, use_bin_type=True))


def test_a_tampered_intent_is_detected(
    recorded: tuple[list[str], Engine, Path], tmp_path: Path
) -> None:
    _, _, path = recorded
    replay = read_replay(path)
    k = 40  # turn 41 of round 1: the bots are driving
    intents = [list(seat) for seat in replay.turns[k]["intents"]]
    speed = INTENT_FIELDS.index("target_speed")
    intents[0][speed] = -intents[0][speed] or 3.0
    tampered = tmp_path / "tampered.tkr"
    rewrite(path, tampered, {k + 1: {"intents": intents}})
    bad = read_replay(tampered)
    res = resimulate(Replay(bad.header, bad.turns[:120], bad.results))
    assert res.mismatches
    assert res.mismatches[0] == (1, k + 1)


def test_a_tampered_hash_is_detected(
    recorded: tuple[list[str], Engine, Path], tmp_path: Path
) -> None:
    _, _, path = recorded
    tampered = tmp_path / "tampered.tkr"
    rewrite(path, tampered, {11: {"hash": "0" * 64}})
    bad = read_replay(tampered)
    res = resimulate(Replay(bad.header, bad.turns[:50], bad.results))
    assert res.mismatches == [(1, 11)]


def test_batch_independence_b8_equals_b1_per_arena() -> None:
    setup = {**SETUP, "number_of_rounds": 2}
    seeds = np.array([7, 8, 9, 10, 11, 12, 13, 2**63 + 5], dtype=np.uint64)
    batch = make_engine(n_arenas=8, seeds=seeds, **setup)
    hashes: list[list[str]] = [[] for _ in range(8)]
    intents: list[list[list[Intent]]] = [[] for _ in range(8)]
    while not batch.game_over.all():
        running = ~batch.game_over
        turn_intents = scripted(batch)
        for seat, it in enumerate(turn_intents):
            batch.set_intent(seat, it)
        batch.step()
        for k in np.nonzero(running)[0]:
            intents[k].append([_row(it, k) for it in turn_intents])
            hashes[k].append(state_hash(batch, k))
    assert len({len(h) for h in hashes}) > 1  # the arenas finished at different turns
    for k in range(8):
        single = make_engine(seeds=seeds[k : k + 1], **setup)
        for turn, per_seat in enumerate(intents[k]):
            for seat, it in enumerate(per_seat):
                single.set_intent(seat, it)
            single.step()
            assert state_hash(single, 0) == hashes[k][turn], (k, turn)
        assert single.game_over[0]
        assert single.results(0) == batch.results(k)


def _row(it: Intent, k: int) -> Intent:
    return Intent(**{name: getattr(it, name)[k : k + 1].copy() for name in INTENT_FIELDS})
