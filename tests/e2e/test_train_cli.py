"""The user's path end to end, as commands: `tankrl train --minutes 1` with the small config runs
the main job (local Ray, the learner, a native batch and a hosted bot on our server) and a short
consolidation, writes latest/ and checkpoints and says where; `tankrl evaluate --rounds 5` on the
result plays hosted battles and prints its table."""

import contextlib
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
            # and the consolidation after PPO, small
            "--train.distill-turns",
            "800",
            "--train.distill-arenas",
            "4",
            "--train.distill-iterations",
            "2",
            "--train.distill-steps",
            "20",
            "--train.distill-opponents",
            "SpinBot,Target",
            "--train.distill-demonstrated",
            "Target",
        ],
        timeout=400,
    )
    assert train.returncode == 0, train.stdout[-3000:]
    run_dir = tmp_path / "e2e"
    assert f"weights: {run_dir}/latest" in train.stdout
    assert "win rate" in train.stdout and "policy_version" in train.stdout
    assert "distill 2/2" in train.stdout and "consolidation done" in train.stdout
    start = checkpoints.startup(run_dir, get_contract("v2"))
    assert start.source == checkpoints.LATEST and start.loaded is not None
    ppo = checkpoints.read_policy_dir(run_dir / "before_distill")
    assert ppo.policy_version >= 1, train.stdout[-2000:]
    assert start.loaded.policy_version == ppo.policy_version + 1
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


def _listening(pids: list[int]) -> set[str]:
    """host:port of every TCP socket these processes listen on (from /proc)."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # LISTEN
                host, port = cols[1].split(":")
                raw = bytes.fromhex(host)
                if len(raw) == 4:
                    ip = ".".join(str(b) for b in reversed(raw))
                else:  # ::ffff:a.b.c.d in four little-endian words
                    words = [raw[i : i + 4][::-1] for i in range(0, 16, 4)]
                    v6 = b"".join(words)
                    ip = ".".join(map(str, v6[12:])) if v6[:12] == bytes(10) + b"\xff\xff" else "::"
                found.add(f"{ip}:{int(port, 16)}")
    return found


@pytest.mark.parametrize(
    "how", ["ctrl-c", "kill"], ids=["SIGINT to the process group", "SIGTERM to the process"]
)
def test_a_signal_ends_train_with_a_final_checkpoint_and_no_process_left(
    tmp_path: Path, how: str
) -> None:
    """Ctrl-C (SIGINT to the whole foreground process group, as a terminal sends it) or `kill`
    (SIGTERM to the command): `tankrl train` stops its actors and the battles they run, writes a
    final checkpoint and shuts its Ray instance down; no process of the run is left, checked by
    pid. While it runs, every process of the run listens on 127.0.0.1 only."""
    import threading
    import time
    import uuid

    mark = f"TANKRL_TEST_MARK={uuid.uuid4().hex}"
    args = ["train", "--config", "small", "--minutes", "30", "--run", "sig", "--no-dashboard",
            "--weights-dir", str(tmp_path)]  # fmt: skip
    proc = subprocess.Popen(
        [*TANKRL, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "RAY_ADDRESS": "", mark.split("=")[0]: mark.split("=")[1]},
    )
    lines: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 300
        while not any(_trained(ln) for ln in lines) or not any(
            "Target.py" in _cmdline(p) or "SpinBot.py" in _cmdline(p) for p in _marked(mark)
        ):  # a pass trained, and a battle in progress with a booted opponent
            assert proc.poll() is None, "".join(lines)[-3000:]
            assert time.monotonic() < deadline, "".join(lines)[-3000:]
            time.sleep(0.5)
        pids = [p for p in _marked(mark) if p != proc.pid]
        listening = _listening([proc.pid, *pids])
        assert listening and all(a.startswith("127.0.0.1:") for a in listening), listening
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=240) == 0, "".join(lines)[-3000:]
        reader.join(timeout=10)
        out = "".join(lines)
        assert "stopping (Ctrl-C)" in out if how == "ctrl-c" else "stopping (signal 15)" in out
        final = int(out.split("/latest (policy_version ")[1].split(")")[0])
        start = checkpoints.startup(tmp_path / "sig", get_contract("v2"))
        assert start.source == checkpoints.LATEST and start.loaded is not None
        assert start.loaded.policy_version == final >= 1
        deadline = time.monotonic() + 30
        while (left := [p for p in pids if Path(f"/proc/{p}").exists()]) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.5)
        assert left == [], [_cmdline(p) for p in left]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for p in _marked(mark):
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _trained(line: str) -> bool:
    """A progress line after the first training pass (policy_version 1 or later)."""
    words = line.split()
    return "policy_version" in words and words[words.index("policy_version") + 1] != "0"
