"""The bot's policy slot (actor/policy_slot.py): newer valid weights are staged and applied only
when the bot swaps between turns; weights for another contract or with wrong shapes are refused
with a message naming both ids, and the bot keeps its current weights."""

import numpy as np

from tankrl.actor.policy_slot import PolicySlot
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import init_tensors
from tankrl.shared.wire import WeightsUpdate


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
