"""The output of `tankrl evaluate`: the table names its source (a native run is marked as an
estimate), the policy and the action mode, has one row per opponent plus a summary row, shows
motion columns only when asked; the JSON document carries the same figures."""

import json

import pytest

from tankrl.deploy.eval_motion import RoundMotion
from tankrl.deploy.eval_report import EvalReport, format_json, format_table, to_json
from tankrl.deploy.eval_stats import RoundRecord, summarize

MOTION = RoundMotion(turns=200, reversals=4, turn_rate_change=398.0, distance=1500.0)


def report(
    source: str = "hosted", motion: bool = False, sampled: tuple[str, ...] = ()
) -> EvalReport:
    records = [
        RoundRecord("SpinBot", True, True, 80.0, 10.0, 30.0, 10.0, 200, motion=MOTION),
        RoundRecord("SpinBot", False, False, 5.0, 90.0, 0.0, 30.0, 300, motion=MOTION),
        RoundRecord("Target", False, False, 0.0, 0.0, 0.0, 0.0, 999, truncated=True),
    ]
    rows, overall = summarize(records, ["SpinBot", "Target"])
    return EvalReport(
        source=source,
        policy="weights/run",
        contract="v2",
        contract_sha256="ab" * 32,
        policy_version=17,
        sampled=sampled,
        action_dims=6,
        seed=3,
        rounds_per_opponent=2,
        battle_rounds=10,
        rows=rows,
        overall=overall,
        motion=motion,
        wall_time_s=1.25,
        skipped_turns=0 if source == "hosted" else None,
    )


def table_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if len(cells) >= 6 and cells[0] != "opponent":
            rows[cells[0]] = cells
    return rows


def test_table_has_a_row_per_opponent_a_summary_row_and_the_header_facts() -> None:
    text = format_table(report())
    assert "hosted" in text and "estimate" not in text
    assert "contract v2" in text and "policy_version 17" in text
    assert "deterministic (action means)" in text and "seed 3" in text
    assert "skipped turns 0" in text and "wall time 1.2 s" in text
    assert "alive at the round's end and the opponent dead" in text
    rows = table_rows(text)
    assert list(rows) == ["SpinBot", "Target", "all"]
    assert rows["SpinBot"][1:] == ["2", "50.0  [  9.5,  90.5]", "50.0", "42.5", "0.43"]
    assert rows["Target"][1:] == ["1", "0.0  [  0.0,  79.3]", "0.0", "0.0", "-"]
    assert rows["all"][1] == "3"
    assert "1 rounds hit the turn limit" in text
    assert max(len(line) for line in text.splitlines()) <= 110


def test_native_table_is_marked_as_an_estimate_and_sampled_mode_is_named() -> None:
    every = ("goto_x", "goto_y", "aim_x", "aim_y", "fire_decision", "fire_power")
    text = format_table(report("native", sampled=every))
    assert text.splitlines()[0].startswith("tankrl evaluate: native estimate")
    assert "actions sampled (stochastic policy)" in text and "skipped turns" not in text
    text = format_table(report("native", sampled=("goto_x", "goto_y")))
    assert "actions means, except goto_x, goto_y sampled" in text


def test_motion_columns_only_with_motion() -> None:
    assert "rev/100t" not in format_table(report())
    text = format_table(report(motion=True))
    assert "rev/100t" in text and "dist/round" in text
    spin = table_rows(text)["SpinBot"]
    assert spin[-3:] == ["2.00", "2.00", "1500"]  # 8 in 400 turns, 796 deg over 398 steps


def test_json_document_carries_the_figures() -> None:
    doc = json.loads(format_json(report("native", motion=True)))
    assert doc == to_json(report("native", motion=True))
    assert doc["source"] == "native" and doc["estimate"] is True
    assert doc["policy"] == {
        "path": "weights/run",
        "contract": "v2",
        "contract_sha256": "ab" * 32,
        "policy_version": 17,
    }
    spin, target = doc["opponents"]
    assert spin["opponent"] == "SpinBot" and spin["rounds"] == 2 and spin["won"] == 1
    assert spin["won_ci95"] == pytest.approx([0.0945, 0.9055], abs=1e-4)
    assert spin["damage_share"] == pytest.approx(30 / 70)
    assert spin["motion"]["reversals_per_100_turns"] == pytest.approx(2.0)
    assert target["damage_share"] is None and target["truncated"] == 1
    assert doc["overall"]["rounds"] == 3 and doc["overall"]["first_places"] == 1
    assert "won" in doc["definitions"]
    assert "motion" not in json.loads(format_json(report()))["overall"]
