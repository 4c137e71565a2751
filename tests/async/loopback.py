"""Helpers for the loopback tests (imported by name: tests/ has no packages)."""

import asyncio
from collections.abc import Awaitable, Callable

from tankrl.arena.server.game import Game
from tankrl.arena.server.raw_client import RawClient, join_as_bot, join_as_watcher, wait_for_bots
from tankrl.arena.server.server import ArenaServer

MakeServer = Callable[..., Awaitable[ArenaServer]]


async def until(predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Poll a condition about the server's state (not a timing assertion: only a deadline)."""
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.005)


async def two_bots(server: ArenaServer) -> tuple[RawClient, RawClient, RawClient]:
    """A controller and two raw bots A and B, all in the lobby."""
    controller = await join_as_watcher(server.url)
    a = await join_as_bot(server.url, name="A")
    b = await join_as_bot(server.url, name="B")
    await wait_for_bots(controller, 2)
    return controller, a, b


def running_game(server: ArenaServer) -> Game:
    assert server.game is not None
    return server.game
