"""The game loop's one wait: until a condition holds or a loop-time deadline passes, woken by
whoever changed what the condition reads (an arriving answer, a command, a client leaving)."""

import asyncio
from collections.abc import Callable

CLOCK_STEP_S = 0.001
"""uvloop's clock and timer resolution (asyncio's is finer)."""
_TIMER = object()
"""What the waiter holds when its timer, not `wake`, ended the wait."""


class Wakeup:
    """`await wait(ready, deadline)` until `ready()` or the deadline; `wake()` makes the waiter
    look at `ready()` again. One waiter at a time (the game loop).

    A bare future and timer: this runs up to twice a turn, and asyncio's Event and timeout cost
    several times more. uvloop's clock and timers step by a millisecond, so a timer can fire
    while loop.time() is still short of its deadline (libuv/libuv#4773, MagicStack/uvloop#233;
    asyncio's timers may too: python/cpython#127859); a timer re-armed for that remainder would
    fire at once, again and again until the clock stepped, spinning the loop on CPU the bots
    need. After an early timer the next one waits a whole clock step."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        """The serving loop (asyncio.get_running_loop() costs a getpid system call on 3.11)."""
        self._waiter: asyncio.Future[object] | None = None

    def now(self) -> float:
        return (self.loop or asyncio.get_running_loop()).time()

    def wake(self) -> None:
        """Something the waiter's condition reads has changed: let it look again."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait until `ready()` or the loop-time deadline (None: no deadline); True if ready."""
        loop = self.loop or asyncio.get_running_loop()
        early = False
        while not ready():
            now = loop.time()
            if deadline is not None and now >= deadline:
                return False
            self._waiter = waiter = loop.create_future()
            timer = None
            if deadline is not None:
                at = max(deadline, now + CLOCK_STEP_S) if early else deadline
                timer = loop.call_at(at, self._timer_fired)
            try:
                await waiter
            finally:
                self._waiter = None
                if timer is not None:
                    timer.cancel()
            early = waiter.result() is _TIMER
        return True

    def _timer_fired(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(_TIMER)
