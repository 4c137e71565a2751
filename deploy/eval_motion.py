"""Motion metrics of `tankrl evaluate --motion` (pure): how smoothly our bot drives, from its
per-turn speed, turn rate and position in a round (the observer's ticks, or the native engine).

Per round: speed sign reversals (zero-speed turns are skipped, so + 0 0 − counts once), the sum
and count of |Δ turn rate| between consecutive turns, and the distance covered (sum of
|Δ position|).
`round_motion` reads whole sequences (hosted); `MotionTracker` accumulates the same numbers turn by
turn for B arenas at once (native). `MotionSummary` pools rounds into the reported figures.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SPEED_EPS = 1e-9
"""|speed| at or below this counts as standing still (neither sign)."""

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class RoundMotion:
    """One round of one bot."""

    turns: int
    """Turns observed (samples)."""
    reversals: int
    """Sign changes of speed, ignoring turns with speed 0."""
    turn_rate_change: float
    """Sum of |turn rate(t) − turn rate(t − 1)| over consecutive turns, in degrees."""
    distance: float
    """Sum of |position(t) − position(t − 1)| in units."""

    @property
    def turn_rate_steps(self) -> int:
        """Consecutive-turn pairs behind turn_rate_change."""
        return max(self.turns - 1, 0)


def _signs(speed: npt.ArrayLike) -> npt.NDArray[np.int8]:
    s = np.asarray(speed, dtype=np.float64)
    return np.where(s > SPEED_EPS, 1, np.where(s < -SPEED_EPS, -1, 0)).astype(np.int8)


def round_motion(
    speed: npt.ArrayLike, turn_rate: npt.ArrayLike, x: npt.ArrayLike, y: npt.ArrayLike
) -> RoundMotion:
    """The motion of one round from per-turn sequences of equal length (turn 1 first)."""
    s, r, px, py = (np.asarray(a, dtype=np.float64).reshape(-1) for a in (speed, turn_rate, x, y))
    if not s.size == r.size == px.size == py.size:
        raise ValueError("speed, turn_rate, x and y must have the same length")
    moving = _signs(s)
    moving = moving[moving != 0]
    reversals = int(np.count_nonzero(moving[1:] != moving[:-1]))
    change = float(np.abs(np.diff(r)).sum())
    distance = float(np.hypot(np.diff(px), np.diff(py)).sum())
    return RoundMotion(s.size, reversals, change, distance)


class MotionTracker:
    """RoundMotion of B arenas accumulated turn by turn; `update` with each turn's state (and
    which arenas started a new round on it), `take` the finished rounds."""

    def __init__(self, n_arenas: int) -> None:
        self.turns = np.zeros(n_arenas, dtype=np.int64)
        self.reversals = np.zeros(n_arenas, dtype=np.int64)
        self.turn_rate_change = np.zeros(n_arenas)
        self.distance = np.zeros(n_arenas)
        self._sign = np.zeros(n_arenas, dtype=np.int8)
        """The last non-zero speed sign of the round (0 = not moved yet)."""
        self._turn_rate = np.zeros(n_arenas)
        self._x = np.zeros(n_arenas)
        self._y = np.zeros(n_arenas)

    def update(self, started: Bool, speed: F64, turn_rate: F64, x: F64, y: F64) -> None:
        """Add one turn's state [B]; arenas in `started` begin a new round with this turn."""
        for acc in (self.turns, self.reversals, self.turn_rate_change, self.distance, self._sign):
            acc[started] = 0
        old = ~started
        sign = _signs(speed)
        flipped = old & (sign != 0) & (self._sign != 0) & (sign != self._sign)
        self.reversals += flipped
        self._sign = np.where(sign != 0, sign, self._sign)
        self.turn_rate_change += np.where(old, np.abs(turn_rate - self._turn_rate), 0.0)
        self.distance += np.where(old, np.hypot(x - self._x, y - self._y), 0.0)
        self.turns += 1
        self._turn_rate[:] = turn_rate
        self._x[:] = x
        self._y[:] = y

    def take(self, arena: int) -> RoundMotion:
        """The motion so far of one arena's round (call on the turn it ended)."""
        return RoundMotion(
            int(self.turns[arena]),
            int(self.reversals[arena]),
            float(self.turn_rate_change[arena]),
            float(self.distance[arena]),
        )


@dataclass(frozen=True)
class MotionSummary:
    """Rounds pooled: the figures `tankrl evaluate --motion` reports."""

    rounds: int
    reversals_per_100_turns: float
    mean_abs_turn_rate_change: float
    """Mean |Δ turn rate| per turn, degrees."""
    distance_per_round: float

    @classmethod
    def of(cls, rounds: Iterable[RoundMotion]) -> "MotionSummary":
        rs = list(rounds)
        turns = sum(r.turns for r in rs)
        steps = sum(r.turn_rate_steps for r in rs)
        return cls(
            rounds=len(rs),
            reversals_per_100_turns=100.0 * sum(r.reversals for r in rs) / turns if turns else 0.0,
            mean_abs_turn_rate_change=sum(r.turn_rate_change for r in rs) / steps if steps else 0.0,
            distance_per_round=sum(r.distance for r in rs) / len(rs) if rs else 0.0,
        )
