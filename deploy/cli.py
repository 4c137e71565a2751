"""The `tankrl` command line: one subcommand per user task, each in its own module.

Each command module in COMMAND_MODULES exposes `register(subparsers)`, which adds its parser and
sets `handler`; handlers import heavy dependencies (torch, ray) lazily, so `tankrl --help` is fast.
"""

import argparse
import importlib
import os
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
    # SIGPIPE stays ignored (Python's default): a bot or observer that vanishes mid-write is an
    # EPIPE for the server to handle, not the end of the process with everything it runs
    # `kill` ends a command as Ctrl-C does, so the bots and servers it started are ended too
    # (without this, the bot subprocesses of a killed `tankrl evaluate` kept running)
    signal.signal(signal.SIGTERM, _interrupt)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return handler(args)
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """Our output's reader went away (`tankrl ... | head`): end quietly, with nothing more
    written to the closed pipe (not even the interpreter's final flush)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


if __name__ == "__main__":
    sys.exit(main())
