"""docs/rules.md §12 scoring (and §10's round end): a 1v1 kill by bullet scores 50 survival + 10
last survivor + bullet damage (capped at the victim's remaining energy, never below 0) + 20 % of all
damage dealt to the victim as kill bonus; ram damage scores x2 for the rammer only, a ram kill adds
30 %; survival is +50 per death-turn (not per death); last survivor 10 x dead participants, or in a
double KO 10 x all participants to each bot alive before that turn; ranks by round score with shared
ranks for ties; WonRoundEvent and first/second/third places by round score (a loser who out-damaged
the winner wins the round, a 0-0 round gives both a win); results accumulate over rounds and round
to integers (bulletKillBonus truncated, the rest rounded).
"""

import numpy as np
import pytest
from rules_helpers import PARK, bot, events, place, run_until, started, step

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.scoring import ranks


def act(engine: Engine, seat: int, fields: dict[str, object]) -> None:
    intents: list[dict[str, object] | None] = [{} for _ in range(engine.n_bots)]
    intents[seat] = fields
    step(engine, *intents)


def shoot(engine: Engine, shooter: int, victim: int, power: float) -> None:
    """The shooter, 60 west of the victim, fires at it; steps until the bullet lands."""
    v = bot(engine, victim)
    place(engine, shooter, v["x"] - 60.0, v["y"], 90.0, gun=0.0, radar=90.0, gun_heat=0.0)
    act(engine, shooter, {"firepower": power, "fire_assist": False})
    while not engine.events.bullets.hit_slot.size:
        act(engine, shooter, {})
    place(engine, shooter, *PARK[shooter])


def ram(engine: Engine, rammer: int, victim: int) -> None:
    """The rammer drives into the victim from 37 west of it (36 apart after moving 1)."""
    v = bot(engine, victim)
    place(engine, rammer, v["x"] - 37.0, v["y"], 0.0, speed=0.0)
    act(engine, rammer, {"target_speed": 1.0})
    assert engine.events.rammed[0, rammer, victim]
    place(engine, rammer, *PARK[rammer])


def result(engine: Engine, seat: int) -> dict[str, int]:
    return engine.results(0)[seat]


def victim_at(energy: float, n_bots: int = 2) -> Engine:
    engine = started(n_bots)
    place(engine, 1, 400.0, 300.0, 90.0, energy=energy)
    return engine


def test_1v1_kill_by_bullet_scores_50_10_damage_and_20_percent() -> None:
    engine = victim_at(20.0)
    shoot(engine, 0, 1, 3.0)  # 16: 20 -> 4
    assert bot(engine, 1)["energy"] == pytest.approx(4.0)
    shoot(engine, 0, 1, 3.0)  # 16, scores 4 (capped): dead
    assert engine.events.round_ended[0]
    assert result(engine, 0) == {
        "rank": 1,
        "survival": 50,
        "lastSurvivorBonus": 10,
        "bulletDamage": 20,
        "bulletKillBonus": 4,
        "ramDamage": 0,
        "ramKillBonus": 0,
        "totalScore": 84,
        "firstPlaces": 1,
        "secondPlaces": 0,
        "thirdPlaces": 0,
    }
    assert result(engine, 1)["totalScore"] == 0
    assert (result(engine, 1)["rank"], result(engine, 1)["secondPlaces"]) == (2, 1)
    assert [e["type"] for e in events(engine, 0, "WonRoundEvent")] == ["WonRoundEvent"]
    assert events(engine, 1, "WonRoundEvent") == []


def test_kill_bonus_counts_bullet_and_ram_damage_and_results_round() -> None:
    """25.3 -> 9.3 by a bullet (16), -> 8.7 by a ram (0.6), dead by a bullet (scores 8.7):
    bullet damage 24.7 (25), dealt 25.3, bonus 0.2 x 25.3 = 5.06 (truncated: 5), ram 1.2 (1),
    total 50 + 10 + 24.7 + 5.06 + 1.2 = 90.96 (91)."""
    engine = victim_at(25.3)
    shoot(engine, 0, 1, 3.0)
    ram(engine, 0, 1)
    assert bot(engine, 1)["energy"] == pytest.approx(8.7)
    shoot(engine, 0, 1, 3.0)
    assert engine.events.round_ended[0]
    r = result(engine, 0)
    assert (r["bulletDamage"], r["bulletKillBonus"], r["ramDamage"], r["ramKillBonus"]) == (
        25,
        5,
        1,
        0,
    )
    assert r["totalScore"] == 91
    assert engine.totals.total[0, 0] == pytest.approx(90.96)
    assert engine.totals.bullet_kill_bonus[0, 0] == pytest.approx(5.06)


def test_bullet_kill_bonus_is_truncated_not_rounded() -> None:
    engine = victim_at(13.0)
    shoot(engine, 0, 1, 3.0)  # 16, scores 13; bonus 2.6
    r = result(engine, 0)
    assert (r["bulletDamage"], r["bulletKillBonus"], r["totalScore"]) == (13, 2, 76)  # 75.6


def test_ram_damage_scores_double_for_the_rammer_and_a_ram_kill_30_percent() -> None:
    """Three rams kill a bot with 1.7 energy: ram damage 3 x 0.6 x 2 = 3.6 (4), ram kill bonus
    0.3 x 1.8 = 0.54 (rounded: 1), total 50 + 10 + 3.6 + 0.54 = 64.14 (64)."""
    engine = victim_at(1.7)
    for _ in range(3):
        ram(engine, 0, 1)
    assert engine.events.round_ended[0]
    r = result(engine, 0)
    assert (r["ramDamage"], r["ramKillBonus"], r["bulletDamage"], r["bulletKillBonus"]) == (
        4,
        1,
        0,
        0,
    )
    assert (r["survival"], r["lastSurvivorBonus"], r["totalScore"]) == (50, 10, 64)
    assert engine.totals.ram_damage[0, 0] == pytest.approx(3.6)
    assert engine.totals.ram_kill_bonus[0, 0] == pytest.approx(0.54)
    # the bot that was rammed dealt 0.6 per collision too, but as no rammer it scores nothing
    assert result(engine, 1)["totalScore"] == 0
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - 1.8)


def test_survival_per_death_turn_and_last_survivor_per_dead_bot() -> None:
    engine = started(4)
    place(engine, 3, energy=-1.0)
    step(engine, {}, {}, {}, {})  # seat 3 dies: 3 survivors get 50
    place(engine, 1, energy=-1.0)
    place(engine, 2, energy=-1.0)
    step(engine, {}, {}, {}, {})  # two die in one turn: seat 0 gets 50 once, and 10 x 3
    assert engine.events.round_ended[0]
    got = [(r["survival"], r["lastSurvivorBonus"], r["totalScore"]) for r in engine.results(0)]
    assert got == [(100, 30, 130), (50, 0, 50), (50, 0, 50), (0, 0, 0)]
    assert [r["rank"] for r in engine.results(0)] == [1, 2, 2, 4]


def test_first_second_and_third_places_by_round_score() -> None:
    engine = started(3)
    place(engine, 2, energy=-1.0)
    step(engine, {}, {}, {})  # seats 0 and 1 get 50
    shoot(engine, 1, 0, 1.0)  # seat 1 deals 4 to seat 0 first
    place(engine, 1, energy=-1.0)
    step(engine, {}, {}, {})  # seat 0 survives: 100 + 20; seat 1: 50 + 4
    assert engine.events.round_ended[0]
    places = [(r["firstPlaces"], r["secondPlaces"], r["thirdPlaces"]) for r in engine.results(0)]
    assert places == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    assert [r["rank"] for r in engine.results(0)] == [1, 2, 3]


def test_double_ko_gives_each_10_times_the_participants() -> None:
    engine = started()
    place(engine, 0, energy=0.5)
    place(engine, 1, 400.0, 300.0, 90.0, energy=0.5)
    ram(engine, 0, 1)  # both to -0.1 in the same turn
    assert engine.events.died[0].tolist() == [True, True]
    assert engine.events.round_ended[0]
    r0, r1 = result(engine, 0), result(engine, 1)
    assert (r0["survival"], r0["lastSurvivorBonus"]) == (0, 20)
    assert (r1["survival"], r1["lastSurvivorBonus"], r1["totalScore"]) == (0, 20, 20)
    assert engine.totals.total[0, 0] == pytest.approx(20.0 + 1.2 + 0.18)  # the ram and its kill
    assert engine.events.won_round[0].tolist() == [True, False]


def test_double_ko_of_the_last_two_of_three() -> None:
    engine = started(3)
    place(engine, 2, energy=-1.0)
    step(engine, {}, {}, {})
    place(engine, 0, energy=-1.0)
    place(engine, 1, energy=-1.0)
    step(engine, {}, {}, {})
    assert engine.events.round_ended[0]
    got = [(r["survival"], r["lastSurvivorBonus"]) for r in engine.results(0)]
    assert got == [(50, 30), (50, 30), (0, 0)]


def test_a_loser_who_out_damaged_the_winner_wins_the_round() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, energy=500.0)
    for _ in range(5):
        shoot(engine, 1, 0, 3.0)  # 5 x 16 = 80 for seat 1
        place(engine, 0, 100.0, 300.0, 90.0)
    place(engine, 1, 400.0, 300.0, 90.0, energy=0.5)
    ram(engine, 0, 1)  # seat 0 kills seat 1: 50 + 10 + 1.2 + 0.18 = 61.38
    assert engine.events.round_ended[0]
    assert not bot(engine, 1)["in_map"]
    assert events(engine, 1, "WonRoundEvent") != []  # the dead bot gets it in its last tick
    assert events(engine, 0, "WonRoundEvent") == []
    assert (result(engine, 1)["firstPlaces"], result(engine, 0)["secondPlaces"]) == (1, 1)
    assert (result(engine, 1)["totalScore"], result(engine, 0)["totalScore"]) == (80, 61)


def test_a_0_to_0_round_is_won_by_both() -> None:
    engine = started()
    place(engine, 0, energy=0.0)
    place(engine, 1, energy=0.0)
    step(engine, {}, {})  # all alive bots disabled, no bullets: a draw
    assert engine.events.round_ended[0]
    assert engine.events.won_round[0].tolist() == [True, True]
    assert [(r["rank"], r["firstPlaces"], r["totalScore"]) for r in engine.results(0)] == [
        (1, 1, 0),
        (1, 1, 0),
    ]


def test_tied_round_scores_share_a_rank() -> None:
    engine = started(4)
    shoot(engine, 0, 3, 1.0)  # 4
    shoot(engine, 1, 3, 0.5)  # 2
    shoot(engine, 2, 3, 0.5)  # 2
    for seat in range(4):
        place(engine, seat, energy=0.0)
    step(engine, {}, {}, {}, {})
    assert engine.events.round_ended[0]
    assert engine.events.won_round[0].tolist() == [True, False, False, False]
    places = [(r["firstPlaces"], r["secondPlaces"], r["thirdPlaces"]) for r in engine.results(0)]
    assert places == [(1, 0, 0), (0, 1, 0), (0, 1, 0), (0, 0, 0)]
    assert [r["rank"] for r in engine.results(0)] == [1, 2, 2, 4]


def test_competition_ranks() -> None:
    got = ranks(np.array([[5.0, 3.0, 3.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 2.0]]))
    assert got.tolist() == [[1, 2, 2, 4], [1, 1, 1, 1], [4, 2, 1, 2]]


def test_damage_to_an_already_negative_victim_scores_nothing() -> None:
    """Two bullets land on a 10-energy bot in one turn: the first (lower id) scores 10 and gets
    the kill, the second scores 0 (applied in id order: our choice, the server's is arbitrary)."""
    engine = started(3)
    place(engine, 2, 400.0, 300.0, 90.0, energy=10.0)
    place(engine, 0, 340.0, 300.0, 90.0, gun=0.0, radar=90.0, gun_heat=0.0)
    place(engine, 1, 460.0, 300.0, 90.0, gun=180.0, radar=90.0, gun_heat=0.0)
    fire = {"firepower": 3.0, "fire_assist": False}
    step(engine, fire, fire, {})
    run_until(engine, lambda e: bool(e.events.bullets.hit_slot.size), 5, {}, {}, {})
    assert sorted(engine.events.bullets.hit_slot.tolist()) == [0, 1]
    assert bot(engine, 2)["energy"] == pytest.approx(10.0 - 32.0)
    place(engine, 1, energy=-1.0)
    step(engine, {}, {}, {})
    assert engine.events.round_ended[0]
    r0, r1 = result(engine, 0), result(engine, 1)
    assert (r0["bulletDamage"], r0["bulletKillBonus"]) == (10, 2)
    assert (r1["bulletDamage"], r1["bulletKillBonus"]) == (0, 0)


def test_results_accumulate_over_rounds() -> None:
    engine = victim_at(13.0)
    shoot(engine, 0, 1, 3.0)
    engine.step()  # round 2
    place(engine, 1, 400.0, 300.0, 90.0, energy=10.0)
    shoot(engine, 1, 0, 3.0)  # seat 1 hits seat 0 for 16
    place(engine, 0, 400.0, 300.0, 90.0, energy=2.0)
    shoot(engine, 1, 0, 3.0)  # and kills it: 2 scored, bonus 0.2 x 18 = 3.6
    assert engine.round_number[0] == 2 and engine.events.round_ended[0]
    r0, r1 = result(engine, 0), result(engine, 1)
    assert (r0["firstPlaces"], r0["secondPlaces"], r1["firstPlaces"], r1["secondPlaces"]) == (
        1,
        1,
        1,
        1,
    )
    assert r0["totalScore"] == 76  # 75.6 from round 1
    assert (r1["bulletDamage"], r1["bulletKillBonus"], r1["totalScore"]) == (18, 3, 82)  # 81.6
