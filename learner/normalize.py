"""Running statistics for the two optional normalisations (pure numpy; both off by default).

- Observation normalisation: running mean/var of raw observations; the learner copies them into
  the model's `obs_norm.mean`/`obs_norm.var` tensors, which NumpyPolicy applies in the bots.
- Reward scaling: rewards divided by the running std of the discounted return (Engstrom et al.),
  computed per round from its start. Its statistics are training state, not policy tensors.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


@dataclass
class RunningMeanStd:
    """Mean and variance over every sample seen so far (Chan et al. parallel update)."""

    mean: npt.NDArray[np.float64]
    var: npt.NDArray[np.float64]
    count: float = 1e-4

    @classmethod
    def initial(cls, shape: tuple[int, ...] = ()) -> "RunningMeanStd":
        """Mean 0, variance 1, with a negligible weight (as CleanRL/Gymnasium start)."""
        return cls(np.zeros(shape), np.ones(shape), 1e-4)

    def update(self, x: npt.ArrayLike) -> None:
        """Fold a batch [N, *shape] into the statistics."""
        batch = np.asarray(x, dtype=np.float64)
        n = batch.shape[0]
        if n == 0:
            return
        b_mean, b_var = batch.mean(axis=0), batch.var(axis=0)
        total = self.count + n
        delta = b_mean - self.mean
        m2 = self.var * self.count + b_var * n + delta**2 * self.count * n / total
        self.mean = self.mean + delta * n / total
        self.var = m2 / total
        self.count = total

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "var": self.var.tolist(), "count": self.count}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RunningMeanStd":
        return cls(np.asarray(d["mean"], np.float64), np.asarray(d["var"], np.float64), d["count"])


class RewardScaler:
    """Divides rewards by the running std of the discounted return (no mean subtraction)."""

    def __init__(self, gamma: float, eps: float = 1e-8):
        self.gamma = gamma
        self.eps = eps
        self.stats = RunningMeanStd.initial()

    def scale(self, rewards: npt.ArrayLike, ends: npt.ArrayLike) -> F32:
        """Update the return statistics with one round and return its scaled rewards.

        `ends[t]` marks the turns after which an episode ended (the discounted return restarts).
        """
        r = np.asarray(rewards, dtype=np.float64)
        done = np.asarray(ends, dtype=bool)
        returns = np.empty_like(r)
        running = 0.0
        for t in range(r.shape[0]):
            running = running * self.gamma + r[t]
            returns[t] = running
            if done[t]:
                running = 0.0
        self.stats.update(returns)
        return (r / np.sqrt(self.stats.var + self.eps)).astype(np.float32)

    @property
    def std(self) -> float:
        return float(np.sqrt(self.stats.var + self.eps))
