"""docs/rules.md §7.1-§7.3 bullets in flight: §7.1 a bullet whose current position is at or past a
wall (x <= 0, y <= 0, x >= width, y >= height) is removed with a BulletHitWallEvent to its owner;
§7.2 the damage table (0.1 -> 0.4, 1 -> 4, 2 -> 10, 3 -> 16), 3p back to the shooter (only while it
is in the map), the look-ahead segment tick -> tick + 1 (inclusive touching; the muzzle segment is
never tested), own bullets never hit the shooter, one bullet can hit several bots, BulletHitBotEvent
to shooter and victim; §7.3 bullet-bullet: crossing or collinear-overlapping segments, both removed,
each owner gets a BulletHitBulletEvent with its own bullet first, bullets of one owner collide, and
a bullet that hit a bullet can still hit a bot.
"""

import pytest
from rules_helpers import bot, events, flying, make_engine, place, run, run_until, started, step

from tankrl.arena.rules.engine import Engine

NO_ASSIST = {"fire_assist": False}


def fire(power: float) -> dict[str, object]:
    return {"firepower": power, **NO_ASSIST}


# ---- §7.1 walls --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "y", "gun", "turns"),
    [
        (700.0, 300.0, 0.0, 10),  # 711, 722, ..., 799, 810: out on the 10th turn
        (778.0, 300.0, 0.0, 2),  # 800 exactly counts (x >= width)
        (22.0, 300.0, 180.0, 2),  # 0 exactly counts (x <= 0)
        (400.0, 578.0, 90.0, 2),  # y >= height
        (400.0, 22.0, 270.0, 2),  # y <= 0
    ],
)
def test_bullet_leaving_the_arena_is_removed_with_an_event_to_its_owner(
    x: float, y: float, gun: float, turns: int
) -> None:
    engine = started()
    place(engine, 0, x, y, 90.0, gun=gun, radar=gun)
    place(engine, 1, 100.0, 500.0 if y < 300 else 100.0, 0.0)
    step(engine, fire(3.0))
    for _ in range(turns - 2):
        step(engine, {})
        assert len(flying(engine)) == 1
        assert events(engine, 0, "BulletHitWallEvent") == []
    step(engine, {})
    assert flying(engine) == []
    (e,) = events(engine, 0, "BulletHitWallEvent")
    assert e["bullet"]["bulletId"] == 1 and e["bullet"]["ownerId"] == 1
    assert events(engine, 1, "BulletHitWallEvent") == []


def test_bullet_at_the_wall_state_is_where_it_left() -> None:
    engine = started()
    place(engine, 0, 700.0, 300.0, 90.0, gun=0.0, radar=0.0)
    step(engine, fire(3.0))
    run_until(engine, lambda e: bool(events(e, 0, "BulletHitWallEvent")), 20, {})
    (e,) = events(engine, 0, "BulletHitWallEvent")
    assert e["bullet"]["x"] == pytest.approx(810.0)


# ---- §7.2 bullet vs bot ------------------------------------------------------------------------
def shoot_until_hit(power: float, victim_x: float = 200.0) -> Engine:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, victim_x, 300.0, 90.0)
    step(engine, fire(power))
    if not engine.events.bullets.hit_slot.size:
        run_until(engine, lambda e: bool(e.events.bullets.hit_slot.size), 30, {})
    return engine


@pytest.mark.parametrize(
    ("power", "damage"),
    [(0.1, 0.4), (0.5, 2.0), (1.0, 4.0), (1.5, 7.0), (2.0, 10.0), (2.5, 13.0), (3.0, 16.0)],
)
def test_damage_table_and_energy_back_to_the_shooter(power: float, damage: float) -> None:
    engine = shoot_until_hit(power)
    assert bot(engine, 1)["energy"] == pytest.approx(100.0 - damage)
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - power + 3.0 * power)
    for seat in (0, 1):  # BulletHitBotEvent to both shooter and victim
        (e,) = events(engine, seat, "BulletHitBotEvent")
        assert e["victimId"] == 2
        assert e["damage"] == pytest.approx(damage)
        assert e["energy"] == pytest.approx(100.0 - damage)
        assert e["bullet"]["ownerId"] == 1 and e["bullet"]["power"] == power
    assert flying(engine) == []  # the bullet is removed
    assert events(engine, 1, "HitByBulletEvent") == []  # the server never sends that type


def test_event_damage_is_the_full_damage_even_when_it_kills() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, 200.0, 300.0, 90.0, energy=5.0)
    step(engine, fire(3.0))
    run_until(engine, lambda e: bool(e.events.bullets.hit_slot.size), 30, {})
    (e,) = events(engine, 0, "BulletHitBotEvent")
    assert e["damage"] == 16.0 and e["energy"] == pytest.approx(-11.0)
    assert engine.events.died[0, 1]


@pytest.mark.parametrize(("victim_x", "turn_of_hit"), [(140.0, 0), (140.001, 1), (150.0, 1)])
def test_look_ahead_segment_tick_to_tick_plus_one(victim_x: float, turn_of_hit: int) -> None:
    """Power 3 from x = 100: the first tested segment is 111 -> 122, the next 122 -> 133. A circle
    starting at 122 is touched on the firing turn; one starting at 132 on the next turn, while the
    bullet (at 122) is still outside it."""
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, victim_x, 300.0, 90.0)
    step(engine, fire(3.0))
    hits = [engine.events.bullets.hit_slot.size]
    step(engine, {})
    hits.append(engine.events.bullets.hit_slot.size)
    assert hits.index(1) == turn_of_hit


def test_muzzle_segment_is_never_tested() -> None:
    """Seat 1 overlaps the muzzle segment 100 -> 111 (15.8 from its start) but is 21.9 from the
    first tested segment 111 -> 122. (The two overlap, so they collide every turn.)"""
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, 95.0, 285.0, 90.0)
    step(engine, fire(3.0))
    for _ in range(5):
        assert not engine.events.bullets.hit_slot.size
        assert engine.events.bot_bot[0, 0, 1]
        step(engine, {})
    assert bot(engine, 1)["energy"] == pytest.approx(100.0 - 6 * 0.6)


def test_own_bullet_never_hits_its_shooter() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    step(engine, fire(3.0))
    place(engine, 0, 150.0, 300.0)  # teleported in front of its own bullet
    run(engine, 6, {})
    assert engine.events.bullets.hit_slot.size == 0
    assert bot(engine, 0)["energy"] == 97.0
    assert flying(engine)[0]["x"] == pytest.approx(100.0 + 7 * 11.0)  # passed through


def three_bots() -> Engine:
    engine = started(3)
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, 700.0, 500.0, 0.0)
    place(engine, 2, 700.0, 100.0, 0.0)
    return engine


def test_one_bullet_can_hit_several_bots_in_one_turn() -> None:
    engine = three_bots()
    step(engine, fire(0.1))  # speed 19.7: next segment 139.4 -> 159.1
    place(engine, 1, 141.0, 283.0)  # 17 below the segment
    place(engine, 2, 158.0, 317.0)  # 17 above; 38 from seat 1
    step(engine, {})
    assert sorted(engine.events.bullets.hit_victim.tolist()) == [1, 2]
    assert bot(engine, 1)["energy"] == pytest.approx(99.6)
    assert bot(engine, 2)["energy"] == pytest.approx(99.6)
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - 0.1 + 2 * 0.3)
    assert len(events(engine, 0, "BulletHitBotEvent")) == 2


def test_a_dead_shooter_gets_no_energy_back() -> None:
    engine = three_bots()
    place(engine, 1, 300.0, 300.0, 0.0)
    step(engine, fire(1.0))
    place(engine, 0, energy=-1.0)  # seat 0 dies in the next turn (3 bots: the round goes on)
    step(engine, {})
    assert not bot(engine, 0)["in_map"]
    run_until(engine, lambda e: bool(e.events.bullets.hit_slot.size), 30, {})
    assert bot(engine, 1)["energy"] == pytest.approx(96.0)
    assert bot(engine, 0)["energy"] == -1.0


# ---- §7.3 bullet vs bullet ---------------------------------------------------------------------
def crossing() -> Engine:
    """Power 1 (speed 17) from (100, 300) east and from (200, 200) north: on the 5th tick the
    segments 185 -> 202 (y = 300) and 285 -> 302 (x = 200) cross at (200, 300)."""
    engine = started(3)
    place(engine, 0, 100.0, 300.0, 0.0, gun=0.0, radar=0.0)
    place(engine, 1, 200.0, 200.0, 0.0, gun=90.0, radar=90.0)
    place(engine, 2, 700.0, 500.0, 0.0)
    step(engine, fire(1.0), fire(1.0))
    run(engine, 3, {}, {})
    assert len(flying(engine)) == 2
    return engine


def test_crossing_bullets_destroy_each_other() -> None:
    engine = crossing()
    step(engine, {}, {})
    assert flying(engine) == []
    (e0,) = events(engine, 0, "BulletHitBulletEvent")
    (e1,) = events(engine, 1, "BulletHitBulletEvent")
    assert (e0["bullet"]["ownerId"], e0["hitBullet"]["ownerId"]) == (1, 2)
    assert (e1["bullet"]["ownerId"], e1["hitBullet"]["ownerId"]) == (2, 1)
    assert events(engine, 2, "BulletHitBulletEvent") == []
    assert engine.events.bullets.hit_slot.size == 0


def test_a_bullet_that_hit_a_bullet_can_still_hit_a_bot() -> None:
    engine = crossing()
    place(engine, 2, 210.0, 315.0)  # 17 from (202, 300) and 16.4 from (200, 302)
    step(engine, {}, {})
    assert len(events(engine, 0, "BulletHitBulletEvent")) == 1
    assert sorted(engine.events.bullets.hit_victim.tolist()) == [2, 2]
    assert bot(engine, 2)["energy"] == pytest.approx(92.0)
    assert bot(engine, 0)["energy"] == pytest.approx(102.0)
    assert flying(engine) == []


def test_head_on_collinear_bullets_collide() -> None:
    """Power 3 from x = 100 east and x = 400 west on y = 300: on tick 13 the segments
    243 -> 254 and 257 -> 246 overlap."""
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, 400.0, 300.0, 90.0, gun=180.0, radar=180.0)
    step(engine, fire(3.0), fire(3.0))
    turns = run_until(engine, lambda e: not flying(e), 20, {}, {})
    assert turns == 12
    assert len(events(engine, 0, "BulletHitBulletEvent")) == 1
    assert len(events(engine, 1, "BulletHitBulletEvent")) == 1
    assert engine.events.bullets.hit_slot.size == 0
    assert bot(engine, 0)["energy"] == bot(engine, 1)["energy"] == 97.0


def test_bullets_of_the_same_owner_collide() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    step(engine, fire(3.0))  # bullet 1: x = 100 + 11 * tick on y = 300
    place(engine, 0, 211.0, 200.0, 0.0, gun=90.0, radar=90.0, gun_heat=0.0)
    step(engine, fire(3.0))  # bullet 2: y = 200 + 11 * tick on x = 211
    run(engine, 7, {})
    assert len(flying(engine)) == 2
    step(engine, {})  # segments 210 -> 221 (y = 300) and 299 -> 310 (x = 211) cross
    assert flying(engine) == []
    own = events(engine, 0, "BulletHitBulletEvent")
    assert sorted((e["bullet"]["bulletId"], e["hitBullet"]["bulletId"]) for e in own) == [
        (1, 2),
        (2, 1),
    ]


def test_three_bullets_crossing_at_one_point_all_collide() -> None:
    """Power 1 from (100, 300) east, (200, 200) north and (300, 300) west: on the 5th tick the
    segments 185 -> 202, 285 -> 302 (x = 200) and 215 -> 198 meet at (200, 300); every pair
    intersects, so every pair collides (§7.3 is a rule per pair; detection precedes removal)."""
    engine = started(3)
    place(engine, 0, 100.0, 300.0, 90.0, gun=0.0, radar=0.0)
    place(engine, 1, 200.0, 200.0, 0.0, gun=90.0, radar=90.0)
    place(engine, 2, 300.0, 300.0, 90.0, gun=180.0, radar=180.0)
    step(engine, fire(1.0), fire(1.0), fire(1.0))
    run(engine, 3, {}, {}, {})
    assert len(flying(engine)) == 3
    step(engine, {}, {}, {})
    assert flying(engine) == []
    for seat in range(3):
        assert len(events(engine, seat, "BulletHitBulletEvent")) == 2


# ---- the turn's bullet event log -----------------------------------------------------------------
def test_bullet_events_of_a_crowded_battle_are_whole_and_stay_as_they_were() -> None:
    """Ten bots in each of three arenas fire the least power as often as their guns allow while
    spinning: bullets pile up, cross and hit. The engine's event log grows as needed (a log too
    small would stop the turn), and a turn's bullet events keep their values after later turns."""
    engine = make_engine(10, n_arenas=3, seeds=[1, 2, 3])
    spin = {"firepower": 0.1, "gun_turn_rate": 20.0, "turn_rate": 10.0, "target_speed": 8.0}
    kept: list[tuple[object, list[list[float]]]] = []
    most = 0
    for _ in range(300):
        step(engine, *[spin] * 10)
        be = engine.events.bullets
        most = max(most, be.pair_arena.size, be.hit_arena.size)
        if be.hit_slot.size or be.pair_a.size:
            kept.append((be, [a.tolist() for a in vars(be).values()]))
    assert most > 0 and kept
    for be, values in kept:
        assert [a.tolist() for a in vars(be).values()] == values
