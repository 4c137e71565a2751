"""The inbox's staleness rules: one untrained round per bot (a newer round_id replaces the queued
one, an older or repeated one is dropped), the policy-lag drop on arrival and while queued, the
contract check naming both ids, counters by reason, and what `take()` hands to the trainer."""

import dataclasses

import pytest

from tankrl.learner.inbox import DROP_REASONS, Inbox
from tankrl.learner.testing import random_tensors, synthetic_round
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import NumpyPolicy
from tankrl.shared.wire import Trajectory

POLICY = NumpyPolicy(V2, random_tensors(V2, seed=0))


def _round(bot: str = "a", round_id: int = 1, version: int = 10, turns: int = 5) -> Trajectory:
    return synthetic_round(V2, POLICY, turns, bot_id=bot, round_id=round_id, policy_version=version)


def test_a_newer_round_replaces_the_queued_one_as_a_stale_pass():
    inbox = Inbox(V2, max_policy_lag=4)
    assert inbox.offer(_round(round_id=1), 10).accepted
    verdict = inbox.offer(_round(round_id=2), 10)
    assert verdict.accepted and verdict.replaced_round == 1
    assert inbox.dropped["stale_pass"] == 1
    rounds, _ = inbox.take(10)
    assert [tr.round_id for tr in rounds] == [2]


def test_an_older_or_repeated_round_id_is_dropped_even_after_training():
    inbox = Inbox(V2, max_policy_lag=4)
    inbox.offer(_round(round_id=5), 10)
    for rid in (5, 3):
        verdict = inbox.offer(_round(round_id=rid), 10)
        assert not verdict.accepted and verdict.reason == "stale_round"
        assert "not newer than round 5" in verdict.detail
    inbox.take(10)
    assert inbox.offer(_round(round_id=4), 11).reason == "stale_round"
    assert inbox.offer(_round(round_id=6), 11).accepted
    assert inbox.dropped["stale_round"] == 3


def test_bots_are_independent():
    inbox = Inbox(V2, max_policy_lag=4)
    for bot in ("a", "b", "c"):
        assert inbox.offer(_round(bot, round_id=1), 10).accepted
    assert inbox.depth == 3
    assert inbox.queued_turns == 15
    assert inbox.dropped["stale_pass"] == 0


def test_a_round_played_too_many_versions_ago_is_dropped_on_arrival():
    inbox = Inbox(V2, max_policy_lag=4)
    assert inbox.offer(_round("a", version=6), 10).accepted  # lag 4: allowed
    verdict = inbox.offer(_round("b", version=5), 10)  # lag 5
    assert not verdict.accepted and verdict.reason == "lag"
    assert "5 versions behind 10" in verdict.detail
    assert inbox.dropped["lag"] == 1 and inbox.depth == 1


def test_a_queued_round_that_ages_past_the_limit_is_dropped_at_take():
    inbox = Inbox(V2, max_policy_lag=2)
    inbox.offer(_round("a", version=10), 10)
    inbox.offer(_round("b", version=12), 12)
    rounds, lag = inbox.take(13)
    assert [tr.bot_id for tr in rounds] == ["b"]
    assert inbox.dropped["lag"] == 1 and inbox.depth == 0
    assert lag is not None and (lag.min, lag.mean, lag.max) == (1, 1.0, 1)


def test_wrong_contract_is_rejected_naming_both_ids():
    inbox = Inbox(V2, max_policy_lag=4)
    foreign = dataclasses.replace(_round(), contract_sha256=V1.sha256)
    verdict = inbox.offer(foreign, 10)
    assert not verdict.accepted and verdict.reason == "contract"
    assert V1.sha256 in verdict.detail and V2.sha256 in verdict.detail
    assert inbox.dropped["contract"] == 1 and inbox.depth == 0


def test_take_hands_over_newest_arrivals_first_within_max_turns():
    inbox = Inbox(V2, max_policy_lag=4)
    for i, bot in enumerate("abcd"):
        inbox.offer(_round(bot, turns=10 + i), 10)
    inbox.offer(_round("a", round_id=2, turns=20), 10)  # a re-arrives: now the newest
    rounds, lag = inbox.take(12, max_turns=35)
    assert [tr.bot_id for tr in rounds] == ["d", "a"]  # 13 + 20 turns; c (12) would exceed
    assert lag is not None and lag.max == 2
    assert sorted(tr.bot_id for tr in inbox.take(12)[0]) == ["b", "c"]
    assert inbox.take(12) == ([], None)


def test_take_always_hands_over_one_round_even_above_max_turns():
    inbox = Inbox(V2, max_policy_lag=4)
    inbox.offer(_round(turns=50), 10)
    rounds, _ = inbox.take(10, max_turns=10)
    assert len(rounds) == 1


def test_rounds_from_a_newer_version_are_accepted_and_remembered():
    inbox = Inbox(V2, max_policy_lag=4)
    assert inbox.offer(_round(version=50), 10).accepted  # e.g. after a restart from a checkpoint
    assert inbox.max_version_seen == 50
    lag = inbox.queued_lag(10)
    assert lag is not None and lag.min == -40


def test_arrays_must_have_the_contract_widths_and_a_turn():
    inbox = Inbox(V2, max_policy_lag=4)
    tr = _round()
    narrow = dataclasses.replace(tr, obs=tr.obs[:, :42])
    verdict = inbox.offer(narrow, 10)
    assert (verdict.accepted, verdict.reason) == (False, "invalid")
    assert "42/6 wide, contract v2 has 44/6" in verdict.detail
    empty = dataclasses.replace(
        tr, **{k: getattr(tr, k)[:0] for k in ("obs", "actions", "logprobs", "values", "rewards",
                                                "terminals", "truncations")}
    )  # fmt: skip
    assert inbox.offer(empty, 10).detail.endswith("no turns")
    assert inbox.dropped["invalid"] == 2 and inbox.depth == 0
    assert inbox.offer(tr, 10).accepted  # the bot's round id was not used up by the bad ones


@pytest.mark.parametrize("reason", DROP_REASONS)
def test_reject_counts_any_reason(reason: str):
    inbox = Inbox(V2, max_policy_lag=4)
    verdict = inbox.reject(reason, "why")
    assert (verdict.accepted, verdict.reason, verdict.detail) == (False, reason, "why")
    assert inbox.dropped[reason] == 1


def test_a_pass_is_due_at_min_turns_or_once_a_bot_has_a_newer_round():
    # two bots with short rounds never reach min_turns: waiting would replace round after round
    inbox = Inbox(V2, max_policy_lag=4)
    assert not inbox.pass_due(100)
    inbox.offer(_round("a", 1), 10)
    inbox.offer(_round("b", 1), 10)
    assert not inbox.pass_due(100) and inbox.pass_due(10)
    inbox.offer(_round("a", 2), 10)  # a's round 1 is lost: train now
    assert inbox.pass_due(100)
    rounds, _ = inbox.take(10)
    assert sorted((tr.bot_id, tr.round_id) for tr in rounds) == [("a", 2), ("b", 1)]
    assert not inbox.pass_due(100)
    inbox.offer(_round("a", 3), 10)
    assert not inbox.pass_due(100)
