"""Soak benchmark: `tankrl train` for an hour, watching for what grows.

Runs the main job (`--config default` unless told otherwise) as a subprocess whose environment
carries a mark, so every process of the run can be found, Ray's and the booted opponents'
included. Once a minute it samples each process's resident memory (by kind: the driver, the
learner, the native and hosted bot actors, the booted bots, raylet, gcs_server, Ray's agents)
and the size of weights/<run>/. A leak shows as memory that still grows after the first ten
minutes (when every cache has filled); a file that grows with every pass shows in the run
directory's size and in the bytes the learner writes per hour.

Prints one line per sample, a table, and as its last line the JSON verdict (bench/judge.py):
per kind the mean RSS per process around minute 10 and at the end (each the median of five
samples) and the growth in between,
weights_mb, weights_mb_per_hour and learner_write_mb_per_hour. Targets: no kind grows more than
10% from minute 10 to the end, and weights/<run>/ stays under 200 MB.
Usage: python -m bench.soak [--minutes 60] [--config default] [--run soak] [--weights-dir weights]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from bench.judge import Target, finish

TARGETS = (
    Target("max_rss_growth_pct", "<=", 10.0, "none", "RSS growth, minute 10 to the end, %"),
    Target("weights_mb", "<=", 200.0, "none", "weights/<run>/ MB"),
)
BASELINE_MINUTE = 10
WINDOW_SAMPLES = 5
"""Each end of the comparison is the median of this many samples: a training pass allocates and
frees tens of MB, so one sample shows where in a pass it fell (the learner read 444, 421 and
439 MB at minutes 9, 10 and 11 of one run)."""
MIN_SPAN_MINUTES = 10
"""Growth is judged only over at least this long after the baseline (a shorter run has none)."""
KINDS = (
    ("ray::LearnerActor", "learner"),
    ("ray::NativeBotActor", "native actor"),
    ("ray::HostedBotActor", "hosted actor"),
    ("raylet", "raylet"),
    ("gcs_server", "gcs_server"),
    ("ray::", "ray (other)"),
    ("ray/", "ray (other)"),
)


def kind_of(pid: int, driver: int) -> str:
    """What a process of the run is, from its command line (and environment, for bots)."""
    if pid == driver:
        return "driver"
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        if b"BOT_BOOTED=true" in Path(f"/proc/{pid}/environ").read_bytes():
            return "booted bot"
    except OSError:
        return "gone"
    return next((kind for key, kind in KINDS if key in cmdline), "other")


def marked(mark: bytes) -> list[int]:
    pids = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark in environ.read_bytes():
                pids.append(int(environ.parent.name))
        except OSError:
            continue
    return pids


def rss_mb(pid: int) -> dict[str, float] | None:
    """Resident memory (MB): total (VmRSS) and its anonymous, file and shared-memory parts."""
    fields = {"VmRSS:": "rss", "RssAnon:": "anon", "RssFile:": "file", "RssShmem:": "shmem"}
    out = dict.fromkeys(fields.values(), 0.0)
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key = line.split(maxsplit=1)[0] if line else ""
            if key in fields:
                out[fields[key]] = int(line.split()[1]) / 1024
    except OSError:
        return None
    return out


def written_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def sample(mark: bytes, driver: int) -> tuple[dict[str, list[dict[str, float]]], float]:
    """Memory (rss_mb) of every process of the run by kind, and what the learner wrote (MB)."""
    by_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
    learner_written = 0.0
    for pid in marked(mark):
        kind, rss = kind_of(pid, driver), rss_mb(pid)
        if rss is None or kind == "gone":
            continue
        by_kind[kind].append({"pid": pid, **rss})
        if kind == "learner":
            learner_written += written_mb(pid)
    return by_kind, learner_written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--config", default="default")
    parser.add_argument("--run", default="soak")
    parser.add_argument("--weights-dir", default="weights")
    parser.add_argument("--sample-s", type=float, default=60.0, help="seconds between samples")
    args = parser.parse_args()
    run_dir = Path(args.weights_dir) / args.run
    if run_dir.exists():
        shutil.rmtree(run_dir)  # a soak starts from nothing (no resumed run)
    mark = f"TANKRL_SOAK={uuid.uuid4().hex}"
    cmd = [
        sys.executable,
        "-m",
        "tankrl",
        "train",
        "--config",
        args.config,
        "--minutes",
        str(args.minutes),
        "--run",
        args.run,
        "--weights-dir",
        args.weights_dir,
        "--no-dashboard",
    ]
    env = {**os.environ, "RAY_ADDRESS": "", mark.split("=")[0]: mark.split("=")[1]}
    log = run_dir.parent / f"{args.run}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    samples: list[Sample] = []
    started = time.monotonic()
    trace = run_dir.parent / f"{args.run}.samples.jsonl"
    try:
        with trace.open("w") as rows:
            while proc.poll() is None:
                time.sleep(min(args.sample_s, 5.0))
                minute = (time.monotonic() - started) / 60.0
                if samples and minute - samples[-1].minute < args.sample_s / 60.0:
                    continue
                by_kind, written = sample(mark.encode(), proc.pid)
                if not by_kind:
                    continue
                size = dir_mb(run_dir) if run_dir.exists() else 0.0
                samples.append(Sample(minute, by_kind, written, size))
                rows.write(json.dumps(vars(samples[-1])) + "\n")
                rows.flush()
                total = sum(p["rss"] for procs in by_kind.values() for p in procs)
                print(
                    f"[{minute:5.1f} min] {sum(map(len, by_kind.values()))} processes, "
                    f"RSS {total:,.0f} MB, weights {size:.1f} MB, learner wrote {written:.0f} MB",
                    flush=True,
                )
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
    proc.wait()
    if proc.returncode != 0 or not samples:
        raise SystemExit(f"tankrl train ended with {proc.returncode}; see {log}")
    print(f"every sample, per process: {trace}")
    report(samples, run_dir)


@dataclass
class Sample:
    minute: float
    by_kind: dict[str, list[dict[str, float]]]
    learner_written_mb: float
    weights_mb: float

    def shape(self) -> dict[str, int]:
        return {kind: len(procs) for kind, procs in self.by_kind.items()}

    def mean(self, kind: str, part: str = "rss") -> float:
        procs = self.by_kind[kind]
        return sum(p[part] for p in procs) / len(procs)


def _span(window: list[Sample]) -> str:
    minutes = sorted(s.minute for s in window)
    return f"{minutes[0]:.1f}-{minutes[-1]:.1f}"


def report(samples: list[Sample], run: Path) -> None:
    """The table and verdict: per kind, the median of the WINDOW_SAMPLES samples nearest minute
    10 against the median of the last WINDOW_SAMPLES samples with the same processes as minute
    10 (a sample taken while the run shuts down, its actors already gone, would compare unlike
    things)."""
    nearest = sorted(samples, key=lambda s: abs(s.minute - BASELINE_MINUTE))[:WINDOW_SAMPLES]
    base = nearest[0]
    full = [s for s in samples if s.shape() == base.shape() and s.minute > base.minute]
    ends = full[-WINDOW_SAMPLES:] or [samples[-1]]
    end = ends[-1]
    hours = max(end.minute - samples[0].minute, 1e-9) / 60.0
    growth: dict[str, float] = {}
    rss: dict[str, list[float]] = {}
    print(
        f"\nminutes {_span(nearest)} to {_span(ends)} (medians); MB per process (anon = private "
        "heap, shmem = mapped shared memory such as Ray's object store)"
    )
    print(
        f"{'kind':<14} {'procs':>5} {'RSS start':>10} {'RSS end':>8} {'growth %':>9}"
        f" {'anon +MB':>9} {'shmem +MB':>10}"
    )
    for kind in sorted(set(base.by_kind) & set(end.by_kind)):
        first, last = (median([s.mean(kind) for s in w]) for w in (nearest, ends))
        growth[kind] = round(100.0 * (last - first) / first, 1)
        rss[kind] = [round(first, 1), round(last, 1)]
        anon, shmem = (
            median([s.mean(kind, part) for s in ends])
            - median([s.mean(kind, part) for s in nearest])
            for part in ("anon", "shmem")
        )
        print(
            f"{kind:<14} {len(end.by_kind[kind]):>5} {first:>10.1f} {last:>8.1f}"
            f" {growth[kind]:>9.1f} {anon:>+9.1f} {shmem:>+10.1f}"
        )
    judged = growth and ends[0].minute - base.minute >= MIN_SPAN_MINUTES
    if not judged:
        print(f"too short to judge growth: it needs {BASELINE_MINUTE + MIN_SPAN_MINUTES} minutes")
    figures: dict[str, Any] = {
        "minutes": round(end.minute, 1),
        "baseline_minute": round(base.minute, 1),
        "rss_mb_per_process": rss,
        "rss_growth_pct": growth,
        "max_rss_growth_pct": max(growth.values()) if judged else None,
        "weights_mb": round(end.weights_mb, 1),
        "weights_mb_per_hour": round((end.weights_mb - samples[0].weights_mb) / hours, 1),
        "learner_write_mb_per_hour": round(
            (end.learner_written_mb - samples[0].learner_written_mb) / hours, 1
        ),
        "run_dir": str(run),
    }
    finish("soak", figures, TARGETS)


if __name__ == "__main__":
    main()
