"""`tankrl evaluate` before any battle: the policy argument resolves (path, run name under
--weights-dir) and is validated with a clear error, options are checked, battles are planned per
opponent (split when --jobs exceeds the opponents) with stable seeds, native arenas get quotas
that add up; and the pure evaluation modules import none of ray, torch, websockets, the Bot API."""

import json
from pathlib import Path

import numpy as np
import pytest

from tankrl.deploy.cli import main
from tankrl.deploy.evaluation import (
    arena_quotas,
    battle_seed,
    native_arenas,
    plan_battles,
    resolve_policy,
)
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy import init_tensors
from tankrl.shared.policy_files import encode_policy

REPO = Path(__file__).resolve().parents[2]


def write_policy(path: Path) -> Path:
    contract = get_contract("v2")
    path.mkdir(parents=True)
    for name, data in encode_policy(contract, 3, init_tensors(contract, 8), {}).items():
        (path / name).write_bytes(data)
    return path


def test_policy_resolves_as_a_path_or_a_run_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = tmp_path / "weights"
    run = write_policy(weights / "myrun" / "latest").parent
    assert resolve_policy(str(run), weights) == run.resolve()
    assert resolve_policy("myrun", weights) == run.resolve()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myrun").mkdir()  # a bare name prefers the run under --weights-dir
    assert resolve_policy("myrun", weights) == run.resolve()
    with pytest.raises(FileNotFoundError, match="nope"):
        resolve_policy("nope", weights)


def test_bad_policy_is_a_clear_error_before_any_battle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["evaluate", str(tmp_path / "empty"), "--rounds", "1"]) == 2
    assert "not a policy package, a policy dir or a run dir" in capsys.readouterr().err
    assert main(["evaluate", "missing-run", "--weights-dir", str(tmp_path)]) == 2
    assert "no policy 'missing-run'" in capsys.readouterr().err
    bad = write_policy(tmp_path / "bad")
    manifest = json.loads((bad / "manifest.json").read_text())
    manifest["policy_version"] = "x"
    (bad / "manifest.json").write_text(json.dumps(manifest))
    assert main(["evaluate", str(bad)]) == 2
    assert "error:" in capsys.readouterr().err


def test_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write_policy(tmp_path / "p")
    assert main(["evaluate", str(policy), "--rounds", "0"]) == 2
    assert "--rounds must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate", str(policy), "--opponents", "SpinBot,Nobody"])
    assert "unknown opponent(s) Nobody" in capsys.readouterr().err


def test_native_json_on_a_tiny_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write_policy(tmp_path / "p")
    argv = ["evaluate", str(policy), "--native", "--rounds", "2", "--opponents", "Target,SpinBot"]
    assert main([*argv, "--json", "--motion", "--max-turns", "300"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["source"] == "native" and doc["estimate"] is True
    assert doc["policy"]["policy_version"] == 3
    assert [o["opponent"] for o in doc["opponents"]] == ["Target", "SpinBot"]
    assert [o["rounds"] for o in doc["opponents"]] == [2, 2]
    assert 0 < doc["opponents"][0]["mean_turns"] <= 300
    assert doc["overall"]["motion"]["distance_per_round"] >= 0.0


def test_battles_are_planned_per_opponent_and_split_for_spare_jobs() -> None:
    assert plan_battles(["A", "B"], 3, 2, 10) == [("A", 3, 0), ("B", 3, 0)]
    assert plan_battles(["A", "B", "C"], 3, 2, 10) == [("A", 3, 0), ("B", 3, 0), ("C", 3, 0)]
    assert plan_battles(["A"], 5, 2, 10) == [("A", 3, 0), ("A", 2, 1)]
    assert plan_battles(["A"], 1, 4, 10) == [("A", 1, 0)]
    plan = plan_battles(["A", "B"], 100, 7, 100)
    assert [sum(n for o, n, _ in plan if o == name) for name in "AB"] == [100, 100]


def test_no_battle_is_longer_than_battle_rounds() -> None:
    # an opponent that learns (Surfer) forgets between battles: their length is part of the test
    plan = plan_battles(["A", "B"], 25, 2, 10)
    assert plan == [("A", 9, 0), ("A", 8, 1), ("A", 8, 2), ("B", 9, 0), ("B", 8, 1), ("B", 8, 2)]
    assert plan_battles(["A"], 200, 2, 200) == [("A", 100, 0), ("A", 100, 1)]


def test_battle_seeds_are_stable_and_distinct() -> None:
    seeds = {battle_seed(s, o, c) for s in (0, 1) for o in ("A", "B") for c in (0, 1)}
    assert len(seeds) == 8 and all(0 <= s < 2**56 for s in seeds)
    assert battle_seed(0, "A", 0) == battle_seed(0, "A", 0)


def test_native_arenas_play_whole_battles() -> None:
    assert native_arenas(100, 10, 64) == 10  # each arena: one battle of 10 rounds
    assert native_arenas(200, 10, 64) == 20
    assert native_arenas(1000, 10, 64) == 64  # capped by --arenas
    assert native_arenas(5, 10, 64) == 1
    assert native_arenas(100, 1, 64) == 64


def test_native_arena_quotas_add_up_per_opponent() -> None:
    q = arena_quotas(opponents=3, rounds=10, per_opponent=4)
    assert q.shape == (12,)
    for k in range(3):
        assert q[k::3].sum() == 10 and q[k::3].max() - q[k::3].min() <= 1
    assert np.array_equal(arena_quotas(2, 3, 3), np.ones(6, dtype=np.int64))
