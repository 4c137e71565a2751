"""Run directories: latest/ round-trips and is replaced atomically (a writer killed with SIGKILL
at random moments always leaves a loadable latest/), checkpoint_1..3 rotate with the oldest
dropped, and start-up falls back from a corrupt latest/ to the newest valid checkpoint to random
init, saying which and why, after removing stale temp dirs."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tankrl.learner import checkpoints as ck
from tankrl.learner.testing import random_tensors
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import init_tensors
from tankrl.shared.policy_files import encode_policy

CONFIG = {"run": "t", "ppo": {"gamma": 0.99}}


def _files(version: int, contract=V2) -> dict[str, bytes]:
    return encode_policy(contract, version, random_tensors(contract, 8, seed=version), CONFIG)


def _write(run: Path, version: int, rotate: bool = False) -> None:
    state = {"policy_version": version, "rounds_trained": version * 10}
    ck.write_latest(run, _files(version), b"adam-%d" % version, state)
    if rotate:
        ck.rotate_checkpoints(run, _files(version), b"adam-%d" % version, state, keep=3)


def test_latest_round_trips_tensors_manifest_and_training_state(tmp_path: Path):
    _write(tmp_path, 7)
    loaded = ck.read_policy_dir(tmp_path / "latest", V2)
    assert loaded.policy_version == 7
    assert loaded.manifest["config"] == CONFIG
    assert loaded.manifest["contract_sha256"] == V2.sha256
    expected = random_tensors(V2, 8, seed=7)
    assert set(loaded.tensors) == set(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(loaded.tensors[name], value)
    assert loaded.optimizer == b"adam-7"
    assert loaded.state["rounds_trained"] == 70
    policy_files = sorted(p.name for p in (tmp_path / "latest").iterdir() if p.is_file())
    assert policy_files == sorted(["manifest.json", *(f"{n}.npy" for n in expected)])


def test_latest_is_replaced_and_the_previous_dir_removed(tmp_path: Path):
    for v in range(1, 4):
        _write(tmp_path, v)
    assert ck.read_policy_dir(tmp_path / "latest").policy_version == 3
    assert [p.name for p in tmp_path.iterdir() if p.name != "latest"] == [
        os.readlink(tmp_path / "latest")
    ]
    assert ck.remove_stale(tmp_path) == []


@pytest.mark.parametrize(("before", "after", "due"), [(0, 49, False), (49, 50, True),
                         (40, 60, True), (50, 99, False), (90, 210, True)])  # fmt: skip
def test_checkpoint_due_when_rounds_cross_a_multiple(before: int, after: int, due: bool):
    assert ck.checkpoint_due(before, after, 50) is due


def test_checkpoints_rotate_every_50_rounds_keeping_three(tmp_path: Path):
    seen = {}
    rounds = 0
    for version in range(1, 21):  # 10 rounds per pass: 200 rounds
        before, rounds = rounds, rounds + 10
        _write(tmp_path, version, rotate=ck.checkpoint_due(before, rounds, 50))
        if rounds % 50 == 0:
            seen[rounds] = {
                p.name: ck.read_policy_dir(p).policy_version
                for p in sorted(tmp_path.glob("checkpoint_*"))
            }
    assert seen[50] == {"checkpoint_1": 5}
    assert seen[100] == {"checkpoint_1": 10, "checkpoint_2": 5}
    assert seen[150] == {"checkpoint_1": 15, "checkpoint_2": 10, "checkpoint_3": 5}
    assert seen[200] == {"checkpoint_1": 20, "checkpoint_2": 15, "checkpoint_3": 10}


_WRITER = """
import sys
from pathlib import Path
from tankrl.learner import checkpoints as ck
from tankrl.shared.policy_files import encode_policy
from tankrl.shared.contracts import V2
from tankrl.shared.policy import init_tensors
run = Path(sys.argv[1])
tensors = init_tensors(V2, 8)
version = int(sys.argv[2])
while True:
    version += 1
    files = encode_policy(V2, version, tensors, {})
    ck.write_latest(run, files, b"x" * 10000, {"policy_version": version})
"""


def test_a_writer_killed_at_random_moments_always_leaves_latest_loadable(tmp_path: Path):
    rng = random.Random(0)
    version = 0
    killed_mid_write = 0
    for _ in range(6):
        child = subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), str(version)])
        try:
            deadline = time.monotonic() + 30
            while not _version_above(tmp_path, version):  # it has written at least once
                assert time.monotonic() < deadline and child.poll() is None
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        loaded = ck.read_policy_dir(tmp_path / "latest", V2)
        assert loaded.policy_version > version
        version = loaded.policy_version
        killed_mid_write += len(list(tmp_path.glob(".latest-*"))) > 1
    assert killed_mid_write > 0  # the test did hit writes in progress (each is mostly fsync)
    start = ck.startup(tmp_path, V2)
    assert start.source == "latest" and start.loaded is not None
    assert start.loaded.policy_version == version
    assert {p.name for p in tmp_path.iterdir()} == {"latest", os.readlink(tmp_path / "latest")}


def _version_above(run: Path, version: int) -> bool:
    try:
        return ck.read_policy_dir(run / "latest").policy_version > version
    except ValueError:
        return False


def _corrupt_hash(d: Path) -> str:
    p = d / "actor.0.weight.npy"
    data = bytearray(p.read_bytes())
    data[-1] ^= 0xFF
    p.write_bytes(bytes(data))
    return "sha256 mismatch in actor.0.weight.npy"


def _missing_file(d: Path) -> str:
    (d / "critic.2.bias.npy").unlink()
    return "missing: ['critic.2.bias.npy']"


def _garbage_manifest(d: Path) -> str:
    (d / "manifest.json").write_bytes(b"\x00not json{")
    return "manifest.json is not valid JSON"


@pytest.mark.parametrize("corrupt", [_corrupt_hash, _missing_file, _garbage_manifest])
def test_startup_falls_back_from_a_corrupt_latest_to_the_newest_valid_checkpoint(
    tmp_path: Path, corrupt
):
    for version in (50, 100, 150):
        _write(tmp_path, version, rotate=True)
    _write(tmp_path, 160)
    why = corrupt(tmp_path / "latest")
    _corrupt_hash(tmp_path / "checkpoint_1")  # the newest checkpoint (150) is bad too
    (tmp_path / ".tmp-checkpoint-123-4").mkdir()  # a crash leftover
    start = ck.startup(tmp_path, V2)
    assert start.source == "checkpoint_2"
    assert start.loaded is not None and start.loaded.policy_version == 100
    assert "latest/ is unusable" in start.message and why in start.message
    assert "checkpoint_1/ is unusable" in start.message
    assert "using checkpoint_2 (policy_version 100)" in start.message
    assert ".tmp-checkpoint-123-4" in start.message
    assert not (tmp_path / ".tmp-checkpoint-123-4").exists()


def test_startup_with_nothing_usable_starts_from_random_init(tmp_path: Path):
    _write(tmp_path, 3, rotate=True)
    _corrupt_hash(tmp_path / "latest")
    _missing_file(tmp_path / "checkpoint_1")
    start = ck.startup(tmp_path, V2)
    assert start.source == "init" and start.loaded is None
    assert "latest/ is unusable" in start.message
    assert "checkpoint_1/ is unusable" in start.message
    assert start.message.endswith("starting from random init")


def test_startup_on_an_empty_run_dir(tmp_path: Path):
    start = ck.startup(tmp_path / "new-run", V2)
    assert start.source == "init"
    assert start.message == "latest/ does not exist; no checkpoints; starting from random init"


def test_startup_prefers_a_valid_latest(tmp_path: Path):
    _write(tmp_path, 50, rotate=True)
    _write(tmp_path, 51)
    start = ck.startup(tmp_path, V2)
    assert (start.source, start.message) == ("latest", "resuming from latest/ (policy_version 51)")


def test_a_run_of_another_contract_is_an_error_not_a_silent_restart(tmp_path: Path):
    files = encode_policy(V1, 4, init_tensors(V1, 8), {})
    ck.write_latest(tmp_path, files, None, {})
    with pytest.raises(ck.CheckpointError, match="another contract"):
        ck.startup(tmp_path, V2)


def test_damaged_training_state_keeps_the_policy_but_drops_the_optimizer(tmp_path: Path):
    _write(tmp_path, 5)
    (tmp_path / "latest" / "train" / "optimizer.pt").write_bytes(b"truncated")
    loaded = ck.read_policy_dir(tmp_path / "latest", V2)
    assert loaded.policy_version == 5
    assert loaded.optimizer is None and loaded.state == {}


def test_config_json_is_written_at_the_run_root(tmp_path: Path):
    ck.write_config(tmp_path, {"run": "x", "seed": 3})
    assert json.loads((tmp_path / "config.json").read_text()) == {"run": "x", "seed": 3}
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_a_plain_latest_dir_is_taken_over_by_the_symlink_scheme(tmp_path: Path):
    _write(tmp_path, 1)
    plain = tmp_path / "plain"
    os.rename(tmp_path / os.readlink(tmp_path / "latest"), plain)
    (tmp_path / "latest").unlink()
    os.rename(plain, tmp_path / "latest")  # as if copied with `cp -r`
    assert ck.startup(tmp_path, V2).loaded.policy_version == 1
    _write(tmp_path, 2)
    assert (tmp_path / "latest").is_symlink()
    assert ck.read_policy_dir(tmp_path / "latest").policy_version == 2
    assert len(list(tmp_path.iterdir())) == 2  # the link and its target, nothing left over
