"""Games on loopback with raw bots: StartGame validation (bad setups, unknown addresses and
more bots than start cells are ignored), bot ids in the order of the addresses, the ready
timeout (GameAbortedEvent, or unready bots dropped), a complete game with RoundEnded/GameEnded
results for bots and watchers, initial positions, and a game that fails internally being
aborted while the server goes on."""

import asyncio

import pytest
from loopback import MakeServer, running_game, two_bots

from tankrl.arena.server.game import Game
from tankrl.arena.server.raw_client import (
    join_as_bot,
    join_as_watcher,
    play_bot,
    start_game,
    wait_for_bots,
)
from tankrl.arena.server.server import ArenaServer


async def test_a_game_runs_to_the_end_with_results(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    observer = await join_as_watcher(server.url, kind="ObserverHandshake")
    await controller.send(start_game([a.address, b.address], number_of_rounds=2))
    seen_a, seen_b = await asyncio.gather(play_bot(a), play_bot(b))
    started = next(m for m in seen_a if m["type"] == "GameStartedEventForBot")
    assert started["myId"] == 1 and started["gameSetup"]["numberOfRounds"] == 2
    assert started["botNames"] == [{"botId": 1, "name": "A"}, {"botId": 2, "name": "B"}]
    assert next(m for m in seen_b if m["type"] == "GameStartedEventForBot")["myId"] == 2
    for seen in (seen_a, seen_b):
        kinds = [m["type"] for m in seen]
        assert kinds.count("RoundStartedEvent") == kinds.count("RoundEndedEventForBot") == 2
        assert kinds[-1] == "GameEndedEventForBot" and seen[-1]["numberOfRounds"] == 2
        ticks = [m for m in seen if m["type"] == "TickEventForBot"]
        assert ticks[0]["turnNumber"] == 1 and ticks[0]["roundNumber"] == 1
        assert set(seen[-1]["results"]) >= {"rank", "totalScore", "firstPlaces", "survival"}
    for watcher in (controller, observer):
        ended = await watcher.recv_type("GameEndedEventForObserver", timeout_s=10)
        assert sorted(r["id"] for r in ended["results"]) == [1, 2]
        assert [r["rank"] for r in ended["results"]] == sorted(r["rank"] for r in ended["results"])
        kinds = [m["type"] for m in watcher.received]
        assert kinds.count("RoundEndedEventForObserver") == 2
        assert "GameStartedEventForObserver" in kinds
    assert server.stats.games_ended == 1
    assert server.last_game_seed == 7


async def test_bot_ids_follow_the_order_of_the_addresses(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([b.address, a.address], number_of_rounds=1))
    assert (await a.recv_type("GameStartedEventForBot"))["myId"] == 2
    assert (await b.recv_type("GameStartedEventForBot"))["myId"] == 1


async def test_invalid_start_game_requests_are_ignored(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    addresses = [a.address, b.address]
    await controller.send(start_game(addresses, number_of_rounds=0))
    await controller.send(start_game(addresses, game_type="no-such-type"))
    await controller.send(start_game(addresses, turn_timeout_us=0))
    await controller.send(start_game([{"host": "10.9.8.7", "port": 1234}]))
    await controller.send({"type": "StartGame", "botAddresses": addresses})
    await controller.send(start_game([a.address], min_number_of_participants=2))
    await controller.send(start_game(addresses, number_of_rounds=3))
    started = await a.recv_type("GameStartedEventForBot")
    assert started["gameSetup"]["numberOfRounds"] == 3
    assert server.stats.ignored_requests == 6
    assert server.stats.protocol_errors == 0


async def test_unknown_addresses_are_skipped(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    nowhere = {"host": "127.0.0.1", "port": 1}
    localhost_b = {"host": "localhost", "port": b.address["port"]}
    await controller.send(
        start_game([nowhere, localhost_b, a.address, a.address], number_of_rounds=1)
    )
    assert (await b.recv_type("GameStartedEventForBot"))["myId"] == 1
    assert (await a.recv_type("GameStartedEventForBot"))["myId"] == 2
    assert len(running_game(server).bots) == 2


async def test_too_few_ready_bots_abort_the_game(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], ready_timeout_us=200_000))
    await a.recv_type("GameStartedEventForBot")
    await a.send({"type": "BotReady"})
    await controller.recv_type("GameAbortedEvent")
    assert server.stats.games_aborted == 1
    # the server is back in the lobby: a new game can start
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    await asyncio.gather(play_bot(a), play_bot(b))


async def test_ready_timeout_drops_unready_bots_when_enough_are_ready(
    server: ArenaServer,
) -> None:
    controller, a, b = await two_bots(server)
    c = await join_as_bot(server.url, name="C")
    await wait_for_bots(controller, 3)
    msg = start_game(
        [a.address, b.address, c.address],
        game_type="melee",
        min_number_of_participants=2,
        max_number_of_participants=None,
        number_of_rounds=1,
        ready_timeout_us=300_000,
    )
    await controller.send(msg)
    await b.recv_type("GameStartedEventForBot")
    seen_a, seen_c = await asyncio.gather(play_bot(a), play_bot(c))
    started = await controller.recv_type("GameStartedEventForObserver")
    assert [p["id"] for p in started["participants"]] == [1, 3]
    ticks = [m for m in seen_c if m["type"] == "TickEventForBot"]
    assert ticks
    for tick in ticks:
        for ev in tick["events"]:
            if ev["type"] == "ScannedBotEvent":
                assert ev["scannedBotId"] == 1 and ev["scannedByBotId"] == 3
        for bullet in tick["bulletStates"]:
            assert bullet["ownerId"] == 3
    assert seen_a[-1]["results"]["rank"] in (1, 2)


async def test_initial_positions_only_with_the_server_option(make_server: MakeServer) -> None:
    for enabled in (True, False):
        server = await make_server(initial_positions=enabled, seed=1)
        controller = await join_as_watcher(server.url)
        pos = {"x": 100, "y": 200, "direction": 90}
        a = await join_as_bot(server.url, name="A", initialPosition=pos)
        b = await join_as_bot(server.url, name="B", initialPosition={"x": 700.0})
        await wait_for_bots(controller, 2)
        await controller.send(start_game([a.address, b.address]))
        for bot in (a, b):
            await bot.recv_type("GameStartedEventForBot")
            await bot.send({"type": "BotReady"})
        state_a = (await a.recv_type("TickEventForBot"))["botState"]
        state_b = (await b.recv_type("TickEventForBot"))["botState"]
        placed = (state_a["x"], state_a["y"], state_a["direction"])
        assert (placed == (100, 200, 90)) is enabled
        assert (state_b["x"] == 700) is enabled
        await controller.send({"type": "StopGame"})
        await controller.recv_type("GameAbortedEvent")


async def test_more_bots_than_start_cells_is_refused(server: ArenaServer) -> None:
    controller = await join_as_watcher(server.url)
    bots = [await join_as_bot(server.url, name=f"B{i}") for i in range(5)]
    await wait_for_bots(controller, 5)
    addresses = [b.address for b in bots]
    crowded = dict(game_type="melee", arena_width=100, arena_height=100,
                   min_number_of_participants=2, max_number_of_participants=None)  # fmt: skip
    await controller.send(start_game(addresses, **crowded))
    await controller.send(start_game(addresses[:4], **{**crowded, "number_of_rounds": 2}))
    started = await bots[0].recv_type("GameStartedEventForBot")
    assert started["gameSetup"]["numberOfRounds"] == 2
    assert server.stats.ignored_requests == 1


@pytest.mark.parametrize("good_turns", [0, 5])
async def test_a_failing_game_is_aborted_and_the_server_goes_on(
    server: ArenaServer, monkeypatch: pytest.MonkeyPatch, good_turns: int
) -> None:
    """A bug on turn 1 (played by the game loop) or later (played as the answers arrive, in a
    bot's read callback) aborts the game; the bots stay connected and play the next game."""
    controller, a, b = await two_bots(server)
    play_turn = Game.play_turn
    played = 0

    def broken(self: Game) -> object:
        nonlocal played
        played += 1
        if played > good_turns:
            raise RuntimeError("simulated bug")
        return play_turn(self)

    with monkeypatch.context() as m:
        m.setattr(Game, "play_turn", broken)
        await controller.send(start_game([a.address, b.address]))
        bots = [asyncio.create_task(play_bot(bot)) for bot in (a, b)]
        await controller.recv_type("GameAbortedEvent")
        for task in bots:
            task.cancel()
    assert played == good_turns + 1
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    seen_a, _ = await asyncio.gather(play_bot(a), play_bot(b))
    assert seen_a[-1]["type"] == "GameEndedEventForBot"
