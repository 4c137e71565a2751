"""bench/soak.py's verdict: growth per process kind from around minute 10 to the last samples in
which every process of minute 10 still runs (medians of five samples, so one sample taken mid-pass
does not decide), and no verdict on growth from a run too short to show it."""

import json
from pathlib import Path
from typing import Any

import pytest

from bench.soak import Sample, report


def _sample(minute: float, learner: float, actors: int = 1) -> Sample:
    by_kind = {
        "learner": [
            {"pid": 1, "rss": learner, "anon": learner - 100.0, "file": 90.0, "shmem": 10.0}
        ],
        "native actor": [
            {"pid": 2 + i, "rss": 400.0, "anon": 300.0, "file": 90.0, "shmem": 10.0}
            for i in range(actors)
        ],
    }
    return Sample(minute, by_kind, learner_written_mb=minute, weights_mb=1.0)


def _verdict(samples: list[Sample], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    report(samples, run=Path("weights/x"))
    got: dict[str, Any] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return got


def test_growth_is_measured_from_minute_ten_to_the_last_full_sample(
    capsys: pytest.CaptureFixture[str],
) -> None:
    samples = [_sample(m, 400.0 + 2.0 * m) for m in range(0, 61)]
    samples.append(_sample(60.5, 900.0, actors=0))  # mid-shutdown: the actor is gone
    got = _verdict(samples, capsys)
    # minutes 8-12 against 56-60: medians at minutes 10 and 58
    assert got["rss_mb_per_process"]["learner"] == [420.0, 516.0]
    assert got["rss_growth_pct"] == {"learner": 22.9, "native actor": 0.0}
    assert got["max_rss_growth_pct"] == 22.9
    assert got["met"] is False


def test_one_sample_taken_mid_pass_does_not_decide(capsys: pytest.CaptureFixture[str]) -> None:
    samples = [_sample(m, 440.0) for m in range(0, 61)]
    samples[10] = _sample(10, 400.0)  # between two passes
    samples[60] = _sample(60, 480.0)  # in the middle of one
    got = _verdict(samples, capsys)
    assert got["rss_mb_per_process"]["learner"] == [440.0, 440.0]
    assert got["met"] is True
    steady_growth = [_sample(m, 440.0 + (40.0 if m >= 30 else 0.0)) for m in range(0, 61)]
    assert _verdict(steady_growth, capsys)["max_rss_growth_pct"] == 9.1


def test_a_run_too_short_has_no_growth_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    got = _verdict([_sample(m, 400.0) for m in range(0, 12)], capsys)
    assert got["max_rss_growth_pct"] is None
    assert got["met"] is False
