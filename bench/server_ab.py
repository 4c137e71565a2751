"""Paired comparison of two ArenaServer configurations on hosted play (bench/hosted_rigs.py).

Two hosted 1v1s of official-API bots (the Idler), one on a server with options A and one with
options B, and the instant two-bot responder (c) stay up side by side and take turns in short
phases, in a random order per round, so the machine's drift lands on both alike. Each phase plays
SETTLE_TURNS untimed turns (a paused rig takes that long to reach its sustained rate), then
`--turns` timed ones, whose turns/s comes from the server's turn count as the observer ticks
arrive. Prints turns/s per rig, the median over rounds of B / A with a bootstrap 95% interval and
how many rounds B won, each rig against (c), each server's critical path and the process CPU per
turn in its phases (server and in-process controller, everything this process did meanwhile).
A comparison has no targets: its `met` is null.

Options are ServerOptions fields as name=value (value in JSON), for example
  python -m bench.server_ab --a observer_batch_s=0 --rounds 80
compares the default server (B) against one that writes observers' ticks every turn (A).
With no options A and B are the same server, and the interval shows the noise floor.
Usage: python -m bench.server_ab [--a NAME=VALUE ...] [--b NAME=VALUE ...] [--turns N]
       [--rounds K]
"""

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any

from bench import hosted_rigs
from bench.hosted_rigs import Hosted, Responder
from bench.judge import finish
from tankrl.arena.server import event_loop
from tankrl.arena.server.options import ServerOptions

BOOTSTRAP_DRAWS = 2000


def parse_options(pairs: list[str]) -> dict[str, Any]:
    fields = ServerOptions.__dataclass_fields__
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in fields:
            raise SystemExit(f"not a ServerOptions field as name=value: {pair!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            raise SystemExit(f"{name}: {value!r} is not a JSON value") from None
    return options


async def compare(
    a: dict[str, Any], b: dict[str, Any], turns: int, rounds: int
) -> tuple[dict[str, list[float]], dict[str, float], dict[str, Hosted]]:
    """Turns/s per phase and process CPU per turn, per rig ('A', 'B', 'c')."""
    rates: dict[str, list[float]] = {"A": [], "B": [], "c": []}
    cpu: dict[str, float] = {k: 0.0 for k in rates}
    played = Counter[str]()
    rigs, bound = {"A": Hosted(**a), "B": Hosted(**b)}, Responder(2)
    async with asyncio.TaskGroup() as tg:
        try:
            async with asyncio.timeout(hosted_rigs.TIMEOUT_S):
                await asyncio.gather(*(r.start(tg) for r in rigs.values()), bound.start())
                runs = {"A": rigs["A"].run, "B": rigs["B"].run, "c": bound.run}
                for run in runs.values():
                    await run(hosted_rigs.WARMUP_TURNS)
            for i in range(rounds):
                order = list(runs.items())
                random.shuffle(order)
                for name, run in order:
                    cpu0 = time.process_time()
                    async with asyncio.timeout(hosted_rigs.TIMEOUT_S):
                        stamps = await run(hosted_rigs.SETTLE_TURNS + turns)
                    cpu[name] += time.process_time() - cpu0
                    played[name] += stamps[-1][1] - stamps[0][1] + 1
                    rates[name].append(hosted_rigs.turns_per_s(stamps))
                print(f"\r{i + 1}/{rounds} rounds", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
        finally:
            bound.close()
            for r in rigs.values():
                await r.close()
    return rates, {k: cpu[k] / played[k] * 1e6 for k in cpu}, rigs


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.server_ab",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--a", nargs="*", default=[], help="options of server A (name=value)")
    parser.add_argument("--b", nargs="*", default=[], help="options of server B (name=value)")
    parser.add_argument("--turns", type=int, default=200, help="timed turns per phase")
    parser.add_argument("--rounds", type=int, default=80, help="rounds of one phase per rig")
    args = parser.parse_args()
    a, b = parse_options(args.a), parse_options(args.b)
    rates, cpu, rigs = event_loop.run(compare(a, b, args.turns, args.rounds))
    ratios = [y / x for x, y in zip(rates["A"], rates["B"], strict=True)]
    draws = sorted(
        statistics.median(random.choices(ratios, k=len(ratios))) for _ in range(BOOTSTRAP_DRAWS)
    )
    low, high = draws[int(0.025 * BOOTSTRAP_DRAWS)], draws[int(0.975 * BOOTSTRAP_DRAWS) - 1]
    print(f"A {a}\nB {b}")
    for k in ("A", "B", "c"):
        line = (
            f"  {k}: {statistics.median(rates[k]):6.0f} turns/s, process CPU {cpu[k]:4.0f} us/turn"
        )
        if k in rigs:
            of_c = statistics.median(x / c for x, c in zip(rates[k], rates["c"], strict=True))
            line += (
                f", critical path {rigs[k].critical_us / rigs[k].turns:4.0f} us, {of_c:.3f} of (c)"
            )
        print(line)
    wins = sum(r > 1 for r in ratios)
    print(f"B / A: median {statistics.median(ratios):.3f}, 95% interval [{low:.3f}, {high:.3f}], "
          f"B faster in {wins} of {len(ratios)} rounds")  # fmt: skip
    summary = {
        "b_over_a": round(statistics.median(ratios), 3),
        "interval": [round(low, 3), round(high, 3)],
        "a_turns_per_s": round(statistics.median(rates["A"]), 1),
        "b_turns_per_s": round(statistics.median(rates["B"]), 1),
    }
    finish("server_ab", summary)


if __name__ == "__main__":
    main()
