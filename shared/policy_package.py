"""Policy packages on the bot side: load and strictly validate a package zip (exactly
manifest.json + one `.npy` per tensor), or a policy dir / run dir, into tensors a NumpyPolicy runs.

The validator rejects unknown manifest keys, missing or extra files, wrong shapes, hash mismatches
and a wrong contract, each with a PackageError naming what is wrong. learner/package.py writes
packages; bots and the evaluator read them here without torch.
"""

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract
from tankrl.shared.policy_files import MANIFEST, PolicyFilesError, decode_policy

MAX_PACKAGE_BYTES = 64 * 1024 * 1024
"""Refuse packages whose members add up to more than this (uncompressed)."""

LATEST = "latest"
"""A run dir's current policy dir."""


class PackageError(PolicyFilesError):
    """A policy package is invalid; `reason` is a short code, the message names the problem."""


Loaded = tuple[Contract, dict[str, npt.NDArray[np.float32]], dict[str, Any]]


def _members(zf: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise PackageError("extra_file", f"duplicate members: {dup}")
    if bad := sorted(n for n in names if "/" in n or "\\" in n or n.startswith(".")):
        raise PackageError("extra_file", f"members must be plain file names, got {bad}")
    if (total := sum(i.file_size for i in infos)) > MAX_PACKAGE_BYTES:
        raise PackageError("size", f"{total} bytes uncompressed exceed {MAX_PACKAGE_BYTES}")
    return {i.filename: i for i in infos}


def load_package(
    path: Path, expected_contract: Contract | None = None
) -> tuple[Contract, dict[str, npt.NDArray[np.float32]], dict[str, Any]]:
    """Validate the package at `path` strictly; return (contract, tensors, manifest)."""
    try:
        with zipfile.ZipFile(path) as zf:
            members = _members(zf)
            return decode_policy(list(members), lambda n: zf.read(members[n]), expected_contract)
    except PackageError:
        raise
    except PolicyFilesError as e:
        raise PackageError(e.reason, f"{path}: {e}") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise PackageError("zip", f"{path} is not a readable zip: {e}") from None


def load_policy_dir(path: Path, expected_contract: Contract | None = None) -> Loaded:
    """Validate the policy files directly inside a dir (subdirectories such as train/ are not
    part of the policy); return (contract, tensors, manifest)."""
    names = [p.name for p in path.iterdir() if p.is_file()]
    try:
        return decode_policy(names, lambda n: (path / n).read_bytes(), expected_contract)
    except PolicyFilesError as e:
        raise PackageError(e.reason, f"{path}: {e}") from None


def load_policy(path: Path, expected_contract: Contract | None = None) -> Loaded:
    """Load a policy from a package zip, a policy dir (with manifest.json) or a run dir (its
    latest/); raise PackageError saying what is wrong."""
    path = Path(path)
    if path.is_file():
        return load_package(path, expected_contract)
    if (path / MANIFEST).is_file():
        return load_policy_dir(path, expected_contract)
    if (path / LATEST / MANIFEST).is_file():
        return load_policy_dir(path / LATEST, expected_contract)
    raise PackageError(
        "missing_file", f"{path}: not a policy package, a policy dir or a run dir with {LATEST}/"
    )
