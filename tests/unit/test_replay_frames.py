"""Replay frames (arena/replay_frames.py) and the replay page's data (deploy/replay_cmd.py): a
battle recorded with ReplayRecorder gives one frame per turn whose bots, bullets and scores are
the engine's as it was recorded; a tampered hash or intent is refused naming the turn; the page
embeds the frames as JSON that no bot name can break out of; the pure modules import no heavy
dependencies.
"""

import json
import re
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

from tankrl.arena.replay import ReplayRecorder, read_replay
from tankrl.arena.replay_frames import ReplayMismatchError, iter_frames, replay_frames
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.deploy.replay_cmd import DATA_MARK, TITLE_MARK, page_data, render_page
from tankrl.shared.intent import INTENT_FIELDS, Intent

REPO = Path(__file__).resolve().parents[2]
BOT_FIELDS = ("x", "y", "direction", "gun_direction", "radar_direction", "radar_sweep", "energy")
"""Engine bot arrays that BotFrame copies under the same names."""
SETUP = GameSetup(number_of_rounds=2, gun_cooling_rate=0.5, max_number_of_participants=None)


def scripted(engine: Engine) -> list[Intent]:
    """Both seats drive in changing arcs, aim the gun at the enemy and fire when they saw it."""
    b, t = engine.bots, float(engine.turn_number[0])
    out = []
    for seat in (0, 1):
        other = 1 - seat
        aim = np.degrees(np.arctan2(b.y[:, other] - b.y[:, seat], b.x[:, other] - b.x[:, seat]))
        it = Intent.zeros(1)
        it.target_speed[:] = 6.0 * np.sign(np.sin(t / 29.0 + 1.7 * seat) + 0.3)
        it.turn_rate[:] = 8.0 * np.sin(t / 13.0 + seat)
        it.gun_turn_rate[:] = (aim - b.gun_direction[:, seat] + 180.0) % 360.0 - 180.0
        it.radar_turn_rate[:] = 30.0 if seat == 0 else -25.0
        it.firepower[:] = np.where(engine.events.scans[:, seat, other], 2.5, 0.0)
        out.append(it)
    return out


def snapshot(engine: Engine) -> dict[str, Any]:
    b, bl = engine.bots, engine.bullets
    active = [k for k in range(engine.bullet_width) if bl.active[k, 0]]
    return {
        "round": int(engine.round_number[0]),
        "turn": int(engine.turn_number[0]),
        "bots": [
            (*(float(getattr(b, f)[0, i]) for f in BOT_FIELDS), bool(b.in_map[0, i]))
            for i in range(engine.n_bots)
        ],
        "bullets": sorted((int(bl.bullet_id[k, 0]), bl.x[k, 0], bl.y[k, 0]) for k in active),
        "scores": engine.totals.total[0].tolist(),
    }


def record(path: Path) -> tuple[list[dict[str, Any]], Engine]:
    """Record a 2-round scripted battle; returns the engine's state after every turn."""
    engine = Engine(SETUP, 1, 2, seeds=[77])
    recorder = ReplayRecorder(path, engine, names=["Alpha", "Bravo </script>"])
    states = []
    while not engine.game_over[0]:
        for seat, it in enumerate(scripted(engine)):
            engine.set_intent(seat, it)
        recorder.step()
        states.append(snapshot(engine))
        assert len(states) < 20_000
    recorder.close()
    return states, engine


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], Engine]:
    path = tmp_path_factory.mktemp("replay") / "battle.replay"
    states, engine = record(path)
    return path, states, engine


def test_one_frame_per_turn_with_the_engines_state(
    recorded: tuple[Path, list[dict[str, Any]], Engine],
) -> None:
    path, states, _ = recorded
    frames = replay_frames(read_replay(path))
    assert len(frames) == len(states)
    assert {f.round_number for f in frames} == {1, 2}
    n_bullets = 0
    for f, s in zip(frames, states, strict=True):
        assert (f.round_number, f.turn_number) == (s["round"], s["turn"])
        got = [(*(getattr(b, name) for name in BOT_FIELDS), b.alive) for b in f.bots]
        assert got == s["bots"]
        assert [(u.bullet_id, u.x, u.y) for u in f.bullets] == s["bullets"]
        assert [b.score for b in f.bots] == s["scores"]
        n_bullets += len(f.bullets)
    assert n_bullets > 0  # the battle had bullets to draw
    assert any(b.radar_sweep != 0 for f in frames for b in f.bots)


def test_scores_change_only_when_a_round_ends(
    recorded: tuple[Path, list[dict[str, Any]], Engine],
) -> None:
    path, _, engine = recorded
    frames = replay_frames(read_replay(path))
    last_turns = [
        i
        for i in range(len(frames))
        if i == len(frames) - 1 or frames[i + 1].round_number != frames[i].round_number
    ]
    assert [i for i, f in enumerate(frames) if f.round_ended] == last_turns
    for i in range(1, len(frames)):
        before, after = [b.score for b in frames[i - 1].bots], [b.score for b in frames[i].bots]
        if frames[i].round_ended:
            assert sum(after) > sum(before)  # survival points at least
        else:
            assert after == before
    last = frames[-1].bots
    assert [b.wins for b in last] == [r["firstPlaces"] for r in engine.results(0)]
    assert sum(b.wins for b in last) == 2
    # the round's deaths and hits become blasts
    kinds = {x.kind for f in frames for x in f.blasts}
    assert "death" in kinds and "hit" in kinds


def rewrite(path: Path, out: Path, k: int, change: dict[str, Any]) -> None:
    """Copy a replay stream, updating record k (0 = the header)."""
    with open(path, "rb") as f:
        records = list(msgpack.Unpacker(f, raw=False, strict_map_key=True))
    records[k] = {**records[k], **change}
    with open(out, "wb") as f:
        for rec in records:
            f.write(msgpack.packb(rec, use_bin_type=True))


def test_a_tampered_hash_is_refused(
    recorded: tuple[Path, list[dict[str, Any]], Engine], tmp_path: Path
) -> None:
    path, _, _ = recorded
    bad = tmp_path / "bad.replay"
    rewrite(path, bad, 31, {"hash": "0" * 64})  # turn 31 of round 1
    frames = iter_frames(read_replay(bad))
    for _ in range(30):
        next(frames)
    with pytest.raises(ReplayMismatchError, match=r"turn 31 of round 1 \(record 30\)"):
        next(frames)


def test_a_tampered_intent_is_refused(
    recorded: tuple[Path, list[dict[str, Any]], Engine], tmp_path: Path
) -> None:
    path, _, _ = recorded
    replay = read_replay(path)
    intents = [list(seat) for seat in replay.turns[20]["intents"]]
    intents[1][INTENT_FIELDS.index("turn_rate")] += 5.0
    bad = tmp_path / "bad.replay"
    rewrite(path, bad, 21, {"intents": intents})
    with pytest.raises(ReplayMismatchError, match="turn 21 of round 1"):
        replay_frames(read_replay(bad))


def test_page_embeds_the_frames_as_json_no_name_breaks_out_of(
    recorded: tuple[Path, list[dict[str, Any]], Engine],
) -> None:
    path, states, _ = recorded
    replay = read_replay(path)
    data = page_data(replay, replay_frames(replay))
    template = f"<title>{TITLE_MARK}</title><script type=x>{DATA_MARK}</script>"
    page = render_page(template, data, "A & <B>")
    assert "<title>A &amp; &lt;B&gt;</title>" in page
    m = re.fullmatch(r".*<script type=x>(.*)</script>", page, re.S)
    assert m is not None and "</" not in m.group(1)  # "Bravo </script>" stays inside
    back = json.loads(m.group(1))
    assert back["names"] == ["Alpha", "Bravo </script>"]
    assert back["arena"] == [800, 600]
    assert len(back["frames"]) == len(states)
    f, s = back["frames"][100], states[100]
    for seat in (0, 1):
        assert back["frames"][100]["b"][seat][:2] == pytest.approx(s["bots"][seat][:2], abs=0.01)
    assert (f["r"], f["t"]) == (s["round"], s["turn"])
