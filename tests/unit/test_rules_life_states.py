"""docs/rules.md §3 life states: energy 100 and gun heat 3 at the start, alive while energy >= 0,
dead below 0 (BotDeathEvent, delivered to all bots: our §13.2 choice), disabled at |energy| < 1e-6
(no speed update, no move, no turn, its reported rates and radar sweep frozen, no fire, the gun
still cools, the stored intent's target speed, turn rates and firepower zeroed at the end of the
turn, still scanned / hit / rammed), re-enabled by the bot's own bullet hitting someone. Also §9
step 3.3 (a bot fired to |energy| < 1e-6 is disabled for its own intent that turn) and §9 step 3.16
(a dead bot's last state keeps its negative energy).
"""

import math

import pytest
from rules_helpers import bot, events, flying, place, run, started, step

from tankrl.arena.rules.engine import Engine

MOVE_AND_FIRE = {
    "target_speed": 8.0,
    "turn_rate": 10.0,
    "gun_turn_rate": 20.0,
    "radar_turn_rate": 45.0,
    "firepower": 1.0,
    "rescan": True,
    "adjust_gun_for_body_turn": True,
}


def test_round_starts_with_full_energy_and_gun_heat_3() -> None:
    engine = started(park=False)
    for seat in (0, 1):
        assert bot(engine, seat)["energy"] == 100.0
        assert bot(engine, seat)["gun_heat"] == pytest.approx(2.9)  # 3.0 cooled once in turn 1
        assert bot(engine, seat)["speed"] == 0.0


def rammed_to(energy: float) -> Engine:
    """Seat 1 with `energy` is rammed by seat 0 (both take 0.6)."""
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    place(engine, 1, 137.0, 300.0, 90.0, energy=energy)
    step(engine, {"target_speed": 1.0})  # 101 -> 36 apart: collision
    return engine


def test_energy_exactly_zero_is_alive_and_disabled_not_dead() -> None:
    engine = rammed_to(0.6)
    b = bot(engine, 1)
    assert b["energy"] == 0.0
    assert b["in_map"]
    assert not engine.events.died[0, 1]
    assert not engine.events.round_ended[0]


def test_negative_energy_is_dead_and_every_bot_gets_the_death_event() -> None:
    engine = rammed_to(0.5)
    b = bot(engine, 1)
    assert b["energy"] == pytest.approx(-0.1)  # the last state keeps the negative energy
    assert not b["in_map"]
    assert engine.events.died[0, 1]
    for seat in (0, 1):
        assert events(engine, seat, "BotDeathEvent") == [
            {"type": "BotDeathEvent", "turnNumber": 2, "victimId": 2}
        ]


def disabled_engine(energy: float = 0.0) -> Engine:
    engine = started()
    place(engine, 0, 400.0, 300.0, 0.0, speed=5.0, energy=energy, gun_heat=0.5)
    return engine


@pytest.mark.parametrize("energy", [0.0, 5e-7, 9.99e-7])
def test_disabled_bot_does_not_move_turn_or_fire_and_keeps_its_speed(energy: float) -> None:
    engine = disabled_engine(energy)
    step(engine, MOVE_AND_FIRE)
    b = bot(engine, 0)
    assert (b["x"], b["y"]) == (400.0, 300.0)
    assert (b["direction"], b["gun_direction"], b["radar_direction"]) == (0.0, 0.0, 0.0)
    assert b["speed"] == 5.0  # the stored speed is left as it was
    assert b["gun_heat"] == pytest.approx(0.4)  # the gun still cools
    for _ in range(6):
        step(engine, MOVE_AND_FIRE)
    assert bot(engine, 0)["gun_heat"] == 0.0
    assert not engine.events.fired[0, 0]
    assert flying(engine) == []
    assert bot(engine, 0)["energy"] == energy


def test_almost_zero_but_not_within_1e_6_is_enabled() -> None:
    engine = disabled_engine(2e-6)
    step(engine, MOVE_AND_FIRE)
    assert bot(engine, 0)["x"] == pytest.approx(406.0)


def test_disabled_bots_stored_movement_and_fire_are_zeroed_at_the_end_of_the_turn() -> None:
    engine = disabled_engine(0.0)
    step(engine, MOVE_AND_FIRE)
    stored = engine.stored_intent(0)
    for name in ("target_speed", "turn_rate", "gun_turn_rate", "radar_turn_rate", "firepower"):
        assert getattr(stored, name)[0] == 0.0, name
    # the flags are not movement/fire fields and stay
    assert stored.rescan[0]
    assert stored.adjust_gun_for_body_turn[0]


def test_a_bot_disabled_during_a_turn_gets_its_intent_zeroed_that_turn() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    place(engine, 1, 137.0, 300.0, 90.0, energy=0.6, gun_heat=1.0)
    step(engine, {"target_speed": 1.0}, {"turn_rate": 5.0, "gun_turn_rate": 3.0, "firepower": 2.0})
    assert bot(engine, 1)["energy"] == 0.0  # rammed: 0.6 - 0.6
    assert bot(engine, 1)["direction"] == pytest.approx(95.0)  # it was enabled when it turned
    stored = engine.stored_intent(1)
    assert (stored.turn_rate[0], stored.gun_turn_rate[0], stored.firepower[0]) == (0.0, 0.0, 0.0)


def test_disabled_bot_is_still_scanned_hit_and_rammed() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0, gun=0.0, radar=350.0)
    place(engine, 1, 300.0, 300.0, 0.0, energy=0.0)
    # scanned: the radar sweeps 350 -> 10 over the disabled bot; a bullet goes out towards it
    step(engine, {"radar_turn_rate": 20.0, "firepower": 0.5, "fire_assist": False})
    assert engine.events.scans[0, 0, 1]
    assert events(engine, 0, "ScannedBotEvent")[0]["energy"] == 0.0
    # hit: power 0.5 (speed 18.5) reaches it; energy 0 - 2 < 0 -> dead
    run(engine, 7, {})
    assert bot(engine, 1)["energy"] == 0.0
    step(engine, {})  # the bullet's segment 266.5 -> 285 reaches the circle at 282
    assert engine.events.died[0, 1]
    assert bot(engine, 1)["energy"] == pytest.approx(-2.0)


def test_disabled_bot_is_rammed() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    place(engine, 1, 137.0, 300.0, 0.0, energy=0.0)
    step(engine, {"target_speed": 1.0})
    assert engine.events.bot_bot[0, 0, 1]
    assert bot(engine, 1)["energy"] == pytest.approx(-0.6)


def test_own_bullet_hit_re_enables_a_disabled_bot() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    place(engine, 1, 400.0, 300.0, 90.0)
    step(engine, {"firepower": 1.0, "fire_assist": False})  # bullet on its way, speed 17
    place(engine, 0, energy=0.0)  # then seat 0 is knocked to exactly 0
    engine.intents.firepower[0, 0] = 0.0
    turns = 0
    while not engine.events.bullets.hit_slot.size:
        step(engine, {"target_speed": 8.0})
        turns += 1
        assert turns < 30
        if not engine.events.bullets.hit_slot.size:
            assert bot(engine, 0)["x"] == 100.0  # still frozen while disabled
    assert bot(engine, 0)["energy"] == pytest.approx(3.0)  # +3p
    step(engine, {"target_speed": 8.0})
    assert bot(engine, 0)["x"] == pytest.approx(101.0)  # enabled again: moves


def test_cannot_fire_itself_to_zero() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0, energy=1.0)
    step(engine, {"firepower": 1.0})
    assert not engine.events.fired[0, 0]
    assert bot(engine, 0)["energy"] == 1.0


def test_a_bot_that_fires_itself_below_1e_6_is_disabled_for_the_rest_of_the_turn() -> None:
    """§9: guns fire first, then intents run for *enabled* bots only (step 3.3); firing 1.0 from
    1.0000005 leaves 5e-7, which §3 calls disabled, so the bot must not move that turn."""
    engine = started()
    place(engine, 0, 400.0, 300.0, 0.0, speed=1.0, energy=1.0000005)
    step(engine, {"firepower": 1.0, "target_speed": 2.0, "turn_rate": 5.0})
    assert engine.events.fired[0, 0]
    b = bot(engine, 0)
    assert b["energy"] == pytest.approx(5e-7)
    assert (b["x"], b["direction"], b["speed"]) == (400.0, 0.0, 1.0)


def turned_then_disabled() -> Engine:
    """Seat 0 turns (b 5, g 7, r 11: sweep 23) while enabled, then is disabled and asks again."""
    engine = started()
    place(engine, 0, 400.0, 300.0, 0.0)
    step(engine, {"turn_rate": 5.0, "gun_turn_rate": 7.0, "radar_turn_rate": 11.0})
    b = bot(engine, 0)
    assert (b["turn_rate"], b["gun_turn_rate"], b["radar_turn_rate"]) == (5.0, 7.0, 11.0)
    assert b["radar_sweep"] == 23.0
    place(engine, 0, energy=0.0)
    return engine


def test_a_disabled_bot_keeps_its_last_reported_rates_and_sweep() -> None:
    """§3: a disabled bot does not execute its intent, it freezes; §4.3: the reported rates and
    the sweep are those of the executed turn, so they stay as they were."""
    engine = turned_then_disabled()
    step(engine, {"turn_rate": -9.0, "gun_turn_rate": -19.0, "radar_turn_rate": -44.0})
    b = bot(engine, 0)
    assert (b["direction"], b["gun_direction"], b["radar_direction"]) == (5.0, 12.0, 23.0)
    assert (b["turn_rate"], b["gun_turn_rate"], b["radar_turn_rate"]) == (5.0, 7.0, 11.0)
    assert b["radar_sweep"] == 23.0


def test_a_disabled_bot_rescans_with_its_last_sweep() -> None:
    """§5: the scan sector runs from radar - sweep to radar; a disabled bot's sweep is still 23,
    so a rescan covers 0..23, not just the ray along 23."""
    engine = turned_then_disabled()
    place(
        engine,
        1,
        400.0 + 250.0 * math.cos(math.radians(10.0)),
        300.0 + 250.0 * math.sin(math.radians(10.0)),
        90.0,
    )
    step(engine, {"rescan": True})
    assert engine.events.scans[0, 0, 1]
