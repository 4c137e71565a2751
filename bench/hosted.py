"""Benchmark of hosted play: our server against the official Python Bot API's own speed.

(a) Client ceiling: one official-API bot (tests/e2e/bots/Idler, a `Bot` that sets a few rates
    and calls go() every turn) against a minimal in-process responder that answers every intent
    with the next tick at once (raw websockets, the same socket settings as our server: no
    compression, which the official server does not offer either).
(b) Hosted: a 1v1 of two such bots on ArenaServer at TPS -1 with a 1 s turn timeout, started
    and watched by an in-process controller (so observer ticks are built and sent too).
Both in this process, bots as subprocesses, on the arena's event loop (arena/event_loop.py:
uvloop where installed) like every run here. The machine is shared, so (a) and (b) run as short
alternating pairs (`--pairs`, `--turns` measured turns each after 200 warm-up turns) and the
medians are reported: ratio = median over pairs of (b) / (a); goal >= 0.8.

Prints a short table, then as its last line one JSON object: turns_per_s (b),
client_ceiling_turns_per_s (a), ratio, server_us_per_turn (the server's critical path of a
turn: engine step, the bots' messages built, serialised and written; mean over (b)).
With --bound it also runs (c): the same two bots against an instant responder, the most any
server could reach on this machine at this load, and adds (b) / (c) to the JSON as
ratio_to_bound (how close our server comes to a server that costs nothing).
With --server-cpu it also runs (d): the server alone, its two bots and controller raw websockets
clients in another process that answer at once, and adds the server process's CPU per turn
(server_cpu_us_per_turn: everything it does for a turn, receiving included) to the JSON.
Usage: python bench/hosted.py [--turns N] [--pairs K] [--bound] [--server-cpu]
"""

import argparse
import asyncio
import contextlib
import itertools
import json
import statistics
import sys
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from arena import booter, event_loop
from arena.game_setup import GameSetup
from arena.server import ArenaServer, ServerOptions
from arena.server_messages import OBSERVER_TICK_PREFIX
from arena.ws_connection import CountingClientConnection

BOT_DIR = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "bots" / "Idler"
WARMUP_TURNS = 200
TIMEOUT_S = 120


# ---- (a) the client ceiling, (c) the same for two bots ----------------------------------------
async def client_ceiling(turns: int, n_bots: int = 1) -> dict[str, float]:
    """Turns/s (and p50 ms per turn) of official-API bots against an instant responder that
    sends every bot the next (constant) tick as soon as all of them answered."""
    setup = GameSetup(number_of_rounds=1, turn_timeout_us=1_000_000).to_protocol()
    state = {
        "energy": 100.0, "x": 400.0, "y": 300.0, "direction": 90.0, "gunDirection": 90.0,
        "radarDirection": 90.0, "radarSweep": 0.0, "speed": 0.0, "turnRate": 0.0,
        "gunTurnRate": 0.0, "radarTurnRate": 0.0, "gunHeat": 0.0, "enemyCount": 1,
    }  # fmt: skip
    head = '{"type":"TickEventForBot","roundNumber":1,"turnNumber":'
    tail = ',"botState":' + json.dumps(state) + ',"bulletStates":[],"events":[]}'
    bots: list[ServerConnection] = []
    ready: set[ServerConnection] = set()
    answered: set[ServerConnection] = set()
    stamps: list[float] = []
    done = asyncio.Event()

    async def tick_all() -> None:
        text = head + str(len(stamps) + 1) + tail
        for ws in bots:
            await ws.send(text)

    async def respond(ws: ServerConnection) -> None:
        await ws.send(json.dumps({
            "type": "ServerHandshake", "sessionId": "AAAAAAAAAAAAAAAAAAAAAA",
            "variant": "Tank Royale", "version": "1.4.0", "gameTypes": ["1v1"],
        }))  # fmt: skip
        with contextlib.suppress(ConnectionClosed):  # bots are killed at the end
            await serve_bot(ws)

    async def serve_bot(ws: ServerConnection) -> None:
        async for frame in ws:
            kind = json.loads(frame)["type"]
            if kind == "BotHandshake":
                bots.append(ws)
                if len(bots) == n_bots:
                    for i, b in enumerate(bots):
                        await b.send(json.dumps({"type": "GameStartedEventForBot",
                                                 "myId": i + 1, "gameSetup": setup}))  # fmt: skip
            elif kind == "BotReady":
                ready.add(ws)
                if len(ready) == n_bots:
                    for b in bots:
                        await b.send('{"type":"RoundStartedEvent","roundNumber":1}')
                    await tick_all()
            elif kind == "BotIntent":
                answered.add(ws)
                if len(answered) < n_bots:
                    continue
                answered.clear()
                stamps.append(time.perf_counter())
                if len(stamps) > turns + WARMUP_TURNS:
                    done.set()
                    return
                await tick_all()

    async with serve(respond, "127.0.0.1", 0, compression=None) as srv:
        port = next(iter(srv.sockets)).getsockname()[1]
        url = f"ws://127.0.0.1:{port}"
        procs = [booter.boot(booter.resolve_bot(str(BOT_DIR)), url) for _ in range(n_bots)]
        try:
            async with asyncio.timeout(TIMEOUT_S):
                await done.wait()
        finally:
            booter.stop(procs)
    s = stamps[WARMUP_TURNS:]
    gaps = sorted(b - a for a, b in itertools.pairwise(s))
    return {"turns_per_s": (len(s) - 1) / (s[-1] - s[0]), "p50_ms": gaps[len(gaps) // 2] * 1e3}


# ---- (b) a hosted battle -----------------------------------------------------------------------
async def hosted_battle(turns: int) -> dict[str, float]:
    server = ArenaServer(ServerOptions(port=0, tps=-1, seed=1))
    await server.start()
    async with asyncio.TaskGroup() as tg:
        tg.create_task(server.serve_forever())
        bots = [booter.boot(booter.resolve_bot(str(BOT_DIR)), server.url) for _ in range(2)]
        try:
            async with asyncio.timeout(TIMEOUT_S):
                figures = await _control(server, turns)
        finally:
            booter.stop(bots)
            await server.close()
    return figures


async def _recv(ws: ClientConnection) -> str:
    async with asyncio.timeout(TIMEOUT_S):
        frame = await ws.recv()
    assert isinstance(frame, str)
    return frame


async def _control(server: ArenaServer, turns: int) -> dict[str, float]:
    """Start the game, time `turns` turns after the warm-up, stop the game. The controller
    counts the observer ticks the way `tankrl battle` does (CountingClientConnection: counted
    as they arrive, not decoded); a watcher task reads everything else."""
    async with connect(
        server.url, compression=None, max_size=None, create_connection=CountingClientConnection
    ) as ws:
        assert isinstance(ws, CountingClientConnection)
        hello = json.loads(await _recv(ws))
        await ws.send(json.dumps({"type": "ControllerHandshake", "sessionId": hello["sessionId"],
                                  "name": "bench", "version": "1"}))  # fmt: skip
        while True:
            msg = json.loads(await _recv(ws))
            if msg["type"] == "BotListUpdate" and len(msg["bots"]) == 2:
                break
        setup = GameSetup(number_of_rounds=1, turn_timeout_us=1_000_000)
        addresses = [{"host": b["host"], "port": b["port"]} for b in msg["bots"]]
        ws.count_prefix = OBSERVER_TICK_PREFIX
        await ws.send(json.dumps({"type": "StartGame", "botAddresses": addresses,
                                  "gameSetup": setup.to_protocol()}))  # fmt: skip
        stamps: dict[int, tuple[float, float, int, float, float]] = {}
        done = asyncio.get_running_loop().create_future()

        def on_count(n: int) -> None:
            if n in (WARMUP_TURNS, WARMUP_TURNS + turns):
                stamps[n] = (time.perf_counter(), time.process_time(), stats.turns,
                             stats.turn_us_total, stats.observer_us_total)  # fmt: skip
                if len(stamps) == 2:
                    done.set_result(None)

        stats = server.stats
        ws.on_count = on_count
        watching = asyncio.create_task(_watch(ws))
        await asyncio.wait([done, watching], return_when=asyncio.FIRST_COMPLETED)
        if not done.done():
            watching.result()  # raises why the game ended
        (t0, cpu0, turns0, us0, obs0), (t1, cpu1, turns1, us1, obs1) = stamps.values()
        wall, cpu, n = t1 - t0, cpu1 - cpu0, turns1 - turns0
        figures = {
            "turns_per_s": n / wall,
            "server_us_per_turn": (us1 - us0) / n,
            "observer_us_per_turn": (obs1 - obs0) / n,
            "process_cpu_us_per_turn": cpu / n * 1e6,
            "skipped_turns": stats.skipped_turns,
        }
        await ws.send('{"type":"StopGame"}')
        watching.cancel()
    return figures


async def _watch(ws: ClientConnection) -> None:
    """Everything but the counted ticks; the game must not end while it is timed."""
    async for frame in ws:
        if '"GameAbortedEvent"' in frame or '"GameEnded' in frame:
            raise RuntimeError(f"the game ended early: {frame[:80]!r}")
    raise RuntimeError("the server closed the controller's connection mid-game")


# ---- (d) the server alone ---------------------------------------------------------------------
RAW_PLAYERS = """
import asyncio, sys
from arena import raw_client as rc

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
    parser.add_argument("--turns", type=int, default=600, help="measured turns per run")
    parser.add_argument("--pairs", type=int, default=5, help="alternating (a), (b) pairs")
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
    ceilings, hosted, bounds, alone = [], [], [], []
    for _ in range(args.pairs):
        ceilings.append(event_loop.run(client_ceiling(args.turns)))
        hosted.append(event_loop.run(hosted_battle(args.turns)))
        if args.bound:
            bounds.append(event_loop.run(client_ceiling(args.turns, n_bots=2)))
        if args.server_cpu:
            alone.append(event_loop.run(server_alone(args.turns * 3)))

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    ratio = statistics.median(
        h["turns_per_s"] / c["turns_per_s"] for c, h in zip(ceilings, hosted, strict=True)
    )
    ceiling, rate = median(ceilings, "turns_per_s"), median(hosted, "turns_per_s")
    server_us = statistics.fmean(h["server_us_per_turn"] for h in hosted)
    print(f"{args.pairs} alternating pairs of {args.turns} turns; medians")
    print(f"(a) client ceiling, 1 bot, instant responder  {ceiling:7.0f} turns/s"
          f"  (p50 {median(ceilings, 'p50_ms'):.2f} ms/turn)")  # fmt: skip
    print(f"(b) hosted 1v1 on ArenaServer, TPS -1         {rate:7.0f} turns/s"
          f"  ({sum(h['skipped_turns'] for h in hosted):.0f} skipped turns)")  # fmt: skip
    figures = {
        "turns_per_s": round(rate, 1),
        "client_ceiling_turns_per_s": round(ceiling, 1),
        "ratio": round(ratio, 3),
        "server_us_per_turn": round(server_us, 1),
    }
    if bounds:
        bound_ratio = statistics.median(
            b["turns_per_s"] / c["turns_per_s"] for c, b in zip(ceilings, bounds, strict=True)
        )
        to_bound = statistics.median(
            h["turns_per_s"] / b["turns_per_s"] for h, b in zip(hosted, bounds, strict=True)
        )
        figures["ratio_to_bound"] = round(to_bound, 3)
        print(f"(c) 2 bots, instant 2-bot responder          "
              f"{median(bounds, 'turns_per_s'):7.0f} turns/s  (ratio bound for any server "
              f"{bound_ratio:.2f}; (b)/(c) {to_bound:.2f})")  # fmt: skip
    if alone:
        figures["server_cpu_us_per_turn"] = round(median(alone, "cpu_us_per_turn"), 1)
        print(f"(d) server alone, raw bots and controller     "
              f"{median(alone, 'turns_per_s'):7.0f} turns/s  (server process CPU "
              f"{median(alone, 'cpu_us_per_turn'):.0f} us per turn)")  # fmt: skip
    pairs = zip(ceilings, hosted, strict=True)
    per_pair = ", ".join(f"{c['turns_per_s']:.0f}/{h['turns_per_s']:.0f}" for c, h in pairs)
    print(f"    per pair (a)/(b) turns/s: {per_pair}")
    print(f"server per turn: critical path {server_us:.0f} us, observers after it "
          f"{median(hosted, 'observer_us_per_turn'):.0f} us; process CPU (server + controller) "
          f"{median(hosted, 'process_cpu_us_per_turn'):.0f} us")  # fmt: skip
    print(f"ratio {ratio:.2f} (goal >= 0.8)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
