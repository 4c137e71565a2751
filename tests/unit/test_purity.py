"""Purity: importing every module of shared/ and the brain modules of actor/ pulls in none of
ray, torch, websockets or the Bot API (checked in a fresh interpreter)."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BRAIN_MODULES = ("tracker", "observation", "actions", "controllers", "reward", "brain")
FORBIDDEN = ("ray", "torch", "websockets", "robocode_tank_royale")

SCRIPT = """
import importlib, json, pkgutil, sys
import shared
names = ["shared." + m.name for m in pkgutil.iter_modules(shared.__path__)]
names += ["actor." + m for m in {brain}]
for name in names:
    importlib.import_module(name)
print(json.dumps({{"imported": names, "modules": sorted(sys.modules)}}))
"""


def test_pure_modules_import_no_heavy_or_io_dependencies() -> None:
    script = SCRIPT.format(brain=list(BRAIN_MODULES))
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO,
        timeout=120,
    )  # fmt: skip
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert "shared.policy" in report["imported"] and "actor.brain" in report["imported"]
    loaded = {m.split(".")[0] for m in report["modules"]}
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
