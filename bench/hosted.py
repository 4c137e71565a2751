"""Benchmark of hosted play: our server against the official Python Bot API's own speed.

(a) Client ceiling: one official-API bot (tests/e2e/bots/Idler, a `Bot` that sets a few rates
    and calls go() every turn) against a minimal in-process responder that answers every intent
    with the next tick at once (raw websockets, the same socket settings as our server: no
    compression, which the official server does not offer either).
(b) Hosted: a 1v1 of two such bots on ArenaServer at TPS -1 with a 1 s turn timeout, started
    and watched by an in-process controller (so observer ticks are built and sent too), the way
    `tankrl battle` runs one.
All in this process, bots as subprocesses booted as `tankrl battle` boots them, on the arena's
event loop (arena/event_loop.py: uvloop where installed). The machine is shared and its speed
drifts by tens of percent within seconds, so (a) and (b) stay up side by side and take turns:
each pair runs a phase of (a) while (b) is paused (PauseGame), then one of (b) while (a)'s
responder holds its next tick, in alternating order. Each phase plays SETTLE_TURNS untimed
turns, then `--turns` timed ones: a rig that has been paused does not play at its sustained
rate at once. Measured here (2 vCPU VM, phases of 1,600 turns, medians of 10): in the first 100
turns after a pause the one-bot rig (a) ran 10-20% faster than from turn 400 on (1,780-1,930
vs 1,560-1,600 turns/s) and the two-bot rigs 5-10% slower ((b) 1,290-1,360 vs 1,370-1,500;
(c) 1,460-1,510 vs 1,590-1,660, an instant responder, so not our server): by turn 200-400 they
have settled. (Why is not pinned down; one candidate is the kernel's per-task load tracking,
which decays while a rig sleeps and steers where its woken threads run.) A battle is not
paused, so the settled rate is the one to compare. Until 2026-12-06 phases were 200 turns timed
from turn 5, mostly this transient: ratio 0.74-0.82 there, 0.815-0.93 settled on the same
machine (17 runs, median 0.87), 0.68-0.80 over turns 5-100 in the same runs. The table
prints that early stretch too.
A phase's turns/s is turns completed over time between stamps taken as the rig sees turns
complete ((b): as observer ticks arrive, with the server's turn count, since at TPS -1 it
writes them in batches). ratio = median over the `--pairs` pairs of (b) / (a); goal >= 0.8.

Prints a short table (with each rig's bots' CPU per turn over all its phases, read from /proc
where there is one), then as its last line one JSON object: turns_per_s (b),
client_ceiling_turns_per_s (a), ratio, server_us_per_turn (the server's critical path of a
turn: engine step, the bots' messages built, serialised and written; mean over (b)).
With --bound it also runs (c) in the same rotation: the same two bots against an instant
responder, the most any server could reach on this machine at this load, and adds (b) / (c) to
the JSON as ratio_to_bound (how close our server comes to a server that costs nothing).
With --server-cpu it also runs (d) afterwards: the server alone, its two bots and controller
raw websockets clients in another process that answer at once, and adds the server process's
CPU per turn (server_cpu_us_per_turn: everything it does for a turn, receiving included).
Usage: python bench/hosted.py [--turns N] [--pairs K] [--bound] [--server-cpu]
"""

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from tankrl.arena import battle, booter, event_loop
from tankrl.arena.game_setup import GameSetup
from tankrl.arena.server import ArenaServer, ServerOptions
from tankrl.arena.server_messages import OBSERVER_TICK_PREFIX
from tankrl.arena.ws_connection import CountingClientConnection

BOT_DIR = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "bots" / "Idler"
WARMUP_TURNS = 200
SETTLE_TURNS = 300
"""Turns at the start of each phase that are not timed: after a pause a rig takes 200-400 turns
to settle to its sustained rate (see the module's docstring)."""
EARLY_TURNS = (5, 100)
"""The stretch of a phase's settling turns whose rate the table shows, against the timed one."""
TIMEOUT_S = 120
SERVER_ALONE_TURNS = 2000
"""Turns timed per run of (d) (its raw players' game is 10 rounds, about 8,000 turns)."""
SETUP = GameSetup(number_of_rounds=1000, turn_timeout_us=1_000_000)


Stamp = tuple[float, int]
"""(time, turns completed by then), taken as a rig sees turns complete."""


def turns_per_s(stamps: list[Stamp], first: int = SETTLE_TURNS, last: int = -1) -> float:
    """Turns/s over one phase's stamps from index `first` to `last` (by default the timed part,
    after the settling turns)."""
    (t0, n0), (t1, n1) = stamps[first], stamps[last]
    return (n1 - n0) / (t1 - t0)


# ---- (a) the client ceiling, (c) the same for two bots ----------------------------------------
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


# ---- (b) a hosted battle -----------------------------------------------------------------------
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


async def interleaved(
    turns: int, pairs: int, bound: bool
) -> tuple[dict[str, list[list[Stamp]]], Hosted, dict[str, float]]:
    """Turn-completion times per phase of (a), (b) and, with `bound`, (c), taking turns; (b)'s
    rig with its server's counters; and per rig its bots' CPU per turn in us over the timed
    phases (all of the rig's bots together; empty where it cannot be read)."""
    phases: dict[str, list[list[Stamp]]] = {"a": [], "b": [], "c": []}
    cpu_s: defaultdict[str, float] = defaultdict(float)
    cpu_turns = Counter[str]()
    ceiling, bound_rig, hosted = Responder(1), Responder(2) if bound else None, Hosted()
    responders = [r for r in (ceiling, bound_rig) if r is not None]
    async with asyncio.TaskGroup() as tg:
        try:
            async with asyncio.timeout(TIMEOUT_S):
                await asyncio.gather(hosted.start(tg), *(r.start() for r in responders))
                rigs: dict[str, Responder | Hosted] = {"a": ceiling, "b": hosted}
                if bound_rig is not None:
                    rigs["c"] = bound_rig
                for rig in rigs.values():  # warm-up
                    await rig.run(WARMUP_TURNS)
            for i in range(pairs):
                order = list(rigs.items()) if i % 2 == 0 else list(rigs.items())[::-1]
                for name, rig in order:
                    cpu0, turns0 = bots_cpu_s(rig.procs), rig.turns
                    async with asyncio.timeout(TIMEOUT_S):
                        phases[name].append(await rig.run(SETTLE_TURNS + turns))
                    cpu1 = bots_cpu_s(rig.procs)
                    if cpu0 is not None and cpu1 is not None:
                        cpu_s[name] += cpu1 - cpu0
                        cpu_turns[name] += rig.turns - turns0
        finally:
            for r in responders:
                r.close()
            await hosted.close()
    return phases, hosted, {k: cpu_s[k] / n * 1e6 for k, n in cpu_turns.items() if n}


# ---- (d) the server alone ---------------------------------------------------------------------
RAW_PLAYERS = """
import asyncio, sys
from tankrl.arena import raw_client as rc

async def main(url: str) -> None:
    controller = await rc.join_as_watcher(url)
    bots = [await rc.join_as_bot(url, name=f"Raw{i}") for i in range(2)]
    listed = await rc.wait_for_bots(controller, 2)
    addresses = [{"host": b["host"], "port": b["port"]} for b in listed]
    await controller.send(rc.start_game(addresses, number_of_rounds=10, turn_timeout_us=1_000_000))
    drive = lambda tick: {"type": "BotIntent", "turnRate": 5, "targetSpeed": 4}
    async def watch() -> None:
        async for _ in controller.ws:
            pass
    watching = asyncio.create_task(watch())
    await asyncio.gather(*(rc.play_bot(b, drive) for b in bots))
    watching.cancel()

asyncio.run(main(sys.argv[1]))
"""


async def server_alone(turns: int) -> dict[str, float]:
    """This process's CPU per turn while it only serves: two raw bots that answer every tick at
    once and a controller that reads every observer tick, all in one other process."""
    server = ArenaServer(ServerOptions(port=0, tps=-1, seed=1))
    await server.start()
    root = str(Path(__file__).resolve().parents[1])
    async with asyncio.TaskGroup() as tg:
        tg.create_task(server.serve_forever())
        players = await asyncio.create_subprocess_exec(
            sys.executable, "-c", RAW_PLAYERS, server.url, cwd=root
        )
        try:
            async with asyncio.timeout(TIMEOUT_S):
                stats = server.stats
                while stats.turns < WARMUP_TURNS:
                    await asyncio.sleep(0.005)
                t0, cpu0, turns0 = time.perf_counter(), time.process_time(), stats.turns
                while stats.turns < turns0 + turns:
                    if players.returncode is not None:
                        raise RuntimeError("the raw players ended early")
                    await asyncio.sleep(0.005)
                wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
                n = stats.turns - turns0
        finally:
            if players.returncode is None:
                players.kill()
            await players.wait()
            await server.close()
    return {"turns_per_s": n / wall, "cpu_us_per_turn": cpu / n * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--turns",
        type=int,
        default=1000,
        help=f"timed turns per phase (after {SETTLE_TURNS} settling turns)",
    )
    parser.add_argument("--pairs", type=int, default=8, help="(a), (b) pairs of phases")
    parser.add_argument(
        "--bound",
        action="store_true",
        help="also run (c): two bots against an instant responder (what any server could reach)",
    )
    parser.add_argument(
        "--server-cpu",
        action="store_true",
        help="also run (d): the server alone with raw clients, its CPU per turn",
    )
    args = parser.parse_args()
    phases, hosted, bots_cpu = event_loop.run(interleaved(args.turns, args.pairs, args.bound))
    runs = 3 if args.server_cpu else 0
    alone = [event_loop.run(server_alone(SERVER_ALONE_TURNS)) for _ in range(runs)]
    rates = {k: [turns_per_s(p) for p in phases[k]] for k in ("a", "b", "c")}
    n = hosted.turns

    def paired(top: str, bottom: str) -> float:
        return statistics.median(t / b for t, b in zip(rates[top], rates[bottom], strict=True))

    ratio = paired("b", "a")
    ceiling, rate = statistics.median(rates["a"]), statistics.median(rates["b"])
    gaps = sorted(b[0] - a[0] for p in phases["a"] for a, b in itertools.pairwise(p[SETTLE_TURNS:]))
    print(f"{args.pairs} interleaved pairs of phases, each {SETTLE_TURNS} settling turns then "
          f"{args.turns} timed; medians of the timed parts")  # fmt: skip
    print(f"(a) client ceiling, 1 bot, instant responder  {ceiling:7.0f} turns/s"
          f"  (p50 {gaps[len(gaps) // 2] * 1e3:.2f} ms/turn)")  # fmt: skip
    print(f"(b) hosted 1v1 on ArenaServer, TPS -1         {rate:7.0f} turns/s"
          f"  ({hosted.skipped_turns} skipped turns)")  # fmt: skip
    figures = {
        "turns_per_s": round(rate, 1),
        "client_ceiling_turns_per_s": round(ceiling, 1),
        "ratio": round(ratio, 3),
        "server_us_per_turn": round(hosted.critical_us / n, 1),
    }
    if rates["c"]:
        figures["ratio_to_bound"] = round(paired("b", "c"), 3)
        print(f"(c) 2 bots, instant 2-bot responder          "
              f"{statistics.median(rates['c']):7.0f} turns/s  (ratio bound for any server "
              f"{paired('c', 'a'):.2f}; (b)/(c) {paired('b', 'c'):.2f})")  # fmt: skip
    if alone:
        cpu = statistics.median(r["cpu_us_per_turn"] for r in alone)
        figures["server_cpu_us_per_turn"] = round(cpu, 1)
        print(f"(d) server alone, raw bots and controller     "
              f"{statistics.median(r['turns_per_s'] for r in alone):7.0f} turns/s  "
              f"(server process CPU {cpu:.0f} us per turn)")  # fmt: skip
    per_pair = ", ".join(f"{b / a:.2f}" for a, b in zip(rates["a"], rates["b"], strict=True))
    print(f"    per pair (b)/(a): {per_pair}")
    first, last = EARLY_TURNS
    early = {k: [turns_per_s(p, first, last) for p in phases[k]] for k in rates if phases[k]}
    early_ratio = statistics.median(b / a for a, b in zip(early["a"], early["b"], strict=True))
    print(f"    not timed, turns {first}-{last} after a pause: "
          + ", ".join(f"({k}) {statistics.median(v):.0f}" for k, v in early.items())
          + f" turns/s; (b)/(a) {early_ratio:.2f}")  # fmt: skip
    if bots_cpu:
        print("bots' CPU per turn (all of a rig's bots): "
              + ", ".join(f"({k}) {us:.0f} us" for k, us in bots_cpu.items()))  # fmt: skip
    print(f"server per turn: critical path {hosted.critical_us / n:.0f} us, observers after it "
          f"{hosted.observer_us / n:.0f} us; process CPU (server + controller) "
          f"{hosted.cpu_s / n * 1e6:.0f} us")  # fmt: skip
    print(f"ratio {ratio:.2f} (goal >= 0.8)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
