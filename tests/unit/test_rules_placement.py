"""docs/rules.md §11 starting positions: a grid of 50-unit cells (columns = width div 50, rows =
height div 50, cell size = width / columns by height / rows), one distinct cell per bot, a point
inside it with offsets in [18, cell - 18] (so >= 18 from the walls), one direction in [0, 360)
shared by body, gun and radar; starting fails with fewer cells than bots; every cell, offset and
direction can come up; our seeded counter-based RNG makes placement deterministic per (seed, round),
other seeds or rounds give other positions; the initial-position override is clamped to [18, size -
18] (NaN = random).
"""

import math

import numpy as np
import pytest
from rules_helpers import make_engine

from tankrl.arena.rules.engine import Engine

N_ARENAS = 2000


def placed(n_bots: int = 2, n_arenas: int = N_ARENAS, **setup: object) -> Engine:
    engine = make_engine(n_bots, n_arenas=n_arenas, seeds=np.arange(n_arenas) + 11, **setup)
    engine.step()  # turn 1: nobody moves
    return engine


@pytest.mark.parametrize(
    ("n_bots", "width", "height"), [(2, 800, 600), (16, 200, 200), (5, 820, 610), (3, 1000, 1000)]
)
def test_grid_cells_offsets_and_shared_direction(n_bots: int, width: int, height: int) -> None:
    n_arenas = 300
    engine = placed(n_bots, n_arenas, arena_width=width, arena_height=height)
    b = engine.bots
    cols, rows = width // 50, height // 50
    cw, ch = width / cols, height / rows
    col, row = np.floor(b.x / cw), np.floor(b.y / ch)
    ox, oy = b.x - col * cw, b.y - row * ch
    assert (ox >= 18.0).all() and (ox <= cw - 18.0).all()
    assert (oy >= 18.0).all() and (oy <= ch - 18.0).all()
    assert (b.x >= 18.0).all() and (b.x <= width - 18.0).all()
    assert (b.y >= 18.0).all() and (b.y <= height - 18.0).all()
    cell = row * cols + col
    for a in range(n_arenas):
        assert len(set(cell[a].tolist())) == n_bots  # distinct cells
    assert ((b.direction >= 0.0) & (b.direction < 360.0)).all()
    np.testing.assert_array_equal(b.gun_direction, b.direction)
    np.testing.assert_array_equal(b.radar_direction, b.direction)
    assert not engine.events.bot_bot.any()  # distinct cells: at least 36 apart


def test_every_cell_offset_and_direction_can_come_up() -> None:
    engine = placed()
    b = engine.bots
    cells = (np.floor(b.y / 50.0) * 16 + np.floor(b.x / 50.0)).astype(int)
    assert np.bincount(cells.ravel(), minlength=192).min() > 0  # all 16 x 12 cells
    ox = b.x - np.floor(b.x / 50.0) * 50.0
    assert ox.min() < 18.5 and ox.max() > 31.5
    assert b.direction.min() < 2.0 and b.direction.max() > 358.0
    assert abs(np.cos(np.radians(b.direction)).mean()) < 0.05


def test_fewer_cells_than_bots_fails() -> None:
    engine = make_engine(5, arena_width=100, arena_height=100)  # 2 x 2 cells
    with pytest.raises(ValueError, match="too small"):
        engine.step()
    placed(4, 10, arena_width=100, arena_height=100)  # 4 bots fit


def test_deterministic_for_a_seed_and_different_for_other_seeds_and_rounds() -> None:
    def start(seed: int) -> tuple[np.ndarray, ...]:
        engine = make_engine(seeds=seed)
        engine.step()
        return engine.bots.x.copy(), engine.bots.y.copy(), engine.bots.direction.copy()

    a, again, other = start(5), start(5), start(6)
    for u, v in zip(a, again, strict=True):
        np.testing.assert_array_equal(u, v)
    assert all(not np.array_equal(u, v) for u, v in zip(a, other, strict=True))
    engine = make_engine(seeds=5)
    engine.step()
    engine.bots.energy[0, 1] = -1.0
    engine.step()
    engine.step()  # round 2
    assert engine.round_number[0] == 2
    assert not np.array_equal(engine.bots.x, a[0])


def test_initial_position_override_is_clamped() -> None:
    engine = make_engine(3)
    nan = math.nan
    engine.initial_positions = (
        np.array([[5.0, 900.0, nan]]),
        np.array([[-3.0, 700.0, nan]]),
        np.array([[90.0, nan, nan]]),
    )
    engine.step()
    b = engine.bots
    assert (b.x[0, 0], b.y[0, 0]) == (18.0, 18.0)
    assert (b.x[0, 1], b.y[0, 1]) == (782.0, 582.0)
    assert (b.direction[0, 0], b.gun_direction[0, 0], b.radar_direction[0, 0]) == (90.0, 90.0, 90.0)
    assert 0.0 <= b.direction[0, 1] < 360.0  # NaN: random
    assert b.gun_direction[0, 1] == b.direction[0, 1] == b.radar_direction[0, 1]
    assert 18.0 <= b.x[0, 2] <= 782.0 and 18.0 <= b.y[0, 2] <= 582.0


def test_override_inside_the_arena_is_kept_exactly() -> None:
    engine = make_engine()
    engine.initial_positions = (
        np.array([[123.5, 600.0]]),
        np.array([[456.25, 300.0]]),
        np.array([[270.0, 45.0]]),
    )
    engine.step()
    assert (engine.bots.x[0, 0], engine.bots.y[0, 0]) == (123.5, 456.25)
    assert (engine.bots.x[0, 1], engine.bots.y[0, 1]) == (600.0, 300.0)
    assert engine.bots.direction[0].tolist() == [270.0, 45.0]
