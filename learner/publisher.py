"""Weight publishing: each policy_version is encoded and `ray.put` once; bots fetch it.

The training thread calls `publish`. Bots either call the learner's `get_weights(have)` (one
call: None when current, else [ObjectRef] to `ray.get`) or long-poll `wait_weights(have,
timeout_s)`, which returns as soon as a newer version exists: the WeightsUpdate bytes themselves
when they fit in a Ray reply (INLINE_MAX_BYTES; a 64-wide v2 policy is ~60 KB), which saves each
bot a second round trip, else [ObjectRef]. The bot side of both is actor/learner_link.py's
`fetch_weights`.
"""

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import ray

from tankrl.shared.wire import WeightsUpdate

PUBLISH_TIMES_KEPT = 1024
INLINE_MAX_BYTES = 90 * 1024
"""Long-poll replies carry the bytes inline up to this size (below Ray's 100 KB inline limit,
so they never enter the object store); larger policies go by ObjectRef."""

Fetched = bytes | list[ray.ObjectRef[bytes]] | None


class Publisher:
    """The newest published version and its ObjectRef; wakes waiters on the actor's event loop."""

    def __init__(self, contract_sha256: str):
        self.contract_sha256 = contract_sha256
        self._lock = threading.Lock()
        self._version = -1
        self._ref: ray.ObjectRef[bytes] | None = None
        self._data = b""
        self._published_at: OrderedDict[int, float] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next: asyncio.Future[None] | None = None

    @property
    def version(self) -> int:
        return self._version

    def publish(self, version: int, tensors: Mapping[str, npt.NDArray[np.float32]]) -> None:
        """Encode, `ray.put` once, make it current and wake every waiting bot (any thread).

        The recorded publish time is taken before encoding, so latencies include `ray.put`.
        """
        started = time.time()
        data = WeightsUpdate(version, self.contract_sha256, dict(tensors)).encode()
        ref = ray.put(data)
        with self._lock:
            if version <= self._version:
                raise ValueError(f"policy_version {version} is not newer than {self._version}")
            self._version, self._ref, self._data = version, ref, data
            self._published_at[version] = started
            while len(self._published_at) > PUBLISH_TIMES_KEPT:
                self._published_at.popitem(last=False)
            loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        if self._next is not None and not self._next.done():
            self._next.set_result(None)
        self._next = None

    def newer_than(self, have_version: int) -> list[ray.ObjectRef[bytes]] | None:
        """[ObjectRef of the newest WeightsUpdate bytes] if newer than `have_version`, else None.

        The ref travels inside a list so Ray hands the reference over instead of inlining it.
        """
        with self._lock:
            if self._ref is None or self._version <= have_version:
                return None
            return [self._ref]

    def _newer(self, have_version: int, inline: bool) -> Fetched:
        with self._lock:
            if self._ref is None or self._version <= have_version:
                return None
            if inline and len(self._data) <= INLINE_MAX_BYTES:
                return self._data
            return [self._ref]

    async def wait_newer(self, have_version: int, timeout_s: float, inline: bool = True) -> Fetched:
        """Wait up to `timeout_s` for a version newer than `have_version` (event loop only).

        Returns the WeightsUpdate bytes (small policies, unless not `inline`) or [ObjectRef], or
        None on timeout.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
        try:
            async with asyncio.timeout(timeout_s):
                while (got := self._newer(have_version, inline)) is None:
                    if self._next is None:
                        self._next = loop.create_future()
                    await asyncio.shield(self._next)
                return got
        except TimeoutError:
            return None

    def published_at(self) -> dict[int, float]:
        """policy_version -> wall time (time.time()) of its publish, for the recent versions."""
        with self._lock:
            return dict(self._published_at)
