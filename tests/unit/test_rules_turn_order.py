"""docs/rules.md §9 observable turn order (with docs/protocol.md §7.3 intent merge): turn 1 of a
round runs with no intents (nobody moves, guns cool to 2.9) because a round start clears the stored
intents (so intents that arrived before turn 1, or after the last turn of the previous round, are
discarded); a received intent replaces the whole stored one (omitted fields = defaults); a skipped
turn (received False) reuses the whole previous intent; guns fire before bots move; the round-over
events (WonRoundEvent) come in the tick of the last turn. Scans-after-collisions-before-bullets is
in test_rules_radar.py, wall-before-ram in test_rules_collisions.py, and the reset -> zap -> disable
-> death order in test_rules_inactivity.py.
"""

import numpy as np
import pytest
from rules_helpers import bot, events, flying, intent, make_engine, place, run, started, step

from tankrl.shared.intent import INTENT_FIELDS

EVERYTHING = {
    "target_speed": 8.0,
    "turn_rate": 10.0,
    "gun_turn_rate": 20.0,
    "radar_turn_rate": 45.0,
    "firepower": 3.0,
}


def test_turn_1_runs_without_intents_even_if_some_arrived_before() -> None:
    quiet = make_engine(seeds=7)
    quiet.step()
    eager = make_engine(seeds=7)
    for seat in (0, 1):
        eager.set_intent(seat, intent(**EVERYTHING))
    eager.step()
    for name in ("x", "y", "direction", "gun_direction", "radar_direction", "speed", "gun_heat"):
        np.testing.assert_array_equal(getattr(eager.bots, name), getattr(quiet.bots, name))
    assert (eager.bots.gun_heat == 3.0 - 0.1).all()
    # discarded, not just postponed: turn 2 without new intents changes nothing either
    x, d = eager.bots.x.copy(), eager.bots.direction.copy()
    eager.step()
    np.testing.assert_array_equal(eager.bots.x, x)
    np.testing.assert_array_equal(eager.bots.direction, d)
    assert eager.stored_intent(0).target_speed[0] == 0.0


def test_round_start_clears_the_stored_intents() -> None:
    engine = started()
    place(engine, 0, 400.0, 300.0, 0.0)
    step(engine, {"target_speed": 1.0, "turn_rate": 5.0})
    place(engine, 1, energy=-1.0)
    step(engine, None, {})  # seat 0 keeps its intent; seat 1 dies: round over
    assert engine.events.round_ended[0]
    engine.step()  # round 2, turn 1: the stored intents were cleared
    assert engine.round_number[0] == 2 and engine.turn_number[0] == 1
    x, d = bot(engine, 0)["x"], bot(engine, 0)["direction"]
    engine.step()  # turn 2, still nothing sent
    assert (bot(engine, 0)["x"], bot(engine, 0)["direction"]) == (x, d)
    assert engine.stored_intent(0).fire_assist[0]  # defaults: fire assist on


def test_a_received_intent_replaces_every_field() -> None:
    engine = started()
    place(engine, 0, 400.0, 300.0, 0.0, gun_heat=1.0)
    flags = {"adjust_gun_for_body_turn": True, "rescan": True, "fire_assist": False}
    step(engine, {**EVERYTHING, **flags})
    step(engine, {"turn_rate": 1.0})  # omitted fields: defaults, not the previous values
    stored = engine.stored_intent(0)
    assert stored.turn_rate[0] == 1.0
    for name in ("target_speed", "gun_turn_rate", "radar_turn_rate", "firepower"):
        assert getattr(stored, name)[0] == 0.0
    assert not stored.adjust_gun_for_body_turn[0] and not stored.rescan[0]
    assert stored.fire_assist[0]


def test_a_skipped_turn_reuses_the_whole_previous_intent() -> None:
    """Two arenas: in arena 0 the new intent arrives, in arena 1 the turn is skipped."""
    engine = make_engine(n_arenas=2, seeds=[3, 3])
    engine.step()
    for a in (0, 1):
        place(engine, 0, 400.0, 300.0, 0.0, gun_heat=0.0, arena=a)
        place(engine, 1, 100.0, 100.0, 0.0, arena=a)
    first = {**EVERYTHING, "target_speed": 2.0, "adjust_gun_for_body_turn": True}
    engine.set_intent(0, intent(2, **first, fire_assist=False))
    engine.step()
    assert engine.events.fired[:, 0].tolist() == [True, True]
    place(engine, 0, gun_heat=0.0, arena=0)
    place(engine, 0, gun_heat=0.0, arena=1)
    engine.set_intent(0, intent(2, turn_rate=-3.0), received=np.array([True, False]))
    engine.step()
    assert engine.events.fired[:, 0].tolist() == [False, True]  # firepower 3 still in force
    assert engine.bots.speed[:, 0].tolist() == [0.0, 2.0]
    assert engine.bots.turn_rate[:, 0] == pytest.approx([-3.0, 8.5])
    assert engine.bots.gun_direction[1, 0] == pytest.approx(40.0)  # gun ignores the body turn
    engine.set_intent(0, intent(2), received=np.array([False, False]))
    engine.step()
    assert engine.bots.speed[:, 0].tolist() == [0.0, 2.0]  # arena 0 keeps its newer intent
    assert engine.bots.turn_rate[:, 0] == pytest.approx([-3.0, 8.5])


def test_guns_fire_before_the_bot_moves() -> None:
    engine = started()
    place(engine, 0, 400.0, 300.0, 90.0, gun=0.0, radar=0.0, speed=8.0)
    step(engine, {"target_speed": 8.0, "gun_turn_rate": 20.0, "firepower": 1.0})
    (b,) = flying(engine)
    assert (b["start_x"], b["start_y"], b["direction"]) == (400.0, 300.0, 0.0)
    assert bot(engine, 0)["y"] == 308.0


def test_round_end_events_come_in_the_tick_of_the_last_turn() -> None:
    engine = started()
    place(engine, 1, energy=-1.0)
    step(engine, {}, {})
    assert engine.events.round_ended[0]
    assert engine.turn_number[0] == 2
    assert [e["type"] for e in events(engine, 0) if e["type"] == "WonRoundEvent"] == [
        "WonRoundEvent"
    ]
    assert events(engine, 1, "BotDeathEvent")[0]["victimId"] == 2  # the victim's last tick
    run(engine, 1, {}, {})
    assert engine.round_number[0] == 2 and engine.turn_number[0] == 1


def test_a_seat_intent_from_plain_values_lands_in_its_arena_only_and_refuses_non_finite() -> None:
    """The server's path (one BotIntent, plain values) stores what the batch path stores."""
    by_values, by_batch = make_engine(n_arenas=2), make_engine(n_arenas=2)
    merged = {**{name: bool(getattr(intent(), name)[0]) for name in INTENT_FIELDS[5:]},
              **EVERYTHING, "rescan": True}  # fmt: skip
    by_values.set_seat_intent(1, 0, merged)
    by_batch.set_intent(0, intent(2, **merged), received=np.array([False, True]))
    for name in INTENT_FIELDS:
        np.testing.assert_array_equal(
            getattr(by_values.intents, name), getattr(by_batch.intents, name), err_msg=name
        )
    assert by_values.stored_intent(0).turn_rate.tolist() == [0.0, 10.0]
    with pytest.raises(ValueError, match=r"intent\.firepower for seat 1"):
        by_values.set_seat_intent(0, 1, {**merged, "firepower": float("nan")})
