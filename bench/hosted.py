"""Benchmark of hosted play: our server against the official Python Bot API's own speed.

(a) Client ceiling: one official-API bot against an instant in-process responder.
(b) Hosted: a 1v1 of two such bots on ArenaServer at TPS -1, started and watched by an in-process
    controller (so observer ticks are built and sent too), the way `tankrl battle` runs one.
The rigs are in bench/hosted_rigs.py. The machine's speed drifts within seconds, so (a) and (b)
stay up side by side and take turns: each of `--pairs` pairs runs a phase of (a) while (b) is
paused, then one of (b) while (a) waits, in alternating order; ratio is the median over pairs of
(b) / (a), so the drift falls inside each pair. Each phase plays SETTLE_TURNS untimed turns
first, because a rig that was paused takes a few hundred turns to reach its sustained rate and a
battle is never paused (the table still shows the unsettled rates over EARLY_TURNS). A phase's
turns/s is over stamps taken as the rig sees turns complete ((b): as observer ticks arrive, with
the server's turn count, since at TPS -1 it writes them in batches). server_us_per_turn is the
server's critical path (engine step, the bots' messages built, serialised and written).
--bound adds (c), the same two bots against an instant responder, the most any server could
reach at this load, to the rotation: ratio_to_bound = (b) / (c).
--server-cpu adds (d) afterwards, the server alone with raw websockets clients in another process
that answer at once: server_cpu_us_per_turn, its process's CPU per turn, receiving included.
Usage: python -m bench.hosted [--turns N] [--pairs K] [--bound] [--server-cpu]
"""

import argparse
import asyncio
import itertools
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from bench.hosted_rigs import (
    SETTLE_TURNS,
    TIMEOUT_S,
    WARMUP_TURNS,
    Hosted,
    Responder,
    Stamp,
    bots_cpu_s,
    turns_per_s,
)
from bench.judge import Target, finish
from tankrl.arena.server import event_loop
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer

TARGETS = (Target("ratio", ">=", 0.8, "none", "hosted / client ceiling"),)
EARLY_TURNS = (5, 100)
"""The stretch of a phase's settling turns whose rate the table shows, against the timed one."""
SERVER_ALONE_TURNS = 2000
"""Turns timed per run of (d) (its raw players' game is 10 rounds, about 8,000 turns)."""


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
from tankrl.arena.server import raw_client as rc

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
    parser = argparse.ArgumentParser(
        prog="python -m bench.hosted", description=__doc__.splitlines()[0]
    )
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
    finish("hosted", figures, TARGETS)


if __name__ == "__main__":
    main()
