"""The observers' tick and the bots' ticks of a turn tell one story (arena/server/ticks.py):
in busy 3-bot battles (scans, shots, hits, walls, rams, deaths), every ticked bot's BotState in
the observers' tick is its own tick's plus its identity, its bullets are the observers' bullets
it owns, each event a bot sees about itself is among the observers' events, and ids, turn and
round numbers are ints while positions are floats, as the protocol types them."""

from typing import Any

import numpy as np

from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.views import fill_view
from tankrl.arena.server.ticks import ArenaTurn, receives_tick, tick_for_bot
from tankrl.shared.botview import BotView

SHARED_EVENTS = ("BulletFiredEvent", "ScannedBotEvent", "BotHitWallEvent", "BotDeathEvent")


def check_turn(turn: ArenaTurn, names: list[tuple[str, str, str]], seen: dict[str, int]) -> None:
    obs = turn.observer_tick(names)
    states = {s["id"]: s for s in obs["botStates"]}
    assert type(obs["turnNumber"]) is int and type(obs["roundNumber"]) is int
    for seat in range(turn.n):
        if not turn.ticked[seat]:
            assert seat + 1 not in states
            continue
        tick = turn.bot_tick(seat)
        session, name, version = names[seat]
        identity = {"id": seat + 1, "sessionId": session, "name": name, "version": version}
        assert states[seat + 1] == {**tick["botState"], **identity}
        assert type(tick["botState"]["enemyCount"]) is int
        assert type(tick["botState"]["x"]) is float
        mine = [b for b in obs["bulletStates"] if b["ownerId"] == seat + 1]
        assert tick["bulletStates"] == mine
        for bullet in mine:
            assert type(bullet["bulletId"]) is int and type(bullet["power"]) is float
        for event in tick["events"]:
            seen[event["type"]] = seen.get(event["type"], 0) + 1
            if event["type"] in SHARED_EVENTS:
                assert event in obs["events"], event
    ids = [b["bulletId"] for b in obs["bulletStates"]]
    assert ids == sorted(ids)


def play(opponents: list[str], turns: int, seed: int) -> dict[str, Any]:
    setup = GameSetup(game_type="classic", max_number_of_participants=None, number_of_rounds=20)
    n_arenas = 2
    engine = Engine(setup, n_arenas, len(opponents), seeds=np.arange(n_arenas) + seed)
    seeds = np.arange(n_arenas, dtype=np.uint64) + seed
    bots = [OPPONENTS[name](n_arenas, seeds + i) for i, name in enumerate(opponents)]
    names = [(f"session{i}", name, "1.0") for i, name in enumerate(opponents)]
    seen: dict[str, int] = {"bullets": 0}
    for _ in range(turns):
        engine.step()
        for a in range(n_arenas):
            turn = ArenaTurn(engine, a)
            assert turn.ticked == [receives_tick(engine, a, s) for s in range(turn.n)]
            check_turn(turn, names, seen)
            seen["bullets"] += len(turn.flying)
        assert tick_for_bot(engine, 1, 0) == ArenaTurn(engine, 1).bot_tick(0)
        for seat, bot in enumerate(bots):
            view = fill_view(engine, seat, BotView.zeros(n_arenas))
            bot.reset_round(view.turn_number == 1)
            engine.set_intent(seat, bot.decide(view))
    return seen


def test_observer_tick_agrees_with_every_bots_tick() -> None:
    seen = play(["RamFire", "SpinBot", "TrackFire"], 500, seed=21)
    wanted = ("BulletFiredEvent", "ScannedBotEvent", "BulletHitBotEvent", "BotHitBotEvent",
              "BotDeathEvent", "BotHitWallEvent")  # fmt: skip
    assert seen["bullets"] > 0 and all(seen.get(k, 0) > 0 for k in wanted), seen


def test_observer_ticks_begin_with_the_prefix_our_controllers_count_them_by() -> None:
    """`tankrl battle` (and bench/hosted.py) count observer ticks by their first bytes and
    decode only the rest."""
    from tankrl.arena.server import messages as out

    engine = Engine(GameSetup(), n_arenas=1, n_bots=2)
    engine.step()
    tick = ArenaTurn(engine, 0).observer_tick([("s1", "A", "1"), ("s2", "B", "1")])
    assert out.encode(tick).startswith(out.OBSERVER_TICK_PREFIX)
    assert not out.encode(out.round_started(1)).startswith(out.OBSERVER_TICK_PREFIX)
