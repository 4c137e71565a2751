"""Purity: the pure modules import none of the heavy or I/O dependencies their users must not
need (each set checked in a fresh interpreter): bots run without torch, the learner's math
without Ray, the evaluation statistics and replay pages without either, and the server's
protocol modules without sockets."""

import json
import pkgutil
import subprocess
import sys

import pytest

import tankrl.shared

IO_AND_HEAVY = {"ray", "torch", "websockets", "robocode_tank_royale"}
SHARED = tuple(f"tankrl.shared.{m.name}" for m in pkgutil.iter_modules(tankrl.shared.__path__))
BRAIN = tuple(
    f"tankrl.actor.{m}"
    for m in ("tracker", "observation", "actions", "controllers", "reward", "brain")
)
LEARNER_IO = tuple(
    f"tankrl.learner.{m}"
    for m in ("gae", "inbox", "normalize", "checkpoints", "package", "round_stats")
)
LEARNER_MATH = (
    *LEARNER_IO,
    *(f"tankrl.learner.{m}" for m in ("model", "ppo", "trainer", "testing")),
)
EVALUATION = tuple(
    f"tankrl.deploy.{m}" for m in ("eval_motion", "eval_stats", "eval_report", "evaluation")
)
REPLAY_PAGE = (
    "tankrl.arena.replay_frames",
    "tankrl.deploy.run_metrics",
    "tankrl.deploy.replay_cmd",
)
SERVER_PURE = tuple(
    f"tankrl.arena.server.{m}"
    for m in ("protocol", "intent_merge", "lobby", "game", "messages", "ticks")
)

CASES = {
    "shared and the brain": (SHARED + BRAIN, IO_AND_HEAVY),
    "learner file formats and inbox": (LEARNER_IO, {"ray", "torch"}),
    "learner math": (LEARNER_MATH, {"ray"}),
    "evaluation statistics": (EVALUATION, IO_AND_HEAVY),
    "replay page": (REPLAY_PAGE, IO_AND_HEAVY | {"matplotlib", "tensorboard"}),
    "server protocol": (SERVER_PURE, IO_AND_HEAVY),
}

SCRIPT = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


@pytest.mark.parametrize("case", CASES)
def test_pure_modules_import_nothing_heavy(case: str) -> None:
    modules, forbidden = CASES[case]
    assert len(modules) >= 3, modules  # the lists above name real modules
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, *modules], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "tankrl" in loaded
    assert not loaded & forbidden, f"{case} pulls in {sorted(loaded & forbidden)}"
