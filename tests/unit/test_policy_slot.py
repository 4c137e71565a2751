"""The bot's policy slot (actor/policy_slot.py): newer valid weights are staged and applied only
when the bot swaps between turns; weights for another contract or with wrong shapes are refused
with a message naming both ids, and the bot keeps its current weights. A bot loading a policy
plays it as its config says (actors.play_sampled) unless told otherwise, for every version."""

from pathlib import Path

import numpy as np
import pytest

from tankrl.actor.policy_slot import PolicySlot
from tankrl.actor.ppo_bot import load_slot
from tankrl.shared.config import ConfigError, RunConfig
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import init_tensors
from tankrl.shared.policy_files import PolicyFilesError, encode_policy
from tankrl.shared.wire import WeightsUpdate


def _policy_dir(tmp_path: Path, config: dict) -> Path:  # type: ignore[type-arg]
    for name, data in encode_policy(V2, 9, init_tensors(V2, seed=1), config).items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def test_a_loaded_policy_plays_its_configured_sampled_dims(tmp_path: Path) -> None:
    path = str(_policy_dir(tmp_path, {"actors": {"play_sampled": ["goto_y", "goto_x"]}}))
    slot = load_slot(path, "v2", seed=0)
    assert slot.version == 9 and slot.policy.play_sampled == ("goto_x", "goto_y")
    assert load_slot(path, "v2", seed=0, sample="none").policy.play_sampled == ()
    assert load_slot(path, "v2", seed=0, sample="aim_x").policy.play_sampled == ("aim_x",)
    assert slot.offer(WeightsUpdate(10, V2.sha256, init_tensors(V2, seed=2))) and slot.swap()
    assert slot.policy.play_sampled == ("goto_x", "goto_y")  # kept by newer versions


def test_a_policy_without_the_setting_plays_its_means(tmp_path: Path) -> None:
    assert load_slot(str(_policy_dir(tmp_path, {})), "v2", seed=0).policy.play_sampled == ()


def test_a_bad_play_setting_is_refused_naming_it(tmp_path: Path) -> None:
    path = str(_policy_dir(tmp_path, {"actors": {"play_sampled": ["goto_z"]}}))
    with pytest.raises(
        PolicyFilesError, match=r"actors\.play_sampled: unknown action dim\(s\) goto_z"
    ):
        load_slot(path, "v2", seed=0)


def test_newer_weights_apply_only_at_swap() -> None:
    slot = PolicySlot(V2, init_tensors(V2, seed=1), version=3)
    before = slot.policy
    assert slot.offer(WeightsUpdate(4, V2.sha256, init_tensors(V2, seed=2)))
    assert slot.policy is before and slot.version == 3  # nothing changes mid-turn
    assert slot.swap()
    assert slot.version == 4 and slot.policy is not before
    assert not slot.swap()  # nothing staged any more


def test_older_or_equal_versions_are_ignored() -> None:
    slot = PolicySlot(V2, version=5)
    assert not slot.offer(WeightsUpdate(5, V2.sha256, init_tensors(V2)))
    assert not slot.offer(WeightsUpdate(2, V2.sha256, init_tensors(V2)))
    assert not slot.swap() and slot.version == 5


def test_wrong_contract_is_refused_naming_both_ids(capsys) -> None:  # type: ignore[no-untyped-def]
    slot = PolicySlot(V2, version=1)
    assert not slot.offer(WeightsUpdate(2, V1.sha256, init_tensors(V1)))
    assert slot.refused == 1
    assert V1.sha256 in slot.last_refusal and V2.sha256 in slot.last_refusal
    assert "keeping policy_version 1" in capsys.readouterr().out
    assert not slot.swap() and slot.version == 1


def test_wrong_shapes_are_refused() -> None:
    slot = PolicySlot(V2, version=1)
    bad = init_tensors(V2)
    bad["actor.0.weight"] = np.zeros((64, 40), np.float32)
    assert not slot.offer(WeightsUpdate(2, V2.sha256, bad))
    assert slot.refused == 1 and "actor.0.weight" in slot.last_refusal
    assert slot.version == 1


def test_a_run_config_names_play_sampled_dims_of_its_contract() -> None:
    cfg = {"contract": "v4", "actors": {"play_sampled": ["goto_x", "aim_x"]}}
    with pytest.raises(ConfigError, match=r"actors\.play_sampled: unknown action dim\(s\) aim_x"):
        RunConfig.from_dict(cfg).validate()
    cfg["actors"] = {"play_sampled": ["goto_x", "aim_lead"]}
    assert RunConfig.from_dict(cfg).validate().actors.play_sampled == ("goto_x", "aim_lead")
