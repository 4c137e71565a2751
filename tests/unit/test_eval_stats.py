"""Statistics of `tankrl evaluate` on hand-made data: Wilson intervals, survivor wins vs official
1st places from a hosted battle's observer data, per-round scores and the bullet-damage share."""

import pytest

from tankrl.arena.server.battle import BattleResult, BotTrace, RoundDetail
from tankrl.deploy.eval_stats import (
    RoundRecord,
    Summary,
    hosted_records,
    summarize,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (0, 3, 0.0, 0.5615),
        (1, 3, 0.0615, 0.7923),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, lo: float, hi: float) -> None:
    assert wilson_interval(k, n) == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_interval_is_symmetric_and_contains_the_rate() -> None:
    for n in (1, 7, 100):
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
            lo2, hi2 = wilson_interval(n - k, n)
            assert (lo, hi) == pytest.approx((1.0 - hi2, 1.0 - lo2))


def test_wilson_interval_of_no_rounds_is_uninformative_and_bad_counts_raise() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def row(bot_id: int, name: str, total: int, firsts: int, damage: int) -> dict[str, object]:
    return {
        "id": bot_id,
        "name": name,
        "totalScore": total,
        "firstPlaces": firsts,
        "bulletDamage": damage,
    }


def battle() -> BattleResult:
    """Four rounds of TankRL (id 2) against SpinBot (id 1); results accumulate round by round.

    1: we kill SpinBot (won, 1st). 2: double KO, we scored more (not won, 1st).
    3: we die but out-damaged SpinBot (not won, 1st). 4: nobody died (not won, SpinBot 1st).
    """
    ours = [(80, 1, 20), (130, 2, 50), (160, 3, 80), (160, 3, 80)]
    theirs = [(10, 0, 10), (40, 0, 30), (120, 0, 40), (130, 1, 50)]
    results = [
        [row(2, "TankRL", *o), row(1, "SpinBot", *t)] for o, t in zip(ours, theirs, strict=True)
    ]
    deaths = [[1], [2, 1], [2], []]
    details = [
        RoundDetail(round_number=i + 1, turns=100 * (i + 1), deaths=d) for i, d in enumerate(deaths)
    ]
    details[0].traces[2] = BotTrace(speed=[1.0, -1.0], turn_rate=[0, 5], x=[0, 3], y=[0, 4])
    return BattleResult(results[-1], 4, 1000, None, results, details)


def test_hosted_records_count_survivor_wins_and_official_firsts_apart() -> None:
    records = hosted_records(battle(), "TankRL", "SpinBot")
    assert [r.won for r in records] == [True, False, False, False]
    assert [r.first for r in records] == [True, True, True, False]
    assert [r.score for r in records] == [80, 50, 30, 0]
    assert [r.enemy_score for r in records] == [10, 30, 80, 10]
    assert [r.damage_dealt for r in records] == [20, 30, 30, 0]
    assert [r.damage_taken for r in records] == [10, 20, 10, 10]
    assert [r.turns for r in records] == [100, 200, 300, 400]
    assert records[0].motion is not None and records[0].motion.reversals == 1
    assert records[0].motion.distance == 5.0
    assert records[1].motion is None


def test_hosted_records_need_per_round_observation_and_our_bot() -> None:
    result = battle()
    with pytest.raises(ValueError, match="TankRL"):
        hosted_records(result, "TankRL2", "SpinBot")
    result.details = []
    with pytest.raises(ValueError, match="observe_rounds"):
        hosted_records(result, "TankRL", "SpinBot")


def test_summary_pools_rates_scores_and_damage_share() -> None:
    records = hosted_records(battle(), "TankRL", "SpinBot")
    s = Summary.of("SpinBot", records)
    assert (s.rounds, s.won, s.first) == (4, 1, 3)
    assert s.won_rate == 0.25 and s.first_rate == 0.75
    assert s.won_ci95 == wilson_interval(1, 4)
    assert s.mean_score == 40.0 and s.mean_enemy_score == 32.5
    assert s.damage_share == pytest.approx(80 / (80 + 50))
    assert s.motion is not None and s.motion.rounds == 1


def test_damage_share_is_undefined_without_hits_and_summaries_follow_opponent_order() -> None:
    def rec(opponent: str, won: bool) -> RoundRecord:
        return RoundRecord(opponent, won, won, 10.0, 0.0, 0.0, 0.0, 50)

    records = [rec("Walls", True), rec("Target", False), rec("Walls", False)]
    rows, overall = summarize(records, ["Target", "Walls", "Crazy"])
    assert [(r.label, r.rounds, r.won) for r in rows] == [
        ("Target", 1, 0),
        ("Walls", 2, 1),
        ("Crazy", 0, 0),
    ]
    assert (overall.label, overall.rounds, overall.won) == ("all", 3, 1)
    assert overall.damage_share is None and overall.motion is None
    assert rows[2].won_ci95 == (0.0, 1.0)
