"""The arena's WebSocket server: Tank Royale's bot, controller and observer protocol
(docs/protocol.md) on the `websockets` package, one rules engine per game (B = 1).

Concurrency: one TaskGroup per server (in serve_forever) runs the game loop (game_loop.py) and
the closing of kicked clients, and shuts the listener down; websockets owns one reader task per
connection, but bots' messages arrive in their connection's read callback (DirectConnection,
connection.py). Sends never wait (outbox.py). Reads are bounded by the handshake deadline and the
keepalive ping. A bad message closes that one client with a reason; a failing game is aborted,
the server goes on.
"""

import asyncio
import contextlib
import logging
from functools import partial
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tankrl.arena.rules.engine import compile_rules
from tankrl.arena.server import intent_merge
from tankrl.arena.server import messages as out
from tankrl.arena.server import protocol as proto
from tankrl.arena.server.connection import DirectConnection
from tankrl.arena.server.game import Game, RecorderFactory
from tankrl.arena.server.game_loop import GameLoop
from tankrl.arena.server.lobby import Lobby, LobbyBot
from tankrl.arena.server.options import ServerOptions, ServerStats
from tankrl.arena.server.outbox import Client, Outbox, close, new_session_id

log = logging.getLogger("tankrl.arena.server")
Json = dict[str, Any]


def _ignore(text: str) -> None:
    """What a refused client's further messages get while its connection closes."""


class ArenaServer:
    """`await start()` binds (then `url`, `port`), `await serve_forever()` runs until
    `await close()`; or `async with ArenaServer(options):` around your own serve_forever task.
    arena/server/thread.py runs one in a background thread for synchronous callers.

    Read-only while serving: `stats` (ServerStats), `game` (the current or last Game), `lobby`,
    `last_game_seed`, `version`; settable: `seed` (the next game's). `games` is the GameLoop.
    A `recorder_factory` (e.g. arena/replay.py's ReplayRecorder) records every game.
    """

    def __init__(
        self, options: ServerOptions | None = None, recorder_factory: RecorderFactory | None = None
    ) -> None:
        self.options = options or ServerOptions()
        self.version = out.server_version()
        self.stats = ServerStats()
        self.lobby = Lobby()
        self._clients: dict[str, Client] = {}
        self._awaiting: dict[str, Client] = {}
        """Connections that have not sent their handshake yet, oldest first."""
        self.outbox = Outbox(self.options, self.stats, self._close_soon)
        self.games = GameLoop(
            self.options, self.stats, self.outbox, self._clients, self.lobby, recorder_factory
        )
        self._close_requested = asyncio.Event()
        self._ws_server: Server | None = None
        self._tg: asyncio.TaskGroup | None = None
        self._serving = False

    @property
    def game(self) -> Game | None:
        return self.games.game

    @property
    def last_game_seed(self) -> int | None:
        return self.games.last_game_seed

    @property
    def seed(self) -> int | None:
        return self.games.seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        """Fix the next game's seed (game k after this uses seed + k); None = random."""
        self.games.seed = value

    # ---- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        # the first game's turn must not stall the event loop on a compile of the rules
        await asyncio.to_thread(compile_rules)
        self.games.wakeup.loop = asyncio.get_running_loop()
        o = self.options
        self._ws_server = await serve(
            self._handle,
            o.host,
            o.port,
            create_connection=DirectConnection,
            compression=None,
            max_size=o.max_message_bytes,
            write_limit=(2 * o.max_buffered_bytes, o.max_buffered_bytes),
            ping_interval=o.ping_interval_s,
            close_timeout=o.close_timeout_s,
            open_timeout=o.handshake_timeout_s,
        )
        log.info("listening on %s (version %s)", self.url, self.version)

    @property
    def port(self) -> int:
        assert self._ws_server is not None, "start() first"
        return int(next(iter(self._ws_server.sockets)).getsockname()[1])

    @property
    def url(self) -> str:
        host = self.options.host
        host = "127.0.0.1" if host in ("", "0.0.0.0") else host
        return f"ws://{'[' + host + ']' if ':' in host else host}:{self.port}"

    async def serve_forever(self) -> None:
        if self._ws_server is None:
            await self.start()
        assert self._ws_server is not None
        self._serving = True
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                games = tg.create_task(self.games.run())
                await self._close_requested.wait()
                games.cancel()
                await self._shutdown_ws()
        finally:
            self._tg = None
            self._serving = False

    async def close(self) -> None:
        self._close_requested.set()
        if not self._serving:
            await self._shutdown_ws()

    async def __aenter__(self) -> "ArenaServer":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _shutdown_ws(self) -> None:
        if self._ws_server is None:
            return
        self._ws_server.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.options.close_timeout_s + 1.0):
                await self._ws_server.wait_closed()

    # ---- connections ----------------------------------------------------------------------------
    async def _handle(self, ws: ServerConnection) -> None:
        assert isinstance(ws, DirectConnection)  # serve(create_connection=DirectConnection)
        addr = ws.remote_address
        client = Client(ws, new_session_id(), str(addr[0]), int(addr[1]))
        self.stats.connections += 1
        if not self._admit(client):
            await ws.close(1013, "Server is full")
            return
        try:
            await self.outbox.send(
                client,
                out.server_handshake(
                    client.session_id, self.version, self.options.game_types, self.games.last_setup
                ),
            )
            try:
                async with asyncio.timeout(self.options.handshake_timeout_s):
                    frame = await ws.recv()
            except TimeoutError:
                raise proto.ProtocolError("Handshake timeout", proto.CLOSE_POLICY) from None
            await self._handshake(client, proto.decode(frame))
            async for frame in ws:
                await self._on_message(client, proto.decode(frame))
        except proto.ProtocolError as e:
            self._count_refusal(client, e.reason)
            await ws.close(e.code, e.reason)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("internal error on %s", client.session_id)
            await ws.close(1011, "Internal server error")
        finally:
            await self._left(client)

    def _admit(self, client: Client) -> bool:
        """Take a new connection, making room by closing the oldest of those still waiting for
        their handshake: from the same address when it has `max_awaiting_per_address` of them,
        from any when the server holds `max_connections`. False: full of handshaken clients."""
        o = self.options
        same = [c for c in self._awaiting.values() if c.host == client.host]
        if len(same) >= o.max_awaiting_per_address:
            self._evict(same[0])
        if len(self._clients) >= o.max_connections:
            if not self._awaiting:
                return False
            self._evict(next(iter(self._awaiting.values())))
        self._clients[client.session_id] = client
        self._awaiting[client.session_id] = client
        return True

    def _evict(self, client: Client) -> None:
        self._clients.pop(client.session_id, None)
        self._awaiting.pop(client.session_id, None)
        client.kicked = True
        self.stats.evicted += 1
        self._close_soon(client, proto.CLOSE_POLICY, "Too many connections awaiting a handshake")

    async def _handshake(self, client: Client, msg: Json) -> None:
        kind = msg["type"]
        if kind not in proto.HANDSHAKES:
            raise proto.ProtocolError(f"Expected a handshake, got {kind}", proto.CLOSE_POLICY)
        hs: proto.BotHandshake | proto.ClientHandshake
        if kind == "BotHandshake":
            hs = proto.parse_bot_handshake(msg)
            secrets_ = self.options.bot_secrets
        else:
            hs = proto.parse_client_handshake(msg)
            secrets_ = self.options.controller_secrets
        if hs.session_id not in self._clients:
            raise proto.ProtocolError("Missing session id", proto.CLOSE_POLICY)
        if secrets_ and hs.secret not in secrets_:
            raise proto.ProtocolError("Invalid secret", proto.CLOSE_POLICY)
        self._awaiting.pop(client.session_id, None)
        if isinstance(hs, proto.BotHandshake):
            client.role, client.name = "bot", hs.info["name"]
            bot = LobbyBot(
                client.session_id, hs.info, client.host, client.port, hs.initial_position
            )
            self.lobby.add(bot)
            client.ws.on_text = partial(self._on_bot_text, client)  # skip the reader task
            client.ws.on_bad_text = partial(self._on_bad_bot_text, client)
            await self.outbox.broadcast(self.lobby.list_update())
        else:
            client.role, client.name = hs.kind, hs.name
            self.outbox.watchers.append(client)
            await self.outbox.send(client, self.lobby.list_update())

    async def _left(self, client: Client) -> None:
        self._clients.pop(client.session_id, None)
        self._awaiting.pop(client.session_id, None)
        if client in self.outbox.watchers:
            self.outbox.watchers.remove(client)
        if client.role != "bot":
            return
        self.lobby.remove(client.session_id)
        self.games.left(client)
        if not self._close_requested.is_set():
            await self.outbox.broadcast(self.lobby.list_update())

    # ---- incoming messages ----------------------------------------------------------------------
    async def _on_message(self, client: Client, msg: Json) -> None:
        kind = msg["type"]
        if client.role == "bot":
            self._on_bot_message(client, msg)
        elif kind in proto.HANDSHAKES:
            raise proto.ProtocolError("Handshake already done", proto.CLOSE_POLICY)
        elif client.role == "controller" and kind in proto.CONTROLLER_COMMANDS:
            try:
                await self.games.command(kind, msg)
            except proto.InvalidRequest as e:
                self.stats.ignored_requests += 1
                log.warning("ignored %s: %s", kind, e)
        else:
            raise proto.ProtocolError(
                f"{kind} is not allowed for a {client.role}", proto.CLOSE_POLICY
            )

    def _on_bot_message(self, client: Client, msg: Json) -> None:
        kind = msg["type"]
        if kind == "BotIntent":
            self.games.on_intent(client, intent_merge.parse_bot_intent(msg))
        elif kind == "BotReady":
            self.games.on_ready(client)
        elif kind in proto.HANDSHAKES:
            raise proto.ProtocolError("Handshake already done", proto.CLOSE_POLICY)
        else:
            raise proto.ProtocolError(f"{kind} is not allowed for a bot", proto.CLOSE_POLICY)

    def _on_bot_text(self, client: Client, text: str) -> None:
        """A bot's message handed over by its DirectConnection as it arrived (the reader task's
        error handling, without the task)."""
        try:
            self._on_bot_message(client, proto.decode(text))
        except proto.ProtocolError as e:
            self._refuse(client, e.code, e.reason)
        except Exception:
            log.exception("internal error on %s", client.session_id)
            self._refuse(client, 1011, "Internal server error")

    def _on_bad_bot_text(self, client: Client, error: UnicodeDecodeError) -> None:
        self._refuse(client, 1007, f"{error.reason} at position {error.start}")

    def _refuse(self, client: Client, code: int, reason: str) -> None:
        """Close a client over a bad message (as `_handle` does), ignoring what it sends after;
        it plays no further turn and nothing more is written to it while it closes."""
        self._count_refusal(client, reason)
        client.ws.on_text = _ignore
        client.kicked = True
        self.games.left(client)
        self._close_soon(client, code, reason)

    def _count_refusal(self, client: Client, reason: str) -> None:
        self.stats.protocol_errors += 1
        log.info("closing %s %s: %s", client.role or "client", client.session_id, reason)

    def _close_soon(self, client: Client, code: int, reason: str) -> None:
        if self._tg is not None:
            self._tg.create_task(close(client, code, reason))
        elif client.ws.transport is not None:
            client.ws.transport.abort()
