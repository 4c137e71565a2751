"""Exporting policy packages: a run's verified policy (latest/ or a checkpoint) as one zip with
exactly manifest.json + one `.npy` per tensor. Loading and the strict validator live in
shared/policy_package.py, so bots can read packages without the learner's dependencies.
"""

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tankrl.learner.checkpoints import LATEST, read_policy_dir
from tankrl.shared.contracts import Contract
from tankrl.shared.policy_files import MANIFEST, PolicyFilesError, sha256_hex
from tankrl.shared.policy_package import PackageError, load_package

__all__ = ["Exported", "PackageError", "export_package", "load_package"]


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
