"""`tankrl plot RUN`: a run whose learner wrote TensorBoard scalars (through learner/metrics.py, so
with the learner's own tag names) gets valid, non-empty PNG learning curves — one line per
opponent in the win-rate chart; a metrics.jsonl is read too (nested keys, kinds of turns/s, a
half-written last line) and takes precedence for its keys; a run without metrics is a clear
error.
"""

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from tankrl.deploy.cli import main
from tankrl.deploy.run_metrics import POOL_LABEL, Point, charts, merge, points_from_jsonl
from tankrl.learner.metrics import LearnerMetrics

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
OPPONENTS = ("SpinBot", "Walls")
C0, C1 = (0x1F, 0x77, 0xB4), (0xFF, 0x7F, 0x0E)  # matplotlib's first two line colours


def fake_run(run: Path, passes: int = 12) -> None:
    """What the learner writes to <run>/tb over `passes` training passes."""
    metrics = LearnerMetrics(run / "tb", use_ray=False)
    lag = SimpleNamespace(min=0.0, mean=0.5, max=1.0)
    for v in range(1, passes + 1):
        stats = {
            "loss": 1.0 / v,
            "policy_loss": -0.02 * math.sin(v),
            "value_loss": 3.0 / v,
            "entropy": 1.4 - 0.03 * v,
            "approx_kl": 0.01 + 0.001 * v,
            "clip_fraction": 0.1,
            "bc_loss": 0.0,
            "explained_variance": 0.2,
            "grad_norm": 0.4,
            "turns": 4096.0,
            "minibatches": 8.0,
            "pass_s": 2.0,
            "samples_per_s": 2000.0 + 25 * v,
        }
        play = {
            "episodic_return": -1.0 + 0.2 * v,
            "win_rate": {"SpinBot": v / passes, "Walls": 0.5 * v / passes},
            "rounds_by_opponent": {},
        }
        metrics.report_pass(v, 10, stats, lag, play, queue_depth=2)
    metrics.close()


def has_colour(path: Path, rgb: tuple[int, int, int]) -> bool:
    img = np.asarray(Image.open(path).convert("RGB")).astype(np.int32)
    return bool((np.abs(img - np.array(rgb)).max(axis=2) <= 8).sum() > 50)


def test_plot_writes_valid_pngs_of_a_learner_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights = tmp_path / "weights"
    fake_run(weights / "run1")
    out = tmp_path / "plots"
    assert main(["plot", "run1", "--weights-dir", str(weights), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    names = ("win_rate", "episodic_return", "losses", "turns_per_s", "overview")
    for name in names:
        path = out / f"{name}.png"
        assert f"wrote {path}" in printed
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        with Image.open(path) as img:
            img.verify()
        with Image.open(path) as img:
            assert img.width >= 600 and img.height >= 350
            assert len(img.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 20
        assert has_colour(path, C0), name  # a curve was drawn
    assert has_colour(out / "win_rate.png", C1)  # the second opponent's line
    assert not has_colour(out / "episodic_return.png", C1)  # one series only


def test_plot_defaults_to_the_runs_plots_dir_and_takes_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "somewhere" / "run2"
    fake_run(run, passes=3)
    assert main(["plot", str(run)]) == 0
    assert (run / "plots" / "losses.png").is_file()
    assert str(run / "plots" / "overview.png") in capsys.readouterr().out


def test_a_run_without_metrics_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "weights" / "fresh" / "tb").mkdir(parents=True)
    assert main(["plot", "fresh", "--weights-dir", str(tmp_path / "weights")]) == 1
    assert "has no metrics yet" in capsys.readouterr().out
    assert main(["plot", "missing", "--weights-dir", str(tmp_path / "weights")]) == 1
    assert "no run directory 'missing'" in capsys.readouterr().out
    assert not (tmp_path / "weights" / "fresh" / "plots").exists()


def test_metrics_jsonl_is_plotted_with_kinds_and_nested_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run3"
    run.mkdir()
    rows = [
        {
            "policy_version": v,
            "time_s": 10.0 * v,
            "win_rate": {"Crazy": v / 5},
            "turns_per_s": {"native": 9000 + v, "hosted": 300 + v},
        }
        for v in range(1, 6)
    ]
    text = "\n".join(json.dumps(r) for r in rows) + '\n{"policy_version": 6, "win'
    (run / "metrics.jsonl").write_text(text)
    assert main(["plot", str(run), "--out", str(tmp_path / "p")]) == 0
    printed = capsys.readouterr().out
    assert "skipped 1 malformed lines" in printed
    written = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert written == ["overview.png", "turns_per_s.png", "win_rate.png"]


def test_series_extraction() -> None:
    points, bad = points_from_jsonl(
        ['{"time_s": 2, "a": {"b": 1.5, "flag": true}}', "", "[1]", '{"time_s": 1, "a": {"b": 2}}']
    )
    assert bad == 1
    assert points == [Point("a/b", 2.0, 1.5, "time_s"), Point("a/b", 1.0, 2.0, "time_s")]
    tb = [
        Point("play/win_rate/Walls", 1, 0.1),
        Point("play/win_rate/Walls", 2, 0.2),
        Point("play/win_rate/Walls", 1, 0.3),  # a restart rewrote step 1: the last one wins
        Point("train/entropy", 1, 1.0),
        Point("train/entropy", 2, float("nan")),
        Point("train/policy_loss", 1, 0.5),
    ]
    jsonl = [Point("train/policy_loss", 3, 0.7), Point("actors/turns_per_s", 3, 100.0)]
    found = {c.name: c for c in charts(merge(tb, jsonl))}
    assert sorted(found) == ["losses", "turns_per_s", "win_rate"]
    (walls,) = found["win_rate"].subplots[0].series
    assert (walls.label, walls.steps, walls.values) == ("Walls", [1, 2], [0.3, 0.2])
    losses = {s.spec.title: s.series[0] for s in found["losses"].subplots}
    assert sorted(losses) == ["entropy", "policy loss"]
    assert losses["entropy"].steps == [1]  # NaN dropped
    assert losses["policy loss"].steps == [3]  # the jsonl replaces the TensorBoard series
    (played,) = found["turns_per_s"].subplots[0].series
    assert played.label == "all"


def test_pool_members_are_drawn_as_one_mean_while_each_was_in_the_pool() -> None:
    rows = [  # v10 left the pool after step 2: its rate stays frozen at 0.4 from then on
        {"policy_version": 1, "win_rate": {"Surfer": 0.1, "v10": 0.6}},
        {"policy_version": 2, "win_rate": {"Surfer": 0.2, "v10": 0.4, "v20": 0.5}},
        {"policy_version": 3, "win_rate": {"Surfer": 0.3, "v10": 0.4, "v20": 0.7}},
        {"policy_version": 4, "win_rate": {"Surfer": 0.3, "v10": 0.4, "v20": 0.9}},
    ]
    points, _ = points_from_jsonl(json.dumps(r) for r in rows)
    win = next(c for c in charts(points) if c.name == "win_rate").subplots[0]
    assert [s.label for s in win.series] == ["Surfer", POOL_LABEL]
    pool = win.series[1]
    assert pool.steps == [1.0, 2.0, 3.0, 4.0]
    assert pool.values == pytest.approx([0.6, 0.45, 0.7, 0.9])
