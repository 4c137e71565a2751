"""Games on loopback with raw bots: StartGame validation (bad setups, unknown addresses and
more bots than start cells are ignored), bot ids in the order of the addresses, the ready
timeout (GameAbortedEvent, or unready bots dropped), a complete game with RoundEnded/GameEnded
results for bots and watchers, skipped turns (the tank keeps its last intent), the intent merge
of protocol §7.3, pause / next turn / resume / TPS / stop, debug stepping, bots disconnecting
mid-round, a slow observer dropped instead of waited for, initial positions, debug graphics,
a game that fails internally being aborted while the server goes on, and every message sent
in a Text frame."""

import asyncio
import json

import pytest
from loopback import MakeServer, until

from tankrl.arena.raw_client import (
    RawClient,
    hunter_intent,
    join_as_bot,
    join_as_watcher,
    play_bot,
    start_game,
    wait_for_bots,
)
from tankrl.arena.server import ArenaServer
from tankrl.arena.session import Game


async def two_bots(server: ArenaServer) -> tuple[RawClient, RawClient, RawClient]:
    controller = await join_as_watcher(server.url)
    a = await join_as_bot(server.url, name="A")
    b = await join_as_bot(server.url, name="B")
    await wait_for_bots(controller, 2)
    return controller, a, b


def running_game(server: ArenaServer) -> Game:
    assert server.game is not None
    return server.game


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


async def test_a_silent_bot_is_skipped_and_keeps_its_last_intent(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=20_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    tick = await b.recv_type("TickEventForBot")
    assert tick["turnNumber"] == 1
    await b.send({"type": "BotIntent", "targetSpeed": 6, "turnRate": 4})
    skipped: list[int] = []
    speeds: list[float] = []
    while len(speeds) < 12:
        # A answers every tick; B answered turn 1 only
        msg = await a.recv_type("TickEventForBot")
        await a.send({"type": "BotIntent"})
        m = await b.recv_type("SkippedTurnEvent", "TickEventForBot")
        if m["type"] == "SkippedTurnEvent":
            skipped.append(m["turnNumber"])
            m = await b.recv_type("TickEventForBot")
            assert m["turnNumber"] == skipped[-1] + 1
        speeds.append(m["botState"]["speed"])
        assert m["botState"]["turnRate"] == 4
        assert msg["type"] == "TickEventForBot"
    assert speeds[:6] == [1, 2, 3, 4, 5, 6] and set(speeds[6:]) == {6}
    assert skipped[:3] == [2, 3, 4]
    assert server.stats.skipped_turns >= len(skipped)
    await controller.send({"type": "StopGame"})
    await controller.recv_type("GameAbortedEvent")


async def test_intent_merge_defaults_then_merges_within_a_turn(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=1_000_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    await a.recv_type("TickEventForBot")
    await controller.send({"type": "PauseGame"})
    assert (await controller.recv_type("GamePausedEventForObserver"))["pauseCause"] == "pause"
    game = running_game(server)
    engine = game.engine
    assert engine is not None
    stored = engine.intents

    await a.send({"type": "BotIntent", "turnRate": 5, "targetSpeed": 3, "fireAssist": False,
                  "bodyColor": "#FF0000", "gunTurnRate": None})  # fmt: skip
    await until(lambda: stored.turn_rate[0, 0] == 5)
    assert (stored.target_speed[0, 0], stored.gun_turn_rate[0, 0]) == (3, 0)
    assert not stored.fire_assist[0, 0]
    # a second intent in the same turn merges field by field
    await a.send({"type": "BotIntent", "gunTurnRate": 7, "turnRate": None})
    await until(lambda: stored.gun_turn_rate[0, 0] == 7)
    assert (stored.turn_rate[0, 0], stored.target_speed[0, 0]) == (5, 3)
    assert not stored.fire_assist[0, 0]
    # the next turn's first intent starts again from the defaults; colours persist
    await b.send({"type": "BotIntent"})
    await controller.send({"type": "NextTurn"})
    tick = await a.recv_type("TickEventForBot")
    assert tick["turnNumber"] == 2 and tick["botState"]["turnRate"] == 5
    assert tick["botState"]["bodyColor"] == "#FF0000"
    await a.send({"type": "BotIntent", "radarTurnRate": 9})
    await until(lambda: stored.radar_turn_rate[0, 0] == 9)
    assert (stored.turn_rate[0, 0], stored.gun_turn_rate[0, 0], stored.target_speed[0, 0]) == (
        0, 0, 0)  # fmt: skip
    assert stored.fire_assist[0, 0]
    await controller.send({"type": "NextTurn"})
    tick = await a.recv_type("TickEventForBot")
    assert tick["botState"]["bodyColor"] == "#FF0000"
    await controller.send({"type": "StopGame"})
    await controller.recv_type("GameAbortedEvent")


async def test_pause_next_turn_resume_tps_and_stop(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=5_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    await controller.recv_type("GameStartedEventForObserver")
    await controller.send({"type": "PauseGame"})
    await controller.recv_type("GamePausedEventForObserver")
    engine = running_game(server).engine
    assert engine is not None
    paused_at = int(engine.turn_number[0])
    await asyncio.sleep(0.1)
    assert int(engine.turn_number[0]) == paused_at
    for step in (1, 2):
        await controller.send({"type": "NextTurn"})
        await until(lambda step=step: int(engine.turn_number[0]) == paused_at + step)
    await asyncio.sleep(0.05)
    assert int(engine.turn_number[0]) == paused_at + 2
    await controller.send({"type": "ChangeTps", "tps": 50})
    assert (await controller.recv_type("TpsChangedEvent"))["tps"] == 50
    await controller.send({"type": "ResumeGame"})
    await controller.recv_type("GameResumedEventForObserver")
    await until(lambda: int(engine.turn_number[0]) > paused_at + 3)
    await controller.send({"type": "StopGame"})
    await controller.recv_type("GameAbortedEvent")
    assert running_game(server).phase.value == "ended"
    kinds = {m["type"] for m in a.received} | {m["type"] for m in b.received}
    assert kinds <= {"ServerHandshake", "GameStartedEventForBot", "RoundStartedEvent",
                     "TickEventForBot", "SkippedTurnEvent"}  # fmt: skip


async def test_debug_mode_steps_one_turn_at_a_time(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    msg = start_game([a.address, b.address], turn_timeout_us=5_000)
    await controller.send({**msg, "debugMode": True})
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    await controller.recv_type("GameStartedEventForObserver")
    assert (await controller.recv_type("GamePausedEventForObserver"))["pauseCause"] == "debug_step"
    await controller.send({"type": "NextTurn"})
    tick = await controller.recv_type("TickEventForObserver")
    assert tick["turnNumber"] == 1
    assert (await controller.recv_type("GamePausedEventForObserver"))["pauseCause"] == "debug_step"
    await controller.send({"type": "NextTurn"})
    assert (await controller.recv_type("TickEventForObserver"))["turnNumber"] == 2
    await controller.send({"type": "StopGame"})
    await controller.recv_type("GameAbortedEvent")


async def test_a_bot_leaving_mid_round_leaves_its_tank_driving(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=1_000_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    await b.recv_type("TickEventForBot")
    await a.recv_type("TickEventForBot")
    await b.send({"type": "BotIntent", "targetSpeed": -4, "turnRate": 3})
    await a.send({"type": "BotIntent"})
    await b.recv_type("TickEventForBot")
    await b.close()
    states = []
    for _ in range(8):
        tick = await a.recv_type("TickEventForBot")
        await a.send({"type": "BotIntent"})
        obs = await controller.recv_type("TickEventForObserver")
        while obs["turnNumber"] < tick["turnNumber"]:
            obs = await controller.recv_type("TickEventForObserver")
        assert obs["turnNumber"] == tick["turnNumber"]
        states.append(next(s for s in obs["botStates"] if s["id"] == 2))
    assert {s["speed"] for s in states[4:]} == {-4}
    assert {s["turnRate"] for s in states} == {3}
    assert not any(m["type"] == "SkippedTurnEvent" for m in a.received)
    await a.close()
    await controller.recv_type("GameAbortedEvent")
    assert server.stats.games_aborted == 1


async def test_observers_get_every_tick_in_order_without_waiting_for_the_next_turn(
    server: ArenaServer,
) -> None:
    """At TPS -1 the server writes observers' ticks in batches (ServerOptions.observer_batch_s),
    but a turn's tick still reaches them while the bots think about the next one: here the bots
    answer a tick only after the controller has it (a tick held until the 10 s turn timeout
    fails the controller's 2 s wait)."""
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=10_000_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    observed = []
    for _ in range(40):
        ticks = [await bot.recv_type("TickEventForBot") for bot in (a, b)]
        obs = await controller.recv_type("TickEventForObserver", timeout_s=2.0)
        observed.append(obs["turnNumber"])
        assert obs["turnNumber"] == ticks[0]["turnNumber"] == ticks[1]["turnNumber"]
        for bot in (a, b):
            await bot.send({"type": "BotIntent", "turnRate": 3})
    assert observed == list(range(1, 41))
    assert server.stats.skipped_turns == 0


async def test_a_timed_wait_ends_at_its_deadline_without_spinning(server: ArenaServer) -> None:
    """The game loop's timed waits (observer flushes, turn deadlines, TPS pacing) end at their
    deadline, not before, and look at their condition at most three times: uvloop's timers
    step by a millisecond and may fire early, and a timer re-armed for what was left used to
    fire again at once, spinning the loop until the clock stepped."""
    loop = asyncio.get_running_loop()
    looks = []
    for i in range(40):
        looked = 0

        def ready() -> bool:
            nonlocal looked
            looked += 1
            return False

        deadline = loop.time() + 0.002 + i * 0.000_1
        assert await server._wait(ready, deadline) is False
        assert loop.time() >= deadline
        looks.append(looked)
    assert max(looks) <= 3, looks


async def test_bots_only_ever_receive_bot_message_types(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    await asyncio.gather(play_bot(a), play_bot(b))
    allowed = {"ServerHandshake", "GameStartedEventForBot", "RoundStartedEvent",
               "TickEventForBot", "SkippedTurnEvent", "RoundEndedEventForBot",
               "GameEndedEventForBot"}  # fmt: skip
    for bot in (a, b):
        assert {m["type"] for m in bot.received} <= allowed


async def test_an_observer_that_stops_reading_is_dropped_not_waited_for(
    make_server: MakeServer,
) -> None:
    import socket

    from websockets.asyncio.client import connect

    server = await make_server(max_buffered_bytes=4096, seed=7)
    controller, a, b = await two_bots(server)
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow = await connect(server.url, sock=sock, max_queue=1, compression=None, close_timeout=0.1)
    hello = json.loads(await slow.recv())
    await slow.send(json.dumps({"type": "ObserverHandshake", "sessionId": hello["sessionId"],
                                "name": "slow", "version": "1"}))  # fmt: skip
    await until(lambda: len(server._watchers) == 2)
    watcher = server._watchers[-1]
    transport = watcher.ws.transport
    assert transport is not None
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    seen_a, _ = await asyncio.gather(play_bot(a), play_bot(b))
    assert seen_a[-1]["type"] == "GameEndedEventForBot"
    assert server.stats.slow_clients == 1 and watcher.kicked
    await controller.recv_type("GameEndedEventForObserver", timeout_s=20)
    await slow.close()


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


async def test_bot_policy_update_enables_debug_graphics(server: ArenaServer) -> None:
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], turn_timeout_us=1_000_000))
    for bot in (a, b):
        await bot.recv_type("GameStartedEventForBot")
        await bot.send({"type": "BotReady"})
    for bot in (a, b):
        await bot.recv_type("TickEventForBot")
    await controller.send({"type": "BotPolicyUpdate", "botId": 2, "debuggingEnabled": True})
    await controller.send({"type": "PauseGame"})
    await controller.recv_type("GamePausedEventForObserver")
    await b.send({"type": "BotIntent", "debugGraphics": "<svg/>", "stdOut": "hello\n"})
    await a.send({"type": "BotIntent", "stdErr": "oops\n"})
    await controller.send({"type": "NextTurn"})
    tick = await b.recv_type("TickEventForBot")
    while tick["turnNumber"] < 2:
        tick = await b.recv_type("TickEventForBot")
    assert tick["botState"]["isDebuggingEnabled"] is True
    obs = await controller.recv_type("TickEventForObserver")
    while obs["turnNumber"] < 2:
        obs = await controller.recv_type("TickEventForObserver")
    states = {s["id"]: s for s in obs["botStates"]}
    assert states[2]["debugGraphics"] == "<svg/>" and states[2]["stdOut"] == "hello\n"
    assert states[1]["stdErr"] == "oops\n" and "debugGraphics" not in states[1]
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


async def test_every_message_is_a_text_frame(server: ArenaServer) -> None:
    """The official Bot APIs refuse Binary frames; the encoder writes bytes, sent as text."""
    controller, a, b = await two_bots(server)
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    frames: list[str | bytes] = []

    async def read(client: RawClient, last: str) -> None:
        while True:
            async with asyncio.timeout(20):
                frame = await client.ws.recv()
            frames.append(frame)
            msg = json.loads(frame)
            if msg["type"] == "GameStartedEventForBot":
                await client.send({"type": "BotReady"})
            elif msg["type"] == "TickEventForBot":
                await client.send(hunter_intent(msg))
            elif msg["type"] == last:
                return

    await asyncio.gather(
        read(a, "GameEndedEventForBot"),
        read(b, "GameEndedEventForBot"),
        read(controller, "GameEndedEventForObserver"),
    )
    kinds = {json.loads(f)["type"] for f in frames}
    assert {"TickEventForBot", "TickEventForObserver", "GameEndedEventForBot"} <= kinds
    assert all(isinstance(f, str) for f in frames)
