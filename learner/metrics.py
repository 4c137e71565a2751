"""Learner metrics: `ray.util.metrics` counters and gauges (named `tankrl_*`) plus TensorBoard.

Ray exports them on each node's metrics port (Prometheus text, as `ray_tankrl_*`; counters get a
`_total` suffix) for the dashboard; TensorBoard scalars go to `<run dir>/tb`. Outside Ray the Ray
side is skipped and the values are only kept locally (`value()`), so tests need no cluster.
"""

import math
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PREFIX = "tankrl_"

COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "rounds_received": ("trajectories received, valid or not", ()),
    "rounds_accepted": ("rounds queued for training", ()),
    "rounds_trained": ("rounds used in a training pass", ()),
    "rounds_dropped": ("rounds refused or dropped, by reason", ("reason",)),
    "turns_trained": ("turns used in training passes", ()),
    "training_passes": ("completed training passes", ()),
}
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "policy_version": ("current policy_version", ()),
    "policy_lag": ("policy lag of the last pass's rounds (stat = min/mean/max)", ("stat",)),
    "queue_depth": ("rounds waiting for a training pass", ()),
    "policy_loss": ("clipped-surrogate loss of the last pass", ()),
    "value_loss": ("value loss of the last pass", ()),
    "entropy": ("policy entropy of the last pass", ()),
    "approx_kl": ("approximate KL of the last pass", ()),
    "clip_fraction": ("fraction of clipped ratios in the last pass", ()),
    "bc_loss": ("behaviour-cloning anchor's action MSE in the last pass (0 when off)", ()),
    "explained_variance": ("explained variance of the behaviour values", ()),
    "episodic_return": ("mean undiscounted return of recent rounds", ()),
    "win_rate": ("win rate of recent rounds by opponent", ("opponent",)),
    "samples_per_s": ("turns trained per second of pass time", ()),
    "pass_s": ("duration of the last training pass", ()),
}
PASS_GAUGES = (
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "bc_loss",
    "explained_variance",
    "samples_per_s",
    "pass_s",
)
"""Gauges set from a training pass's statistics of the same name."""


def _tag_key(tags: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(tags.items()))


class LearnerMetrics:
    """Owns the Ray metric objects and the TensorBoard writer; thread-safe."""

    def __init__(
        self, tb_dir: Path | None = None, use_ray: bool | None = None, tb_every_s: float = 0.0
    ):
        """`tb_every_s`: a pass's TensorBoard scalars are written only when that long has gone
        by since the last written pass (0: every pass), which bounds tb/'s growth per hour;
        counters and gauges follow every pass."""
        self._lock = threading.Lock()
        self._tb_every_s = tb_every_s
        self._tb_last = -math.inf
        self._values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        self._ray: dict[str, Any] = {}
        if use_ray is None:
            import ray

            use_ray = ray.is_initialized()
        if use_ray:
            from ray.util.metrics import Counter, Gauge

            for name, (desc, keys) in COUNTERS.items():
                self._ray[name] = Counter(PREFIX + name, desc, tag_keys=keys)
            for name, (desc, keys) in GAUGES.items():
                self._ray[name] = Gauge(PREFIX + name, desc, tag_keys=keys)
        self._tb: Any = None
        if tb_dir is not None:
            from torch.utils.tensorboard import SummaryWriter

            self._tb = SummaryWriter(log_dir=str(tb_dir))

    def inc(self, name: str, value: float = 1.0, **tags: str) -> None:
        """Add `value` to a counter."""
        if name not in COUNTERS:
            raise KeyError(f"unknown counter {name}")
        with self._lock:
            key = (name, _tag_key(tags))
            self._values[key] = self._values.get(key, 0.0) + value
        if name in self._ray and value > 0:
            self._ray[name].inc(value, tags=tags or None)

    def set(self, name: str, value: float, **tags: str) -> None:
        """Set a gauge (non-finite values are kept locally but not exported)."""
        if name not in GAUGES:
            raise KeyError(f"unknown gauge {name}")
        with self._lock:
            self._values[(name, _tag_key(tags))] = float(value)
        if name in self._ray and math.isfinite(value):
            self._ray[name].set(float(value), tags=tags or None)

    def value(self, name: str, **tags: str) -> float:
        """The local value of a counter or gauge (0 if never touched)."""
        with self._lock:
            return self._values.get((name, _tag_key(tags)), 0.0)

    def scalars(self, step: int, values: Mapping[str, float], prefix: str = "") -> None:
        """Write TensorBoard scalars `prefix + key` at global step `step` (no-op without a dir)."""
        if self._tb is None:
            return
        for key, v in values.items():
            if math.isfinite(v):
                self._tb.add_scalar(prefix + key, v, step)

    def report_pass(
        self,
        version: int,
        n_rounds: int,
        stats: Mapping[str, float],
        lag: Any,
        play: Mapping[str, Any],
        queue_depth: int,
    ) -> None:
        """Everything one training pass changes: counters, pass gauges, lag, play, TensorBoard.

        `lag` has min/mean/max (or is None); `play` is RoundStats.summary().
        """
        self.set("policy_version", version)
        self.inc("training_passes")
        self.inc("rounds_trained", n_rounds)
        self.inc("turns_trained", stats["turns"])
        for key in PASS_GAUGES:
            self.set(key, stats[key])
        if lag is not None:
            for stat in ("min", "mean", "max"):
                self.set("policy_lag", getattr(lag, stat), stat=stat)
        self.set("episodic_return", play["episodic_return"])
        for opponent, rate in play["win_rate"].items():
            self.set("win_rate", rate, opponent=opponent)
        self.set("queue_depth", queue_depth)
        now = time.monotonic()
        if now - self._tb_last < self._tb_every_s:
            return
        self._tb_last = now
        self.scalars(version, stats, "train/")
        tb_play = {f"win_rate/{k}": v for k, v in play["win_rate"].items()}
        self.scalars(version, {"episodic_return": play["episodic_return"], **tb_play}, "play/")

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
            self._tb = None
