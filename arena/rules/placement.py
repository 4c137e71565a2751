"""docs/rules.md §11: starting positions. Each bot takes a random free cell of the 50-unit grid, a
random point inside it 18 units from the cell's edges, and one random direction for body, gun and
radar. Draws come from the counter-based RNG keyed by (arena seed, round, bot), so a seed fixes a
battle.
"""

import numpy as np

from tankrl.arena.rules import rng
from tankrl.arena.rules.state import F64, I32, Bool, Bots
from tankrl.shared.game_constants import BOT_RADIUS

CELL = 50


def place_bots(
    bots: Bots,
    mask: Bool,
    seeds: "rng.U64",
    round_number: I32,
    width: F64,
    height: F64,
    initial: tuple[F64, F64, F64] | None = None,
) -> None:
    """Place every bot of the arenas in `mask`. `initial` = (x, y, direction) [B, N] overrides
    (NaN = random), honoured only when the server enables initial positions."""
    b, n = bots.x.shape
    w, h = width, height
    cols = np.floor_divide(w, CELL).astype(np.int64)
    rows = np.floor_divide(h, CELL).astype(np.int64)
    cells = cols * rows
    if bool((cells[mask] < n).any()):
        raise ValueError(f"arena too small for {n} bots: {int(cells[mask].min())} cells")
    cell_w, cell_h = w / cols, h / rows
    taken = np.full((b, n), -1, dtype=np.int64)
    for i in range(n):
        u = rng.uniform(seeds, round_number, rng.STREAM_CELL, i)
        # index among the free cells, then skip over the cells already taken (in sorted order)
        idx = np.minimum((u * (cells - i)).astype(np.int64), cells - i - 1)
        for t in np.sort(taken[:, :i], axis=1).T:
            idx = idx + (idx >= t)
        taken[:, i] = idx
        col, row = idx % cols, idx // cols
        ox = rng.uniform(seeds, round_number, rng.STREAM_OFFSET_X, i)
        oy = rng.uniform(seeds, round_number, rng.STREAM_OFFSET_Y, i)
        x = col * cell_w + BOT_RADIUS + ox * (cell_w - 2.0 * BOT_RADIUS)
        y = row * cell_h + BOT_RADIUS + oy * (cell_h - 2.0 * BOT_RADIUS)
        d = rng.uniform(seeds, round_number, rng.STREAM_DIRECTION, i) * 360.0
        if initial is not None:
            ix, iy, idir = (a[:, i] for a in initial)
            x = np.where(np.isnan(ix), x, np.clip(ix, BOT_RADIUS, w - BOT_RADIUS))
            y = np.where(np.isnan(iy), y, np.clip(iy, BOT_RADIUS, h - BOT_RADIUS))
            d = np.where(np.isnan(idir), d, np.mod(idir, 360.0))
        for arr, value in (
            (bots.x, x),
            (bots.y, y),
            (bots.direction, d),
            (bots.gun_direction, d),
            (bots.radar_direction, d),
        ):
            arr[:, i] = np.where(mask, value, arr[:, i])
