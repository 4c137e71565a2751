"""A controller and an observer watch a 3-round battle of two official Python Bot API bots
(tests/e2e/bots/Spinner) on our server: both see GameStarted, every turn's TickEventForObserver
(turns 1, 2, 3, ... in each round), three RoundStarted/RoundEnded pairs and GameEnded,
identically, and every message has exactly the official schema's fields."""

import asyncio

from tankrl.arena.server.raw_client import join_as_watcher, start_game, wait_for_bots


async def watch(url: str) -> tuple[list[dict], list[dict]]:
    controller = await join_as_watcher(url)
    observer = await join_as_watcher(url, kind="ObserverHandshake")
    bots = await wait_for_bots(controller, 2)
    addresses = [{"host": b["host"], "port": b["port"]} for b in bots]
    await controller.send(start_game(addresses, number_of_rounds=3, turn_timeout_us=200_000))
    for client in (controller, observer):
        await client.recv_type("GameEndedEventForObserver", timeout_s=60)
        await client.close()
    return controller.received, observer.received


def test_controller_and_observer_see_the_whole_game(  # type: ignore[no-untyped-def]
    server_thread, boot, bots_dir, schema_problems
) -> None:
    for _ in range(2):
        boot(str(bots_dir / "Spinner"), server_thread.url)
    seen_by_controller, seen_by_observer = asyncio.run(watch(server_thread.url))
    lobby = ("ServerHandshake", "BotListUpdate")
    game = [m for m in seen_by_controller if m["type"] not in lobby]
    assert game == [m for m in seen_by_observer if m["type"] not in lobby]
    kinds = [m["type"] for m in game]
    start = kinds.index("GameStartedEventForObserver")
    assert kinds.count("RoundStartedEvent") == kinds.count("RoundEndedEventForObserver") == 3
    assert kinds[-1] == "GameEndedEventForObserver" and game[-1]["numberOfRounds"] == 3
    turn = 0
    for msg in game[start + 1 :]:
        if msg["type"] == "RoundStartedEvent":
            turn = 0
        elif msg["type"] == "TickEventForObserver":
            assert msg["turnNumber"] == turn + 1
            turn = msg["turnNumber"]
            assert {s["id"] for s in msg["botStates"]} <= {1, 2}
        elif msg["type"] == "RoundEndedEventForObserver":
            assert msg["turnNumber"] == turn
    results = game[-1]["results"]
    assert sorted(r["id"] for r in results) == [1, 2]
    assert sum(r["firstPlaces"] for r in results) >= 3
    everything = seen_by_controller + seen_by_observer
    assert any(m["type"] == "BotListUpdate" and m["bots"] for m in everything)
    problems = [p for m in everything for p in schema_problems(m, m["type"])]
    assert problems == []
