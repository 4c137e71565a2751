"""The Bot API shell's intent side and turn flow, offline (no server): `copy_intent` makes the
official API's BotIntent JSON (to_json of its bot_intent) carry exactly the Intent's values,
including fire assist after the adjust flags and the set_fire rules; DeciderBot serves each tick
once (hooks in order, decisions copied only for live ticks, skipped turns flagged on the next
view, the round's last tick served before the round-end hook); bot infos load from JSON.
"""

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robocode_tank_royale.bot_api.bot_info import BotInfo
from robocode_tank_royale.bot_api.bot_results import BotResults
from robocode_tank_royale.bot_api.events.game_ended_event import GameEndedEvent
from robocode_tank_royale.bot_api.events.round_ended_event import RoundEndedEvent
from robocode_tank_royale.bot_api.events.skipped_turn_event import SkippedTurnEvent
from robocode_tank_royale.bot_api.game_setup import GameSetup as ApiGameSetup
from robocode_tank_royale.bot_api.internal.json_util import from_json, to_json
from robocode_tank_royale.bot_api.mapper.event_mapper import EventMapper

from tankrl.actor.botapi_shell import SCRIPTED, DeciderBot, ShellHooks, copy_intent, load_bot_info
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server.ticks import tick_for_bot
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

BOTS_DIR = Path(__file__).resolve().parents[2] / "actor" / "bots"


class Recorder:
    """A decider that returns a fixed intent and remembers what it saw."""

    def __init__(self, intent: Intent) -> None:
        self.intent, self.views, self.resets = intent, list[BotView](), 0

    def reset_round(self, mask: np.ndarray) -> None:
        self.resets += int(mask.sum())

    def decide(self, view: BotView) -> Intent:
        self.views.append(view)
        return self.intent


class Log(ShellHooks):
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_round_start(self, round_number: int) -> None:
        self.calls.append(("start", round_number))

    def on_view(self, view: BotView, live: bool) -> None:
        self.calls.append(("view", int(view.turn_number[0]), live, bool(view.skipped_turn[0])))

    def on_decision(self, view: BotView, intent: Intent) -> None:
        self.calls.append(("decision", int(view.turn_number[0])))

    def on_round_end(self, round_number: int, results: BotResults) -> None:
        self.calls.append(("end", round_number, results.total_score))

    def on_game_end(self, results: BotResults, number_of_rounds: int) -> None:
        self.calls.append(("game", number_of_rounds))

    def on_skipped_turn(self, turn_number: int) -> None:
        self.calls.append(("skipped", turn_number))


@contextmanager
def offline_bot(decider: Any, hooks: ShellHooks | None = None) -> Iterator[DeciderBot]:
    """A DeciderBot that never connects; the Bot API's stdout/stderr capture is undone after."""
    out, err = sys.stdout, sys.stderr
    try:
        info = BotInfo(name="Probe", version="1.0", authors=["tests"])
        bot = DeciderBot(decider, hooks, bot_info=info, exit_on_game_end=False)
        bot._internals.game_setup = ApiGameSetup("1v1", 800, 600, 10, 0.1, 450, 30_000, 10**7)
        yield bot
    finally:
        sys.stdout, sys.stderr = out, err


def api_tick(engine: Engine, **bot_state: float) -> Any:
    """Seat 0's current tick as the Bot API maps it, with botState fields overridden."""
    message = tick_for_bot(engine, 0, 0)
    message["botState"].update(bot_state)
    return EventMapper.map_tick_event(from_json(message), SimpleNamespace(my_id=1))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine(GameSetup(), 1, 2, seeds=4)
    engine.step()
    return engine


def sent_json(bot: DeciderBot) -> dict[str, Any]:
    return json.loads(to_json(bot._internals.bot_intent))  # type: ignore[no-any-return]


def one(intent_fields: dict[str, Any]) -> Intent:
    intent = Intent.zeros(1)
    for name, value in intent_fields.items():
        getattr(intent, name)[0] = value
    return intent


INTENTS = st.fixed_dictionaries(
    {
        "target_speed": st.floats(-8.0, 8.0),
        "turn_rate": st.floats(-10.0, 10.0),
        "gun_turn_rate": st.floats(-20.0, 20.0),
        "radar_turn_rate": st.floats(-45.0, 45.0),
        "firepower": st.floats(0.0, 3.0),
        "adjust_gun_for_body_turn": st.booleans(),
        "adjust_radar_for_gun_turn": st.booleans(),
        "adjust_radar_for_body_turn": st.booleans(),
        "rescan": st.booleans(),
        "fire_assist": st.booleans(),
    }
)
JSON_NAMES = {
    "target_speed": "targetSpeed",
    "turn_rate": "turnRate",
    "gun_turn_rate": "gunTurnRate",
    "radar_turn_rate": "radarTurnRate",
    "firepower": "firepower",
    "adjust_gun_for_body_turn": "adjustGunForBodyTurn",
    "adjust_radar_for_gun_turn": "adjustRadarForGunTurn",
    "adjust_radar_for_body_turn": "adjustRadarForBodyTurn",
    "rescan": "rescan",
    "fire_assist": "fireAssist",
}


@settings(max_examples=60, deadline=None)
@given(fields=INTENTS)
def test_the_api_intent_json_carries_exactly_the_intent_with_a_cold_gun(
    engine: Engine, fields: dict[str, Any]
) -> None:
    with offline_bot(Recorder(Intent.zeros(1))) as bot:
        bot._internals.tick_event = api_tick(engine, gunHeat=0.0, energy=100.0)
        copy_intent(bot, one(fields))
        sent = sent_json(bot)
    for name, key in JSON_NAMES.items():
        assert (sent[key] or False) == fields[name], name  # the API leaves unset flags null


def test_a_hot_gun_or_too_little_energy_never_leaves_a_firing_power(engine: Engine) -> None:
    with offline_bot(Recorder(Intent.zeros(1))) as bot:
        bot._internals.tick_event = api_tick(engine, gunHeat=0.0, energy=2.0)
        copy_intent(bot, one({"firepower": 3.0}))
        assert sent_json(bot)["firepower"] == 0.0  # refused: set_fire(0.0) clears it
        copy_intent(bot, one({"firepower": 1.5}))
        assert sent_json(bot)["firepower"] == 1.5
        bot._internals.tick_event = api_tick(engine, gunHeat=0.4, energy=100.0)
        bot._internals.bot_intent.firepower = 0.0  # what the API does on its BulletFiredEvent
        copy_intent(bot, one({"firepower": 3.0}))
        assert sent_json(bot)["firepower"] == 0.0  # a hot gun cannot fire anyway


def test_fire_assist_follows_the_intent_even_with_adjust_radar_for_gun_turn(engine: Engine) -> None:
    with offline_bot(Recorder(Intent.zeros(1))) as bot:
        bot._internals.tick_event = api_tick(engine)
        copy_intent(bot, one({"adjust_radar_for_gun_turn": True, "fire_assist": True}))
        assert sent_json(bot)["fireAssist"] is True
        copy_intent(bot, one({"adjust_radar_for_gun_turn": False, "fire_assist": False}))
        assert sent_json(bot)["fireAssist"] is False


def test_each_tick_is_served_once_in_hook_order_and_the_last_one_before_round_end() -> None:
    engine = Engine(GameSetup(), 1, 2, seeds=6)
    decider, log = Recorder(one({"turn_rate": 7.0, "target_speed": 3.0})), Log()
    with offline_bot(decider, log) as bot:
        engine.step()
        bot._internals.tick_event = api_tick(engine)
        bot.run()  # not running (no server): resets, starts the round, serves tick 1 unlive
        bot._turn(bot._internals.tick_event, True)  # already served: nothing
        engine.step()
        bot.on_skipped_turn(SkippedTurnEvent(1))
        bot._internals.tick_event = api_tick(engine)
        bot._turn(bot._internals.tick_event, True)
        assert sent_json(bot)["turnRate"] == 7.0 and sent_json(bot)["targetSpeed"] == 3.0
        engine.step()
        bot._internals.tick_event = api_tick(engine)
        results = BotResults(1, 50, 10, 20, 4, 0, 0, 84, 1, 0, 0)
        bot.on_round_ended(RoundEndedEvent(1, 3, results))
        game = GameEndedEvent()
        game.number_of_rounds, game.results = 1, results
        bot.on_game_ended(game)
    assert decider.resets == 1 and [int(v.turn_number[0]) for v in decider.views] == [1, 2, 3]
    assert log.calls == [
        ("start", 1),
        ("view", 1, False, False),
        ("skipped", 1),
        ("view", 2, True, True),
        ("decision", 2),
        ("view", 3, False, False),
        ("end", 1, 84),
        ("game", 1),
    ]
    assert bot.skipped_turns == 1


def test_bot_infos_load_from_lists_or_comma_strings(tmp_path: Path) -> None:
    path = tmp_path / "X.json"
    path.write_text(
        json.dumps(
            {"name": "X", "version": "2", "authors": "a, b", "countryCodes": ["dk"],
             "gameTypes": "1v1,classic", "platform": "Python", "programmingLang": "Python 3"}
        )
    )  # fmt: skip
    info = load_bot_info(path)
    assert (info.name, info.version, info.authors) == ("X", "2", ["a", "b"])
    assert info.game_types == {"1v1", "classic"} and info.country_codes == ["DK"]


@pytest.mark.parametrize("name", list(SCRIPTED))
def test_every_registered_decider_has_a_bot_directory_of_its_name(name: str) -> None:
    folder = BOTS_DIR / name
    info = load_bot_info(folder / f"{name}.json")
    assert info.name == name and info.game_types == {"1v1", "classic"}
    assert info.platform == "Python" and info.programming_lang == "Python 3"
    script = (folder / f"{name}.py").read_text()
    assert f'run_scripted("{name}")' in script and len(script.strip().splitlines()) <= 3
