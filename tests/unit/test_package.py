"""Policy packages: `export_package` writes exactly manifest.json + one .npy per tensor of a run's
policy, and the strict validator rejects each corruption (unknown manifest keys, missing or extra
files, wrong shapes, hash mismatches, a wrong or unknown contract, pickles, non-zips) with a
PackageError whose reason and message name the problem."""

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tankrl.learner import checkpoints as ck
from tankrl.learner.package import PackageError, export_package, load_package
from tankrl.learner.testing import random_tensors
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy_files import encode_policy, npy_bytes, sha256_hex

TENSORS = random_tensors(V2, 16, seed=2, obs_norm=True)


@pytest.fixture
def package(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    ck.write_latest(run, encode_policy(V2, 42, TENSORS, {"run": "run"}), b"adam", {})
    exported = export_package(run, tmp_path / "out" / "policy.zip")
    assert exported.policy_version == 42 and exported.contract == V2
    return exported.path


def test_export_writes_exactly_the_policy_files_and_they_load_back(package: Path):
    with zipfile.ZipFile(package) as zf:
        names = sorted(zf.namelist())
    assert names == sorted(["manifest.json", *(f"{n}.npy" for n in TENSORS)])
    contract, tensors, manifest = load_package(package, expected_contract=V2)
    assert contract == V2 and manifest["policy_version"] == 42
    for name, value in TENSORS.items():
        np.testing.assert_array_equal(tensors[name], value)


def _rewrite(package: Path, edit: Callable[[dict[str, bytes]], None]) -> Path:
    with zipfile.ZipFile(package) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    edit(files)
    out = package.with_name("edited.zip")
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out


def _manifest(files: dict[str, bytes], change: Callable[[dict], None]) -> None:
    m = json.loads(files["manifest.json"])
    change(m)
    files["manifest.json"] = json.dumps(m).encode()


def _replace_tensor(files: dict[str, bytes], name: str, array: np.ndarray) -> None:
    files[name] = npy_bytes(array) if array.dtype == np.float32 else _raw_npy(array)
    _manifest(files, lambda m: m["files"].__setitem__(name, sha256_hex(files[name])))


def _raw_npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=True)
    return buf.getvalue()


CASES = {
    "unknown_keys": (
        lambda f: _manifest(f, lambda m: m.__setitem__("comment", "hi")),
        "unknown keys: ['comment']",
    ),
    "missing_file": (lambda f: f.pop("critic.0.bias.npy"), "missing: ['critic.0.bias.npy']"),
    "extra_file": (
        lambda f: f.__setitem__("notes.npy", npy_bytes(np.zeros(1))),
        "not listed in manifest.json: ['notes.npy']",
    ),
    "hash": (
        lambda f: f.__setitem__("log_std.npy", npy_bytes(np.ones(6))),
        "sha256 mismatch in log_std.npy",
    ),
    "shape": (
        lambda f: _replace_tensor(f, "actor.4.bias.npy", np.zeros(5, np.float32)),
        "actor.4.bias has shape (5,), contract v2 needs (6,)",
    ),
    "dtype": (
        lambda f: _replace_tensor(f, "log_std.npy", np.zeros(6, np.float64)),
        "log_std.npy holds float64, not float32",
    ),
    "npy": (
        lambda f: _replace_tensor(f, "log_std.npy", np.array([{"x": 1}], dtype=object)),
        "log_std.npy is not a valid .npy file",
    ),
    "manifest": (lambda f: f.__setitem__("manifest.json", b"{oops"), "not valid JSON"),
    "format": (
        lambda f: _manifest(f, lambda m: m.__setitem__("format", "other/9")),
        "format 'other/9'",
    ),
    "contract": (
        lambda f: _manifest(f, lambda m: m.__setitem__("contract_sha256", "ab" * 32)),
        "unknown contract",
    ),
}


@pytest.mark.parametrize("reason", sorted(CASES))
def test_each_corruption_is_rejected_with_its_reason(package: Path, reason: str):
    edit, message = CASES[reason]
    bad = _rewrite(package, edit)
    with pytest.raises(PackageError) as err:
        load_package(bad, expected_contract=V2)
    assert err.value.reason == reason
    assert message in str(err.value)
    assert str(bad) in str(err.value)


def test_a_package_for_another_contract_is_rejected_naming_both_ids(package: Path):
    with pytest.raises(PackageError) as err:
        load_package(package, expected_contract=V1)
    assert err.value.reason == "contract"
    assert V1.sha256 in str(err.value) and V2.sha256 in str(err.value)


@pytest.mark.parametrize("member", ["../evil.npy", "sub/actor.0.weight.npy", ".hidden"])
def test_members_must_be_plain_file_names(package: Path, member: str):
    bad = _rewrite(package, lambda f: f.__setitem__(member, b"x"))
    with pytest.raises(PackageError, match="plain file names") as err:
        load_package(bad)
    assert err.value.reason == "extra_file"


def test_duplicate_members_are_rejected(package: Path, tmp_path: Path):
    bad = tmp_path / "dup.zip"
    with zipfile.ZipFile(package) as src, zipfile.ZipFile(bad, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
        with pytest.warns(UserWarning, match="Duplicate name"):
            dst.writestr("log_std.npy", npy_bytes(np.zeros(6)))
    with pytest.raises(PackageError, match="duplicate members"):
        load_package(bad)


def test_not_a_zip_is_rejected(tmp_path: Path):
    bad = tmp_path / "policy.zip"
    bad.write_bytes(b"PK not really")
    with pytest.raises(PackageError, match="not a readable zip") as err:
        load_package(bad)
    assert err.value.reason == "zip"


def test_export_refuses_a_corrupt_run(tmp_path: Path):
    ck.write_latest(tmp_path, encode_policy(V2, 1, TENSORS, {}), None, {})
    (tmp_path / "latest" / "log_std.npy").write_bytes(npy_bytes(np.ones(6)))
    with pytest.raises(PackageError, match=r"sha256 mismatch in log_std\.npy"):
        export_package(tmp_path, tmp_path / "policy.zip")
    assert not (tmp_path / "policy.zip").exists()


def test_tankrl_export_writes_a_valid_package(tmp_path: Path, capsys: pytest.CaptureFixture):
    from tankrl.deploy.cli import main

    weights = tmp_path / "weights"
    (weights / "myrun").mkdir(parents=True)
    ck.write_latest(weights / "myrun", encode_policy(V2, 9, TENSORS, {}), None, {})
    out = tmp_path / "policy.zip"
    assert main(["export", "myrun", "--out", str(out), "--weights-dir", str(weights)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "policy_version  9" in printed and V2.sha256 in printed
    assert load_package(out, V2)[2]["policy_version"] == 9
    assert main(["export", str(weights / "myrun"), "--out", str(out)]) == 0  # a run dir path


def test_tankrl_export_reports_a_missing_run(tmp_path: Path, capsys: pytest.CaptureFixture):
    from tankrl.deploy.cli import main

    code = main(
        ["export", "nope", "--out", str(tmp_path / "p.zip"), "--weights-dir", str(tmp_path)]
    )
    assert code == 2
    assert "error: no run 'nope'" in capsys.readouterr().out
