"""Writing to clients without waiting: every client's outgoing queue is its transport's buffer,
bounded by `max_buffered_bytes`, and a client over it is disconnected (counted), so a slow
observer never stalls the turn loop. Also the watchers (observers and controllers) and what is
broadcast to them, after any held turn messages (arena/server/observer_batch.py).
"""

import asyncio
import contextlib
import logging
from base64 import b64encode
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from websockets.exceptions import ConnectionClosed

from tankrl.arena.server import messages as out
from tankrl.arena.server.connection import DirectConnection, text_frames
from tankrl.arena.server.observer_batch import ObserverBatch
from tankrl.arena.server.options import ServerOptions, ServerStats
from tankrl.arena.server.protocol import CLOSE_POLICY

log = logging.getLogger("tankrl.arena.server")
Json = dict[str, Any]


@dataclass(eq=False)
class Client:
    ws: DirectConnection
    session_id: str
    host: str
    port: int
    role: str = ""
    """'' until the handshake, then bot, controller or observer."""
    name: str = ""
    kicked: bool = False


Late = list[tuple[Client, Sequence[bytes]]]
"""Messages `Outbox.write` left to be sent with waiting (clients near their buffer's mark)."""


def new_session_id() -> str:
    """A random UUID's 16 bytes as unpadded Base64 (22 characters), as the official server."""
    return b64encode(uuid4().bytes).decode().rstrip("=")


class Outbox:
    """`write` frames without waiting, `send_late` what had to wait, `broadcast` to watchers;
    `close_soon(client, code, reason)` (the server's) ends a client that is kicked."""

    def __init__(
        self,
        options: ServerOptions,
        stats: ServerStats,
        close_soon: Callable[[Client, int, str], None],
    ) -> None:
        self.options = options
        self.stats = stats
        self.close_soon = close_soon
        self.watchers: list[Client] = []
        self.batch = ObserverBatch(options.observer_batch_s, options.max_buffered_bytes)

    def write(self, batch: Iterable[tuple[Client, Sequence[bytes]]]) -> Late:
        """Send encoded messages (UTF-8 JSON, one Text frame each) to clients, or drop a client
        whose outgoing buffer is full.

        Every message that fits below the buffer's high-water mark is framed first and then all
        of them are written back to back, with no await: writing a bot its tick wakes that bot,
        which on a busy machine can take this CPU before the next bot's tick is out, so nothing
        else runs between the writes. Connections that are closing are skipped. Only messages
        that would cross the mark wait, after the rest, each bounded by send_timeout_s: they are
        returned, for `send_late`."""
        limit = self.options.max_buffered_bytes
        framed: list[tuple[Client, bytes]] = []
        late: Late = []
        for client, frames in batch:
            if client.kicked:
                continue
            transport = client.ws.transport
            buffered = limit + 1 if transport is None else transport.get_write_buffer_size()
            if buffered > limit:
                self.kick(client, "Too slow: outgoing buffer full")
            elif buffered + sum(map(len, frames)) >= 2 * limit:
                late.append((client, frames))
            else:
                framed.append((client, text_frames(frames)))
        for client, data in framed:
            try:
                client.ws.write_frames(data)
            except Exception as e:  # the connection is going: its reader task will notice
                log.info("write to %s failed: %s", client.session_id, e)
        return late

    async def send_late(self, late: Late) -> None:
        for client, frames in late:
            try:
                async with asyncio.timeout(self.options.send_timeout_s):
                    for data in frames:
                        await client.ws.send(data, text=True)
            except ConnectionClosed:
                pass
            except TimeoutError:
                self.kick(client, "Too slow: send timed out")

    async def send(self, client: Client, msg: Json) -> None:
        await self.send_late(self.write([(client, [out.encode(msg)])]))

    async def broadcast(self, msg: Json | None) -> None:
        """Send every watcher a message (None: nothing), after the held ones."""
        held = self.batch.take()
        if msg is not None:
            held.append(out.encode(msg))
        if held and self.watchers:
            await self.send_late(self.write([(c, held) for c in self.watchers]))

    def kick(self, client: Client, reason: str) -> None:
        client.kicked = True
        self.stats.slow_clients += 1
        log.warning("disconnecting %s %s: %s", client.role, client.session_id, reason)
        self.close_soon(client, CLOSE_POLICY, reason)


async def close(client: Client, code: int, reason: str) -> None:
    """Close a client's connection with a code and reason (it may be closing already)."""
    with contextlib.suppress(ConnectionClosed):
        await client.ws.close(code, reason)
