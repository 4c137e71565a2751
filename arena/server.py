"""The arena's WebSocket server (the shell around arena/session.py): Tank Royale's bot, controller
and observer protocol on the `websockets` package, one engine per game (B = 1).

Concurrency: one TaskGroup per server (in serve_forever) runs the game loop and the closing of
kicked clients and shuts the listener down; websockets owns one reader task per connection, but
bots' messages arrive in their connection's read callback (DirectConnection). At TPS -1 the
answer that completes a turn plays the next one right there (`_play_at_once`); the game loop
starts games and rounds, paces, pauses, times out and takes over for anything unusual.
Sends never wait: a client's outgoing queue is its transport buffer, bounded by
`max_buffered_bytes`, and a client over it is disconnected (counted), so a slow observer never
stalls the turn loop. Reads are bounded by the handshake deadline and the keepalive ping. A bad
message closes that one client with a reason; a failing game is aborted, the server goes on.
Over 300 lines: one class whose lifecycle, connections, commands and game loop share the
server's state; everything pure is in protocol, intent_merge, session and server_messages.
"""

import asyncio
import contextlib
import logging
import math
import secrets
import time
from base64 import b64encode
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from uuid import uuid4

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tankrl.arena import intent_merge
from tankrl.arena import protocol as proto
from tankrl.arena import server_messages as out
from tankrl.arena.engine import compile_rules
from tankrl.arena.game_setup import GAME_TYPES, GameSetup
from tankrl.arena.placement import CELL
from tankrl.arena.session import Game, Lobby, LobbyBot, Phase, RecorderFactory, TurnOutput
from tankrl.arena.ws_connection import DirectConnection, text_frames

log = logging.getLogger("tankrl.arena.server")
_CLOCK_STEP_S = 0.001
"""uvloop's clock and timer resolution (asyncio's is finer)."""
_TIMER = object()
"""What `_wait`'s future holds when its timer, not `_wake`, ended the wait."""
Json = dict[str, Any]
Late = list[tuple["Client", Sequence[bytes]]]
"""Messages `_write_frames` left to be sent with waiting (clients near their buffer's mark)."""


@dataclass(frozen=True)
class ServerOptions:
    host: str = "127.0.0.1"
    """Interface to bind; 127.0.0.1 unless asked to open others."""
    port: int = 7654
    """TCP port (0 = pick a free one)."""
    game_types: tuple[str, ...] = GAME_TYPES
    bot_secrets: tuple[str, ...] = ()
    controller_secrets: tuple[str, ...] = ()
    tps: int = -1
    """Turns per second: -1 unlimited (our default, for training), 0 paused."""
    initial_positions: bool = False
    """Honour the bots' initialPosition (--enable-initial-position)."""
    seed: int | None = None
    """Seed of the first game (game k uses seed + k); None = a random seed per game."""
    max_message_bytes: int = 1 << 20
    max_buffered_bytes: int = 1 << 20
    max_connections: int = 256
    handshake_timeout_s: float = 10.0
    send_timeout_s: float = 2.0
    close_timeout_s: float = 2.0
    ping_interval_s: float | None = 20.0
    observer_batch_s: float = 0.016
    """At TPS -1, observers' and controllers' ticks are held and written together, at most this
    long after the first of them (0 = each turn's at once): see ArenaServer._may_hold."""
    play_at_answer: bool = True
    """At TPS -1, play a turn as its last answer arrives (False: the game loop plays every
    turn, as before; bench/server_ab.py compares the two): see ArenaServer._play_at_once."""


@dataclass
class ServerStats:
    """Counters for the benchmark and for logs. `turn_us` is the server's critical path of a
    turn (engine step, the bots' messages built, serialised and written), the most recent turns
    kept; observers' messages are built and sent after that, in `observer_us_total`."""

    turns: int = 0
    turn_us_total: float = 0.0
    turn_us: deque[float] = field(default_factory=lambda: deque(maxlen=100_000))
    observer_us_total: float = 0.0
    skipped_turns: int = 0
    games_started: int = 0
    games_ended: int = 0
    games_aborted: int = 0
    connections: int = 0
    protocol_errors: int = 0
    ignored_requests: int = 0
    slow_clients: int = 0

    @property
    def mean_turn_us(self) -> float:
        return self.turn_us_total / self.turns if self.turns else 0.0


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


def _ignore(text: str) -> None:
    """What a refused client's further messages get while its connection closes."""


def new_session_id() -> str:
    """A random UUID's 16 bytes as unpadded Base64 (22 characters), as the official server."""
    return b64encode(uuid4().bytes).decode().rstrip("=")


class ArenaServer:
    """`await start()` binds (then `url`, `port`), `await serve_forever()` runs until
    `await close()`; or `async with ArenaServer(options):` around your own serve_forever task.
    arena/server_thread.py runs one in a background thread for synchronous callers.

    Read-only while serving: `stats` (ServerStats), `game` (the current or last Game),
    `lobby`, `last_game_seed`, `version`; settable: `seed` (the next game's), `tps`,
    `recorder_factory` (records every game, e.g. arena/replay.py's ReplayRecorder).
    """

    def __init__(
        self, options: ServerOptions | None = None, recorder_factory: RecorderFactory | None = None
    ) -> None:
        self.options = options or ServerOptions()
        self.recorder_factory = recorder_factory
        self.version = out.server_version()
        self.stats = ServerStats()
        self.tps = self.options.tps
        self.lobby = Lobby()
        self.game: Game | None = None
        self.last_setup: GameSetup | None = None
        self.last_game_seed: int | None = None
        self._seed = self.options.seed
        self._games_seeded = 0
        self._clients: dict[str, Client] = {}
        self._watchers: list[Client] = []
        self._game_clients: list[Client | None] = []
        self._debugging: set[str] = set()
        self._pending: Game | None = None
        self._stop_game = False
        self._waiter: asyncio.Future[object] | None = None
        self._held: list[bytes] = []
        """Encoded observer messages not written yet, the oldest from loop time `_held_since`."""
        self._held_since = 0.0
        self._answers_for: Game | None = None
        """The game whose answers the game loop awaits: the turn is played at their arrival."""
        self._answer_deadline = 0.0
        self._handed: tuple[TurnOutput, Late, float] | Exception | None = None
        """A turn played at the answers' arrival that the game loop must carry on from."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The serving loop (set by start): asyncio.get_running_loop() costs a getpid system call
        on Python 3.11, and the turn paths read the loop's time every turn."""
        self._close_requested = asyncio.Event()
        self._ws_server: Server | None = None
        self._tg: asyncio.TaskGroup | None = None
        self._serving = False

    # ---- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        # the first game's turn must not stall the event loop on a compile of the rules
        await asyncio.to_thread(compile_rules)
        self._loop = asyncio.get_running_loop()
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
                games = tg.create_task(self._game_loop())
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

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        """Fix the next game's seed (game k after this uses seed + k); None = random."""
        self._seed, self._games_seeded = value, 0

    def _next_seed(self) -> int:
        if self._seed is None:
            seed = secrets.randbits(63)
        else:
            seed = (self._seed + self._games_seeded) % 2**63
        self._games_seeded += 1
        self.last_game_seed = seed
        return seed

    # ---- connections ----------------------------------------------------------------------------
    async def _handle(self, ws: ServerConnection) -> None:
        assert isinstance(ws, DirectConnection)  # serve(create_connection=DirectConnection)
        addr = ws.remote_address
        client = Client(ws, new_session_id(), str(addr[0]), int(addr[1]))
        self.stats.connections += 1
        if len(self._clients) >= self.options.max_connections:
            await ws.close(1013, "Server is full")
            return
        self._clients[client.session_id] = client
        try:
            await self._send(
                client,
                out.server_handshake(
                    client.session_id, self.version, self.options.game_types, self.last_setup
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
        except proto.InvalidRequest as e:  # pragma: no cover - handled in _on_message
            log.warning("ignored: %s", e)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("internal error on %s", client.session_id)
            await ws.close(1011, "Internal server error")
        finally:
            await self._left(client)

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
        if isinstance(hs, proto.BotHandshake):
            client.role, client.name = "bot", hs.info["name"]
            bot = LobbyBot(
                client.session_id, hs.info, client.host, client.port, hs.initial_position
            )
            self.lobby.add(bot)
            client.ws.on_text = partial(self._on_bot_text, client)  # skip the reader task
            client.ws.on_bad_text = partial(self._on_bad_bot_text, client)
            await self._broadcast(self.lobby.list_update())
        else:
            client.role, client.name = hs.kind, hs.name
            self._watchers.append(client)
            await self._send(client, self.lobby.list_update())

    async def _left(self, client: Client) -> None:
        self._clients.pop(client.session_id, None)
        if client in self._watchers:
            self._watchers.remove(client)
        if client.role != "bot":
            return
        self.lobby.remove(client.session_id)
        game = self.game
        if game is not None and client in self._game_clients:
            index = self._game_clients.index(client)
            self._game_clients[index] = None
            game.disconnect(index)
            self._wake()
        if not self._close_requested.is_set():
            await self._broadcast(self.lobby.list_update())

    # ---- incoming messages ----------------------------------------------------------------------
    async def _on_message(self, client: Client, msg: Json) -> None:
        kind = msg["type"]
        if client.role == "bot":
            self._on_bot_message(client, msg)
        elif kind in proto.HANDSHAKES:
            raise proto.ProtocolError("Handshake already done", proto.CLOSE_POLICY)
        elif client.role == "controller" and kind in proto.CONTROLLER_COMMANDS:
            try:
                await self._on_command(kind, msg)
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
            self._on_intent(client, intent_merge.parse_bot_intent(msg))
        elif kind == "BotReady":
            self._on_ready(client)
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
        """Close a client over a bad message (as `_handle` does), ignoring what it sends after."""
        self._count_refusal(client, reason)
        client.ws.on_text = _ignore
        self._close_soon(client, code, reason)

    def _count_refusal(self, client: Client, reason: str) -> None:
        self.stats.protocol_errors += 1
        log.info("closing %s %s: %s", client.role or "client", client.session_id, reason)

    def _game_index(self, client: Client) -> int | None:
        if self.game is None:
            return None
        try:
            return self._game_clients.index(client)
        except ValueError:
            return None

    def _on_intent(self, client: Client, intent: intent_merge.BotIntent) -> None:
        game, index = self.game, self._game_index(client)
        if game is None or index is None:
            return
        game.receive_intent(index, intent)
        if game.all_answered:
            if self._answers_for is game and self._may_play_at_once(game):
                self._play_at_once(game)
            else:
                self._wake()

    def _on_ready(self, client: Client) -> None:
        game, index = self.game, self._game_index(client)
        if game is not None and index is not None:
            game.mark_ready(index)
            if game.all_ready:
                self._wake()

    async def _on_command(self, kind: str, msg: Json) -> None:
        game = self.game
        if kind == "StartGame":
            self._start_game(proto.parse_start_game(msg, self.options.game_types))
        elif kind == "ChangeTps":
            self.tps = proto.parse_tps(msg)
            await self._broadcast(out.tps_changed(self.tps))
        elif kind == "BotPolicyUpdate":
            self._policy(proto.parse_bot_policy(msg))
        elif game is None:
            raise proto.InvalidRequest("no game is running")
        elif kind == "StopGame":
            self._stop_game = True
        elif kind == "PauseGame":
            await self._broadcast(game.pause())
        elif kind == "ResumeGame":
            await self._broadcast(game.resume())
        elif kind == "NextTurn":
            game.next_turn()
        elif kind == "EnableDebugMode":
            game.debug_mode = True
        elif kind == "DisableDebugMode":
            game.debug_mode = False
        self._wake()

    def _start_game(self, req: proto.StartGame) -> None:
        if self._pending is not None or (
            self.game is not None and self.game.phase is not Phase.ENDED
        ):
            raise proto.InvalidRequest("a game is already running")
        bots = self.lobby.select(req.addresses)
        n, setup = len(bots), req.setup
        if not bots:
            raise proto.InvalidRequest("no connected bot matches the addresses")
        if n < setup.min_number_of_participants:
            raise proto.InvalidRequest(
                f"{n} bots, minNumberOfParticipants is {setup.min_number_of_participants}"
            )
        cells = (setup.arena_width // CELL) * (setup.arena_height // CELL)
        if cells < n:
            raise proto.InvalidRequest(f"{n} bots do not fit the arena's {cells} start cells")
        if setup.max_number_of_participants is not None and n > setup.max_number_of_participants:
            raise proto.InvalidRequest(
                f"{n} bots, maxNumberOfParticipants is {setup.max_number_of_participants}"
            )
        self._pending = Game(
            setup,
            bots,
            self._next_seed(),
            initial_positions=self.options.initial_positions,
            debug_mode=req.debug_mode,
            debugging=self._debugging,
        )

    def _policy(self, policy: proto.BotPolicy) -> None:
        game = self.game
        index = None if game is None else game.bot_index(policy.bot_id)
        if game is None or index is None:
            raise proto.InvalidRequest(f"no bot with id {policy.bot_id} in a running game")
        session = game.bots[index].session_id
        if policy.debugging_enabled is not None:
            if policy.debugging_enabled:
                self._debugging.add(session)
                game.debugging.add(index)
            else:
                self._debugging.discard(session)
                game.debugging.discard(index)

    # ---- sending --------------------------------------------------------------------------------
    async def _send_frames(self, batch: Iterable[tuple[Client, Sequence[bytes]]]) -> None:
        await self._send_late(self._write_frames(batch))

    def _write_frames(self, batch: Iterable[tuple[Client, Sequence[bytes]]]) -> Late:
        """Send encoded messages (UTF-8 JSON, one Text frame each) to clients, or drop a client
        whose outgoing buffer (its bounded outgoing queue) is full.

        Every message that fits below the buffer's high-water mark is framed first and then all
        of them are written back to back, with no await: writing a bot its tick wakes that bot,
        which on a busy machine can take this CPU before the next bot's tick is out, so nothing
        else runs between the writes. Connections that are closing are skipped. Only messages
        that would cross the mark wait, after the rest, each bounded by send_timeout_s: they are
        returned, for `_send_late`."""
        limit = self.options.max_buffered_bytes
        framed: list[tuple[Client, bytes]] = []
        late: list[tuple[Client, Sequence[bytes]]] = []
        for client, frames in batch:
            if client.kicked:
                continue
            transport = client.ws.transport
            buffered = limit + 1 if transport is None else transport.get_write_buffer_size()
            if buffered > limit:
                self._kick(client, "Too slow: outgoing buffer full")
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

    async def _send_late(self, late: Late) -> None:
        for client, frames in late:
            try:
                async with asyncio.timeout(self.options.send_timeout_s):
                    for data in frames:
                        await client.ws.send(data, text=True)
            except ConnectionClosed:
                pass
            except TimeoutError:
                self._kick(client, "Too slow: send timed out")

    async def _send(self, client: Client, msg: Json) -> None:
        await self._send_frames([(client, [out.encode(msg)])])

    async def _broadcast(self, msg: Json | None) -> None:
        """Send every observer and controller a message (None: nothing), after the held ones."""
        held, self._held = self._held, []
        if msg is not None:
            held.append(out.encode(msg))
        if held and self._watchers:
            await self._send_frames([(c, held) for c in self._watchers])

    def _kick(self, client: Client, reason: str) -> None:
        client.kicked = True
        self.stats.slow_clients += 1
        log.warning("disconnecting %s %s: %s", client.role, client.session_id, reason)
        self._close_soon(client, proto.CLOSE_POLICY, reason)

    def _close_soon(self, client: Client, code: int, reason: str) -> None:
        if self._tg is not None:
            self._tg.create_task(self._close(client, code, reason))
        elif client.ws.transport is not None:
            client.ws.transport.abort()

    async def _close(self, client: Client, code: int, reason: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await client.ws.close(code, reason)

    # ---- the game loop --------------------------------------------------------------------------
    def _wake(self) -> None:
        """Something `_wait`'s condition reads has changed: let the game loop look again."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _wait(self, ready: Any, deadline: float | None) -> bool:
        """Wait until `ready()` or the loop-time deadline; True if ready. (A bare future and
        timer: this can run twice a turn, and asyncio's Event and timeout cost several times
        more.)

        uvloop's clock and timers step by a millisecond, so its timer can fire while
        loop.time() is still short of the deadline (libuv/libuv#4773, MagicStack/uvloop#233;
        asyncio's timers may too: python/cpython#127859); a timer re-armed for that remainder fires
        at once, and did so again and again until the clock stepped: up to a millisecond of
        spinning before every observer flush, CPU taken from the bots (1v1 on 2 cores: 4.6%
        more turns/s without it). After an early timer the next one waits a whole step."""
        loop = self._loop or asyncio.get_running_loop()
        early = False
        while not ready():
            now = loop.time()
            if deadline is not None and now >= deadline:
                return False
            self._waiter = waiter = loop.create_future()
            timer = None
            if deadline is not None:
                at = max(deadline, now + _CLOCK_STEP_S) if early else deadline
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

    async def _game_loop(self) -> None:
        while True:
            await self._wait(lambda: self._pending is not None, None)
            game, self._pending = self._pending, None
            assert game is not None
            self.game, self._stop_game = game, False
            self._game_clients = [self._clients.get(b.session_id) for b in game.bots]
            for i, c in enumerate(self._game_clients):
                if c is None:
                    game.disconnect(i)
            try:
                await self._play(game)
            except Exception:  # a bug must end this game, not the server
                log.exception("game failed")
                await self._abort(game, "internal error")
            finally:
                game.abort()

    async def _play(self, game: Game) -> None:
        loop = asyncio.get_running_loop()
        self.last_setup = game.setup
        self.stats.games_started += 1
        for i, msg in game.start_messages():
            client = self._game_clients[i]
            if client is not None:
                await self._send(client, msg)
        ready_deadline = loop.time() + game.setup.ready_timeout_us / 1e6
        await self._wait(lambda: game.all_ready or self._stop_game, ready_deadline)
        started = None if self._stop_game else game.begin(self.recorder_factory)
        if started is None:
            await self._abort(game, "too few bots ready" if not self._stop_game else "stopped")
            return
        await self._broadcast(started)
        if game.debug_mode:
            await self._broadcast(out.game_paused("debug_step"))
        timeout_s = game.setup.turn_timeout_us / 1e6
        while True:
            go = await self._wait(
                lambda: (
                    (game.may_step and self.tps != 0)
                    or self._stop_game
                    or not game.participants_left
                ),
                None,
            )
            if self._stop_game or not game.participants_left or not go:
                await self._abort(game, "stopped" if self._stop_game else "every participant left")
                return
            turn_start = loop.time()
            result, late = self._play_turn(game)
            sent = loop.time()
            await self._send_late(late)
            while not result.round_ended:
                handed = await self._await_answers(game, sent + timeout_s)
                if handed is None:
                    break
                result, late, sent = handed  # turns played at the answers' arrival
                await self._send_late(late)
            if result.game_ended:
                self.stats.games_ended += 1
                return
            if self.tps > 0:
                await self._wait(lambda: self._stop_game, turn_start + 1.0 / self.tps)

    def _play_turn(self, game: Game) -> tuple[TurnOutput, Late]:
        """Play a turn and write its messages, the bots' first; what could not be written yet
        is returned (for `_send_late`)."""
        t0 = time.perf_counter()
        result = game.play_turn()
        clients = self._game_clients
        late = self._write_frames(
            (client, [out.encode(m) for m in msgs])
            for i, msgs in result.to_bots.items()
            if (client := clients[i]) is not None
        )
        t1, now = time.perf_counter(), self._now()
        if not self._held:
            self._held_since = now
        self._held += map(out.encode, game.observer_messages(result, bool(self._watchers)))
        if self._held and not self._may_hold(game, result, now):
            held, self._held = self._held, []
            late += self._write_frames([(c, held) for c in self._watchers])
        self._count_turn(t1 - t0, time.perf_counter() - t1, result)
        return result, late

    def _may_hold(self, game: Game, result: TurnOutput, now: float) -> bool:
        """Whether the held observer messages may wait to be written with later turns': at
        TPS -1, mid-round, with no pause or debug step pending, for at most `observer_batch_s`
        and while they fill at most half an outgoing buffer (a batch alone never has to wait
        for a slow client: `_write_frames`).

        On a machine with fewer cores than bots plus server, every write to an observer or a
        controller, and that controller's read when it runs in this process (`tankrl battle`),
        takes CPU from a bot while every bot computes its turn: with 16 ms batches a 1v1 on 2
        cores ran 0 to 4% more turns/s (`bench/server_ab.py --a observer_batch_s=0`). Observers
        still get every message, in order: anything else sent to them writes the held first."""
        return (
            self.tps < 0
            and now < self._flush_at()
            and not (game.paused or game.debug_mode or result.round_ended)
            and 2 * sum(map(len, self._held)) < self.options.max_buffered_bytes
        )

    def _now(self) -> float:
        return (self._loop or asyncio.get_running_loop()).time()

    async def _await_answers(
        self, game: Game, deadline: float
    ) -> tuple[TurnOutput, Late, float] | None:
        """Wait for the answers to the turn just played, until its deadline. While it waits at
        TPS -1, the answer that completes a turn plays the next one at once (`_play_at_once`),
        and the deadline moves with every such turn; the loop carries on (returns what was
        played) only when such a turn ended a round or left messages to send with waiting.
        Held observer messages are written when due meanwhile."""
        self._answers_for, self._answer_deadline = game, deadline
        try:
            while True:
                due = self._due()
                await self._wait(
                    lambda due=due: (
                        self._handed is not None
                        or game.all_answered
                        or self._stop_game
                        or not game.participants_left
                        or self._due() < due  # the first held messages came meanwhile
                    ),
                    due,
                )
                handed, self._handed = self._handed, None
                if isinstance(handed, Exception):
                    raise handed
                if handed is not None:
                    return handed
                if game.all_answered or self._stop_game or not game.participants_left:
                    return None
                now = self._now()
                if now >= self._flush_at():
                    self._answers_for = None  # no turn is played while these are written
                    await self._broadcast(None)  # a slow turn does not keep observers waiting
                    self._answers_for = game
                elif now >= self._answer_deadline:
                    return None
        finally:
            self._answers_for = None

    def _flush_at(self) -> float:
        """Loop time by which the held observer messages must be written (inf: none held)."""
        return self._held_since + self.options.observer_batch_s if self._held else math.inf

    def _due(self) -> float:
        """When `_await_answers` must act: the turn's deadline, or writing the held messages."""
        return min(self._answer_deadline, self._flush_at())

    def _may_play_at_once(self, game: Game) -> bool:
        return (
            self.tps < 0
            and self.options.play_at_answer
            and self._handed is None
            and not (self._stop_game or game.paused)
            and game.participants_left
        )

    def _play_at_once(self, game: Game) -> None:
        """Play the next turn as the answer that completes this one arrives (in that
        connection's read callback), instead of waking the game loop for it: a 1v1 on 2 cores
        ran 7% more turns/s in short phases and 2.8% [1.6%, 5.2%] more once settled
        (`bench/server_ab.py --a play_at_answer=false`), the loop's wake-up being CPU taken from
        the bots. The game loop takes over again for anything but a plain turn."""
        holding = bool(self._held)
        try:
            result, late = self._play_turn(game)
        except Exception as e:  # ends this game (in the game loop), not this bot's connection
            self._handed = e
        else:
            sent = self._now()
            if late or result.round_ended:
                self._handed = (result, late, sent)
            else:
                self._answer_deadline = sent + game.setup.turn_timeout_us / 1e6
                if self._held and not holding:
                    self._wake()  # the game loop's wait now ends when these are due
                return
        self._answers_for = None
        self._wake()

    def _count_turn(self, bots_s: float, observers_s: float, result: TurnOutput) -> None:
        s = self.stats
        s.turns += 1
        s.turn_us_total += bots_s * 1e6
        s.turn_us.append(bots_s * 1e6)
        s.observer_us_total += observers_s * 1e6
        s.skipped_turns += result.skipped

    async def _abort(self, game: Game, why: str) -> None:
        log.info("game aborted: %s", why)
        game.abort()
        self.stats.games_aborted += 1
        await self._broadcast(out.game_aborted())
