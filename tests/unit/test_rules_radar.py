"""docs/rules.md §5 radar and scanning: a bot scans only when it moved (x, y, body, gun or radar
changed) or asked to rescan; the scan area is the sector between the old and the new radar direction
(either sign of sweep), a ray when the sweep is 0; radius 1200 + the target's 18; targets just
inside / just outside an arm and the range; rescan does not replay last turn's arc; the
ScannedBotEvent (to the scanner only) carries the target's state after movement and collisions and
before this turn's bullet damage (also §9 steps 5-10 order).
"""

import math

import pytest
from rules_helpers import bot, events, place, started, step

S = (400.0, 300.0)  # scanner position


def polar(distance: float, angle_deg: float, side: float = 0.0) -> tuple[float, float]:
    """A point `distance` along `angle_deg` from S, shifted `side` units to the left (CCW)."""
    a = math.radians(angle_deg)
    return (
        S[0] + distance * math.cos(a) - side * math.sin(a),
        S[1] + distance * math.sin(a) + side * math.cos(a),
    )


def scanned(target: tuple[float, float], radar: float, **fields: object) -> bool:
    engine = started(arena_width=2000)
    place(engine, 0, *S, 0.0, gun=0.0, radar=radar)
    place(engine, 1, *target, 90.0)
    step(engine, fields)
    seen = bool(engine.events.scans[0, 0, 1])
    assert len(events(engine, 0, "ScannedBotEvent")) == int(seen)
    assert events(engine, 1, "ScannedBotEvent") == []  # only the scanner gets it
    return seen


def test_a_still_bot_without_rescan_does_not_scan() -> None:
    assert not scanned(polar(250.0, 0.0), 0.0)
    assert not scanned(polar(250.0, 0.0), 0.0, firepower=0.0, target_speed=0.0)


def test_rescan_forces_a_ray_scan_along_the_radar() -> None:
    assert scanned(polar(250.0, 0.0), 0.0, rescan=True)
    assert not scanned(polar(250.0, 30.0), 0.0, rescan=True)


@pytest.mark.parametrize(
    "fields",
    [
        {"turn_rate": 1.0, "adjust_gun_for_body_turn": True, "adjust_radar_for_body_turn": True},
        {"gun_turn_rate": 1.0, "adjust_radar_for_gun_turn": True},
        {"radar_turn_rate": 1.0},
    ],
    ids=["body-only", "gun-only", "radar-only"],
)
def test_any_rotation_makes_the_bot_scan(fields: dict[str, object]) -> None:
    engine = started()
    place(engine, 0, *S, 0.0, gun=0.0, radar=0.0)
    place(engine, 1, *polar(250.0, 0.0), 90.0)
    step(engine, fields)
    assert engine.events.scans[0, 0, 1]


def test_moving_without_rotation_scans_a_ray() -> None:
    engine = started()
    place(engine, 0, *S, 90.0, gun=0.0, radar=0.0)  # drives north, radar looks east
    place(engine, 1, S[0] + 250.0, S[1] + 1.0, 90.0)
    step(engine, {"target_speed": 1.0})
    assert bot(engine, 0)["radar_sweep"] == 0.0
    assert engine.events.scans[0, 0, 1]


@pytest.mark.parametrize(
    ("target", "seen"),
    [
        (polar(250.0, 20.0), True),  # inside the 0..45 sector
        (polar(250.0, 45.0, side=17.9), True),  # beyond the 45 arm but touching it
        (polar(250.0, 45.0, side=18.1), False),
        (polar(250.0, 0.0, side=-17.9), True),  # beyond the 0 arm
        (polar(250.0, 0.0, side=-18.1), False),
        (polar(250.0, 60.0), False),
        (polar(250.0, 200.0), False),  # behind
    ],
)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_sector_between_old_and_new_radar_direction(
    target: tuple[float, float], seen: bool, sign: float
) -> None:
    """Sweep +45 from 0 to 45, or -45 from 45 to 0: the same sector."""
    start = 0.0 if sign > 0 else 45.0
    assert scanned(target, start, radar_turn_rate=45.0 * sign) is seen


def test_radar_sweep_sign_for_the_sector() -> None:
    engine = started()
    place(engine, 0, *S, 0.0, gun=0.0, radar=45.0)
    step(engine, {"radar_turn_rate": -45.0})
    assert bot(engine, 0)["radar_sweep"] == -45.0
    assert bot(engine, 0)["radar_direction"] == 0.0


@pytest.mark.parametrize(
    ("side", "seen"), [(0.0, True), (17.9, True), (18.0, True), (-18.0, True), (18.1, False)]
)
def test_ray_touching_the_bounding_circle(side: float, seen: bool) -> None:
    assert scanned(polar(250.0, 0.0, side=side), 0.0, rescan=True) is seen


@pytest.mark.parametrize(
    ("distance", "seen"), [(1000.0, True), (1217.9, True), (1218.0, True), (1218.1, False)]
)
def test_radius_in_the_sector_and_on_the_ray(distance: float, seen: bool) -> None:
    engine = started(arena_width=2000)
    for radar, fields in ((350.0, {"radar_turn_rate": 20.0}), (0.0, {"rescan": True})):
        place(engine, 0, 100.0, 300.0, 0.0, gun=0.0, radar=radar)
        place(engine, 1, 100.0 + distance, 300.0, 90.0)
        step(engine, fields)
        assert bool(engine.events.scans[0, 0, 1]) is seen, fields


def test_rescan_does_not_replay_last_turns_arc() -> None:
    engine = started()
    place(engine, 0, *S, 0.0, gun=0.0, radar=0.0)
    place(engine, 1, *polar(250.0, 20.0), 90.0)
    step(engine, {"radar_turn_rate": 45.0})
    assert engine.events.scans[0, 0, 1]
    step(engine, {"rescan": True})  # a ray along 45 only
    assert bot(engine, 0)["radar_sweep"] == 0.0
    assert not engine.events.scans[0, 0, 1]


def test_scan_reports_the_state_after_movement() -> None:
    engine = started()
    place(engine, 0, *S, 0.0, gun=0.0, radar=350.0)
    place(engine, 1, S[0] + 250.0, S[1], 90.0, speed=4.0)
    step(engine, {"radar_turn_rate": 20.0}, {"target_speed": 5.0, "turn_rate": 3.0})
    (e,) = events(engine, 0, "ScannedBotEvent")
    assert e["scannedByBotId"] == 1 and e["scannedBotId"] == 2
    assert (e["x"], e["y"]) == pytest.approx((S[0] + 250.0, S[1] + 5.0))
    assert e["direction"] == pytest.approx(93.0)
    assert e["speed"] == 5.0
    assert e["energy"] == 100.0


def test_scan_is_after_collisions_and_before_bullet_damage() -> None:
    """In one turn seat 0 fires (power 3; the bullet's first tested segment 111 -> 122 reaches
    seat 1's circle at 118.5), sweeps its radar over seat 1, and seat 1 drives into seat 0
    (a ram: 0.6 each, both reverted)."""
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0, gun=0.0, radar=350.0)
    place(engine, 1, 136.5, 300.0, 180.0)
    step(
        engine,
        {"firepower": 3.0, "fire_assist": False, "radar_turn_rate": 20.0},
        {"target_speed": 1.0},
    )
    assert engine.events.bot_bot[0, 1, 0]
    assert engine.events.bullets.hit_slot.size == 1
    (e,) = events(engine, 0, "ScannedBotEvent")
    assert e["energy"] == pytest.approx(99.4)  # after the ram, before the 16 of the bullet
    assert (e["x"], e["y"]) == (136.5, 300.0)  # reverted by the collision
    assert e["speed"] == 0.0  # it rammed: stopped
    assert bot(engine, 1)["energy"] == pytest.approx(99.4 - 16.0)
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - 3.0 - 0.6 + 9.0)
