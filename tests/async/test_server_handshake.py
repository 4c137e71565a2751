"""Handshakes on loopback: the ServerHandshake the Bot API needs (22-char session id, a 1.x
version, game types), session ids checked (1008), bot and controller/observer secrets enforced
(1008 "Invalid secret"), BotListUpdate on join and leave, and the handshake deadline."""

import pytest
from loopback import MakeServer

from tankrl.arena.server.raw_client import RawClient, join_as_bot, join_as_watcher, wait_for_bots
from tankrl.arena.server.server import ArenaServer


async def test_server_handshake_announces_a_1x_tank_royale_server(server: ArenaServer) -> None:
    client = await RawClient.connect(server.url)
    hello = client.hello
    assert hello["type"] == "ServerHandshake"
    assert len(hello["sessionId"]) == 22
    assert hello["version"].split(".")[0] == "1"
    assert hello["variant"] == "Tank Royale"
    assert hello["behaviorVersion"] == 1
    assert "1v1" in hello["gameTypes"] and len(set(hello["gameTypes"])) == len(hello["gameTypes"])
    assert None not in hello.values()
    other = await RawClient.connect(server.url)
    assert other.session_id != client.session_id
    await client.close()
    await other.close()


@pytest.mark.parametrize("kind", ["BotHandshake", "ControllerHandshake", "ObserverHandshake"])
@pytest.mark.parametrize("session", [None, "wrong-session-id-xxxxx"])
async def test_missing_or_unknown_session_id_is_closed_1008(
    server: ArenaServer, kind: str, session: str | None
) -> None:
    client = await RawClient.connect(server.url)
    msg = {"type": kind, "name": "x", "version": "1", "authors": ["a"]}
    if session is not None:
        msg["sessionId"] = session
    await client.send(msg)
    code, reason = await client.closed()
    assert (code, reason) == (1008, "Missing session id")


async def test_bot_secret_is_enforced(make_server: MakeServer) -> None:
    server = await make_server(bot_secrets=("s3cret", "other"))
    watcher = await join_as_watcher(server.url)
    for secret in (None, "wrong"):
        bot = await join_as_bot(server.url, secret=secret)
        assert await bot.closed() == (1008, "Invalid secret")
    good = await join_as_bot(server.url, name="Good", secret="other")
    bots = await wait_for_bots(watcher, 1)
    assert [b["name"] for b in bots] == ["Good"]
    assert "secret" not in bots[0]
    await good.close()


@pytest.mark.parametrize("kind", ["ControllerHandshake", "ObserverHandshake"])
async def test_controller_secret_is_enforced_for_controllers_and_observers(
    make_server: MakeServer, kind: str
) -> None:
    server = await make_server(controller_secrets=("boss",), bot_secrets=("bots",))
    for secret in (None, "bots"):
        client = await RawClient.connect(server.url)
        msg = {"type": kind, "sessionId": client.session_id, "name": "c", "version": "1"}
        if secret:
            msg["secret"] = secret
        await client.send(msg)
        assert await client.closed() == (1008, "Invalid secret")
    ok = await join_as_watcher(server.url, secret="boss", kind=kind)
    assert ok.bot_list == []
    await ok.close()


async def test_bot_list_update_on_join_and_leave(server: ArenaServer) -> None:
    controller = await join_as_watcher(server.url)
    observer = await join_as_watcher(server.url, kind="ObserverHandshake")
    assert controller.bot_list == observer.bot_list == []
    a = await join_as_bot(server.url, name="Alpha", description="first", countryCodes=["dk"])
    b = await join_as_bot(server.url, name="Beta")
    for watcher in (controller, observer):
        bots = await wait_for_bots(watcher, 2)
        by_name = {x["name"]: x for x in bots}
        assert set(by_name) == {"Alpha", "Beta"}
        alpha = by_name["Alpha"]
        assert alpha["sessionId"] == a.session_id
        assert (alpha["host"], alpha["port"]) == (a.address["host"], a.address["port"])
        assert alpha["description"] == "first" and alpha["countryCodes"] == ["dk"]
        assert alpha["authors"] == ["tankrl"]
    await a.close()
    for watcher in (controller, observer):
        msg = await watcher.recv_type("BotListUpdate")
        assert [x["name"] for x in msg["bots"]] == ["Beta"]
    await b.close()
    assert (await controller.recv_type("BotListUpdate"))["bots"] == []


async def test_a_late_joiner_gets_the_current_bot_list(server: ArenaServer) -> None:
    bot = await join_as_bot(server.url, name="Early")
    first = await join_as_watcher(server.url)
    await wait_for_bots(first, 1)
    late = await join_as_watcher(server.url, kind="ObserverHandshake")
    assert [b["name"] for b in late.bot_list] == ["Early"]
    await bot.close()


async def test_no_handshake_before_the_deadline_is_closed(make_server: MakeServer) -> None:
    server = await make_server(handshake_timeout_s=0.2)
    client = await RawClient.connect(server.url)
    assert await client.closed() == (1008, "Handshake timeout")


async def test_first_message_must_be_a_handshake(server: ArenaServer) -> None:
    client = await RawClient.connect(server.url)
    await client.send({"type": "BotIntent", "turnRate": 3})
    code, reason = await client.closed()
    assert code == 1008 and "handshake" in reason


async def test_a_second_handshake_is_refused(server: ArenaServer) -> None:
    bot = await join_as_bot(server.url)
    await bot.send({"type": "BotHandshake", "sessionId": bot.session_id, "name": "x",
                    "version": "1", "authors": ["a"]})  # fmt: skip
    assert await bot.closed() == (1008, "Handshake already done")


async def test_the_official_bot_handshake_with_nulls_is_accepted(server: ArenaServer) -> None:
    """The exact shape the PyPI 1.4.0 Bot API sends (docs/protocol.md §8), nulls and session_id
    too."""
    watcher = await join_as_watcher(server.url)
    bot = await RawClient.connect(server.url)
    await bot.send({
        "authors": ["me"], "countryCodes": [], "debuggerAttached": False, "description": None,
        "gameTypes": [], "homepage": None, "initialPosition": None, "isDroid": False,
        "name": "Probe", "platform": "Python 30", "programmingLang": None, "secret": None,
        "sessionId": bot.session_id, "teamId": None, "teamMessageBatchVersion": 1,
        "teamName": None, "teamVersion": None, "type": "BotHandshake", "version": "1.0",
        "session_id": bot.session_id,
    })  # fmt: skip
    (info,) = await wait_for_bots(watcher, 1)
    assert info["name"] == "Probe" and info["platform"] == "Python 30"
    assert None not in info.values()
    await bot.close()


async def test_the_server_listens_on_loopback_unless_told_otherwise(
    make_server: MakeServer,
) -> None:
    """A server started with the defaults (and `tankrl arena serve` without --host) is reachable
    from this machine only."""
    from tankrl.deploy.cli import build_parser
    from tankrl.deploy.serve_cmd import options_from_args

    server = await make_server()
    assert server._ws_server is not None
    assert {s.getsockname()[0] for s in server._ws_server.sockets} == {"127.0.0.1"}
    assert options_from_args(build_parser().parse_args(["arena", "serve"])).host == "127.0.0.1"


async def test_a_new_connection_closes_the_oldest_that_still_has_no_handshake(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_awaiting_per_address=3)
    idle = [await RawClient.connect(server.url) for _ in range(3)]
    late = await RawClient.connect(server.url)  # the fourth from this address
    assert await idle[0].closed() == (1008, "Too many connections awaiting a handshake")
    watcher = await join_as_watcher(server.url)  # the fifth closes the second, and joins
    assert await idle[1].closed() == (1008, "Too many connections awaiting a handshake")
    bot = await join_as_bot(server.url, name="Late")
    assert [b["name"] for b in await wait_for_bots(watcher, 1)] == ["Late"]
    assert server.stats.evicted == 2  # the watcher handshook, so the bot found room
    for client in (idle[2], late, bot, watcher):
        await client.close()
