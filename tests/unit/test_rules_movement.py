"""docs/rules.md §4 movement physics through the engine: §4.1 the speed update (every worked value,
the zero-crossing sequences and the whole table against an oracle written from the reference), §4.2
move before turning along the old heading, §4.3 the body turn limit from the new speed, the gun and
radar limits, every row of the adjust-flags table, the signed radar sweep and the reported rates.
Also §1 (directions normalised to [0, 360), 0 = east, counter-clockwise positive).
"""

import math

import numpy as np
import pytest
from rules_helpers import bot, intent, make_engine, new_speed, place, started, step

CENTRE = (400.0, 300.0)


def speed_after(v: float, t: float) -> float:
    engine = started()
    place(engine, 0, *CENTRE, 0.0, speed=v)
    step(engine, {"target_speed": t})
    return bot(engine, 0)["speed"]


@pytest.mark.parametrize(
    ("v", "t", "expected"),
    [
        (8.0, 0.0, 0.0),  # instant stop (quirk)
        (8.0, -8.0, 3.0),  # crossing zero: v/2 - 1
        (3.0, -8.0, 0.5),
        (2.0, -8.0, 0.0),
        (1.0, -8.0, -0.5),
        (8.0, 4.0, 6.0),  # brake by at most 2
        (8.0, 5.0, 6.0),
        (-8.0, 8.0, -3.0),  # mirror of (8, -8)
        (-3.0, 0.0, 0.0),
        (0.0, 5.0, 1.0),  # from rest: at most 1
        (7.5, 8.0, 8.0),
        (1.0, -0.1, -0.5),  # overshoots a small negative target
        (0.5, -8.0, -0.75),
        (0.0, -5.0, -1.0),
        (0.0, 0.3, 0.3),
        (0.0, -0.3, -0.3),
        (8.0, 100.0, 8.0),  # target not clamped first, result clamped
        (6.0, 7.5, 7.0),
        (6.0, 5.5, 5.5),  # never brakes past the target
        (-6.0, -5.5, -5.5),
        (-6.0, -100.0, -7.0),
    ],
)
def test_speed_update_worked_values(v: float, t: float, expected: float) -> None:
    assert speed_after(v, t) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("v0", "t", "sequence"),
    [
        (8.0, -8.0, [3.0, 0.5, -0.75, -1.75, -2.75]),
        (4.0, -8.0, [1.0, -0.5, -1.5]),
        (-8.0, 8.0, [-3.0, -0.5, 0.75, 1.75]),
    ],
)
def test_speed_sequences_when_crossing_zero(v0: float, t: float, sequence: list[float]) -> None:
    engine = started()
    place(engine, 0, *CENTRE, 0.0, speed=v0)
    seen = []
    for _ in sequence:
        step(engine, {"target_speed": t})
        seen.append(bot(engine, 0)["speed"])
    assert seen == pytest.approx(sequence, abs=1e-12)


def test_whole_speed_table_matches_the_reference_rules() -> None:
    """Every (v, t) on a grid (v in [-8, 8] by 0.5, t in [-12, 12] by 0.25) in one batch."""
    vs = np.arange(-8.0, 8.01, 0.5)
    ts = np.arange(-12.0, 12.01, 0.25)
    grid_v, grid_t = (a.ravel() for a in np.meshgrid(vs, ts))
    n = grid_v.size
    engine = make_engine(n_arenas=n, seeds=np.arange(n))
    engine.step()
    engine.bots.x[:, 0], engine.bots.y[:, 0] = CENTRE
    engine.bots.x[:, 1], engine.bots.y[:, 1] = 100.0, 100.0
    engine.bots.direction[:, 0] = 0.0
    engine.bots.speed[:, 0] = grid_v
    engine.set_intent(0, intent(n, target_speed=grid_t))
    engine.step()
    expected = np.array([new_speed(v, t) for v, t in zip(grid_v, grid_t, strict=True)])
    np.testing.assert_allclose(engine.bots.speed[:, 0], expected, atol=1e-12)
    # and the bot moved by exactly the new speed along its heading (east)
    np.testing.assert_allclose(engine.bots.x[:, 0], CENTRE[0] + expected, atol=1e-9)


@pytest.mark.parametrize(("v", "t"), [(0.0, 1.0), (8.0, 8.0), (5.0, 8.0), (-4.0, -8.0)])
def test_moves_before_turning_along_the_old_heading(v: float, t: float) -> None:
    engine = started()
    place(engine, 0, *CENTRE, 90.0, speed=v)
    step(engine, {"target_speed": t, "turn_rate": 4.0})
    s = new_speed(v, t)
    b = bot(engine, 0)
    assert b["x"] == pytest.approx(CENTRE[0], abs=1e-9)  # old heading 90: no x component
    assert b["y"] == pytest.approx(CENTRE[1] + s, abs=1e-12)
    assert b["direction"] == pytest.approx(94.0)


def test_position_follows_cos_sin_of_the_heading() -> None:
    engine = started()
    place(engine, 0, *CENTRE, 210.0, speed=5.0)
    step(engine, {"target_speed": 5.0})
    b = bot(engine, 0)
    assert b["x"] == pytest.approx(CENTRE[0] + 5.0 * math.cos(math.radians(210.0)))
    assert b["y"] == pytest.approx(CENTRE[1] + 5.0 * math.sin(math.radians(210.0)))


@pytest.mark.parametrize(
    ("v", "t", "limit"),
    [
        (0.0, 0.0, 10.0),
        (0.0, 1.0, 9.25),  # new speed 1
        (8.0, 0.0, 10.0),  # new speed 0 after the instant stop: limit from the NEW speed
        (8.0, 8.0, 4.0),
        (4.0, 8.0, 6.25),  # new speed 5
        (8.0, -8.0, 7.75),  # new speed 3
        (-8.0, -8.0, 4.0),
    ],
)
def test_body_turn_limit_uses_the_new_speed(v: float, t: float, limit: float) -> None:
    for request, sign in ((100.0, 1.0), (-100.0, -1.0)):
        engine = started()
        place(engine, 0, *CENTRE, 180.0, speed=v)
        step(engine, {"target_speed": t, "turn_rate": request})
        b = bot(engine, 0)
        assert b["turn_rate"] == pytest.approx(sign * limit)
        assert b["direction"] == pytest.approx(180.0 + sign * limit)


def test_requested_rates_within_limits_are_applied_exactly() -> None:
    engine = started()
    place(engine, 0, *CENTRE, 100.0)
    step(engine, {"turn_rate": -3.5, "gun_turn_rate": 12.25, "radar_turn_rate": -44.0})
    b = bot(engine, 0)
    assert (b["turn_rate"], b["gun_turn_rate"], b["radar_turn_rate"]) == (-3.5, 12.25, -44.0)
    assert b["direction"] == pytest.approx(96.5)


@pytest.mark.parametrize(("request_", "clamped"), [(50.0, 20.0), (-50.0, -20.0), (20.0, 20.0)])
def test_gun_turn_limit(request_: float, clamped: float) -> None:
    engine = started()
    place(engine, 0, *CENTRE, 180.0, speed=8.0)  # the gun limit does not depend on speed
    step(engine, {"target_speed": 8.0, "gun_turn_rate": request_, "adjust_gun_for_body_turn": True})
    b = bot(engine, 0)
    assert b["gun_turn_rate"] == clamped
    assert b["gun_direction"] == pytest.approx(180.0 + clamped)


@pytest.mark.parametrize(("request_", "clamped"), [(90.0, 45.0), (-90.0, -45.0), (45.0, 45.0)])
def test_radar_turn_limit(request_: float, clamped: float) -> None:
    engine = started()
    place(engine, 0, *CENTRE, 180.0, speed=8.0)
    step(engine, {"target_speed": 8.0, "radar_turn_rate": request_})
    b = bot(engine, 0)
    assert b["radar_turn_rate"] == clamped
    assert b["radar_direction"] == pytest.approx(180.0 + clamped)


B, G, R = 7.0, -13.0, 31.0


@pytest.mark.parametrize(
    ("agb", "arg", "arb", "gun_turn", "radar_turn"),
    [
        (False, False, False, B + G, B + G + R),
        (True, False, False, G, G + R),
        (False, True, False, B + G, B + R),
        (True, True, False, G, B + R),  # radar still follows the body
        (False, False, True, B + G, G + R),
        (False, True, True, B + G, R),
        (True, False, True, G, G + R - B),  # counter-rotates (quirk)
        (True, True, True, G, R),
    ],
)
def test_adjust_flags_table(
    agb: bool, arg: bool, arb: bool, gun_turn: float, radar_turn: float
) -> None:
    engine = started()
    place(engine, 0, *CENTRE, 0.0, gun=100.0, radar=200.0)
    flags = {
        "adjust_gun_for_body_turn": agb,
        "adjust_radar_for_gun_turn": arg,
        "adjust_radar_for_body_turn": arb,
    }
    step(engine, {"turn_rate": B, "gun_turn_rate": G, "radar_turn_rate": R, **flags})
    b = bot(engine, 0)
    assert b["direction"] == pytest.approx(B)
    assert b["gun_direction"] == pytest.approx(100.0 + gun_turn)
    assert b["radar_direction"] == pytest.approx(200.0 + radar_turn)
    assert b["radar_sweep"] == pytest.approx(radar_turn)
    assert (b["turn_rate"], b["gun_turn_rate"], b["radar_turn_rate"]) == (B, G, R)


def test_adjust_flags_use_the_clamped_rates() -> None:
    """Body at full speed (limit 4), gun asked -100 (-> -20), radar asked 100 (-> 45)."""
    engine = started()
    place(engine, 0, *CENTRE, 0.0, gun=100.0, radar=200.0, speed=8.0)
    step(
        engine,
        {"target_speed": 8.0, "turn_rate": 30.0, "gun_turn_rate": -100.0, "radar_turn_rate": 100.0},
    )
    b = bot(engine, 0)
    assert (b["turn_rate"], b["gun_turn_rate"], b["radar_turn_rate"]) == (4.0, -20.0, 45.0)
    assert b["gun_direction"] == pytest.approx(100.0 + 4.0 - 20.0)
    assert b["radar_direction"] == pytest.approx(200.0 + 4.0 - 20.0 + 45.0)
    assert b["radar_sweep"] == pytest.approx(29.0)


def test_radar_sweep_is_signed_and_directions_are_normalised() -> None:
    engine = started()
    place(engine, 0, *CENTRE, 355.0, gun=5.0, radar=10.0)
    step(engine, {"turn_rate": 10.0, "gun_turn_rate": -20.0, "radar_turn_rate": -45.0})
    b = bot(engine, 0)
    assert b["direction"] == pytest.approx(5.0)  # 365 -> 5
    assert b["gun_direction"] == pytest.approx(355.0)  # 5 + 10 - 20 = -5 -> 355
    assert b["radar_direction"] == pytest.approx(315.0)  # 10 + (10 - 20 - 45) = -45 -> 315
    assert b["radar_sweep"] == pytest.approx(-55.0)
    for name in ("direction", "gun_direction", "radar_direction"):
        assert 0.0 <= b[name] < 360.0


def test_positive_turn_rate_turns_left_counter_clockwise() -> None:
    engine = started()
    place(engine, 0, *CENTRE, 0.0, speed=1.0)
    step(engine, {"target_speed": 1.0, "turn_rate": 9.25})
    step(engine, {"target_speed": 1.0})
    b = bot(engine, 0)
    assert b["direction"] == pytest.approx(9.25)
    assert b["y"] > CENTRE[1]  # heading rotated towards north = +y
