"""What a bot receives from our server, checked against the official schema (the Bot API's
generated classes): a raw client plays as a bot against an official Python Bot API bot and
every message it gets, ticks and their events included, has exactly the schema's fields (no
unknown ones, every required one, no nulls); the Bot API's own parser and mapper accept every
tick, and the official bot plays the whole game without an error."""

import asyncio
from types import SimpleNamespace

from robocode_tank_royale.bot_api.internal.json_util import from_json
from robocode_tank_royale.bot_api.mapper.event_mapper import EventMapper

from tankrl.arena.server.messages import BOT_MESSAGE_TYPES
from tankrl.arena.server.raw_client import (
    join_as_bot,
    join_as_watcher,
    play_bot,
    start_game,
    wait_for_bots,
)


async def capture(url: str) -> list[dict]:
    controller = await join_as_watcher(url)
    raw = await join_as_bot(url, name="Probe", version="2.0")
    bots = await wait_for_bots(controller, 2)
    official = next(b for b in bots if b["name"] == "Spinner")
    msg = start_game([raw.address, {"host": official["host"], "port": official["port"]}],
                     number_of_rounds=2, turn_timeout_us=200_000)  # fmt: skip
    await controller.send(msg)
    seen = await play_bot(raw)
    await controller.recv_type("GameEndedEventForObserver", timeout_s=30)
    await raw.close()
    await controller.close()
    return [raw.hello, *seen]


def test_bot_messages_have_exactly_the_schema_fields(  # type: ignore[no-untyped-def]
    server_thread, boot, bots_dir, schema_problems
) -> None:
    spinner = boot(str(bots_dir / "Spinner"), server_thread.url)
    messages = asyncio.run(capture(server_thread.url))
    kinds = {m["type"] for m in messages}
    assert kinds <= BOT_MESSAGE_TYPES
    assert {"ServerHandshake", "GameStartedEventForBot", "RoundStartedEvent", "TickEventForBot",
            "RoundEndedEventForBot", "GameEndedEventForBot"} <= kinds  # fmt: skip
    problems = [p for m in messages for p in schema_problems(m, m["type"])]
    assert problems == []
    ticks = [m for m in messages if m["type"] == "TickEventForBot"]
    event_kinds = {e["type"] for t in ticks for e in t["events"]}
    assert {"ScannedBotEvent", "BulletFiredEvent", "BulletHitBotEvent"} <= event_kinds
    assert any(t["bulletStates"] for t in ticks)
    # the official Python Bot API parses and maps every tick
    me = SimpleNamespace(my_id=1)
    for tick in ticks:
        mapped = EventMapper.map_tick_event(from_json(tick), me)  # type: ignore[arg-type]
        assert mapped.turn_number == tick["turnNumber"]
        assert len(mapped.events) == len(tick["events"])
    # and the official bot played both rounds without an error
    assert spinner.process.poll() is None
    log = spinner.log_tail(200)
    assert "Traceback" not in log and "Error" not in log, log
