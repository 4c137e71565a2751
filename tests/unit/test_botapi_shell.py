"""The Bot API shell's view conversion: real engine battles (1v1 and 3-bot, scripted opponents,
with scans, shots, hits, bullet collisions, walls, rams, deaths and wins) turned into
TickEventForBot JSON by arena.server.ticks, parsed by the OFFICIAL Bot API exactly as its
WebSocket handler does (json -> from_json -> EventMapper.map_tick_event) and converted by
`view_from_tick`, equal field by field to arena.rules.views.fill_view for the same turn.
"""

import json
from types import SimpleNamespace
from typing import Any

import numpy as np
from robocode_tank_royale.bot_api.internal.json_util import from_json
from robocode_tank_royale.bot_api.mapper.event_mapper import EventMapper

from tankrl.actor.botapi_shell import view_from_tick
from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.views import fill_view
from tankrl.arena.server.ticks import receives_tick, tick_for_bot
from tankrl.shared.botview import VIEW_DTYPES, BotView

SCAN_FIELDS = ("scan_bot_id", "scan_x", "scan_y", "scan_direction", "scan_speed", "scan_energy")
COVERED = (
    "scanned", "bullet_fired", "hit_by_bullet", "bullet_hit", "bullet_hit_bullet",
    "bullet_hit_wall", "hit_wall", "hit_bot", "hit_bot_rammed", "enemy_died", "won_round",
)  # fmt: skip


def parse_like_the_bot_api(message: dict[str, Any], my_id: int) -> Any:
    """What WebSocketHandler.handle_tick does with a TickEventForBot text frame."""
    schema_tick = from_json(json.loads(json.dumps(message)))
    return EventMapper.map_tick_event(schema_tick, SimpleNamespace(my_id=my_id))  # type: ignore[arg-type]


def play(names: list[str], turns: int, n_arenas: int, seed: int) -> dict[str, int]:
    """Play scripted opponents against each other; compare every tick's two views. Returns how
    often each event kind (and a multi-bot scan) was seen."""
    setup = GameSetup(game_type="classic", max_number_of_participants=None, number_of_rounds=20)
    engine = Engine(setup, n_arenas, len(names), seeds=np.arange(n_arenas) + seed)
    seeds = np.arange(n_arenas, dtype=np.uint64) + seed
    bots = [OPPONENTS[name](n_arenas, seeds + i) for i, name in enumerate(names)]
    seen = dict.fromkeys((*COVERED, "several_scans"), 0)
    for _ in range(turns):
        engine.step()
        for seat, bot in enumerate(bots):
            native = fill_view(engine, seat, BotView.zeros(n_arenas))
            for a in range(n_arenas):
                if not receives_tick(engine, a, seat):
                    continue
                message = tick_for_bot(engine, a, seat)
                tick = parse_like_the_bot_api(message, seat + 1)
                hosted = view_from_tick(tick, 800.0, 600.0)
                expected = native.select(np.array([a]))
                for name in VIEW_DTYPES:
                    assert np.array_equal(getattr(hosted, name), getattr(expected, name)), (
                        f"turn {message['turnNumber']} arena {a} seat {seat}: {name} "
                        f"{getattr(hosted, name)} != {getattr(expected, name)}"
                    )
                for name in COVERED:
                    seen[name] += int(getattr(hosted, name)[0])
                kinds = [e["type"] for e in message["events"]]
                seen["several_scans"] += kinds.count("ScannedBotEvent") > 1
            bot.reset_round(native.turn_number == 1)
            engine.set_intent(seat, bot.decide(native))
    return seen


def test_hosted_view_equals_native_view_in_1v1_battles() -> None:
    rams = play(["RamFire", "SpinBot"], 500, 2, seed=5)
    duel = play(["TrackFire", "TrackFire"], 300, 2, seed=21)  # bullets collide mid-air
    missing = [k for k in COVERED if rams[k] + duel[k] == 0]
    assert not missing, f"the battles never produced {missing}"


def test_hosted_view_equals_native_view_with_three_bots() -> None:
    seen = play(["RamFire", "SpinBot", "TrackFire"], 500, 2, seed=21)
    assert seen["several_scans"] > 0 and seen["enemy_died"] > 0 and seen["hit_bot_rammed"] > 0


def test_fill_view_hides_the_enemy_when_nothing_was_scanned() -> None:
    engine = Engine(GameSetup(), 1, 2, seeds=1)
    engine.step()  # turn 1: nobody moves, nobody scans
    view = fill_view(engine, 0, BotView.zeros(1))
    assert not view.scanned[0]
    assert all(getattr(view, name)[0] == 0 for name in SCAN_FIELDS)
