"""Learner metrics outside Ray (values kept locally, TensorBoard event files in the run dir,
unknown names refused) and the play statistics behind them (episodic return, win rate by
opponent read robustly from trajectory info)."""

import math
from pathlib import Path

import pytest

from tankrl.learner.metrics import LearnerMetrics
from tankrl.learner.round_stats import RoundStats
from tankrl.learner.testing import random_tensors, synthetic_round
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy

POLICY = NumpyPolicy(V2, random_tensors(V2, seed=0))


def test_counters_and_gauges_work_without_ray_and_write_tensorboard(tmp_path: Path):
    metrics = LearnerMetrics(tmp_path / "tb", use_ray=False)
    metrics.inc("rounds_dropped", reason="lag")
    metrics.inc("rounds_dropped", 2, reason="lag")
    metrics.inc("rounds_received")
    metrics.set("policy_version", 7)
    metrics.set("win_rate", 0.25, opponent="Walls")
    assert metrics.value("rounds_dropped", reason="lag") == 3
    assert metrics.value("rounds_dropped", reason="invalid") == 0
    assert metrics.value("rounds_received") == 1
    assert metrics.value("policy_version") == 7
    assert metrics.value("win_rate", opponent="Walls") == 0.25
    metrics.scalars(1, {"policy_loss": 0.5, "explained_variance": math.nan}, "train/")
    metrics.close()
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))


def test_unknown_metric_names_are_refused():
    metrics = LearnerMetrics(use_ray=False)
    with pytest.raises(KeyError):
        metrics.inc("policy_version")  # a gauge, not a counter
    with pytest.raises(KeyError):
        metrics.set("no_such_gauge", 1.0)


def _round(info: dict, seed: int = 0):
    return synthetic_round(V2, POLICY, 10, seed=seed, info=info)


def test_win_rate_by_opponent_reads_info_robustly():
    stats = RoundStats(window=4)
    for info in (
        {"opponent": "Walls", "won": True},
        {"opponent": "Walls", "won": 0},
        {"opponent": "Walls", "won": "true"},
        {"opponent": "", "won": False},  # no name: counted as unknown
        {"won": True},
        {"opponent": "Crazy"},  # no result: not counted
        {"opponent": "Crazy", "won": "maybe"},
    ):
        stats.add(_round(info))
    assert stats.win_rates() == {"Walls": pytest.approx(2 / 3), "unknown": 0.5}
    assert stats.rounds_by_opponent() == {"Walls": 3, "unknown": 2}


def test_episodic_return_is_the_mean_over_the_window():
    stats = RoundStats(window=2)
    assert math.isnan(stats.episodic_return)
    rounds = [_round({}, seed=s) for s in range(3)]
    for tr in rounds:
        stats.add(tr)
    expected = (float(rounds[1].rewards.sum()) + float(rounds[2].rewards.sum())) / 2
    assert stats.episodic_return == pytest.approx(expected, rel=1e-6)


def test_a_pass_report_sets_every_figure_the_dashboard_shows():
    from tankrl.learner.inbox import LagStats

    metrics = LearnerMetrics(use_ray=False)
    stats = {
        k: 0.5
        for k in (
            "policy_loss",
            "value_loss",
            "entropy",
            "approx_kl",
            "clip_fraction",
            "bc_loss",
            "explained_variance",
            "samples_per_s",
            "pass_s",
        )
    }
    stats["turns"] = 300.0
    play = {"episodic_return": 1.5, "win_rate": {"Walls": 0.75}, "rounds_by_opponent": {}}
    metrics.report_pass(4, 3, stats, LagStats(0, 0.5, 1), play, queue_depth=2)
    metrics.report_pass(5, 2, stats, None, play, queue_depth=0)
    assert metrics.value("policy_version") == 5
    assert metrics.value("rounds_trained") == 5 and metrics.value("turns_trained") == 600
    assert metrics.value("training_passes") == 2
    assert metrics.value("policy_lag", stat="max") == 1
    assert metrics.value("win_rate", opponent="Walls") == 0.75
    assert metrics.value("entropy") == 0.5 and metrics.value("queue_depth") == 0
    assert metrics.value("bc_loss") == 0.5


def _pass(metrics: LearnerMetrics, version: int) -> None:
    stats = dict.fromkeys(
        ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "bc_loss",
         "explained_variance", "samples_per_s", "pass_s", "turns"), 1.0,
    )  # fmt: skip
    play = {"episodic_return": 0.0, "win_rate": {"SpinBot": 0.5}, "rounds_by_opponent": {}}
    metrics.report_pass(version, 1, stats, None, play, queue_depth=0)


def test_tensorboard_is_written_at_most_as_often_as_configured(tmp_path: Path) -> None:
    """A long run's tb/ grows with time, not with passes: within `tb_every_s` only the first
    pass is written, while the counters and gauges follow every pass."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    metrics = LearnerMetrics(tmp_path / "tb", use_ray=False, tb_every_s=3600.0)
    for version in range(1, 51):
        _pass(metrics, version)
    metrics.close()
    assert metrics.value("training_passes") == 50 and metrics.value("policy_version") == 50
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    assert [e.step for e in events.Scalars("train/policy_loss")] == [1]
