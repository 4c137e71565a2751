"""The policy file format shared by checkpoints and packages: `.npy` per tensor + manifest.json.

`encode_policy` turns tensors into file bytes; `decode_policy` validates a set of files strictly
(manifest keys and types, the exact file set, SHA-256 per file, dtype and shapes, the contract)
and raises PolicyFilesError with a `reason` code and a message naming what is wrong.
"""

import hashlib
import io
import json
import re
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract, ContractError, get_contract
from tankrl.shared.policy import (
    PolicyShapeError,
    check_tensors,
    hidden_size_of,
    parse_sampled,
    sampled_dims,
)

FORMAT = "tankrl-policy/1"
MANIFEST = "manifest.json"
MANIFEST_KEYS = frozenset(
    [
        "format",
        "contract",
        "contract_sha256",
        "policy_version",
        "hidden_size",
        "config",
        "files",
        "created",
    ]
)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*\.npy$")
F32 = npt.NDArray[np.float32]


class PolicyFilesError(ValueError):
    """Policy files failed validation; `reason` is a short code, the message says what is wrong."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def npy_bytes(a: npt.ArrayLike) -> bytes:
    """One tensor as little-endian float32 `.npy` bytes."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a, dtype="<f4"), allow_pickle=False)
    return buf.getvalue()


def encode_policy(
    contract: Contract,
    policy_version: int,
    tensors: Mapping[str, npt.ArrayLike],
    config: Mapping[str, Any],
) -> dict[str, bytes]:
    """Every file of a policy (one `.npy` per tensor, then manifest.json) as name -> bytes."""
    arrays = {k: np.asarray(v, dtype=np.float32) for k, v in tensors.items()}
    check_tensors(contract, arrays)
    files = {f"{name}.npy": npy_bytes(a) for name, a in sorted(arrays.items())}
    manifest = {
        "format": FORMAT,
        "contract": contract.name,
        "contract_sha256": contract.sha256,
        "policy_version": int(policy_version),
        "hidden_size": hidden_size_of(arrays),
        "config": dict(config),
        "files": {name: sha256_hex(data) for name, data in files.items()},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    files[MANIFEST] = json.dumps(manifest, indent=2, sort_keys=True).encode("utf-8") + b"\n"
    return files


def parse_manifest(data: bytes) -> dict[str, Any]:
    """Parse and type-check manifest.json (exact key set, types, hash format)."""
    try:
        m = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PolicyFilesError("manifest", f"{MANIFEST} is not valid JSON: {e}") from None
    if not isinstance(m, dict):
        raise PolicyFilesError("manifest", f"{MANIFEST} must hold a JSON object")
    if unknown := sorted(set(m) - MANIFEST_KEYS):
        raise PolicyFilesError("unknown_keys", f"{MANIFEST} has unknown keys: {unknown}")
    if missing := sorted(MANIFEST_KEYS - set(m)):
        raise PolicyFilesError("manifest", f"{MANIFEST} lacks keys: {missing}")
    if m["format"] != FORMAT:
        raise PolicyFilesError("format", f"format {m['format']!r} is not {FORMAT!r}")
    types = {
        "contract": str,
        "contract_sha256": str,
        "policy_version": int,
        "hidden_size": int,
        "config": dict,
        "files": dict,
        "created": str,
    }
    for key, t in types.items():
        if not isinstance(m[key], t) or isinstance(m[key], bool):
            raise PolicyFilesError("manifest", f"{MANIFEST}: {key} must be a {t.__name__}")
    if m["policy_version"] < 0 or m["hidden_size"] < 1:
        raise PolicyFilesError("manifest", f"{MANIFEST}: policy_version/hidden_size out of range")
    for name, digest in m["files"].items():
        if not _FILE_NAME.match(name) or not isinstance(digest, str) or not _SHA256.match(digest):
            raise PolicyFilesError("manifest", f"{MANIFEST}: bad files entry {name!r}: {digest!r}")
    return m


def _contract_of(m: Mapping[str, Any], expected: Contract | None) -> Contract:
    try:
        contract = get_contract(m["contract_sha256"])
        if expected is not None:
            expected.require(m["contract_sha256"], "this policy")
    except ContractError as e:
        raise PolicyFilesError("contract", str(e)) from None
    if contract.name != m["contract"]:
        raise PolicyFilesError(
            "contract", f"contract name {m['contract']!r} does not match id of {contract.name}"
        )
    return contract


def _load_npy(name: str, data: bytes) -> F32:
    try:
        a = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:  # numpy raises ValueError, EOFError, OSError... on damaged files
        raise PolicyFilesError("npy", f"{name} is not a valid .npy file: {e}") from None
    if not isinstance(a, np.ndarray) or a.dtype != np.float32:
        raise PolicyFilesError("dtype", f"{name} holds {getattr(a, 'dtype', a)!s}, not float32")
    return a


def decode_policy(
    names: Collection[str],
    read: Callable[[str], bytes],
    expected_contract: Contract | None = None,
) -> tuple[Contract, dict[str, F32], dict[str, Any]]:
    """Validate the files `names` (read with `read`) and return (contract, tensors, manifest)."""
    if MANIFEST not in names:
        raise PolicyFilesError("missing_file", f"{MANIFEST} is missing")
    m = parse_manifest(read(MANIFEST))
    contract = _contract_of(m, expected_contract)
    listed, present = set(m["files"]), set(names) - {MANIFEST}
    if missing := sorted(listed - present):
        raise PolicyFilesError("missing_file", f"files listed in {MANIFEST} are missing: {missing}")
    if extra := sorted(present - listed):
        raise PolicyFilesError("extra_file", f"files not listed in {MANIFEST}: {extra}")
    tensors: dict[str, F32] = {}
    for name in sorted(listed):
        data = read(name)
        if (got := sha256_hex(data)) != m["files"][name]:
            raise PolicyFilesError(
                "hash", f"sha256 mismatch in {name}: manifest {m['files'][name]}, file {got}"
            )
        tensors[name.removesuffix(".npy")] = _load_npy(name, data)
    try:
        check_tensors(contract, tensors)
    except PolicyShapeError as e:
        raise PolicyFilesError("shape", str(e)) from None
    if hidden_size_of(tensors) != m["hidden_size"]:
        raise PolicyFilesError(
            "shape",
            f"hidden_size {m['hidden_size']} in {MANIFEST}, tensors have {hidden_size_of(tensors)}",
        )
    return contract, tensors, m


def play_sampled_of(
    manifest: Mapping[str, Any], contract: Contract, sample: str | None = None
) -> tuple[str, ...]:
    """The action dims the policy samples when it plays for keeps: `sample` when given
    (comma-separated names, `all` or `none`), else its run config's `actors.play_sampled`
    (none, i.e. every dim at its mean, for a config without it)."""
    if sample is not None:
        return parse_sampled(contract, sample)
    actors = manifest.get("config", {}).get("actors", {})
    names = actors.get("play_sampled", []) if isinstance(actors, dict) else None
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise PolicyFilesError("manifest", f"{MANIFEST}: actors.play_sampled must list dim names")
    try:
        return sampled_dims(contract, names)
    except ValueError as e:
        raise PolicyFilesError("manifest", f"{MANIFEST}: actors.play_sampled: {e}") from None
