"""Helpers for the loopback tests (imported by name: tests/ has no packages)."""

import asyncio
from collections.abc import Awaitable, Callable

from tankrl.arena.server import ArenaServer

MakeServer = Callable[..., Awaitable[ArenaServer]]


async def until(predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Poll a condition about the server's state (not a timing assertion: only a deadline)."""
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.005)
