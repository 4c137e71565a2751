"""`tankrl bot`: run the PPO bot as an ordinary Tank Royale bot on any server (ours or the
official one), playing fixed weights (`--weights`) or training with a learner (`--learner`)."""

import argparse
import os
import signal
import sys
from typing import Any

DEFAULT_NAME = "TankRL"


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    p = sub.add_parser(
        "bot",
        help="run the PPO bot as a Tank Royale bot",
        description="Connect the PPO bot (official Python Bot API) to a Tank Royale server and "
        "play until the game ends. Without --weights or --learner it plays a random "
        "initial policy.",
    )
    p.add_argument(
        "--server-url",
        default=os.environ.get("SERVER_URL", "ws://localhost:7654"),
        help="server to join (default: $SERVER_URL or ws://localhost:7654)",
    )
    p.add_argument(
        "--secret",
        default=os.environ.get("SERVER_SECRET"),
        help="bot secret of the server (default: $SERVER_SECRET)",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--weights", help="policy package (.zip), policy dir or run dir to play")
    src.add_argument("--learner", help="name of a running LearnerActor to train with (Ray)")
    p.add_argument(
        "--ray-address", default="auto", help="Ray cluster to find the learner in (default: auto)"
    )
    p.add_argument("--contract", default="v2", help="contract when no weights are given")
    p.add_argument("--name", default=DEFAULT_NAME, help="bot name shown by the server")
    p.add_argument("--seed", type=int, default=None, help="sampling seed (default: random)")
    p.add_argument(
        "--deterministic",
        action="store_true",
        help="play for keeps: the action means, except the dims the policy's config names in "
        "actors.play_sampled (or --sample)",
    )
    p.add_argument(
        "--sample",
        metavar="DIMS",
        default=None,
        help="with --deterministic: the action dims still sampled (comma-separated, all or none; "
        "default: the policy's actors.play_sampled)",
    )
    p.add_argument(
        "--record-trajectories",
        metavar="FILE",
        help="also append every round's trajectory to FILE (msgpack)",
    )
    p.add_argument(
        "--stay", action="store_true", help="stay connected after a game ends (for more games)"
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tankrl.actor.ppo_bot import BotOptions, run_ppo_bot

    # a plain kill ends the bot at once: the official Bot API may hang on an orderly exit
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    opts = BotOptions(
        server_url=args.server_url,
        secret=args.secret,
        weights=args.weights,
        learner=args.learner,
        ray_address=args.ray_address,
        contract=args.contract,
        name=args.name,
        seed=args.seed,
        deterministic=args.deterministic,
        sample=args.sample,
        record_trajectories=args.record_trajectories,
        exit_on_game_end=not args.stay,
    )
    try:
        run_ppo_bot(opts)
    except (ValueError, OSError) as error:
        print(f"tankrl bot: {error}", file=sys.stderr)
        return 2
    return 0
