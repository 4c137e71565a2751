"""Loopback fixtures: `make_server(**options)` starts an ArenaServer on 127.0.0.1 (a free port)
in the test's event loop and closes it afterwards. The server's own frame reader and a whole
game run on both event loops the arena supports (arena/server/event_loop.py): asyncio's and
uvloop's."""

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import uvloop
from loopback import MakeServer

from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer

BOTH_LOOPS = (
    "test_ws_connection.py",
    "test_server_game.py",
    "test_server_turns.py",
    "test_waiting.py",
)


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    if item.path.name in BOTH_LOOPS:
        return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
    return {"asyncio": asyncio.new_event_loop}


@pytest.fixture
async def make_server() -> AsyncIterator[MakeServer]:
    running: list[tuple[ArenaServer, asyncio.Task[None]]] = []

    async def make(**options: Any) -> ArenaServer:
        options.setdefault("port", 0)
        options.setdefault("handshake_timeout_s", 5.0)
        server = ArenaServer(ServerOptions(**options))
        await server.start()
        running.append((server, asyncio.create_task(server.serve_forever())))
        return server

    yield make
    for server, task in running:
        await server.close()
        async with asyncio.timeout(10):
            await task


@pytest.fixture
async def server(make_server: MakeServer) -> ArenaServer:
    return await make_server(seed=7)
