"""`tankrl train`: the main job (see deploy/train.py)."""

import argparse
import sys
from typing import Any

from tankrl.deploy.config_cli import add_config_args, resolve
from tankrl.shared.config import ConfigError


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    p = sub.add_parser(
        "train",
        help="train a PPO bot (local Ray instance, or a cluster with --address)",
        description="Start Ray (or join a cluster), the learner, native and hosted bot actors "
        "against the scripted opponents; report progress; stop after --train.minutes or at "
        "--train.target-win-rate; leave weights/<run>/ with latest, checkpoints, config and "
        "metrics.",
    )
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster address (e.g. auto after `ray start --head`); "
        "default: a local instance started and stopped by this command",
    )
    p.add_argument(
        "--bots", type=int, default=None, help="hosted bots (shorthand for --actors.hosted-bots)"
    )
    p.add_argument("--minutes", type=float, default=None, help="shorthand for --train.minutes")
    p.add_argument("--no-dashboard", action="store_true", help="do not start the Ray dashboard")
    add_config_args(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.bots is not None:
        setattr(args, "cfg:actors.hosted_bots", args.bots)
    if args.minutes is not None:
        setattr(args, "cfg:train.minutes", args.minutes)
    try:
        cfg = resolve(args)
    except (ConfigError, ValueError) as error:
        print(f"tankrl train: {error}", file=sys.stderr)
        return 2
    from tankrl.deploy.train import train

    def say(line: str) -> None:  # flushed: progress must show through pipes and log files
        print(line, flush=True)

    result = train(cfg, address=args.address, dashboard=not args.no_dashboard, print_fn=say)
    return 0 if result.policy_version >= 0 else 1
