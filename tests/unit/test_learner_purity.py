"""Pure learner modules stay pure: the PPO math and model import no Ray, and the file-format,
inbox and statistics modules import neither Ray nor torch (checked in fresh interpreters)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NO_TORCH = ("gae", "inbox", "normalize", "checkpoints", "package", "round_stats")
NO_RAY = (*NO_TORCH, "model", "ppo", "trainer", "testing")

SCRIPT = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module("learner." + name)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


@pytest.mark.parametrize(
    ("modules", "forbidden"), [(NO_TORCH, {"ray", "torch"}), (NO_RAY, {"ray"})], ids=["io", "math"]
)
def test_pure_modules_import_no_ray_or_torch(modules: tuple[str, ...], forbidden: set[str]):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, *modules],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=120,
    )
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert not loaded & forbidden, f"{modules} pull in {sorted(loaded & forbidden)}"
