"""`tankrl plot RUN [--out DIR]`: learning-curve PNGs of a training run.

Reads the TensorBoard scalars the learner writes to `<run>/tb/` (learner/metrics.py) and, when
present, `<run>/metrics.jsonl`; deploy/run_metrics.py groups them into charts; matplotlib (Agg)
draws one PNG per chart plus overview.png with every panel.
"""

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tankrl.deploy.run_metrics import RunMetricsError

if TYPE_CHECKING:
    from tankrl.deploy.run_metrics import Chart, Point, Subplot

JSONL = "metrics.jsonl"
TB_DIR = "tb"
EVENT_PREFIX = "events.out.tfevents"


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    p = sub.add_parser(
        "plot",
        help="write learning-curve PNGs of a run",
        description="Plot a run's learning curves from its TensorBoard events (<run>/tb/) and "
        "metrics.jsonl. Writes win_rate.png (per opponent), episodic_return.png, losses.png "
        "(policy, value, entropy, approx KL), turns_per_s.png (by kind when recorded) — each "
        "only when the run has its data — and overview.png with every panel, then prints the "
        "paths written.",
    )
    p.add_argument("run", metavar="RUN", help="run name under --weights-dir, or a run directory")
    p.add_argument(
        "--weights-dir", type=Path, default=Path("weights"), help="runs root (default weights)"
    )
    p.add_argument(
        "--out", type=Path, default=None, help="directory for the PNGs (default <run>/plots)"
    )
    p.set_defaults(handler=plot)


def run_dir(run: str, weights_dir: Path) -> Path:
    """RUN as a directory: a path if it is one, else `weights_dir / RUN`."""
    for candidate in (Path(run), weights_dir / run):
        if candidate.is_dir():
            return candidate
    raise RunMetricsError(f"no run directory {run!r} (nor {weights_dir / run})")


def read_tensorboard(tb_dir: Path) -> "list[Point]":
    """Every scalar of the event files under `tb_dir` (tags of sub-directories get the sub-directory
    as prefix); step = TensorBoard's global step, which the learner sets to policy_version."""
    from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

    from tankrl.deploy.run_metrics import Point

    if not tb_dir.is_dir():
        return []
    dirs = sorted({f.parent for f in tb_dir.rglob(f"{EVENT_PREFIX}*") if f.is_file()})
    points = []
    for d in dirs:
        acc = EventAccumulator(str(d), size_guidance={SCALARS: 0})
        acc.Reload()
        prefix = "" if d == tb_dir else d.relative_to(tb_dir).as_posix() + "/"
        for tag in acc.Tags().get("scalars", []):
            points += [Point(prefix + tag, float(e.step), e.value) for e in acc.Scalars(tag)]
    return points


def load_points(run: Path) -> "tuple[list[Point], list[str]]":
    """All points of a run and notes about what was read; RunMetricsError when there are none."""
    from tankrl.deploy.run_metrics import merge, points_from_jsonl

    notes = []
    tb = read_tensorboard(run / TB_DIR)
    notes.append(f"{len(tb)} TensorBoard scalars from {run / TB_DIR}")
    jsonl: list[Point] = []
    if (run / JSONL).is_file():
        with open(run / JSONL, encoding="utf-8") as f:
            jsonl, bad = points_from_jsonl(f)
        notes.append(f"{len(jsonl)} values from {run / JSONL}")
        if bad:
            notes.append(f"skipped {bad} malformed lines of {run / JSONL}")
    points = merge(tb, jsonl)
    if not points:
        raise RunMetricsError(
            f"run {run} has no metrics yet: no TensorBoard scalars under {run / TB_DIR} and no "
            f"{JSONL} (the learner writes them after its first training pass)"
        )
    return points, notes


def _draw(ax: Any, sub: "Subplot") -> None:
    from matplotlib import colormaps

    palette = colormaps["tab20" if len(sub.series) > 10 else "tab10"]
    colours = [palette(i) for i in range(palette.N)]
    for i, s in enumerate(sub.series):
        marker = "o" if len(s.steps) < 30 else None
        ax.plot(s.steps, s.values, label=s.label, marker=marker, markersize=3, linewidth=1.4,
                color=colours[i % len(colours)])  # fmt: skip
    ax.set_title(sub.spec.title)
    ax.set_xlabel(sub.xlabel)
    ax.set_ylabel(sub.spec.ylabel)
    ax.grid(True, alpha=0.3)
    if sub.spec.ylim is not None:
        ax.set_ylim(*sub.spec.ylim)
    if len(sub.series) > 6:  # beside the axes, where it hides no curve
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    elif len(sub.series) > 1 or sub.spec.legend:
        ax.legend(fontsize="small")


def _figure(title: str, subplots: "list[Subplot]", path: Path) -> None:
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    cols = 1 if len(subplots) == 1 else 2
    rows = math.ceil(len(subplots) / cols)
    fig = Figure(figsize=(6.4 * cols, 4.0 * rows), layout="constrained")
    fig.suptitle(title)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, sub in zip(axes, subplots, strict=False):
        _draw(ax, sub)
    for ax in axes[len(subplots) :]:
        ax.set_visible(False)
    fig.savefig(path, dpi=100, format="png")


def write_plots(charts: "list[Chart]", out: Path, run_name: str) -> list[Path]:
    """One PNG per chart and overview.png; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for chart in charts:
        path = out / f"{chart.name}.png"
        _figure(f"{run_name}: {chart.title}", chart.subplots, path)
        paths.append(path)
    path = out / "overview.png"
    _figure(f"{run_name}: learning curves", [s for c in charts for s in c.subplots], path)
    paths.append(path)
    return paths


def plot(args: argparse.Namespace) -> int:
    from tankrl.deploy.run_metrics import charts

    try:
        run = run_dir(args.run, args.weights_dir)
        points, notes = load_points(run)
        found = charts(points)
        if not found:
            keys = sorted({p.key for p in points})
            raise RunMetricsError(f"run {run} has metrics, but none this command plots: {keys}")
        for note in notes:
            print(note)
        paths = write_plots(
            found, args.out if args.out is not None else run / "plots", run.resolve().name
        )
    except (RunMetricsError, OSError) as e:
        print(f"error: {e}")
        return 1
    for path in paths:
        print(f"wrote {path}")
    return 0
