"""The self-play pool (actor/pool.py): a version enters once the policy has moved on far enough,
is sampled by the rule, and leaves by the rule when the pool is full."""

import numpy as np
import pytest

from tankrl.actor.pool import MEMBER_NAME, MIN_RESULTS, Member, OpponentPool
from tankrl.shared.config import NAMED_OPPONENTS

TENSORS = {"w": np.zeros(3, np.float32)}


def test_a_version_enters_every_so_many_versions_and_is_sampled() -> None:
    pool = OpponentPool(capacity=3, every_versions=10, rule="uniform", seed=1)
    assert not pool.offer(4, TENSORS)  # the start of training is no opponent yet
    assert pool.offer(10, TENSORS) and list(pool.members) == ["v10"]
    assert not pool.offer(15, TENSORS)  # too close to v10
    assert pool.offer(20, TENSORS)
    picks = pool.sample(400)
    assert set(picks) == {"v10", "v20"} and 150 < picks.count("v10") < 250
    assert pool.sample(0) == [] and OpponentPool(1, 1).sample(5) == []


def test_the_members_tensors_are_a_copy() -> None:
    pool = OpponentPool(capacity=2, every_versions=1)
    live = {"w": np.ones(2, np.float32)}
    pool.offer(1, live)
    live["w"][:] = 7.0  # the learner's next version overwrites its arrays
    assert pool.members["v1"].tensors["w"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("rule", ["uniform", "latest"])
def test_the_oldest_leaves_a_full_pool(rule: str) -> None:
    pool = OpponentPool(capacity=2, every_versions=5, rule=rule)
    for version in (5, 10, 15):
        pool.offer(version, TENSORS)
    assert list(pool.members) == ["v10", "v15"] and pool.left == ["v5"]


def test_latest_plays_the_newer_members_more() -> None:
    pool = OpponentPool(capacity=3, every_versions=1, rule="latest", seed=2)
    for version in (1, 2, 3):
        pool.offer(version, TENSORS)
    assert pool.weights().tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6])


def test_pfsp_plays_the_members_that_beat_us_and_drops_the_one_we_beat_most() -> None:
    pool = OpponentPool(capacity=3, every_versions=1, rule="pfsp", seed=3)
    for version in (1, 2, 3):
        pool.offer(version, TENSORS)
    for _ in range(MIN_RESULTS):
        pool.record("v1", True)  # we always beat v1
        pool.record("v2", False)  # v2 always beats us
        pool.record("v3", bool(_ % 2))  # even
    w = dict(zip(pool.members, pool.weights(), strict=True))
    assert w["v2"] > w["v3"] > w["v1"]
    picks = pool.sample(1000)
    assert picks.count("v2") > 600 and picks.count("v1") < 20
    pool.offer(4, TENSORS)  # full: the member we beat most leaves, not the oldest as such
    assert "v1" not in pool.members and pool.left == ["v1"]
    assert pool.summary()["v2"] == [0.0, MIN_RESULTS]


def test_results_for_members_that_left_are_ignored_and_bad_settings_refused() -> None:
    pool = OpponentPool(capacity=1, every_versions=1)
    pool.offer(1, TENSORS)
    pool.offer(2, TENSORS)
    pool.record("v1", True)
    assert pool.summary() == {"v2": [0.5, 0]}
    with pytest.raises(ValueError, match="unknown pool rule"):
        OpponentPool(2, 1, rule="best")
    with pytest.raises(ValueError):
        OpponentPool(0, 1)


def test_member_names_are_told_apart_from_named_opponents() -> None:
    # progress and plots tell pool members from scripted opponents by this pattern
    assert MEMBER_NAME.fullmatch(Member(120, {}).name)
    assert not any(MEMBER_NAME.fullmatch(name) for name in NAMED_OPPONENTS)
