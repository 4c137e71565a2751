"""Rolling play statistics from received rounds: episodic return and win rate by opponent.

Input: decoded trajectories (their rewards and `info`, e.g. {opponent, won, score, kind});
output: the figures the learner reports as metrics and in `stats()`. Pure.
"""

from collections import defaultdict, deque
from typing import Any

import numpy as np

from tankrl.shared.wire import Trajectory

UNKNOWN_OPPONENT = "unknown"


def _won(info: dict[str, float | int | str | bool]) -> bool | None:
    """`won` as a bool, accepting bools, 0/1 numbers and "true"/"false"; None if absent/unclear."""
    v = info.get("won")
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "false", "1", "0"):
        return v.lower() in ("true", "1")
    return None


class RoundStats:
    """The last `window` rounds' returns, and per opponent the last `window` results."""

    def __init__(self, window: int = 100):
        self.window = window
        self._returns: deque[float] = deque(maxlen=window)
        self._results: dict[str, deque[bool]] = defaultdict(lambda: deque(maxlen=window))

    def add(self, tr: Trajectory) -> None:
        """Record one round (any round that decoded, trained or not: it was played)."""
        self._returns.append(float(np.sum(tr.rewards, dtype=np.float64)))
        won = _won(tr.info)
        if won is not None:
            opponent = tr.info.get("opponent")
            name = opponent if isinstance(opponent, str) and opponent else UNKNOWN_OPPONENT
            self._results[name].append(won)

    @property
    def episodic_return(self) -> float:
        """Mean undiscounted return of the recent rounds (NaN before the first)."""
        return float(np.mean(self._returns)) if self._returns else float("nan")

    def win_rates(self) -> dict[str, float]:
        """Opponent -> fraction of recent rounds won against it."""
        return {k: sum(v) / len(v) for k, v in sorted(self._results.items()) if v}

    def rounds_by_opponent(self) -> dict[str, int]:
        return {k: len(v) for k, v in sorted(self._results.items())}

    def summary(self) -> dict[str, Any]:
        """{episodic_return, win_rate: {opponent: rate}, rounds_by_opponent: {opponent: n}}."""
        return {
            "episodic_return": self.episodic_return,
            "win_rate": self.win_rates(),
            "rounds_by_opponent": self.rounds_by_opponent(),
        }
