"""A minimal raw Tank Royale client on `websockets` (bot, controller or observer): the test
helper for the server's loopback tests, end-to-end tests and benchmarks, and a debugging aid.

Every receive has a deadline. `play_bot` answers every tick with an intent, which makes a raw
bot a fast, deterministic participant.
"""

import asyncio
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tankrl.arena.rules.game_setup import GameSetup

Json = dict[str, Any]
IntentFn = Callable[[Json], Json | None]


class RawClient:
    def __init__(self, ws: ClientConnection, hello: Json) -> None:
        self.ws, self.hello = ws, hello
        self.received: list[Json] = []
        self.bot_list: list[Json] = []

    @classmethod
    async def connect(cls, url: str, timeout_s: float = 5.0) -> "RawClient":
        async with asyncio.timeout(timeout_s):
            ws = await connect(
                url, compression=None, max_size=None, max_queue=None, close_timeout=1
            )
        client = cls(ws, {})
        client.hello = await client.recv(timeout_s)
        return client

    @property
    def session_id(self) -> str:
        return str(self.hello["sessionId"])

    @property
    def address(self) -> Json:
        """This client's BotAddress as the server sees it."""
        host, port = self.ws.local_address[:2]
        return {"host": host, "port": port}

    async def send(self, msg: Json | str | bytes) -> None:
        await self.ws.send(json.dumps(msg) if isinstance(msg, dict) else msg)

    async def recv(self, timeout_s: float = 5.0) -> Json:
        async with asyncio.timeout(timeout_s):
            frame = await self.ws.recv()
        msg: Json = json.loads(frame)
        self.received.append(msg)
        if msg.get("type") == "BotListUpdate":
            self.bot_list = msg["bots"]
        return msg

    async def recv_type(self, *types: str, timeout_s: float = 5.0) -> Json:
        """The next message of one of these types (others are skipped but kept in received)."""
        async with asyncio.timeout(timeout_s):
            while True:
                msg = await self.recv(timeout_s)
                if msg.get("type") in types:
                    return msg

    async def closed(self, timeout_s: float = 5.0) -> tuple[int, str]:
        """Wait until the server closes the connection: (code, reason)."""
        try:
            async with asyncio.timeout(timeout_s):
                async for frame in self.ws:
                    self.received.append({"frame": frame})
        except ConnectionClosed:
            pass
        rcvd = self.ws.protocol.close_rcvd
        return (rcvd.code, rcvd.reason) if rcvd is not None else (1006, "")

    async def close(self) -> None:
        await self.ws.close()

    async def __aenter__(self) -> "RawClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def join_as_bot(
    url: str, name: str = "RawBot", version: str = "1.0", secret: str | None = None, **info: Any
) -> RawClient:
    bot = await RawClient.connect(url)
    msg: Json = {
        "type": "BotHandshake",
        "sessionId": bot.session_id,
        "name": name,
        "version": version,
        "authors": ["tankrl"],
        **info,
    }
    if secret is not None:
        msg["secret"] = secret
    await bot.send(msg)
    return bot


async def join_as_watcher(
    url: str, secret: str | None = None, kind: str = "ControllerHandshake"
) -> RawClient:
    """A controller (or, with kind ObserverHandshake, an observer) with its first bot list."""
    client = await RawClient.connect(url)
    msg: Json = {"type": kind, "sessionId": client.session_id, "name": "raw", "version": "1"}
    if secret is not None:
        msg["secret"] = secret
    await client.send(msg)
    await client.recv_type("BotListUpdate")
    return client


async def wait_for_bots(watcher: RawClient, n: int, timeout_s: float = 10.0) -> list[Json]:
    async with asyncio.timeout(timeout_s):
        while len(watcher.bot_list) < n:
            await watcher.recv_type("BotListUpdate", timeout_s=timeout_s)
    return watcher.bot_list


def start_game(addresses: list[Json], **setup: Any) -> Json:
    """A StartGame message; `setup` overrides GameSetup fields (snake_case)."""
    return {
        "type": "StartGame",
        "botAddresses": addresses,
        "gameSetup": GameSetup(**setup).to_protocol(),
    }


def hunter_intent(tick: Json) -> Json:
    """Turn until the radar (which follows body and gun) scans a bot, then hold still, rescan and
    fire power 3; fire assist aims at the scan, so rounds end within a few hundred turns."""
    if any(e["type"] == "ScannedBotEvent" for e in tick["events"]):
        return {"type": "BotIntent", "turnRate": 0, "rescan": True, "firepower": 3}
    return {"type": "BotIntent", "turnRate": 10, "firepower": 0}


async def play_bot(
    bot: RawClient, intent: IntentFn = hunter_intent, until: str = "GameEndedEventForBot"
) -> list[Json]:
    """Play as a bot: BotReady on GameStarted, `intent(tick)` on every tick (None = no answer);
    returns every message received up to and including `until`."""
    seen: list[Json] = []
    while True:
        msg = await bot.recv(timeout_s=30.0)
        seen.append(msg)
        kind = msg.get("type")
        if kind == "GameStartedEventForBot":
            await bot.send({"type": "BotReady"})
        elif kind == "TickEventForBot":
            answer = intent(msg)
            if answer is not None:
                await bot.send(answer)
        if kind == until:
            return seen
