"""Online adaptation: how much the learner improves a trained policy against an opponent it has
never met, in a short run.

Starts `tankrl train` from a policy package (default weights/release/tankrl-v2.zip, which never
met Surfer) against one opponent only (default Surfer) for `--minutes` (default 20), with the
learner's round log on (learner.round_log), and compares the win rate over the first and the last
`--window` rounds the run played (native rounds, the policy's sampled actions, as they reached
the learner), each with a 95% Wilson interval. The training settings are the named config
`--config` (default `adapt`).

Prints a table and, as its last line, the JSON verdict (bench/judge.py) with first, last,
rounds and minutes; the target is last >= first + 0.15.
Usage: python -m bench.adapt [--minutes 20] [--policy PACKAGE] [--opponent Surfer]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.judge import Target, finish
from tankrl.deploy.eval_stats import wilson_interval

TARGETS = (Target("gain", ">=", 0.15, "none", "last - first win rate"),)


def rounds_against(log: Path, opponent: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return sorted((r for r in rows if r.get("opponent") == opponent), key=lambda r: r["t"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--policy", default="weights/release/tankrl-v2.zip")
    parser.add_argument("--opponent", default="Surfer")
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--config", default="adapt")
    parser.add_argument("--run", default="adapt")
    parser.add_argument("--weights-dir", default="weights")
    args = parser.parse_args()
    run_dir = Path(args.weights_dir) / args.run
    if run_dir.exists():
        shutil.rmtree(run_dir)  # every measurement starts from the package, not a resumed run
    cmd = [
        sys.executable, "-m", "tankrl", "train", "--config", args.config, "--run", args.run,
        "--weights-dir", args.weights_dir, "--minutes", str(args.minutes), "--no-dashboard",
        "--train.init-from", str(Path(args.policy).resolve()), "--actors.opponents",
        args.opponent, "--learner.round-log", "true",
    ]  # fmt: skip
    done = subprocess.run(cmd, env={**os.environ, "RAY_ADDRESS": ""})
    if done.returncode != 0:
        raise SystemExit(f"tankrl train ended with {done.returncode}")
    rows = rounds_against(run_dir / "rounds.jsonl", args.opponent)
    if len(rows) < 2 * args.window:
        raise SystemExit(f"only {len(rows)} rounds against {args.opponent}: run longer")
    first, last = rows[: args.window], rows[-args.window :]
    print(f"\n{len(rows)} native rounds against {args.opponent} in {args.minutes:g} minutes")
    figures: dict[str, Any] = {}
    for name, part in (("first", first), ("last", last)):
        won = sum(bool(r.get("won")) for r in part)
        low, high = wilson_interval(won, len(part))
        versions = f"policy_version {part[0]['policy_version']}..{part[-1]['policy_version']}"
        print(f"{name:>5} {len(part)} rounds: won {won / len(part):6.1%}  "
              f"[{low:.1%}, {high:.1%}]  ({versions})")  # fmt: skip
        figures[name] = round(won / len(part), 3)
        figures[f"{name}_ci95"] = [round(low, 3), round(high, 3)]
    figures.update(
        gain=round(figures["last"] - figures["first"], 3),
        rounds=len(rows),
        minutes=args.minutes,
        opponent=args.opponent,
        source="native",
    )
    finish("adapt", figures, TARGETS)


if __name__ == "__main__":
    main()
