"""A bot's link to the LearnerActor (a Ray shell): trajectories go out through a bounded buffer,
newer weights come in by long-polling and are staged in the bot's PolicySlot.

If the learner is unreachable the bot keeps playing its current weights and keeps at most
`max_buffered` rounds, dropping the oldest (counted); sending resumes when the learner is back.
"""

import threading
import time
from collections import Counter, deque
from typing import Any

import ray

from tankrl.actor.policy_slot import PolicySlot
from tankrl.shared.wire import Trajectory, WeightsUpdate

RETRY_S = 1.0
CALL_TIMEOUT_S = 30.0


class LearnerLink:
    """Sender and weights threads for one bot actor (hosted bot or native batch)."""

    def __init__(
        self,
        learner: Any,
        slot: PolicySlot,
        max_buffered: int = 16,
        poll_s: float = 5.0,
    ) -> None:
        self.learner = learner
        self.slot = slot
        self.poll_s = poll_s
        self._buffer: deque[bytes] = deque()
        self._max = max_buffered
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self.verdicts: Counter[str] = Counter()
        self.dropped = 0
        """Rounds dropped from a full buffer while the learner was unreachable."""
        self.failures = 0
        self.sent = 0
        self._healthy = True
        self._threads = [
            threading.Thread(target=self._send_loop, name="tankrl-send", daemon=True),
            threading.Thread(target=self._weights_loop, name="tankrl-weights", daemon=True),
        ]

    @classmethod
    def by_name(
        cls, name: str, slot: PolicySlot, namespace: str | None = None, **kwargs: Any
    ) -> "LearnerLink":
        return cls(ray.get_actor(name, namespace=namespace), slot, **kwargs)

    def start(self) -> "LearnerLink":
        for t in self._threads:
            t.start()
        return self

    def stop(self, flush_s: float = 5.0) -> None:
        """Try to deliver what is buffered for up to `flush_s`, then stop the threads."""
        deadline = time.monotonic() + flush_s
        while self.pending and time.monotonic() < deadline:
            time.sleep(0.05)
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    @property
    def healthy(self) -> bool:
        """False while the learner cannot be reached (the last submit failed)."""
        return self._healthy

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._buffer)

    def send(self, trajectory: Trajectory) -> None:
        """Queue one round for the learner (never blocks the bot)."""
        data = trajectory.encode()
        with self._cond:
            self._buffer.append(data)
            while len(self._buffer) > self._max:
                self._buffer.popleft()
                self.dropped += 1
            self._cond.notify()

    def _send_loop(self) -> None:
        while not self._stop.is_set():
            with self._cond:
                while not self._buffer and not self._stop.is_set():
                    self._cond.wait(timeout=1.0)
                if self._stop.is_set():
                    return
                data = self._buffer[0]
            try:
                reply = ray.get(self.learner.submit.remote(data), timeout=CALL_TIMEOUT_S)
            except Exception:  # learner down or restarting: keep the round, retry
                self.failures += 1
                self._healthy = False
                self._stop.wait(RETRY_S)
                continue
            self._healthy = True
            with self._cond:
                if self._buffer and self._buffer[0] is data:
                    self._buffer.popleft()
            self.sent += 1
            self.verdicts["accepted" if reply.get("accepted") else reply.get("reason", "?")] += 1

    def _weights_loop(self) -> None:
        while not self._stop.is_set():
            try:
                update = self.fetch(self.poll_s)
            except Exception:
                self.failures += 1
                self._stop.wait(RETRY_S)
                continue
            if update is not None:
                self.slot.offer(update)

    def fetch(self, timeout_s: float) -> WeightsUpdate | None:
        """Long-poll the learner for a version newer than the slot's (None on timeout)."""
        return fetch_weights(self.learner, self.slot.version, timeout_s)

    def stats(self) -> dict[str, int]:
        return {
            "sent": self.sent,
            "dropped_buffer_full": self.dropped,
            "link_failures": self.failures,
            "buffered": self.pending,
            **{f"learner_{k}": v for k, v in self.verdicts.items()},
        }


def fetch_weights(
    learner: Any, have_version: int, timeout_s: float = 0.0, inline: bool = True
) -> WeightsUpdate | None:
    """The learner's newest WeightsUpdate if newer than `have_version`, else None.

    With `timeout_s` > 0 it long-polls `wait_weights` (returns as soon as a version is
    published; `inline` lets small policies come in the reply itself); with 0 it asks
    `get_weights` once. Blocks the calling thread (a bot actor's, a driver's)."""
    if timeout_s > 0:
        call = learner.wait_weights.remote(have_version, timeout_s, inline)
        got = ray.get(call, timeout=timeout_s + CALL_TIMEOUT_S)
    else:
        got = ray.get(learner.get_weights.remote(have_version), timeout=CALL_TIMEOUT_S)
    if got is None:
        return None
    data = got if isinstance(got, bytes) else ray.get(got[0], timeout=CALL_TIMEOUT_S)
    return WeightsUpdate.decode(data)
