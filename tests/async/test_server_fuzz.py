"""Bad input on loopback: more than a thousand malformed messages from as many connections
(bad JSON, non-objects, unknown types, wrong field types, non-finite numbers, messages the
client's role may not send, frames over the size limit, binary frames), each answered by closing
that one connection with the close code its case calls for and a reason, while a battle runs;
afterwards another battle completes."""

import asyncio
import json
import random
from collections import Counter

from loopback import MakeServer

from tankrl.arena.server.raw_client import (
    RawClient,
    join_as_bot,
    join_as_watcher,
    play_bot,
    start_game,
    wait_for_bots,
)

MAX_BYTES = 64 * 1024
CASES = 1100


def _garbage(rng: random.Random) -> str:
    n = rng.randint(1, 60)
    return "".join(rng.choice('{}[]":,0123456789abcdefnulltrue \\\n\t') for _ in range(n))


INVALID, UNSUPPORTED, POLICY, TOO_BIG = 1007, 1003, 1008, 1009
"""The close codes of docs/protocol.md §11: bad data, a frame or type we do not take, a message
the client may not send (or a handshake that does not match), a frame over the size limit."""


def malformed(rng: random.Random, session_id: str) -> tuple[str, str | bytes, int]:
    """(stage, frame, the close code it must get): stage 'pre' = before the handshake, else the
    role that sends it."""
    intent = {"type": "BotIntent"}
    hs = {"type": "BotHandshake", "sessionId": session_id, "name": "F", "version": "1",
          "authors": ["f"]}  # fmt: skip
    kind = rng.randrange(12)
    if kind == 0:
        text = _garbage(rng)
        try:
            json.loads(text)
        except ValueError:
            return rng.choice(["pre", "bot", "controller"]), text, INVALID
        return "pre", "{" + text, INVALID
    if kind == 1:
        frame = rng.choice(
            ["[]", "1", '"BotIntent"', "null", "true", "[" * 5000, '{"type": "BotIntent"']
        )
        return rng.choice(["pre", "bot", "observer"]), frame, INVALID
    if kind == 2:
        bad_type = rng.choice([None, 5, ["BotIntent"], {"x": 1}, "", "Hello", "botintent"])
        code = UNSUPPORTED if isinstance(bad_type, str) else INVALID  # unknown type / no type
        return rng.choice(["pre", "bot", "controller"]), json.dumps({"type": bad_type}), code
    if kind == 3:
        field = rng.choice(["name", "authors", "version", "sessionId", "isDroid",
                            "initialPosition", "countryCodes", "teamId"])  # fmt: skip
        value = rng.choice([5, "", [], [1, 2], {"a": 1}, True, "x" * 300])
        if field in ("isDroid",) and isinstance(value, bool):
            value = "yes"
        if field in ("initialPosition",) and isinstance(value, dict):
            value = {"x": "left"}
        if field in ("countryCodes",) and value == []:
            value = "dk"
        if field == "teamId" and not isinstance(value, str):
            value = "seven"
        return "pre", json.dumps({**hs, field: value}), POLICY if field == "sessionId" else INVALID
    if kind == 4:
        field = rng.choice(["turnRate", "gunTurnRate", "radarTurnRate", "targetSpeed",
                            "firepower"])  # fmt: skip
        value = rng.choice(['"fast"', "true", "[]", "{}", "NaN", "Infinity", "-Infinity",
                            "1e999", "9" * 400])  # fmt: skip
        return "bot", '{"type": "BotIntent", "' + field + '": ' + value + "}", INVALID
    if kind == 5:
        field, value = rng.choice([("rescan", "yes"), ("fireAssist", 1), ("bodyColor", 5),
                                   ("gunColor", "red"), ("teamMessages", "hi"),
                                   ("teamMessages", [1]), ("stdOut", 7),
                                   ("debugGraphics", [])])  # fmt: skip
        return "bot", json.dumps({**intent, field: value}), INVALID
    if kind == 6:
        msg = rng.choice([
            {"type": "StartGame", "botAddresses": 5},
            {"type": "StartGame", "botAddresses": [{"host": 1, "port": 2}]},
            {"type": "StartGame", "botAddresses": [{"host": "h"}]},
            {"type": "StartGame", "botAddresses": [{"host": "h", "port": 1}], "gameSetup": 5},
            {"type": "StartGame", "botAddresses": [{"host": "h", "port": 1}],
             "gameSetup": {"gameType": 5}},
            {"type": "ChangeTps", "tps": "fast"},
            {"type": "ChangeTps", "tps": 5000},
            {"type": "ChangeTps"},
            {"type": "BotPolicyUpdate", "botId": "one"},
        ])  # fmt: skip
        return "controller", json.dumps(msg), INVALID
    if kind == 7:
        stage, msg = rng.choice([
            ("bot", {"type": "StartGame", "botAddresses": []}),
            ("bot", {"type": "PauseGame"}),
            ("observer", {"type": "PauseGame"}),
            ("observer", {"type": "BotIntent"}),
            ("controller", {"type": "BotIntent"}),
            ("controller", {"type": "BotReady"}),
            ("pre", {"type": "BotReady"}),
            ("pre", {"type": "StopGame"}),
        ])  # fmt: skip
        return stage, json.dumps(msg), POLICY  # not for this role, or before the handshake
    if kind == 8:
        return rng.choice(["bot", "controller"]), json.dumps(hs), POLICY  # a second handshake
    if kind == 9:
        big = '{"type": "BotIntent", "stdOut": "' + "x" * (MAX_BYTES + rng.randint(1, 5000)) + '"}'
        return rng.choice(["pre", "bot"]), big, TOO_BIG
    if kind == 10:
        return (
            rng.choice(["pre", "bot", "observer"]),
            rng.randbytes(rng.randint(1, 200)),
            UNSUPPORTED,
        )
    return "pre", json.dumps({**hs, "sessionId": "x" * rng.randint(0, 30)}), POLICY  # not ours


async def one_case(url: str, rng: random.Random) -> tuple[int, str, int, str | bytes]:
    """(close code, reason, the code the case must get, the frame)."""
    client = await RawClient.connect(url)
    stage, frame, expected = malformed(rng, client.session_id)
    if stage == "bot":
        await client.send({"type": "BotHandshake", "sessionId": client.session_id, "name": "Fz",
                           "version": "1", "authors": ["f"]})  # fmt: skip
    elif stage in ("controller", "observer"):
        kind = "ControllerHandshake" if stage == "controller" else "ObserverHandshake"
        await client.send({"type": kind, "sessionId": client.session_id, "name": "f",
                           "version": "1"})  # fmt: skip
    await client.send(frame)
    code, reason = await client.closed(timeout_s=10)
    return code, reason, expected, frame


async def test_a_thousand_malformed_messages_then_a_battle(make_server: MakeServer) -> None:
    server = await make_server(seed=3, max_message_bytes=MAX_BYTES)
    controller = await join_as_watcher(server.url)
    a = await join_as_bot(server.url, name="A")
    b = await join_as_bot(server.url, name="B")
    await wait_for_bots(controller, 2)
    await controller.send(start_game([a.address, b.address], number_of_rounds=2))
    battle = asyncio.gather(play_bot(a), play_bot(b))

    rng = random.Random(1234)
    gate = asyncio.Semaphore(16)
    closes: list[tuple[int, str, int, str | bytes]] = []

    async def run(i: int) -> None:
        async with gate:
            closes.append(await one_case(server.url, random.Random(rng.random() + i)))

    async with asyncio.TaskGroup() as tg:
        for i in range(CASES):
            tg.create_task(run(i))
    codes = Counter(code for code, *_ in closes)
    assert len(closes) == CASES
    wrong = [(code, reason, expected, frame[:80]) for code, reason, expected, frame in closes
             if code != expected]  # fmt: skip
    assert wrong == []
    assert all(reason for _, reason, *_ in closes)
    assert codes[UNSUPPORTED] and codes[INVALID] and codes[POLICY] and codes[TOO_BIG]
    assert server.stats.protocol_errors == CASES - codes[TOO_BIG]

    seen_a, seen_b = await battle
    assert seen_a[-1]["type"] == seen_b[-1]["type"] == "GameEndedEventForBot"
    await controller.recv_type("GameEndedEventForObserver", timeout_s=20)
    # and the server still runs a new battle
    await controller.send(start_game([b.address, a.address], number_of_rounds=1))
    seen_a, seen_b = await asyncio.gather(play_bot(a), play_bot(b))
    assert seen_b[-1]["numberOfRounds"] == 1
    ended = await controller.recv_type("GameEndedEventForObserver", timeout_s=20)
    assert [r["name"] for r in ended["results"]] != []
