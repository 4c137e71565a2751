"""The event loop the arena's server runs on: uvloop's where it is installed (Linux and macOS;
libuv underneath, its transports and loop written in C), otherwise asyncio's own.

With arena/server/connection.py reading and writing the hosted game's frames straight off the
transports, the loop's own bookkeeping (selecting, reading, writing, scheduling callbacks) is
a large part of what a turn costs the server, and uvloop's is cheaper (`python -m bench.hosted
--server-cpu` measures the server's CPU per turn). Everything here works on either loop.
"""

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop factory, or None (asyncio's default loop) when uvloop is not installed."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on the arena's event loop."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
