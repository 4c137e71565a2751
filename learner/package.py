"""Policy packages: one zip with exactly manifest.json + one `.npy` per tensor.

`export_package` copies a run's verified policy (latest/ or a checkpoint) into a zip;
`load_package` validates one strictly (unknown manifest keys, missing or extra files, wrong
shapes, hash mismatches, a wrong contract) and raises PackageError naming what is wrong.
"""

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from learner.checkpoints import LATEST, read_policy_dir
from learner.manifest import MANIFEST, PolicyFilesError, decode_policy, sha256_hex
from shared.contracts import Contract

MAX_PACKAGE_BYTES = 64 * 1024 * 1024
"""Refuse packages whose members add up to more than this (uncompressed)."""


class PackageError(PolicyFilesError):
    """A policy package is invalid; `reason` is a short code, the message names the problem."""


@dataclass(frozen=True)
class Exported:
    """What `export_package` wrote."""

    path: Path
    source: Path
    contract: Contract
    policy_version: int
    tensors: int
    bytes: int
    sha256: str


def export_package(run_dir: Path, out: Path, source: str = LATEST) -> Exported:
    """Write the verified policy of `run_dir/source` to the zip `out` (temp file + rename)."""
    try:
        loaded = read_policy_dir(run_dir / source)
    except PolicyFilesError as e:
        raise PackageError(e.reason, f"cannot export {run_dir / source}: {e}") from None
    names = [MANIFEST, *sorted(loaded.manifest["files"])]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in names:
            zf.writestr(name, (loaded.path / name).read_bytes())
    os.replace(tmp, out)
    data = out.read_bytes()
    return Exported(
        path=out,
        source=loaded.path,
        contract=loaded.contract,
        policy_version=loaded.policy_version,
        tensors=len(names) - 1,
        bytes=len(data),
        sha256=sha256_hex(data),
    )


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
