"""The engine's state groups are rows of a few blocks (arena/rules/state.py): the compiled rules
write through the blocks, the Python side reads and writes the named fields, and both must be the
same memory, row by row."""

import numpy as np
import pytest

from tankrl.arena.rules import state
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup


@pytest.mark.parametrize("group", ["bots", "intents", "bullets", "scores", "events"])
def test_every_field_is_its_row_of_a_block(group: str) -> None:
    engine = Engine(GameSetup(), 3, 2)
    value = getattr(engine, group)
    blocks = state.blocks(value)
    fields = [f for f in type(value).__annotations__ if f != "bullets"]
    seen = set()
    for name in fields:
        view = getattr(value, name)
        (block,) = [b for b in blocks if view.base is b]
        k = state.row(type(value), name)
        assert view.dtype == block.dtype and view.shape == block.shape[1:]
        assert np.shares_memory(view, block[k]) and view.ctypes.data == block[k].ctypes.data
        seen.add((id(block), k))
    assert len(seen) == len(fields)  # no two fields share a row
    assert sum(b.shape[0] for b in blocks) == len(fields)  # and no row is unused


def test_the_kernel_constants_name_their_rows() -> None:
    bots = state.alloc_bots(2, 2)
    fb, bb = state.blocks(bots)
    fb[state.GUN_HEAT, 1, 0] = 2.5
    bb[state.SCANNED_PREV, 0, 1] = True
    assert bots.gun_heat[1, 0] == 2.5 and bots.scanned_prev[0, 1]
    assert fb[:, 1, 0].sum() == 2.5 and bb.sum() == 1
