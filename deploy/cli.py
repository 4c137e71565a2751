"""The `tankrl` command line: one subcommand per user task, each in its own module.

Each command module in COMMAND_MODULES exposes `register(subparsers)`, which adds its parser and
sets `handler`; handlers import heavy dependencies (torch, ray) lazily, so `tankrl --help` is fast.
"""

import argparse
import importlib
import signal
import sys
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]

COMMAND_MODULES = (
    "tankrl.deploy.contract_cmd",
    "tankrl.deploy.export_cmd",
    "tankrl.deploy.serve_cmd",
    "tankrl.deploy.battle_cmd",
    "tankrl.deploy.bot_cmd",
    "tankrl.deploy.train_cmd",
    "tankrl.deploy.replay_cmd",
    "tankrl.deploy.plot_cmd",
    "tankrl.deploy.evaluate_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tankrl",
        description="Train Robocode Tank Royale bots with PPO: a clean-room arena server, "
        "bots on the official Bot API, and a Ray learner.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `tankrl ... | head` ends quietly
    # `kill` ends a command as Ctrl-C does, so the bots and servers it started are ended too
    # (without this, the bot subprocesses of a killed `tankrl evaluate` kept running)
    signal.signal(signal.SIGTERM, _interrupt)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
