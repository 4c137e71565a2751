"""Learning-curve series of a training run: scalar points (TensorBoard tags written by
learner/metrics.py, or the rows of a run's metrics.jsonl) grouped into the charts `tankrl plot`
draws. Pure: deploy/plot_cmd.py reads the files and draws the charts with matplotlib.
"""

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tankrl.actor.pool import MEMBER_NAME

POLICY_VERSION = "policy_version"
TIME_S = "time_s"


class RunMetricsError(ValueError):
    """A run has no metrics to plot; the message says what was looked for."""


@dataclass(frozen=True)
class Point:
    key: str
    """Metric name, e.g. a TensorBoard tag such as "train/policy_loss"."""
    step: float
    value: float
    x_name: str = POLICY_VERSION
    """What `step` counts: policy_version (TensorBoard's global step) or time_s."""


@dataclass
class Series:
    label: str
    x_name: str
    steps: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)


Pattern = tuple[str, str]
"""(regex over the metric key, series label; "{label}" is the regex's `label` group)."""


@dataclass(frozen=True)
class SubplotSpec:
    title: str
    ylabel: str
    patterns: tuple[Pattern, ...]
    ylim: tuple[float, float] | None = None
    legend: bool = False
    """Show the legend even for one series (its label names an opponent or a kind)."""
    pool: str | None = None
    """Labels matching this regex are self-play pool members: drawn as one mean series."""


@dataclass
class Subplot:
    spec: SubplotSpec
    series: list[Series]

    @property
    def xlabel(self) -> str:
        return " / ".join(dict.fromkeys(s.x_name for s in self.series))


@dataclass
class Chart:
    name: str
    """File stem of its PNG."""
    title: str
    subplots: list[Subplot]


WIN_RATE = SubplotSpec(
    "win rate",
    "fraction of rounds won",
    ((r"^(?:play/)?win_rate/(?P<label>.+)$", "{label}"),),
    ylim=(-0.02, 1.02),
    legend=True,
    pool=MEMBER_NAME.pattern,
)
POOL_LABEL = "self-play pool (mean of members)"
RETURN = SubplotSpec(
    "episodic return", "mean return of recent rounds", ((r"^(?:play/)?episodic_return$", "return"),)
)
LOSSES = (
    SubplotSpec("policy loss", "loss", ((r"^(?:train/)?policy_loss$", "policy"),)),
    SubplotSpec("value loss", "loss", ((r"^(?:train/)?value_loss$", "value"),)),
    SubplotSpec("entropy", "nats", ((r"^(?:train/)?entropy$", "entropy"),)),
    SubplotSpec("approx KL", "KL", ((r"^(?:train/)?approx_kl$", "approx KL"),)),
)
TURNS_PER_S = SubplotSpec(
    "turns per second",
    "turns/s",
    (
        (r"^(?:train/)?samples_per_s$", "trained (learner)"),
        (r"^(?:.+/)?turns_per_s(?:/(?P<label>.+))?$", "{label}"),
    ),
    legend=True,
)
CHART_SPECS: tuple[tuple[str, str, tuple[SubplotSpec, ...]], ...] = (
    ("win_rate", "Win rate by opponent", (WIN_RATE,)),
    ("episodic_return", "Episodic return", (RETURN,)),
    ("losses", "PPO losses", LOSSES),
    ("turns_per_s", "Turns per second", (TURNS_PER_S,)),
)
"""The charts: (PNG file stem, title, subplots)."""


def flatten(row: dict[str, object], prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a nested JSON object, keyed by their "/"-joined path (bools dropped)."""
    out: dict[str, float] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "/"))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = float(value)
    return out


def points_from_jsonl(lines: Iterable[str]) -> tuple[list[Point], int]:
    """Points of a metrics.jsonl (one JSON object per line with `policy_version` or `time_s` and
    metric keys, nested objects flattened with "/"); returns (points, malformed lines skipped).
    The x axis is policy_version when the rows carry it, else time_s, else the row number."""
    rows: list[dict[str, float]] = []
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1  # e.g. a line the trainer is still writing
            continue
        if not isinstance(obj, dict):
            bad += 1
            continue
        rows.append(flatten(obj))
    x_name = next((x for x in (POLICY_VERSION, TIME_S) if any(x in r for r in rows)), "row")
    points = []
    for i, row in enumerate(rows):
        step = row.get(x_name, float(i))
        if x_name != "row" and x_name not in row:
            continue  # a row without the x value cannot be placed
        for key, value in row.items():
            if key not in (POLICY_VERSION, TIME_S):
                points.append(Point(key, step, value, x_name))
    return points, bad


def merge(tensorboard: list[Point], jsonl: list[Point]) -> list[Point]:
    """Both sources; a key that metrics.jsonl holds is taken from it alone."""
    from_jsonl = {p.key for p in jsonl}
    return [p for p in tensorboard if p.key not in from_jsonl] + jsonl


def _series(points: list[Point], label: str) -> Series:
    """Points of one key sorted by step; of equal steps the last written wins (a restart)."""
    by_step: dict[float, float] = {}
    for p in points:
        if math.isfinite(p.value) and math.isfinite(p.step):
            by_step[p.step] = p.value
    steps = sorted(by_step)
    return Series(label, points[0].x_name, steps, [by_step[s] for s in steps])


def _while_in_pool(s: Series) -> tuple[list[float], list[float]]:
    """A member's points up to its last change: after it left the pool the learner keeps
    reporting its final recent win rate, which says nothing about the versions since."""
    last = max((i for i in range(1, len(s.values)) if s.values[i] != s.values[i - 1]), default=0)
    return s.steps[: last + 1], s.values[: last + 1]


def pool_mean(members: list[Series]) -> Series:
    """One series: at each step the mean win rate against the members in the pool then."""
    by_step: dict[float, list[float]] = {}
    for s in members:
        for step, value in zip(*_while_in_pool(s), strict=True):
            by_step.setdefault(step, []).append(value)
    steps = sorted(by_step)
    means = [sum(by_step[x]) / len(by_step[x]) for x in steps]
    return Series(POOL_LABEL, members[0].x_name, steps, means)


def charts(points: Iterable[Point]) -> list[Chart]:
    """The charts of CHART_SPECS that have data; subplots without data are left out."""
    by_key: dict[str, list[Point]] = {}
    for p in points:
        by_key.setdefault(p.key, []).append(p)
    out = []
    for name, title, subplot_specs in CHART_SPECS:
        subplots = []
        for spec in subplot_specs:
            series = []
            for key in sorted(by_key):
                for regex, label in spec.patterns:
                    m = re.match(regex, key)
                    if m is not None:
                        group = m.groupdict().get("label") or "all"
                        s = _series(by_key[key], label.format(label=group))
                        if s.steps:
                            series.append(s)
                        break
            members = [s for s in series if spec.pool and re.fullmatch(spec.pool, s.label)]
            if members:
                series = [s for s in series if s not in members] + [pool_mean(members)]
            if series:
                subplots.append(Subplot(spec, series))
        if subplots:
            out.append(Chart(name, title, subplots))
    return out
