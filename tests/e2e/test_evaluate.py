"""`tankrl evaluate` as a user runs it, on a random-weights policy whose config samples goto_x
when it plays for keeps: hosted (the TankRL bot directory with the package in its environment
against official Bot API opponents on our server, observed per turn) prints a table with one row
per opponent, the summary row and sane values, motion columns included, and the bot plays the
policy's play setting; the native estimate with --motion --json prints one JSON document marked
as an estimate, with the motion figures; --sample overrides the policy's setting."""

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tankrl.shared.contracts import get_contract
from tankrl.shared.policy import init_tensors
from tankrl.shared.policy_files import encode_policy

TANKRL = Path(sys.executable).parent / "tankrl"
POLICY_VERSION = 5


@pytest.fixture
def policy_files() -> dict[str, bytes]:
    contract = get_contract("v2")
    config = {"actors": {"play_sampled": ["goto_x"]}}
    return encode_policy(contract, POLICY_VERSION, init_tensors(contract, seed=1), config)


@pytest.fixture
def policy_dir(tmp_path: Path, policy_files: dict[str, bytes]) -> Path:
    policy = tmp_path / "policy"
    policy.mkdir()
    for name, data in policy_files.items():
        (policy / name).write_bytes(data)
    return policy


def tankrl(*args: str) -> str:
    result = subprocess.run(
        [str(TANKRL), *args], capture_output=True, text=True, timeout=180, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.slow
def test_hosted_evaluation_prints_a_row_per_opponent(
    tmp_path: Path, policy_files: dict[str, bytes]
) -> None:
    package = tmp_path / "policy.zip"
    with zipfile.ZipFile(package, "w") as zf:
        for name, data in policy_files.items():
            zf.writestr(name, data)
    logs = tmp_path / "logs"
    argv = ["--opponents", "SpinBot,Target", "--motion", "--log-dir", str(logs)]
    out = tankrl("evaluate", str(package), "--rounds", "2", *argv)
    assert out.startswith("tankrl evaluate: hosted")
    assert f"contract v2, policy_version {POLICY_VERSION}" in out
    assert "actions means, except goto_x sampled" in out and "skipped turns" in out
    ours = [p.read_text() for p in logs.glob("TankRL-*.log")]
    assert len(ours) == 2  # one bot per battle, each told what to sample
    assert all("actions means, sampled: goto_x," in text for text in ours), ours
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if len(cells) == 9 and cells[0] != "opponent":
            rows[cells[0]] = cells
    assert list(rows) == ["SpinBot", "Target", "all"]
    for name, rounds in (("SpinBot", 2), ("Target", 2), ("all", 4)):
        _, n, won, first, score, share, *motion = rows[name]
        assert int(n) == rounds
        m = re.fullmatch(r"([\d.]+)\s+\[\s*([\d.]+),\s*([\d.]+)\]", won)
        assert m is not None, won
        rate, lo, hi = map(float, m.groups())
        assert 0.0 <= lo <= rate <= hi <= 100.0
        assert rate % (100.0 / rounds) == 0.0  # whole rounds
        assert 0.0 <= float(first) <= 100.0
        assert float(score) >= 0.0
        assert share == "-" or 0.0 <= float(share) <= 1.0
        reversals, turn_rate_change, distance = map(float, motion)
        assert reversals >= 0.0 and 0.0 <= turn_rate_change <= 20.0 and distance >= 0.0


@pytest.mark.slow
def test_native_estimate_with_motion_as_json(policy_dir: Path) -> None:
    argv = ["evaluate", str(policy_dir), "--native", "--rounds", "4", "--motion", "--json"]
    doc = json.loads(tankrl(*argv, "--opponents", "SpinBot,Target"))
    assert doc["source"] == "native" and doc["estimate"] is True
    assert doc["policy"]["contract"] == "v2"
    assert doc["policy"]["policy_version"] == POLICY_VERSION
    assert doc["deterministic"] is False and doc["sampled"] == ["goto_x"]
    assert [o["opponent"] for o in doc["opponents"]] == ["SpinBot", "Target"]
    for row in [*doc["opponents"], doc["overall"]]:
        assert row["rounds"] == (8 if row is doc["overall"] else 4)
        assert 0 <= row["won"] <= row["rounds"] and 0 <= row["first_places"] <= row["rounds"]
        lo, hi = row["won_ci95"]
        assert 0.0 <= lo <= row["won_rate"] <= hi <= 1.0
        assert row["damage_share"] is None or 0.0 <= row["damage_share"] <= 1.0
        assert row["mean_turns"] > 0
        motion = row["motion"]
        assert motion["reversals_per_100_turns"] >= 0.0
        assert 0.0 <= motion["mean_abs_turn_rate_change_deg"] <= 20.0  # turn rate is in ±10
        assert motion["distance_per_round"] >= 0.0


@pytest.mark.slow
def test_sample_overrides_the_policys_play_setting(policy_dir: Path) -> None:
    argv = [
        "evaluate",
        str(policy_dir),
        "--native",
        "--rounds",
        "2",
        "--json",
        "--opponents",
        "Target",
    ]
    assert json.loads(tankrl(*argv, "--sample", "none"))["deterministic"] is True
    doc = json.loads(tankrl(*argv, "--sample", "aim_y,goto_y"))
    assert doc["sampled"] == ["goto_y", "aim_y"]  # in the contract's order
    result = subprocess.run(
        [str(TANKRL), *argv, "--sample", "aim_z"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "unknown action dim(s) aim_z for contract v2: it has goto_x, goto_y" in result.stderr
