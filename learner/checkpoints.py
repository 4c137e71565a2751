"""Run directories: `latest/` replaced atomically, rotating `checkpoint_1..N`, start-up fallback.

Layout of `weights/<run>/`:
    config.json              the resolved RunConfig of the run
    latest -> .latest-v<version>-<pid>-<n>/   a relative symlink to the newest policy dir
    checkpoint_1/ .. _N/     rotated every `checkpoint_every_rounds` rounds (1 is the newest)
    tb/                      TensorBoard scalars
A policy dir holds exactly the policy files (manifest.json + one .npy per tensor, see
shared/policy_files.py) and a `train/` subdir with the optimizer and normaliser state, so the
policy files stay weights-only and a package is the policy dir minus `train/`.

Atomic replace of `latest`: the new dir is written under a fresh name and fsynced, a temporary
symlink to it is renamed over `latest` (rename(2) is atomic), the run dir is fsynced and only
then is the previous target removed. At every instant `latest` resolves to a complete dir; a
crash leaves at most unreferenced dirs, which start-up removes.
"""

import itertools
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract
from tankrl.shared.policy_files import PolicyFilesError, decode_policy, sha256_hex

log = logging.getLogger(__name__)

LATEST = "latest"
TRAIN_DIR = "train"
OPTIMIZER_FILE = "optimizer.pt"
STATE_FILE = "state.json"
CONFIG_FILE = "config.json"
_LATEST_PREFIX = ".latest-"
_TMP_PREFIX = ".tmp-"
_counter = itertools.count()


class CheckpointError(ValueError):
    """A run directory cannot be used as it is (e.g. it was trained for another contract)."""


@dataclass
class LoadedPolicy:
    """A validated policy dir: tensors and manifest, plus its training state when intact."""

    path: Path
    contract: Contract
    tensors: dict[str, npt.NDArray[np.float32]]
    manifest: dict[str, Any]
    optimizer: bytes | None = None
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def policy_version(self) -> int:
        return int(self.manifest["policy_version"])


@dataclass
class Startup:
    """What start-up chose (`latest`, `checkpoint_<k>` or `init`) and the log line saying why."""

    source: str
    message: str
    loaded: LoadedPolicy | None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def write_policy_dir(
    path: Path, files: dict[str, bytes], optimizer: bytes | None, state: dict[str, Any]
) -> None:
    """Create `path` with the policy files and `train/`, every file and dir fsynced.

    On an error (e.g. a full disk) the partial dir is removed before the error propagates.
    """
    path.mkdir()
    try:
        for name, data in files.items():
            _write_file(path / name, data)
        train = path / TRAIN_DIR
        train.mkdir()
        full_state = dict(state)
        if optimizer is not None:
            _write_file(train / OPTIMIZER_FILE, optimizer)
            full_state["optimizer_sha256"] = sha256_hex(optimizer)
        _write_file(train / STATE_FILE, json.dumps(full_state, indent=2).encode("utf-8"))
        _fsync_dir(train)
        _fsync_dir(path)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def _tmp_name(run_dir: Path, kind: str) -> Path:
    return run_dir / f"{_TMP_PREFIX}{kind}-{os.getpid()}-{next(_counter)}"


def write_latest(
    run_dir: Path, files: dict[str, bytes], optimizer: bytes | None, state: dict[str, Any]
) -> Path:
    """Write a new policy dir and atomically point `latest` at it; returns the new dir."""
    version = json.loads(files["manifest.json"])["policy_version"]
    target = run_dir / f"{_LATEST_PREFIX}v{version:08d}-{os.getpid()}-{next(_counter)}"
    write_policy_dir(target, files, optimizer, state)
    link = run_dir / LATEST
    old = link.resolve() if link.is_symlink() else None
    if link.is_dir() and not link.is_symlink():
        # a plain latest/ (e.g. copied by hand) cannot be swapped atomically: it is moved aside
        # once, to a name start-up removes, and the symlink scheme takes over from here
        old = link.rename(run_dir / f"{_LATEST_PREFIX}plain-{os.getpid()}-{next(_counter)}")
    tmp_link = _tmp_name(run_dir, "link")
    os.symlink(target.name, tmp_link)
    os.replace(tmp_link, link)
    _fsync_dir(run_dir)
    if old is not None and old != target.resolve() and old.parent == run_dir.resolve():
        shutil.rmtree(old, ignore_errors=True)
    return target


def rotate_checkpoints(
    run_dir: Path,
    files: dict[str, bytes],
    optimizer: bytes | None,
    state: dict[str, Any],
    keep: int,
) -> Path:
    """Shift checkpoint_k -> k+1 (dropping checkpoint_`keep`) and write these files as _1."""
    tmp = _tmp_name(run_dir, "checkpoint")
    write_policy_dir(tmp, files, optimizer, state)
    shutil.rmtree(run_dir / f"checkpoint_{keep}", ignore_errors=True)
    for k in range(keep - 1, 0, -1):
        src = run_dir / f"checkpoint_{k}"
        if src.exists():
            src.rename(run_dir / f"checkpoint_{k + 1}")
    tmp.rename(run_dir / "checkpoint_1")
    _fsync_dir(run_dir)
    return run_dir / "checkpoint_1"


def checkpoint_due(rounds_before: int, rounds_after: int, every: int) -> bool:
    """True when a training pass took the rounds-trained count across a multiple of `every`."""
    return rounds_after // every > rounds_before // every


def write_config(run_dir: Path, config: dict[str, Any]) -> None:
    """Save the resolved RunConfig as `config.json` (temp file + rename)."""
    tmp = _tmp_name(run_dir, "config")
    _write_file(tmp, json.dumps(config, indent=2, sort_keys=True).encode("utf-8") + b"\n")
    os.replace(tmp, run_dir / CONFIG_FILE)
    _fsync_dir(run_dir)


def read_policy_dir(path: Path, expected_contract: Contract | None = None) -> LoadedPolicy:
    """Load and verify a policy dir (hashes, shapes, contract); training state if it is intact."""
    if not path.is_dir():
        raise PolicyFilesError("missing_file", f"{path.name}/ does not exist")
    names = [p.name for p in path.iterdir() if p.is_file()]
    contract, tensors, manifest = decode_policy(
        names, lambda n: (path / n).read_bytes(), expected_contract
    )
    loaded = LoadedPolicy(path, contract, tensors, manifest)
    _read_training_state(loaded)
    return loaded


def _read_training_state(loaded: LoadedPolicy) -> None:
    train = loaded.path / TRAIN_DIR
    try:
        state = json.loads((train / STATE_FILE).read_bytes())
        if not isinstance(state, dict):
            raise ValueError("state.json is not an object")
        optimizer = None
        if "optimizer_sha256" in state:
            optimizer = (train / OPTIMIZER_FILE).read_bytes()
            if sha256_hex(optimizer) != state["optimizer_sha256"]:
                raise ValueError(f"sha256 mismatch in {OPTIMIZER_FILE}")
    except (OSError, ValueError) as e:
        log.warning("%s: training state not usable (%s); optimizer starts afresh", train, e)
        return
    loaded.optimizer, loaded.state = optimizer, state


def remove_stale(run_dir: Path) -> list[str]:
    """Remove temp dirs/links and policy dirs `latest` does not point to; returns their names."""
    link = run_dir / LATEST
    current = os.readlink(link) if link.is_symlink() else None
    removed = []
    for p in run_dir.iterdir():
        stale_tmp = p.name.startswith(_TMP_PREFIX)
        stale_latest = p.name.startswith(_LATEST_PREFIX) and p.name != current
        if stale_tmp or stale_latest:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            removed.append(p.name)
    return sorted(removed)


def _checkpoint_dirs(run_dir: Path) -> list[Path]:
    dirs = [p for p in run_dir.glob("checkpoint_*") if p.name.removeprefix("checkpoint_").isdigit()]
    return sorted(dirs, key=lambda p: int(p.name.removeprefix("checkpoint_")))


def _try_load(path: Path, contract: Contract) -> LoadedPolicy | str:
    """The loaded dir, or why it cannot be used; a well-formed dir of another contract raises."""
    try:
        return read_policy_dir(path, contract)
    except PolicyFilesError as e:
        if e.reason == "contract":
            raise CheckpointError(
                f"{path} belongs to another contract: {e}. Use another run name or --contract."
            ) from None
        return str(e)


def startup(run_dir: Path, contract: Contract) -> Startup:
    """Choose latest, else the newest valid checkpoint, else random init; say which and why."""
    run_dir.mkdir(parents=True, exist_ok=True)
    removed = remove_stale(run_dir)
    note = f" (removed stale {', '.join(removed)})" if removed else ""
    latest = _try_load(run_dir / LATEST, contract)
    if isinstance(latest, LoadedPolicy):
        msg = f"resuming from latest/ (policy_version {latest.policy_version}){note}"
        return Startup(LATEST, msg, latest)
    exists = (run_dir / LATEST).exists()
    why = [f"latest/ is unusable: {latest}" if exists else "latest/ does not exist"]
    good: list[LoadedPolicy] = []
    for path in _checkpoint_dirs(run_dir):
        got = _try_load(path, contract)
        if isinstance(got, LoadedPolicy):
            good.append(got)
        else:
            why.append(f"{path.name}/ is unusable: {got}")
    if good:
        best = max(good, key=lambda c: c.policy_version)  # ties: max keeps the lowest slot
        msg = f"{'; '.join(why)}; using {best.path.name} (policy_version {best.policy_version})"
        return Startup(best.path.name, msg + note, best)
    if not why[1:]:
        why.append("no checkpoints")
    return Startup("init", f"{'; '.join(why)}; starting from random init{note}", None)
