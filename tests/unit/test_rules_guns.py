"""docs/rules.md §6 guns and firing: gun heat 3.0 at the round start and 2.9 on tick 1, the first
shot on turn 31, heat 1 + p/5 after firing, the re-fire intervals the reference gives (p=3: 17, p=2:
15, p=1: 14 turns), firing only at heat exactly 0, cost = requested firepower (power capped at 3),
no shot when energy <= firepower or firepower < 0.1 (heat then stays 0), bullet speed 20 - 3p, the
bullet starts at the start-of-turn position along the start-of-turn gun direction and moves in its
firing turn, bullet ids from 1 per round, BulletFiredEvent to the shooter only, and fire assist.
"""

import math

import pytest
from rules_helpers import bot, events, flying, place, run, started, step

from tankrl.arena.rules.engine import Engine

NO_ASSIST = {"fire_assist": False}


def fire(power: float, **more: object) -> dict[str, object]:
    return {"firepower": power, **NO_ASSIST, **more}


def test_gun_heat_starts_at_3_and_tick_1_shows_2_9() -> None:
    engine = started(park=False)
    assert engine.turn_number[0] == 1
    assert [bot(engine, s)["gun_heat"] for s in (0, 1)] == [3.0 - 0.1, 3.0 - 0.1]


def test_first_shot_is_on_turn_31() -> None:
    engine = started(park=False)  # turn 1 was processed with no intents
    heat_after = {1: bot(engine, 0)["gun_heat"]}
    fired_on = []
    while engine.turn_number[0] < 35:
        step(engine, fire(1.0), fire(1.0))
        turn = int(engine.turn_number[0])
        heat_after[turn] = bot(engine, 0)["gun_heat"]
        if engine.events.fired[0, 0]:
            fired_on.append(turn)
    assert heat_after[29] > 0.0
    assert heat_after[30] == 0.0  # reaches exactly 0 at the end of turn 30
    assert fired_on[0] == 31  # the intent that answered tick 30
    assert [e["turnNumber"] for e in events(engine, 0, "BulletFiredEvent")] in ([], [35])


@pytest.mark.parametrize("power", [0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
def test_gun_heat_after_firing_is_1_plus_p_over_5(power: float) -> None:
    engine = started()
    step(engine, fire(power))
    assert engine.events.fired[0, 0]
    assert bot(engine, 0)["gun_heat"] == pytest.approx(1.0 + power / 5.0, abs=1e-12)
    assert flying(engine)[0]["power"] == power


@pytest.mark.parametrize(("power", "interval"), [(3.0, 17), (2.0, 15), (1.0, 14)])
def test_turns_until_the_next_shot(power: float, interval: int) -> None:
    engine = started()
    shots = []
    for _ in range(2 * interval + 2):
        step(engine, fire(power))
        if engine.events.fired[0, 0]:
            shots.append(int(engine.turn_number[0]))
    assert shots[1] - shots[0] == interval
    assert shots[2] - shots[1] == interval


def test_fires_only_when_the_heat_is_exactly_zero() -> None:
    engine = started()
    place(engine, 0, gun_heat=1e-12)
    step(engine, fire(1.0))
    assert not engine.events.fired[0, 0]
    assert bot(engine, 0)["gun_heat"] == 0.0  # cooled (clamped at 0)
    step(engine, fire(1.0))
    assert engine.events.fired[0, 0]


@pytest.mark.parametrize(("requested", "power"), [(3.0, 3.0), (5.0, 3.0), (50.0, 3.0)])
def test_energy_cost_is_the_requested_firepower_and_power_is_capped(
    requested: float, power: float
) -> None:
    engine = started()
    step(engine, fire(requested))
    b = flying(engine)[0]
    assert b["power"] == power
    assert b["speed"] == pytest.approx(20.0 - 3.0 * power)
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - requested)
    assert bot(engine, 0)["gun_heat"] == pytest.approx(1.0 + power / 5.0)


@pytest.mark.parametrize(
    ("energy", "firepower", "fires"),
    [
        (2.0, 2.0, False),  # energy must be strictly greater
        (1.5, 2.0, False),
        (2.0000001, 2.0, True),
        (100.0, 0.0999, False),  # below the minimum
        (100.0, 0.0, False),
        (100.0, -1.0, False),
        (100.0, 0.1, True),
    ],
)
def test_fire_conditions(energy: float, firepower: float, fires: bool) -> None:
    engine = started()
    place(engine, 0, energy=energy)
    step(engine, fire(firepower))
    assert bool(engine.events.fired[0, 0]) is fires
    if fires:
        assert bot(engine, 0)["energy"] == pytest.approx(energy - firepower)
    else:
        assert bot(engine, 0)["energy"] == energy
        assert bot(engine, 0)["gun_heat"] == 0.0  # stays 0, ready
        assert flying(engine) == []


@pytest.mark.parametrize("power", [0.1, 1.0, 2.0, 3.0])
def test_bullet_speed_and_it_moves_in_its_firing_turn(power: float) -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    step(engine, fire(power))
    speed = 20.0 - 3.0 * power
    (b,) = flying(engine)
    assert b["speed"] == pytest.approx(speed)
    assert (b["x"], b["y"]) == pytest.approx((100.0 + speed, 300.0))
    step(engine, {})
    assert flying(engine)[0]["x"] == pytest.approx(100.0 + 2.0 * speed)


def test_bullet_starts_at_the_start_of_turn_position_and_gun_direction() -> None:
    engine = started()
    place(engine, 0, 400.0, 300.0, 90.0, gun=30.0, radar=200.0, speed=8.0)
    step(engine, fire(1.0, target_speed=8.0, gun_turn_rate=20.0, turn_rate=4.0))
    (fired,) = events(engine, 0, "BulletFiredEvent")
    assert fired["turnNumber"] == 2
    assert (fired["bullet"]["x"], fired["bullet"]["y"]) == (400.0, 300.0)
    assert fired["bullet"]["direction"] == 30.0
    assert fired["bullet"]["ownerId"] == 1
    assert fired["bullet"]["power"] == 1.0
    (b,) = flying(engine)
    rad = math.radians(30.0)
    assert (b["x"], b["y"]) == pytest.approx(
        (400.0 + 17.0 * math.cos(rad), 300.0 + 17.0 * math.sin(rad))
    )
    me = bot(engine, 0)
    assert me["y"] == pytest.approx(308.0)
    assert me["gun_direction"] == pytest.approx(54.0)  # the gun turned after the shot


def test_bullet_fired_event_goes_to_the_shooter_only() -> None:
    engine = started()
    step(engine, fire(1.0))
    assert len(events(engine, 0, "BulletFiredEvent")) == 1
    assert events(engine, 1, "BulletFiredEvent") == []


def test_bullet_ids_count_from_1_and_restart_every_round() -> None:
    engine = started()
    place(engine, 1, 700.0, 500.0, 0.0, gun=180.0, gun_heat=0.0)
    step(engine, fire(3.0), fire(3.0))
    step(engine, {}, {})
    place(engine, 0, gun_heat=0.0)
    step(engine, fire(3.0))
    assert [b["bullet_id"] for b in flying(engine)] == [1.0, 2.0, 3.0]
    assert [b["owner"] for b in flying(engine)] == [0.0, 1.0, 0.0]
    place(engine, 1, energy=-1.0)  # seat 1 dies next turn: the round ends
    step(engine, {}, {})
    assert engine.events.round_ended[0]
    step(engine, {}, {})  # round 2, turn 1
    assert flying(engine) == []
    run(engine, 30, {}, {})
    step(engine, fire(1.0))
    assert engine.round_number[0] == 2
    assert [b["bullet_id"] for b in flying(engine)] == [1.0]


# ---- fire assist -----------------------------------------------------------------------------
TARGET = (300.0, 150.0)  # seen from (100, 100): direction atan2(50, 200) = 14.04 deg


def assist_setup(radar_extra: float = 0.0, target: tuple[float, float] = TARGET) -> Engine:
    """Turn N: gun and radar (aligned) sweep 0 -> 20 over the target; gun heat 0 after it."""
    engine = started()
    place(engine, 0, 100.0, 100.0, 0.0, gun=0.0, radar=0.0, gun_heat=0.1)
    place(engine, 1, *target, 90.0)
    step(engine, {"gun_turn_rate": 20.0, "radar_turn_rate": radar_extra})
    return engine


def test_fire_assist_aims_at_the_position_scanned_last_turn() -> None:
    engine = assist_setup()
    assert engine.events.scans[0, 0, 1]
    assert bot(engine, 0)["gun_direction"] == bot(engine, 0)["radar_direction"] == 20.0
    step(engine, {"firepower": 1.0})  # fire assist defaults to true
    (b,) = flying(engine)
    expected = math.degrees(math.atan2(TARGET[1] - 100.0, TARGET[0] - 100.0))
    assert b["direction"] == pytest.approx(expected)
    assert events(engine, 0, "BulletFiredEvent")[0]["bullet"]["direction"] == pytest.approx(
        expected
    )


def test_fire_assist_off_fires_along_the_gun() -> None:
    engine = assist_setup()
    step(engine, {"firepower": 1.0, "fire_assist": False})
    assert flying(engine)[0]["direction"] == 20.0


def test_fire_assist_needs_gun_exactly_equal_to_radar() -> None:
    engine = assist_setup(radar_extra=1e-9)
    assert engine.events.scans[0, 0, 1]
    assert bot(engine, 0)["gun_direction"] != bot(engine, 0)["radar_direction"]
    step(engine, {"firepower": 1.0})
    assert flying(engine)[0]["direction"] == 20.0


def test_fire_assist_needs_a_scan_in_the_previous_turn() -> None:
    engine = assist_setup(target=(100.0, 400.0))  # straight north: not in the 0..20 sweep
    assert not engine.events.scans[0, 0, 1]
    step(engine, {"firepower": 1.0})
    assert flying(engine)[0]["direction"] == 20.0


def test_fire_assist_uses_only_the_last_turn_not_an_older_scan() -> None:
    engine = assist_setup()
    step(engine, {"gun_turn_rate": 0.0})  # still: no scan this turn, heat 0 from now on
    assert not engine.events.scans[0, 0, 1]
    step(engine, {"firepower": 1.0})
    assert flying(engine)[0]["direction"] == 20.0
