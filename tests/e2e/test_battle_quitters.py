"""`tankrl battle` survives bots that vanish: in 50 battles one bot (tests/e2e/bots/Quitter, a
raw client) drops its connection at a random moment (mid-round, between rounds, right after the
game's end), with a TCP reset, a plain close, or after a message the server must refuse; the
process goes on, ends the game and prints the results of the bot that stayed. And
`tankrl ... | head` still ends quietly."""

import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BATTLES = 50
ROUNDS = 3


def plans(seed: int = 2024) -> list[dict[str, str]]:
    """Where and how the quitter leaves in each battle (seeded: the same 50 every run)."""
    r = random.Random(seed)
    out = []
    for _ in range(BATTLES):
        at = r.choice(
            [
                f"mid-round:{r.randint(1, ROUNDS)}:{r.randint(1, 80)}",
                f"between-rounds:{r.randint(1, ROUNDS - 1)}",
                "after-game-end",
            ]
        )
        how = r.choice(["reset", "close", "refused"])
        out.append(
            {
                "QUITTER_AT": at,
                "QUITTER_RESET": "1" if how == "reset" else "0",
                "QUITTER_REFUSED": "1" if how == "refused" else "0",
            }
        )
    return out


def battle(bots_dir: Path, plan: dict[str, str]) -> tuple[dict[str, str], int, str, str]:
    cmd = [
        sys.executable, "-m", "tankrl", "battle", str(bots_dir / "Quitter"),
        str(bots_dir / "Spinner"), "--rounds", str(ROUNDS),
    ]  # fmt: skip
    env = {**os.environ, **plan}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    return plan, done.returncode, done.stdout, done.stderr


def test_tankrl_battle_survives_a_bot_that_vanishes_at_any_moment(bots_dir: Path) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: battle(bots_dir, p), plans()))
    failures = []
    for plan, code, out, err in results:
        spinner_row = any(line.split()[2:3] == ["Spinner"] for line in out.splitlines())
        if code != 0 or not spinner_row or f"{ROUNDS} rounds" not in out:
            failures.append(f"{plan}: exit {code}, stdout {out[-300:]!r}, stderr {err[-300:]!r}")
    assert failures == [], f"{len(failures)} of {BATTLES} battles failed:\n" + "\n".join(failures)


def test_output_cut_short_by_a_closed_pipe_ends_quietly() -> None:
    """`tankrl contract show v2 | head -0`: the reader is gone before the first write."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tankrl", "contract", "show", "v2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # long before the command has imported anything
    err = proc.stderr.read()
    assert proc.wait(timeout=120) in (0, 1)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
