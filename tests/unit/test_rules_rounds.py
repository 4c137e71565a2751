"""docs/rules.md §10 rounds and the game: a round is over when at most one bot is alive, or when
every alive bot is disabled and no bullet is in flight (an all-disabled draw waits for the last
bullet); the game ends after numberOfRounds rounds (and the engine then stops stepping); every round
restarts with full energy, gun heat 3, no bullets, turn 1 and new starting positions; bot ids follow
seat order and stay stable.
"""

import numpy as np
import pytest
from rules_helpers import bot, events, flying, place, run, started, step

from tankrl.arena.rules.engine import Engine


def kill(engine: Engine, seat: int) -> None:
    """Energy below 0: the bot dies in the next turn's death step."""
    place(engine, seat, energy=-1.0)


def test_round_over_when_one_bot_is_left() -> None:
    engine = started(3)
    kill(engine, 2)
    step(engine, {}, {}, {})
    assert engine.events.died[0].tolist() == [False, False, True]
    assert not engine.events.round_ended[0]
    kill(engine, 1)
    step(engine, {}, {}, {})
    assert engine.events.round_ended[0]


def test_round_over_when_everyone_dies() -> None:
    engine = started()
    kill(engine, 0)
    kill(engine, 1)
    step(engine, {}, {})
    assert engine.events.round_ended[0]


def test_all_alive_disabled_ends_the_round_once_no_bullet_flies() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=90.0, radar=90.0)  # fires north, misses
    step(engine, {"firepower": 1.0, "fire_assist": False})
    place(engine, 0, energy=0.0)
    place(engine, 1, energy=0.0)
    turns = 0
    while flying(engine):
        assert not engine.events.round_ended[0]
        step(engine, {}, {})
        turns += 1
    assert turns == 17  # y = 300 + 17 * tick: out at 606 on tick 18
    assert engine.events.round_ended[0]
    assert not engine.events.died[0].any()


def test_one_disabled_and_one_enabled_is_not_over() -> None:
    engine = started()
    place(engine, 0, energy=0.0)
    run(engine, 3, {}, {})
    assert not engine.events.round_ended[0]


def test_game_ends_after_number_of_rounds_and_stops() -> None:
    engine = started(number_of_rounds=3)
    for expected_round in (1, 2, 3):
        assert engine.round_number[0] == expected_round
        kill(engine, 1)
        step(engine, {}, {})
        assert engine.events.round_ended[0]
        assert bool(engine.events.game_ended[0]) is (expected_round == 3)
        assert bool(engine.game_over[0]) is (expected_round == 3)
        if expected_round < 3:
            engine.step()
    assert engine.results(0)[0]["firstPlaces"] == 3
    turn = int(engine.turn_number[0])
    engine.step()
    assert engine.turn_number[0] == turn and engine.round_number[0] == 3


def test_a_new_round_restarts_energy_heat_bullets_and_positions() -> None:
    engine = started(park=False)
    first_positions = engine.bots.x.copy(), engine.bots.y.copy()
    place(engine, 0, gun_heat=0.0, energy=37.0)
    place(engine, 1, energy=12.0, speed=4.0)
    step(engine, {"firepower": 1.0}, {"target_speed": 4.0})
    assert len(flying(engine)) == 1
    kill(engine, 1)
    step(engine, {"target_speed": 1.0}, {})
    assert engine.events.round_ended[0]
    engine.step()  # round 2, turn 1
    assert (engine.round_number[0], engine.turn_number[0]) == (2, 1)
    assert flying(engine) == []
    for seat in (0, 1):
        b = bot(engine, seat)
        assert b["in_map"] and b["energy"] == 100.0 and b["speed"] == 0.0
        assert b["gun_heat"] == pytest.approx(2.9)  # 3.0 at the start, cooled in turn 1
        assert b["direction"] == b["gun_direction"] == b["radar_direction"]
    assert not np.array_equal(engine.bots.x, first_positions[0])
    assert not np.array_equal(engine.bots.y, first_positions[1])
    assert events(engine, 0) == [] and events(engine, 1) == []


def test_bot_ids_follow_seat_order() -> None:
    engine = started(3)
    kill(engine, 1)
    step(engine, {}, {}, {})
    for seat in range(3):
        assert events(engine, seat, "BotDeathEvent")[0]["victimId"] == 2
