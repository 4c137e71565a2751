"""The game loop's wait (arena/server/waiting.py), on both event loops the server runs on."""

import asyncio

from tankrl.arena.server.waiting import Wakeup


async def test_a_timed_wait_ends_at_its_deadline_without_spinning() -> None:
    """The game loop's timed waits (observer flushes, turn deadlines, TPS pacing) end at their
    deadline, not before, and look at their condition at most three times: uvloop's timers
    step by a millisecond and may fire early, and a timer re-armed for what was left used to
    fire again at once, spinning the loop until the clock stepped."""
    loop = asyncio.get_running_loop()
    wakeup = Wakeup()
    looks = []
    for i in range(40):
        looked = 0

        def ready() -> bool:
            nonlocal looked
            looked += 1
            return False

        deadline = loop.time() + 0.002 + i * 0.000_1
        assert await wakeup.wait(ready, deadline) is False
        assert loop.time() >= deadline
        looks.append(looked)
    assert max(looks) <= 3, looks
