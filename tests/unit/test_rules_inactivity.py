"""docs/rules.md §8 inactivity: one global counter per round; with no bullet hits the first zap (0.1
to every bot, disabled ones too) is on turn 452 (maxInactivityTurns 450) and then every turn; a
bullet hit resets the counter in the turn it lands (no zap that turn); rams, wall hits and firing do
not; zaps can kill, and such deaths score as normal deaths; the counter restarts with every round.
Also §9 steps 11-14 (reset, then zap, then disabled-intent zeroing, then deaths).
"""

import pytest
from rules_helpers import bot, make_engine, place, run, started, step

from tankrl.arena.rules.engine import Engine


def energies(engine: Engine) -> list[float]:
    return [bot(engine, s)["energy"] for s in (0, 1)]


def test_first_zap_on_turn_452_then_every_turn() -> None:
    engine = make_engine()
    for _ in range(451):
        engine.step()
    assert engine.turn_number[0] == 451
    assert energies(engine) == [100.0, 100.0]
    engine.step()
    assert energies(engine) == pytest.approx([99.9, 99.9])
    engine.step()
    assert energies(engine) == pytest.approx([99.8, 99.8])
    for _ in range(10):
        engine.step()
    assert energies(engine) == pytest.approx([98.8, 98.8])


LIMIT = 10  # first zap on turn LIMIT + 2 = 12


def zapping() -> Engine:
    """Started (turn 1), parked, run to the end of turn 12: the first zap has happened."""
    engine = started(max_inactivity_turns=LIMIT)
    run(engine, 11, {}, {})
    assert engine.turn_number[0] == 12
    assert energies(engine) == pytest.approx([99.9, 99.9])
    return engine


def test_the_limit_comes_from_the_setup() -> None:
    engine = started(max_inactivity_turns=LIMIT)
    run(engine, 10, {}, {})
    assert energies(engine) == [100.0, 100.0]
    step(engine, {}, {})
    assert energies(engine) == pytest.approx([99.9, 99.9])


def test_a_bullet_hit_resets_the_counter_in_its_turn() -> None:
    engine = zapping()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0, gun_heat=0.0)
    place(engine, 1, 140.0, 300.0, 90.0)  # the first tested segment 111 -> 122 touches it
    step(engine, {"firepower": 3.0, "fire_assist": False}, {})
    assert engine.events.bullets.hit_slot.size == 1
    # no zap this turn: 99.9 - 3 + 9 and 99.9 - 16
    assert energies(engine) == pytest.approx([105.9, 83.9])
    run(engine, LIMIT, {}, {})  # counter 1 .. 10: no zap
    assert energies(engine) == pytest.approx([105.9, 83.9])
    step(engine, {}, {})
    assert energies(engine) == pytest.approx([105.8, 83.8])


def test_rams_wall_hits_and_firing_do_not_reset_it() -> None:
    engine = zapping()
    place(engine, 0, 100.0, 300.0, 0.0, gun=90.0, gun_heat=0.0)
    place(engine, 1, 137.0, 300.0, 90.0)
    step(engine, {"target_speed": 1.0})  # a ram
    assert energies(engine) == pytest.approx([99.9 - 0.6 - 0.1, 99.9 - 0.6 - 0.1])
    place(engine, 1, 779.0, 300.0, 0.0, speed=8.0)
    step(engine, {"firepower": 1.0, "fire_assist": False}, {"target_speed": 8.0})  # fire + wall
    assert engine.events.fired[0, 0] and engine.events.bot_wall[0, 1]
    assert energies(engine) == pytest.approx([99.2 - 1.0 - 0.1, 99.2 - 3.0 - 0.1])
    step(engine, {}, {})
    assert energies(engine) == pytest.approx([98.0, 96.0])


def test_disabled_bots_are_zapped_too_and_zaps_can_kill_both() -> None:
    engine = zapping()
    place(engine, 0, energy=0.0)  # disabled
    place(engine, 1, energy=0.05)
    step(engine, {}, {})
    assert engine.events.died[0].tolist() == [True, True]
    assert energies(engine) == pytest.approx([-0.1, -0.05])
    assert engine.events.round_ended[0]
    # both die in the same turn: a double KO, 10 x 2 each (§12)
    assert [r["lastSurvivorBonus"] for r in engine.results(0)] == [20, 20]


def test_a_zap_to_exactly_zero_disables_and_zeroes_the_intent_that_turn() -> None:
    engine = zapping()
    place(engine, 0, 400.0, 300.0, 0.0, energy=0.1, gun_heat=5.0)
    step(engine, {"target_speed": 1.0, "turn_rate": 3.0, "firepower": 1.0})
    assert bot(engine, 0)["energy"] == 0.0
    assert bot(engine, 0)["x"] == pytest.approx(401.0)  # it was enabled when it moved
    stored = engine.stored_intent(0)
    assert (stored.target_speed[0], stored.turn_rate[0], stored.firepower[0]) == (0.0, 0.0, 0.0)
    assert not engine.events.died[0, 0]


def test_the_counter_restarts_with_the_round() -> None:
    engine = zapping()
    place(engine, 1, energy=-1.0)
    step(engine, {}, {})
    assert engine.events.round_ended[0]
    step(engine, {}, {})  # round 2, turn 1
    assert engine.round_number[0] == 2
    run(engine, LIMIT, {}, {})  # turns 2 .. 11
    assert energies(engine) == [100.0, 100.0]
    step(engine, {}, {})
    assert energies(engine) == pytest.approx([99.9, 99.9])
