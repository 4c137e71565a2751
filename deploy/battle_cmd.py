"""`tankrl battle BOT BOT [...]`: run one battle between bots (built-in names such as SpinBot, or
bot directories holding <Name>.json and <Name>.py) on our server or a running one, and print
the results table. Exits non-zero when the battle could not be completed."""

import argparse
from pathlib import Path
from typing import Any

from tankrl.arena.server.battle import BattleError, BattleSpec, format_results, run_battle
from tankrl.arena.server.booter import BootError


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    p = sub.add_parser("battle", help="run a battle between bots and print the results")
    p.add_argument("bots", nargs="+", metavar="BOT", help="built-in bot name or bot directory")
    p.add_argument("--rounds", type=int, default=10, help="number of rounds (default 10)")
    p.add_argument("--record", type=Path, default=None, help="write a replay to this file")
    p.add_argument(
        "--server-url", default=None, help="use a running server (default: start our own)"
    )
    p.add_argument("--seed", type=int, default=None, help="game seed (embedded server only)")
    p.add_argument("--tps", type=int, default=-1, help="turns per second (default -1 = unlimited)")
    p.add_argument(
        "--turn-timeout-us", type=int, default=30_000, help="turn deadline in microseconds"
    )
    p.add_argument("--bot-secret", default=None, help="secret the bots present to the server")
    p.add_argument("--controller-secret", default=None, help="secret this controller presents")
    p.set_defaults(handler=battle)


def battle(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        print("error: --rounds must be at least 1")
        return 2
    if len(args.bots) < 2:
        print("error: name at least two bots")
        return 2
    spec = BattleSpec(
        bots=tuple(args.bots),
        rounds=args.rounds,
        server_url=args.server_url,
        seed=args.seed,
        tps=args.tps,
        record=args.record,
        turn_timeout_us=args.turn_timeout_us,
        bot_secret=args.bot_secret,
        controller_secret=args.controller_secret,
    )
    try:
        result = run_battle(spec)
    except (BattleError, BootError, OSError) as e:
        print(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        print("interrupted")
        return 130
    print(format_results(result))
    return 0
