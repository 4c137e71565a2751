"""Shared fixtures for the unit tests: `make_view` builds a BotView batch for the brain tests."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tankrl.shared.botview import BotView

ViewFactory = Callable[..., BotView]

VIEW_DEFAULTS: dict[str, Any] = {
    "round_number": 1,
    "turn_number": 100,
    "arena_width": 800.0,
    "arena_height": 600.0,
    "x": 400.0,
    "y": 300.0,
    "energy": 100.0,
    "enemy_count": 1,
    "scan_bot_id": 2,
    "scan_energy": 100.0,
}


def build_view(n: int = 1, **fields: Any) -> BotView:
    """A mid-round view of n bots at the arena centre, at rest, facing east; `fields` override
    (scalars broadcast, arrays per bot)."""
    view = BotView.zeros(n)
    for name, value in {**VIEW_DEFAULTS, **fields}.items():
        getattr(view, name)[:] = np.asarray(value)
    return view


@pytest.fixture
def make_view() -> ViewFactory:
    return build_view
