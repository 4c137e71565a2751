"""The user's path end to end, as commands: `tankrl train --minutes 1` with the small config runs
the main job (local Ray, the learner, a native batch and a hosted bot on our server), writes
latest/ and checkpoints and says where; `tankrl evaluate --rounds 5` on the result plays hosted
battles and prints its table."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tankrl.learner import checkpoints
from tankrl.shared.contracts import get_contract

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
TANKRL = [sys.executable, "-m", "tankrl"]
REPO = Path(__file__).resolve().parents[2]


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(
        [*TANKRL, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "RAY_ADDRESS": ""},
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"tankrl {' '.join(args)} did not finish in {timeout} s:\n{out[-3000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


def test_train_one_minute_then_evaluate(tmp_path: Path) -> None:
    train = _run(
        [
            "train",
            "--config",
            "small",
            "--minutes",
            "1",
            "--run",
            "e2e",
            "--no-dashboard",
            "--weights-dir",
            str(tmp_path),
        ],
        timeout=400,
    )
    assert train.returncode == 0, train.stdout[-3000:]
    run_dir = tmp_path / "e2e"
    assert f"weights: {run_dir}/latest" in train.stdout
    assert "win rate" in train.stdout and "policy_version" in train.stdout
    start = checkpoints.startup(run_dir, get_contract("v2"))
    assert start.source == checkpoints.LATEST and start.loaded is not None
    assert start.loaded.policy_version >= 1, train.stdout[-2000:]
    assert (run_dir / "checkpoint_1" / "manifest.json").is_file()

    evaluate = _run(
        ["evaluate", str(run_dir), "--rounds", "5", "--opponents", "SpinBot,Target"], timeout=400
    )
    assert evaluate.returncode == 0, evaluate.stdout[-3000:]
    lines = [line for line in evaluate.stdout.splitlines() if "|" in line]
    rows = {line.split("|")[0].strip(): line for line in lines}
    assert {"SpinBot", "Target", "all"} <= rows.keys(), evaluate.stdout
    assert rows["SpinBot"].split("|")[1].strip() == "5"
    assert rows["all"].split("|")[1].strip() == "10"


def _marked(mark: str) -> list[int]:
    """Pids of live processes whose environment carries `mark` (the command's children)."""
    pids = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in env.read_bytes():
                pids.append(int(env.parent.name))
        except OSError:
            continue
    return pids


def test_killing_evaluate_ends_the_bots_it_started() -> None:
    """`kill` on `tankrl evaluate` must end its bot subprocesses (they live in their own process
    groups, so nothing else would): the command turns SIGTERM into its Ctrl-C path."""
    import time
    import uuid

    mark = f"TANKRL_TEST_MARK={uuid.uuid4().hex}"
    package = REPO / "weights" / "release" / "tankrl-v2.zip"
    proc = subprocess.Popen(
        [*TANKRL, "evaluate", str(package), "--rounds", "50", "--opponents", "SpinBot"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, mark.split("=")[0]: mark.split("=")[1]},
    )
    try:
        deadline = time.monotonic() + 120
        while len([p for p in _marked(mark) if p != proc.pid]) < 2:
            assert time.monotonic() < deadline, "the bots never started"
            assert proc.poll() is None, "evaluate ended before its bots started"
            time.sleep(0.5)
        time.sleep(10)  # the bots connect and the battle runs
        assert proc.poll() is None, "evaluate ended before it was killed"
        proc.terminate()
        proc.wait(timeout=60)
        deadline = time.monotonic() + 20
        while (left := _marked(mark)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, f"processes left running after kill: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)
