"""docs/rules.md §7.4-§7.6 bot collisions: §7.4 walls (pushed back along the movement segment,
damage max(|v|/2 - 1, 0) from the new speed: 8 -> 3, 6 -> 2, 4 -> 1, <= 2 -> 0, only on a first hit
so pushing into a wall alternates events, speed 0 every time, not checked on turn 1); §7.5 bots
(collision at <= 36, 0.6 each, ramming flags forward within (-90, 90) / backward outside, both
reverted, only rammers stop, BotHitBotEvent fields, turn-1 overlap teleports the second bot,
overlapping bots lose 0.6 every turn); §7.6 the final clamp (no damage, no event). Also §9 step
order wall -> bots (a bot stopped by the wall does not ram).
"""

import math

import numpy as np
import pytest
from rules_helpers import bot, events, make_engine, place, run, started, step

import tankrl.arena.rules.engine as engine_module


# ---- §7.4 walls --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("speed", "damage"),
    [(8.0, 3.0), (6.0, 2.0), (5.0, 1.5), (4.0, 1.0), (3.0, 0.5), (2.0, 0.0), (1.0, 0.0)],
)
@pytest.mark.parametrize("backwards", [False, True])
def test_wall_damage_from_the_new_speed(speed: float, damage: float, backwards: bool) -> None:
    engine = started()
    v = -speed if backwards else speed
    place(engine, 0, 781.5, 300.0, 180.0 if backwards else 0.0, speed=v)
    step(engine, {"target_speed": v})
    b = bot(engine, 0)
    assert b["x"] == 782.0
    assert b["speed"] == 0.0
    assert b["energy"] == pytest.approx(100.0 - damage)
    assert events(engine, 0, "BotHitWallEvent") == [
        {"type": "BotHitWallEvent", "turnNumber": 2, "victimId": 1}
    ]
    assert events(engine, 1, "BotHitWallEvent") == []


def test_damage_uses_the_speed_after_acceleration() -> None:
    engine = started()
    place(engine, 0, 778.0, 300.0, 0.0, speed=7.0)
    step(engine, {"target_speed": 8.0})  # new speed 8: 3 damage, not 2.5
    assert bot(engine, 0)["energy"] == pytest.approx(97.0)


def test_pushed_back_along_the_movement_segment() -> None:
    engine = started()
    place(engine, 0, 20.0, 300.0, 135.0, speed=8.0)  # to (14.34, 305.66)
    place(engine, 1, 400.0, 580.0, 60.0, speed=8.0)  # to (404, 586.93)
    step(engine, {"target_speed": 8.0}, {"target_speed": 8.0})
    assert (bot(engine, 0)["x"], bot(engine, 0)["y"]) == pytest.approx((18.0, 302.0))
    dx = 8.0 * math.cos(math.radians(60.0))
    dy = 8.0 * math.sin(math.radians(60.0))
    assert (bot(engine, 1)["x"], bot(engine, 1)["y"]) == pytest.approx(
        (400.0 + dx * 2.0 / dy, 582.0)
    )
    assert engine.events.bot_wall[0].tolist() == [True, True]


def test_pushing_into_a_wall_gives_alternating_events() -> None:
    engine = started()
    place(engine, 0, 776.0, 300.0, 0.0, speed=8.0)
    seen, energy = [], []
    for _ in range(6):
        step(engine, {"target_speed": 8.0})
        seen.append(bool(engine.events.bot_wall[0, 0]))
        energy.append(bot(engine, 0)["energy"])
        assert bot(engine, 0)["x"] == 782.0
        assert bot(engine, 0)["speed"] == 0.0
    assert seen == [True, False, True, False, True, False]
    assert energy == pytest.approx([97.0] * 6)  # later hits come at speed 1: no damage


def outside_at_round_start(monkeypatch: pytest.MonkeyPatch, x: float) -> None:
    """Make placement put seat 0 at x (outside the arena) and facing east."""
    original = engine_module.place_bots

    def place_outside(bots, mask, *args, **kw):  # type: ignore[no-untyped-def]
        original(bots, mask, *args, **kw)
        bots.x[mask, 0] = x
        bots.y[mask, 0] = 300.0
        bots.x[mask, 1] = 400.0
        bots.y[mask, 1] = 300.0

    monkeypatch.setattr(engine_module, "place_bots", place_outside)


def test_no_wall_collision_on_turn_1_but_the_final_clamp_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outside_at_round_start(monkeypatch, 5.0)
    engine = make_engine()
    engine.step()
    b = bot(engine, 0)
    assert engine.events.bot_wall[0, 0] == np.False_
    assert b["energy"] == 100.0
    assert (b["x"], b["y"]) == (18.0, 300.0)  # §7.6: clamped, no damage, no event
    step(engine, {})
    assert not engine.events.bot_wall[0, 0]


# ---- §7.5 bots ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("x", "hit"), [(137.0, True), (137.001, False)])
def test_collision_at_36_or_less(x: float, hit: bool) -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 90.0)
    place(engine, 1, x, 300.0, 180.0)
    step(engine, {}, {"target_speed": 1.0})
    assert bool(engine.events.bot_bot[0, 0, 1]) is hit
    assert bool(engine.events.bot_bot[0, 1, 0]) is hit
    expected = 99.4 if hit else 100.0
    assert bot(engine, 0)["energy"] == bot(engine, 1)["energy"] == pytest.approx(expected)


def test_ram_reverts_both_stops_the_rammer_and_fills_the_events() -> None:
    """Seat 0 drives east into seat 1, which drives away east, more slowly."""
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0, speed=8.0)
    place(engine, 1, 143.0, 300.0, 0.0, speed=1.0)
    step(engine, {"target_speed": 8.0}, {"target_speed": 1.0})  # 108 and 144: 36 apart
    a, b = bot(engine, 0), bot(engine, 1)
    assert (a["x"], a["y"], b["x"], b["y"]) == (100.0, 300.0, 143.0, 300.0)  # both reverted
    assert a["speed"] == 0.0  # the rammer stops
    assert b["speed"] == 1.0  # hit while moving away: keeps its speed
    assert a["energy"] == b["energy"] == pytest.approx(99.4)
    assert events(engine, 0, "BotHitBotEvent") == [
        {
            "type": "BotHitBotEvent",
            "turnNumber": 2,
            "botId": 1,
            "victimId": 2,
            "energy": pytest.approx(99.4),
            "x": 143.0,
            "y": 300.0,
            "rammed": True,
        }
    ]
    assert events(engine, 1, "BotHitBotEvent") == [
        {
            "type": "BotHitBotEvent",
            "turnNumber": 2,
            "botId": 2,
            "victimId": 1,
            "energy": pytest.approx(99.4),
            "x": 100.0,
            "y": 300.0,
            "rammed": False,
        }
    ]


def test_head_on_both_ram_and_both_stop() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0, speed=4.0)
    place(engine, 1, 144.0, 300.0, 180.0, speed=4.0)
    step(engine, {"target_speed": 4.0}, {"target_speed": 4.0})  # 104 and 140
    assert engine.events.rammed[0, 0, 1] and engine.events.rammed[0, 1, 0]
    assert bot(engine, 0)["speed"] == bot(engine, 1)["speed"] == 0.0
    assert bot(engine, 0)["energy"] == pytest.approx(99.4)


@pytest.mark.parametrize(("bearing", "rams"), [(80.0, True), (-80.0, True), (100.0, False)])
@pytest.mark.parametrize("backwards", [False, True])
def test_ramming_flag_from_the_bearing(bearing: float, rams: bool, backwards: bool) -> None:
    """Seat 1 ends its move 35 east of seat 0 with seat 0 at `bearing` from its heading (driving
    forwards) or at bearing - 180 (the same path driven backwards)."""
    engine = started()
    end = (135.0, 300.0)
    heading = 180.0 - bearing  # direction to seat 0 is 180
    u = (math.cos(math.radians(heading)), math.sin(math.radians(heading)))
    start = (end[0] - 8.0 * u[0], end[1] - 8.0 * u[1])
    speed = -8.0 if backwards else 8.0
    body = heading + 180.0 if backwards else heading
    place(engine, 0, 100.0, 300.0, 90.0)
    place(engine, 1, *start, body % 360.0, speed=speed)
    step(engine, {}, {"target_speed": speed})
    assert engine.events.bot_bot[0, 1, 0]
    assert bool(engine.events.rammed[0, 1, 0]) is rams
    assert not engine.events.rammed[0, 0, 1]  # seat 0 stands still
    assert bot(engine, 1)["speed"] == (0.0 if rams else speed)


def test_a_bot_stopped_by_the_wall_does_not_ram() -> None:
    """§9: wall collisions come first and set the speed to 0; the ram test then sees speed 0."""
    engine = started()
    place(engine, 0, 776.0, 300.0, 30.0, speed=8.0)  # to (782.93, 304) -> pushed to (782, 303.46)
    place(engine, 1, 782.0, 338.46, 90.0)  # 60 deg to the left of seat 0's heading, 35 away
    step(engine, {"target_speed": 8.0})
    assert engine.events.bot_wall[0, 0]
    assert engine.events.bot_bot[0, 0, 1]
    assert not engine.events.rammed[0, 0, 1]
    assert bot(engine, 0)["energy"] == pytest.approx(100.0 - 3.0 - 0.6)
    assert (bot(engine, 0)["x"], bot(engine, 0)["y"]) == (776.0, 300.0)


def test_overlapping_bots_lose_0_6_every_turn() -> None:
    engine = started()
    place(engine, 0, 100.0, 300.0, 0.0)
    place(engine, 1, 120.0, 300.0, 0.0)
    run(engine, 5, {}, {})
    assert bot(engine, 0)["energy"] == bot(engine, 1)["energy"] == pytest.approx(97.0)
    assert (bot(engine, 1)["x"], bot(engine, 1)["y"]) == (120.0, 300.0)


def test_turn_1_overlap_keeps_the_first_bot_and_teleports_the_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = engine_module.place_bots

    def overlapping(bots, mask, *args, **kw):  # type: ignore[no-untyped-def]
        original(bots, mask, *args, **kw)
        bots.x[mask, 0], bots.y[mask, 0] = 400.0, 300.0
        bots.x[mask, 1], bots.y[mask, 1] = 420.0, 300.0

    monkeypatch.setattr(engine_module, "place_bots", overlapping)
    engine = make_engine(n_arenas=50, seeds=np.arange(50))
    engine.step()
    b = engine.bots
    assert (b.x[:, 0] == 400.0).all() and (b.y[:, 0] == 300.0).all()
    assert (b.x[:, 1] != 420.0).all()
    assert ((b.x[:, 1] >= 18.0) & (b.x[:, 1] <= 782.0)).all()
    assert ((b.y[:, 1] >= 18.0) & (b.y[:, 1] <= 582.0)).all()
    assert engine.events.bot_bot[:, 0, 1].all()
    np.testing.assert_allclose(b.energy, 99.4)
    assert b.x[:, 1].std() > 100.0  # spread over the arena
