"""Tank Royale constants as the official server 1.1.0 and Bot API 1.4.0 define them.

Source: docs/rules.md §2-§8 and docs/rules.md §A. Used by the rules engine,
the bot-side math and the observation encoders alike.
"""

from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

ACCELERATION: Final = 1.0
DECELERATION: Final = -2.0  # negative, as in the official code
MAX_SPEED: Final = 8.0
MAX_TURN_RATE: Final = 10.0
MAX_GUN_TURN_RATE: Final = 20.0
MAX_RADAR_TURN_RATE: Final = 45.0

BOT_RADIUS: Final = 18.0
INITIAL_ENERGY: Final = 100.0
INITIAL_GUN_HEAT: Final = 3.0
GUN_COOLING_RATE: Final = 0.1

MIN_FIREPOWER: Final = 0.1
MAX_FIREPOWER: Final = 3.0
BULLET_HIT_ENERGY_GAIN_FACTOR: Final = 3.0
MAX_BULLET_SPEED: Final = 19.7

RADAR_RADIUS: Final = 1200.0
RAM_DAMAGE: Final = 0.6
INACTIVITY_DAMAGE: Final = 0.1
MAX_INACTIVITY_TURNS: Final = 450

DEFAULT_ARENA_WIDTH: Final = 800
DEFAULT_ARENA_HEIGHT: Final = 600
DISABLED_EPSILON: Final = 1e-6

SCORE_PER_BULLET_DAMAGE: Final = 1.0
BONUS_PER_BULLET_KILL: Final = 0.20
SCORE_PER_RAM_DAMAGE: Final = 2.0
BONUS_PER_RAM_KILL: Final = 0.30
SCORE_PER_SURVIVAL: Final = 50.0
BONUS_PER_LAST_SURVIVOR: Final = 10.0

SAMPLE_BOTS: Final = (
    "Target",
    "SpinBot",
    "Walls",
    "Corners",
    "Crazy",
    "Fire",
    "RamFire",
    "TrackFire",
    "VelociBot",
    "MyFirstBot",
)
"""The ten 1v1 sample bots of the official distribution (docs/rules.md §14.1): arena/opponents
plays a behaviour-equivalent of each, and actor/bots holds a bot directory of each."""

BEHAVIOR_VERSION: Final = 1
"""The outcome-compatibility epoch the official server advertises (ADR-0042)."""

P = TypeVar("P", float, npt.NDArray[np.float64])
"""A firepower: one float, or an array of them."""


# The bullet and gun formulas, written once: plain arithmetic, so the rules engine compiles these
# very functions (numba) and the bot side calls them on floats or numpy arrays alike.
def bullet_speed(power: P) -> P:
    """Speed of a bullet fired with `power` (a fired bullet's power lies in [0.1, 3]): 20 - 3p."""
    return 20.0 - 3.0 * power


def bullet_damage(power: float) -> float:
    """Damage a bullet of `power` deals: 4p, plus 2(p - 1) when p > 1."""
    return 4.0 * power + 2.0 * max(power - 1.0, 0.0)


def gun_heat_after_firing(power: P) -> P:
    """Gun heat right after firing with `power`: 1 + p/5."""
    return 1.0 + power / 5.0
