"""The adaptive opponent mix: more arenas where the policy still loses, never none."""

from collections import deque

import pytest

from tankrl.actor.native_runner import curriculum_mix
from tankrl.shared.config import ConfigError, RunConfig

OPPONENTS = ("Target", "SpinBot", "RamFire")


def _recent(**rates: float) -> dict[str, deque[bool]]:
    return {name: deque([i < 100 * r for i in range(100)], maxlen=100) for name, r in rates.items()}


def test_mix_fills_every_arena_and_keeps_every_opponent() -> None:
    names = curriculum_mix(OPPONENTS, _recent(Target=1.0, SpinBot=0.5, RamFire=0.0), 64)
    assert len(names) == 64
    assert set(names) == set(OPPONENTS)


def test_mix_puts_more_arenas_where_we_lose() -> None:
    names = curriculum_mix(OPPONENTS, _recent(Target=0.95, SpinBot=0.5, RamFire=0.1), 100)
    assert names.count("RamFire") > names.count("SpinBot") > names.count("Target") >= 1


def test_unseen_opponents_count_as_never_beaten() -> None:
    names = curriculum_mix(OPPONENTS, _recent(Target=0.5), 30)
    assert names.count("SpinBot") == names.count("RamFire") > names.count("Target")


def test_unknown_curriculum_is_a_clear_error() -> None:
    cfg = RunConfig.from_dict({"actors": {"curriculum": "hardest"}})
    with pytest.raises(ConfigError, match="curriculum"):
        cfg.validate()
