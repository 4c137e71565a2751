"""Motion metrics of `tankrl evaluate --motion` on hand-made sequences: speed reversals skip
zero-speed turns, |Δ turn rate| and distance add up per turn, the batched tracker (native) gives
the same numbers as the sequence version (hosted), and rounds pool by turns."""

import numpy as np
import pytest

from tankrl.deploy.eval_motion import MotionSummary, MotionTracker, RoundMotion, round_motion


def reversals(speed: list[float]) -> int:
    zeros = [0.0] * len(speed)
    return round_motion(speed, zeros, zeros, zeros).reversals


@pytest.mark.parametrize(
    ("speed", "expected"),
    [
        ([], 0),
        ([0.0, 0.0, 0.0], 0),
        ([1.0, 2.0, 8.0, 8.0], 0),
        ([1.0, -1.0], 1),
        ([-1.0, 1.0, -1.0, 1.0], 3),
        ([0.0, 1.0, 2.0, 0.0, 0.0, -1.0, -2.0, 0.0, 3.0], 2),  # across stops
        ([1.0, 0.0, 0.0, 1.0], 0),  # a stop and going on the same way is no reversal
        ([1e-12, -1e-12, 1e-12], 0),  # float dust counts as standing
        ([0.5, -0.5, 0.0, -0.5], 1),
    ],
)
def test_speed_reversals_count_sign_changes_and_skip_zero_speed(
    speed: list[float], expected: int
) -> None:
    assert reversals(speed) == expected


def test_turn_rate_change_and_distance_add_up_between_consecutive_turns() -> None:
    m = round_motion(
        speed=[0.0, 1.0, 2.0, 2.0],
        turn_rate=[0.0, 10.0, -10.0, -10.0],
        x=[0.0, 3.0, 3.0, 6.0],
        y=[0.0, 4.0, 4.0, 8.0],
    )
    assert m == RoundMotion(turns=4, reversals=0, turn_rate_change=30.0, distance=10.0)
    assert m.turn_rate_steps == 3


def test_round_motion_rejects_sequences_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        round_motion([1.0, 2.0], [0.0], [0.0, 0.0], [0.0, 0.0])


def test_summary_pools_rounds_by_turns_and_averages_distance_per_round() -> None:
    a = RoundMotion(turns=100, reversals=3, turn_rate_change=99.0, distance=1000.0)
    b = RoundMotion(turns=300, reversals=1, turn_rate_change=0.0, distance=0.0)
    s = MotionSummary.of([a, b])
    assert s.rounds == 2
    assert s.reversals_per_100_turns == pytest.approx(1.0)  # 4 reversals in 400 turns
    assert s.mean_abs_turn_rate_change == pytest.approx(99.0 / 398)  # 99 + 299 steps
    assert s.distance_per_round == pytest.approx(500.0)
    assert MotionSummary.of([]) == MotionSummary(0, 0.0, 0.0, 0.0)


def test_tracker_matches_round_motion_across_round_restarts() -> None:
    """Three arenas with rounds of different lengths, restarting at different turns."""
    rng = np.random.default_rng(3)
    lengths = [[5, 9, 2], [1, 12, 3], [16]]
    n = 3
    turns = 16
    tracker = MotionTracker(n)
    got: list[list[RoundMotion]] = [[] for _ in range(n)]
    want: list[list[RoundMotion]] = [[] for _ in range(n)]
    seqs = rng.choice([-2.0, -1.0, 0.0, 0.0, 1.0, 3.0], size=(turns, n))
    rates = rng.uniform(-10.0, 10.0, size=(turns, n))
    xs, ys = rng.uniform(0, 800, size=(turns, n)), rng.uniform(0, 600, size=(turns, n))
    starts = [np.cumsum([0, *ls[:-1]]) for ls in lengths]
    ends = [np.cumsum(ls) - 1 for ls in lengths]
    for t in range(turns):
        started = np.array([t in starts[a] for a in range(n)])
        tracker.update(started, seqs[t], rates[t], xs[t], ys[t])
        for a in range(n):
            if t in ends[a]:
                got[a].append(tracker.take(a))
                s = int(starts[a][list(ends[a]).index(t)])
                sl = slice(s, t + 1)
                want[a].append(round_motion(seqs[sl, a], rates[sl, a], xs[sl, a], ys[sl, a]))
    for a in range(n):
        assert len(got[a]) == len(lengths[a])
        for g, w in zip(got[a], want[a], strict=True):
            assert (g.turns, g.reversals) == (w.turns, w.reversals)
            assert g.turn_rate_change == pytest.approx(w.turn_rate_change)
            assert g.distance == pytest.approx(w.distance)
