"""The rigs of hosted play that bench/hosted.py and bench/server_ab.py time, phase by phase.

Responder: official-API bots (tests/e2e/bots/Idler, a `Bot` that sets a few rates and calls go()
every turn) against an in-process responder that answers as soon as all of them answered, with
the same socket settings as our server (raw websockets, no compression, which the official
server does not offer either): the most any server could reach on this machine.
Hosted: two such bots on ArenaServer at TPS -1 with a 1 s turn timeout, started, paused and
resumed by an in-process controller that counts observer ticks as `tankrl battle` does.
Bots are subprocesses booted as `tankrl battle` boots them. A rig's run(turns) plays one phase
and returns its stamps, (time, turns completed), taken as the rig sees turns complete; between
phases the rig waits (the responder holds its next tick, the hosted game is paused), so several
rigs can stay up side by side and take turns while the machine's speed drifts.
"""

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server import battle, booter
from tankrl.arena.server.connection import CountingClientConnection
from tankrl.arena.server.messages import OBSERVER_TICK_PREFIX
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer

BOT_DIR = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "bots" / "Idler"
WARMUP_TURNS = 200
SETTLE_TURNS = 300
"""Turns at the start of each phase that are not timed: a rig that was paused takes a few hundred
turns to reach its sustained rate, and a battle is never paused."""
TIMEOUT_S = 120
SETUP = GameSetup(number_of_rounds=1000, turn_timeout_us=1_000_000)


Stamp = tuple[float, int]
"""(time, turns completed by then), taken as a rig sees turns complete."""


def turns_per_s(stamps: list[Stamp], first: int = SETTLE_TURNS, last: int = -1) -> float:
    """Turns/s over one phase's stamps from index `first` to `last` (by default the timed part,
    after the settling turns)."""
    (t0, n0), (t1, n1) = stamps[first], stamps[last]
    return (n1 - n0) / (t1 - t0)


# ---- hosted.py's (a) client ceiling with one bot, (c) its bound with two -----------------------
class Responder:
    """Official-API bots against an instant responder that sends every bot the next (constant)
    tick as soon as all of them answered, while the phase has turns left."""

    def __init__(self, n_bots: int) -> None:
        self.n_bots = n_bots
        state = {
            "energy": 100.0, "x": 400.0, "y": 300.0, "direction": 90.0, "gunDirection": 90.0,
            "radarDirection": 90.0, "radarSweep": 0.0, "speed": 0.0, "turnRate": 0.0,
            "gunTurnRate": 0.0, "radarTurnRate": 0.0, "gunHeat": 0.0, "enemyCount": 1,
        }  # fmt: skip
        self._head = '{"type":"TickEventForBot","roundNumber":1,"turnNumber":'
        self._tail = ',"botState":' + json.dumps(state) + ',"bulletStates":[],"events":[]}'
        self._turn = 0
        self._bots: list[ServerConnection] = []
        self._ready: set[ServerConnection] = set()
        self._answered: set[ServerConnection] = set()
        self._all_ready = asyncio.Event()
        self._stamps: list[Stamp] = []
        self._due = 0
        self._phase_done: asyncio.Future[None] | None = None
        self._server: Server | None = None
        self.procs: list[booter.BootedBot] = []
        self.turns = 0

    async def start(self) -> None:
        self._server = await serve(self._respond, "127.0.0.1", 0, compression=None)
        port = next(iter(self._server.sockets)).getsockname()[1]
        bot = booter.resolve_bot(str(BOT_DIR))
        self.procs = [booter.boot(bot, f"ws://127.0.0.1:{port}") for _ in range(self.n_bots)]
        await self._all_ready.wait()

    async def run(self, turns: int) -> list[Stamp]:
        """Play `turns` turns; when each one was completed (all bots answered)."""
        self._stamps, self._due = [], turns
        self._phase_done = asyncio.get_running_loop().create_future()
        await self._tick_all()
        await self._phase_done
        self.turns += len(self._stamps)
        return self._stamps

    def close(self) -> None:
        booter.stop(self.procs)
        if self._server is not None:
            self._server.close()

    async def _tick_all(self) -> None:
        self._turn += 1
        text = self._head + str(self._turn) + self._tail
        for ws in self._bots:
            await ws.send(text)

    async def _respond(self, ws: ServerConnection) -> None:
        await ws.send(json.dumps({
            "type": "ServerHandshake", "sessionId": "AAAAAAAAAAAAAAAAAAAAAA",
            "variant": "Tank Royale", "version": "1.4.0", "gameTypes": ["1v1"],
        }))  # fmt: skip
        with contextlib.suppress(ConnectionClosed):  # bots are killed at the end
            async for frame in ws:
                await self._on_message(ws, json.loads(frame)["type"])

    async def _on_message(self, ws: ServerConnection, kind: str) -> None:
        if kind == "BotHandshake":
            self._bots.append(ws)
            if len(self._bots) == self.n_bots:
                setup = SETUP.to_protocol()
                for i, b in enumerate(self._bots):
                    await b.send(json.dumps({"type": "GameStartedEventForBot",
                                             "myId": i + 1, "gameSetup": setup}))  # fmt: skip
        elif kind == "BotReady":
            self._ready.add(ws)
            if len(self._ready) == self.n_bots:
                for b in self._bots:
                    await b.send('{"type":"RoundStartedEvent","roundNumber":1}')
                self._all_ready.set()
        elif kind == "BotIntent":
            self._answered.add(ws)
            if len(self._answered) < self.n_bots:
                return
            self._answered.clear()
            self._stamps.append((time.perf_counter(), len(self._stamps)))
            if len(self._stamps) < self._due:
                await self._tick_all()
            elif self._phase_done is not None and not self._phase_done.done():
                self._phase_done.set_result(None)  # the bots wait for the next phase's tick


# ---- hosted.py's (b), server_ab.py's A and B: a hosted battle -----------------------------------
class Hosted:
    """Two official-API bots on ArenaServer, started, paused and resumed by a controller that
    counts the observer ticks the way `tankrl battle` does (CountingClientConnection)."""

    def __init__(self, **options: Any) -> None:
        """`options`: ServerOptions fields other than the defaults here."""
        self.server = ArenaServer(ServerOptions(**{"port": 0, "tps": -1, "seed": 1, **options}))
        self.procs: list[booter.BootedBot] = []
        self._stack = contextlib.AsyncExitStack()
        self._stamps: list[Stamp] = []
        self._started = False
        self.cpu_s = 0.0
        self.critical_us = self.observer_us = 0.0
        self.turns = 0
        self.skipped_turns = 0

    async def start(self, tg: asyncio.TaskGroup) -> None:
        server = self.server
        await server.start()
        tg.create_task(server.serve_forever())
        bot = booter.resolve_bot(str(BOT_DIR))
        self.procs = [booter.boot(bot, server.url) for _ in range(2)]
        ws = await self._stack.enter_async_context(
            connect(
                server.url,
                compression=None,
                max_size=None,
                create_connection=CountingClientConnection,
            )
        )
        assert isinstance(ws, CountingClientConnection)
        self._ws = ws
        spec = battle.BattleSpec(bots=(str(BOT_DIR),) * 2)
        await battle.controller_handshake(ws, spec)
        self._addresses = await battle.wait_for_bots(ws, self.procs, spec)
        ws.count_prefix = OBSERVER_TICK_PREFIX
        ws.on_count = lambda _: self._on_tick()

    def _on_tick(self) -> None:
        # the server's count, not this tick's: at TPS -1 it writes observers' ticks in batches
        self._stamps.append((time.perf_counter(), self.server.stats.turns))
        if len(self._stamps) == self._due:
            self._phase_done.set_result(None)

    async def run(self, turns: int) -> list[Stamp]:
        """Resume the game (start it the first time), play `turns` turns, pause it; stamps
        as the observer ticks arrived. Turns the server plays before the pause takes effect
        are not counted in any phase."""
        self._stamps, self._due = [], turns
        self._phase_done = asyncio.get_running_loop().create_future()
        stats = self.server.stats
        cpu0, turns0 = time.process_time(), stats.turns
        us0, obs0 = stats.turn_us_total, stats.observer_us_total
        if self._started:
            await self._ws.send('{"type":"ResumeGame"}')
        else:
            self._started = True
            self._watching = asyncio.create_task(self._watch())
            await self._ws.send(json.dumps({"type": "StartGame", "botAddresses": self._addresses,
                                            "gameSetup": SETUP.to_protocol()}))  # fmt: skip
        await asyncio.wait([self._phase_done, self._watching], return_when=asyncio.FIRST_COMPLETED)
        if self._watching.done():
            self._watching.result()  # raises why the game ended
        stamps = self._stamps
        self._stamps, self._due = [], 0
        self.cpu_s += time.process_time() - cpu0
        self.turns += stats.turns - turns0
        self.critical_us += stats.turn_us_total - us0
        self.observer_us += stats.observer_us_total - obs0
        self.skipped_turns = stats.skipped_turns
        await self._ws.send('{"type":"PauseGame"}')
        return stamps

    async def _watch(self) -> None:
        """Everything but the counted ticks; the game must not end while it is timed."""
        async for frame in self._ws:
            if '"GameAbortedEvent"' in frame or '"GameEnded' in frame:
                raise RuntimeError(f"the game ended early: {frame[:80]!r}")
        raise RuntimeError("the server closed the controller's connection mid-game")

    async def close(self) -> None:
        if self._started:
            self._watching.cancel()
        booter.stop(self.procs)
        await self._stack.aclose()
        await self.server.close()


def bots_cpu_s(procs: list[booter.BootedBot]) -> float | None:
    """CPU time (user and system, all threads) the bot processes have used so far; None where
    there is no /proc to read it from."""
    total = 0
    for b in procs:
        try:
            stat = Path(f"/proc/{b.process.pid}/stat").read_text()
        except OSError:
            return None
        fields = stat.rsplit(")", 1)[1].split()  # from field 3 (state) on: utime, stime at 14, 15
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")
