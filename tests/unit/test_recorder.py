"""The trajectory recorder (actor/recorder.py): rewards land on the decision they follow, a round
becomes one Trajectory per bot, natural ends are terminal and interruptions truncated with a
bootstrap value, bots of a batch finish independently, and old storage is released."""

import numpy as np

from tankrl.actor.recorder import TrajectoryRecorder
from tankrl.shared.contracts import V2


def decide(rec: TrajectoryRecorder, mask: np.ndarray, t: float, version: int = 1) -> None:
    n = rec.n
    rec.add_decision(
        mask,
        np.full((n, V2.obs_size), t, np.float32),
        np.full((n, V2.action_size), -t, np.float32),
        np.full(n, t / 10, np.float32),
        np.full(n, 2 * t, np.float32),
        version,
    )


def test_rewards_follow_decisions_and_a_natural_end_is_terminal() -> None:
    rec = TrajectoryRecorder(V2, ["a"], block=4)
    one = np.ones(1, bool)
    for t in range(6):
        rec.add_reward(one, np.array([10.0 * t], np.float32))  # reward of the previous decision
        decide(rec, one, t)
    rec.add_reward(one, np.array([99.0], np.float32))  # the last tick's reward
    (tr,) = rec.end_round(one, np.zeros(1, bool), np.array([5.0], np.float32), [{"won": True}])
    assert tr.turns == 6
    np.testing.assert_array_equal(tr.obs[:, 0], np.arange(6))
    np.testing.assert_array_equal(tr.actions[:, 0], -np.arange(6))
    np.testing.assert_array_equal(tr.rewards, [10, 20, 30, 40, 50, 99])
    assert tr.terminals[-1] and not tr.terminals[:-1].any() and not tr.truncations.any()
    assert tr.bootstrap_value == 0.0  # terminal: value 0 after the last step
    assert tr.info == {"won": True} and tr.round_id == 0 and tr.policy_version == 1


def test_interrupted_round_is_truncated_with_bootstrap() -> None:
    rec = TrajectoryRecorder(V2, ["a"])
    one = np.ones(1, bool)
    for t in range(3):
        decide(rec, one, t)
    (tr,) = rec.end_round(one, np.ones(1, bool), np.array([7.5], np.float32))
    assert tr.truncations[-1] and not tr.terminals.any()
    assert tr.bootstrap_value == 7.5


def test_batch_bots_finish_independently_and_round_ids_count_up() -> None:
    rec = TrajectoryRecorder(V2, ["a", "b"], block=3)
    both = np.ones(2, bool)
    for t in range(4):
        decide(rec, both, t)
    (b_round,) = rec.end_round(np.array([False, True]), np.zeros(2, bool), np.zeros(2, np.float32))
    assert b_round.bot_id == "b" and b_round.turns == 4
    decide(rec, np.array([True, False]), 4)  # b's terminal tick: no decision
    for t in range(5, 8):
        decide(rec, both, t, version=2)
    trs = rec.end_round(both, np.zeros(2, bool), np.zeros(2, np.float32))
    a, b = sorted(trs, key=lambda tr: tr.bot_id)
    np.testing.assert_array_equal(a.obs[:, 0], np.arange(8))
    assert a.policy_version == 1  # the version of the round's first step
    np.testing.assert_array_equal(b.obs[:, 0], [5, 6, 7])
    assert (b.round_id, b.policy_version) == (1, 2)
    assert len(rec._blocks) <= 1  # nothing open: only the current block may remain


def test_round_without_decisions_yields_nothing() -> None:
    rec = TrajectoryRecorder(V2, ["a"])
    assert rec.end_round(np.ones(1, bool), np.zeros(1, bool), np.zeros(1, np.float32)) == []
