"""`tankrl evaluate RUN_OR_PACKAGE`: play a policy against the scripted opponents, hosted (official
Bot API bots on our server) or as a native estimate, and print a table (or `--json`) of rounds
won with a 95% interval, official 1st places, mean score, bullet-damage share and, with
`--motion`, how smoothly our bot drives. Shells in deploy/evaluation.py, figures in eval_stats.py.
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from tankrl.deploy.eval_stats import WIN_DEFINITION
from tankrl.shared.config import DEFAULT_OPPONENTS, NAMED_OPPONENTS

DESCRIPTION = f"""\
Play a policy (a run dir using its latest/, a run name under --weights-dir, a policy dir or a
package zip) against scripted opponents and print, per opponent and over all: rounds won % with
a 95% Wilson interval, official 1st places %, our mean round score and our share of the bullet
damage. Hosted by default: the TankRL bot directory and the opponent's, booted as processes on our
embedded server; --native gives a fast in-process estimate (marked as such). The policy plays
for keeps: its action means, except the dims its run config names in actors.play_sampled, which
are sampled at the learned std (--sample and --stochastic override). Definitions:
{WIN_DEFINITION}."""


def _opponents(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in NAMED_OPPONENTS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown opponent(s) {', '.join(unknown) or '(none)'}; "
            f"known: {','.join(NAMED_OPPONENTS)}"
        )
    return tuple(dict.fromkeys(names))


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    """Add `tankrl evaluate`."""
    p = sub.add_parser(
        "evaluate",
        help="play a policy against the scripted opponents and print win rates",
        description=DESCRIPTION,
    )
    p.add_argument("policy", metavar="RUN_OR_PACKAGE", help="run dir, run name, policy dir or zip")
    p.add_argument("--weights-dir", type=Path, default=Path("weights"), help="where runs live")
    p.add_argument("--rounds", type=int, default=100, help="rounds per opponent (default 100)")
    p.add_argument(
        "--opponents",
        type=_opponents,
        default=DEFAULT_OPPONENTS,
        help="comma-separated opponents (default: the ten sample bots; also Surfer, Expert)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead")
    p.add_argument(
        "--native", action="store_true", help="fast in-process estimate instead of hosted battles"
    )
    p.add_argument(
        "--motion",
        action="store_true",
        help="add motion columns: speed reversals per 100 turns, mean |change of turn rate| "
        "per turn, distance per round",
    )
    actions = p.add_mutually_exclusive_group()
    actions.add_argument(
        "--stochastic", action="store_true", help="sample every action dim (= --sample all)"
    )
    actions.add_argument(
        "--sample",
        metavar="DIMS",
        default=None,
        help="action dims to sample, the others at their means: comma-separated names, all or "
        "none (default: the policy's actors.play_sampled; none for older policies)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of battles and sampling (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="hosted battles at once (default 2)")
    p.add_argument(
        "--turn-timeout-us",
        type=int,
        default=1_000_000,
        help="hosted turn deadline (default 1 s: measure the policy, not timeouts)",
    )
    p.add_argument(
        "--arenas",
        type=int,
        default=64,
        help="native: at most this many arenas per opponent (fewer when whole battles of "
        "--battle-rounds need fewer)",
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=5000,
        help="native: cut rounds longer than this (counted as not won; default 5000)",
    )
    p.add_argument(
        "--battle-rounds",
        type=int,
        default=10,
        help="rounds per battle, hosted and native: an opponent that learns (Surfer) keeps what "
        "it learned for one battle (default 10, as in training: arena.battle_rounds)",
    )
    p.add_argument("--log-dir", type=Path, default=None, help="hosted: keep the bots' logs here")
    p.set_defaults(handler=evaluate)


def _check(args: argparse.Namespace) -> str | None:
    """A usage problem, or None."""
    for flag in ("rounds", "jobs", "turn_timeout_us", "arenas", "max_turns", "battle_rounds"):
        if getattr(args, flag) < 1:
            return f"--{flag.replace('_', '-')} must be at least 1"
    return None


def evaluate(args: argparse.Namespace) -> int:
    """Validate the policy, play, print the report; 0 done, 1 a battle failed, 2 bad input."""
    from tankrl.deploy import evaluation as ev
    from tankrl.deploy.eval_report import EvalReport, format_json, format_table
    from tankrl.deploy.eval_stats import summarize
    from tankrl.shared.policy import SAMPLE_ALL
    from tankrl.shared.policy_files import play_sampled_of
    from tankrl.shared.policy_package import load_policy

    if (problem := _check(args)) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        path = ev.resolve_policy(args.policy, args.weights_dir)
        contract, tensors, manifest = load_policy(path)
        sampled = play_sampled_of(
            manifest, contract, SAMPLE_ALL if args.stochastic else args.sample
        )
    except (FileNotFoundError, ValueError) as e:  # PackageError is a ValueError
        print(f"error: {e}", file=sys.stderr)
        return 2
    opts = ev.EvalOptions(
        policy=path,
        opponents=tuple(args.opponents),
        rounds=args.rounds,
        seed=args.seed,
        sampled=sampled,
        motion=args.motion,
        jobs=args.jobs,
        turn_timeout_us=args.turn_timeout_us,
        arenas_per_opponent=args.arenas,
        max_turns_per_round=args.max_turns,
        log_dir=args.log_dir,
        battle_rounds=args.battle_rounds,
    )

    def progress(line: str) -> None:
        print(f"  {line}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    try:
        if args.native:
            played = ev.play_native(opts, contract, tensors, progress)
        else:
            played = ev.play_hosted(opts, progress)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (RuntimeError, OSError) as e:  # BattleError, BootError: a battle could not finish
        print(f"error: {e}", file=sys.stderr)
        return 1
    rows, overall = summarize(played.records, opts.opponents)
    report = EvalReport(
        source="native" if args.native else "hosted",
        policy=str(path),
        contract=contract.name,
        contract_sha256=contract.sha256,
        policy_version=int(manifest.get("policy_version", 0)),
        sampled=opts.sampled,
        action_dims=contract.action_size,
        seed=opts.seed,
        rounds_per_opponent=opts.rounds,
        battle_rounds=opts.battle_rounds,
        rows=rows,
        overall=overall,
        motion=opts.motion,
        wall_time_s=time.perf_counter() - started,
        skipped_turns=played.skipped_turns,
        settings=played.settings,
    )
    print(format_json(report) if args.json else format_table(report))
    return 0
