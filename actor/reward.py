"""The reward: per turn my energy change minus the enemy's, plus round score / 100.

actor.brain feeds it our energy (BotView) and the enemy estimate (EnemyTracker, exact while the
radar holds the lock); the round-end bonus is added by the caller that knows the round score.
Pure functions over [B] arrays.
"""

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

ROUND_SCORE_DIVISOR = 100.0
"""The round score is divided by this before it is added to the last turn's reward."""


def turn_reward(
    my_energy: F64, my_previous_energy: F64, enemy_energy: F64, enemy_previous_energy: F64
) -> F64:
    """(my energy change) - (enemy energy change) over one turn, per bot."""
    mine = np.subtract(my_energy, my_previous_energy)
    return np.subtract(mine, np.subtract(enemy_energy, enemy_previous_energy), out=mine)


def round_end_reward(round_score: F64) -> F64:
    """The bonus for the last turn of a round: my round score / 100."""
    return np.asarray(round_score, dtype=np.float64) / ROUND_SCORE_DIVISOR
