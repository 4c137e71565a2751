"""The turn loop on loopback with raw bots: skipped turns (the tank keeps its last intent), the
intent merge of docs/protocol.md §7.3, pause / next turn / resume / TPS / stop, debug stepping,
bots disconnecting mid-round, observers getting every tick in order, a slow observer dropped
instead of waited for, debug graphics, and every message sent in a Text frame."""

import asyncio
import json

from loopback import MakeServer, running_game, two_bots, until

from tankrl.arena.server.raw_client import (
    RawClient,
    hunter_intent,
    play_bot,
    start_game,
)
from tankrl.arena.server.server import ArenaServer


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
    await until(lambda: len(server.outbox.watchers) == 2)
    watcher = server.outbox.watchers[-1]
    transport = watcher.ws.transport
    assert transport is not None
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    await controller.send(start_game([a.address, b.address], number_of_rounds=1))
    seen_a, _ = await asyncio.gather(play_bot(a), play_bot(b))
    assert seen_a[-1]["type"] == "GameEndedEventForBot"
    assert server.stats.slow_clients == 1 and watcher.kicked
    await controller.recv_type("GameEndedEventForObserver", timeout_s=20)
    await slow.close()


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
