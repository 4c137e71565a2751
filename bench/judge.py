"""Judging a benchmark's figures against its targets, on a machine of unknown speed.

The same code runs up to about 3x slower on one 2-core VM than on another, so targets are set on
a reference machine and scaled by a yardstick: the time of one numpy call on 1-element arrays,
the kind of call that bounds most of what the benchmarks time. A time-like target is multiplied
by yardstick_ns / REFERENCE_YARDSTICK_NS, a rate-like one divided by it; a pure ratio of two
figures measured side by side (hosted's (b) / (a)) does not scale.

Every benchmark ends with `finish(name, figures, targets)`, which prints the verdict and, as the
run's last line, the JSON object that bench/results.py reads: the benchmark's own figures, then
`benchmark`, `args`, `date`, `yardstick_ns`, `reference_yardstick_ns`, `targets` (each with its
scaled threshold, its value and whether it was met) and `met` (true if every target was met,
false if one was not, null for a benchmark without targets).
"""

import json
import math
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

import numpy as np

REFERENCE_YARDSTICK_NS = 201.0
"""yardstick_ns() on the machine the targets were set on. The targets come from the README's
2-core machine, whose yardstick was not recorded; this is that of the 2 vCPU AMD EPYC VM this
module was written on (the same kind of machine): the median of 11 runs of yardstick_ns() a few
seconds apart, 190 to 366 ns, most of them 190 to 202. Re-measure it the same way, on a quiet
machine, whenever the targets are set again."""

YARDSTICK_BATCHES = 31
YARDSTICK_CALLS = 20_000
"""Calls timed per batch: ~0.1 s in all, long enough to be stable, short enough to be noise in
any benchmark's run."""

Scale = Literal["time", "rate", "none"]

ADDED_KEYS = frozenset(
    ("benchmark", "args", "date", "yardstick_ns", "reference_yardstick_ns", "targets", "met")
)
"""The keys verdict() adds to a benchmark's own figures."""


def yardstick_ns(batches: int = YARDSTICK_BATCHES, calls: int = YARDSTICK_CALLS) -> float:
    """This machine's speed right now: the median over `batches` batches of the mean wall time,
    in ns, of one `np.add(a, b, out=c)` on 1-element float64 arrays (the loop included)."""
    a, b, c = np.ones(1), np.ones(1), np.empty(1)
    add, clock = np.add, time.perf_counter_ns
    per_call = []
    for _ in range(batches):
        t0 = clock()
        for _ in range(calls):
            add(a, b, out=c)
        per_call.append((clock() - t0) / calls)
    return float(np.median(per_call))


@dataclass(frozen=True)
class Target:
    """A bound on one of a benchmark's figures, as set on the reference machine."""

    figure: str
    """The figure's key in the benchmark's JSON."""
    op: Literal[">=", "<="]
    reference: float
    """The bound on the reference machine (yardstick REFERENCE_YARDSTICK_NS)."""
    scale: Scale
    """"time": multiplied by the machine's slowdown; "rate": divided by it; "none": a ratio."""
    label: str = ""
    """What the figure is, for the tables (its key by default)."""

    def threshold(self, yardstick: float) -> float:
        """The bound on a machine whose yardstick is `yardstick` ns."""
        slowdown = yardstick / REFERENCE_YARDSTICK_NS
        if self.scale == "time":
            return self.reference * slowdown
        if self.scale == "rate":
            return self.reference / slowdown
        return self.reference

    def judge(self, value: Any, yardstick: float) -> dict[str, Any]:
        """This target's entry in the JSON: a missing figure (None) does not meet it."""
        threshold = self.threshold(yardstick)
        if not isinstance(value, int | float) or math.isnan(value):
            met = False
        else:
            met = value >= threshold if self.op == ">=" else value <= threshold
        return {
            "figure": self.figure,
            "label": self.label or self.figure,
            "op": self.op,
            "reference": self.reference,
            "scale": self.scale,
            "threshold": round_figure(threshold),
            "value": value,
            "met": met,
        }


def round_figure(x: float) -> float:
    """Four significant digits: enough for a threshold, and short."""
    return float(f"{x:.4g}")


def verdict(
    name: str,
    figures: dict[str, Any],
    targets: tuple[Target, ...],
    yardstick: float,
    args: list[str] | None = None,
) -> dict[str, Any]:
    """The final JSON object of benchmark `name` (see the module's docstring)."""
    yardstick = round(yardstick, 1)  # the thresholds follow from the yardstick as printed
    clash = ADDED_KEYS.intersection(figures)
    if clash:
        raise ValueError(f"figures use keys the verdict adds: {sorted(clash)}")
    unknown = [t.figure for t in targets if t.figure not in figures]
    if unknown:
        raise ValueError(f"targets on figures the benchmark does not report: {unknown}")
    judged = [t.judge(figures[t.figure], yardstick) for t in targets]
    return {
        **figures,
        "benchmark": name,
        "args": sys.argv[1:] if args is None else args,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "yardstick_ns": yardstick,
        "reference_yardstick_ns": REFERENCE_YARDSTICK_NS,
        "targets": judged,
        "met": all(j["met"] for j in judged) if judged else None,
    }


def shown(x: Any) -> str:
    """A number as the tables show it: thousands separated, no needless digits."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return "null" if x is None else str(x)
    return f"{x:,.0f}" if abs(x) >= 10_000 else f"{x:g}"


def describe(result: dict[str, Any]) -> list[str]:
    """Human-readable lines for a verdict: the yardstick, then one line per target."""
    yard, ref = result["yardstick_ns"], result["reference_yardstick_ns"]
    lines = [
        f"machine yardstick: one 1-element numpy call {yard:g} ns "
        f"(reference machine {ref:g} ns: slowdown x{yard / ref:.2f})"
    ]
    for t in result["targets"]:
        met = "met" if t["met"] else "NOT MET"
        basis = (
            f"scaled; {shown(t['reference'])} on the reference machine"
            if t["scale"] != "none"
            else "a ratio, not scaled"
        )
        lines.append(
            f"target {t['label']} {t['op']} {shown(t['threshold'])} ({basis}): "
            f"{shown(t['value'])} {met}"
        )
    return lines


def finish(
    name: str,
    figures: dict[str, Any],
    targets: tuple[Target, ...] = (),
    file: TextIO | None = None,
) -> dict[str, Any]:
    """Measure the yardstick, print the verdict and then, as the last line, its JSON object."""
    result = verdict(name, figures, targets, yardstick_ns())
    out = sys.stdout if file is None else file
    for line in describe(result):
        print(line, file=out)
    print(json.dumps(result), file=out, flush=True)
    return result
