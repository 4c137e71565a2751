"""Soak benchmark: `tankrl train` for an hour, watching for what grows.

Runs the main job (`--config default` unless told otherwise) as a subprocess whose environment
carries a mark, so every process of the run can be found, Ray's and the booted opponents'
included. Once a minute it samples each process's resident memory (by kind: the driver, the
learner, the native and hosted bot actors, the booted bots, raylet, gcs_server, Ray's agents)
and the size of weights/<run>/. A leak shows as memory that still grows after the first ten
minutes (when every cache has filled); a file that grows with every pass shows in the run
directory's size and in the bytes the learner writes per hour.

Prints one line per sample, a table, and as its last line the JSON verdict (bench/judge.py):
per kind the mean RSS per process at minute 10 and at the end and the growth in between,
weights_mb, weights_mb_per_hour and learner_write_mb_per_hour. Targets: no kind grows more than
10% from minute 10 to the end, and weights/<run>/ stays under 200 MB.
Usage: python -m bench.soak [--minutes 60] [--config default] [--run soak] [--weights-dir weights]
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.judge import Target, finish

TARGETS = (
    Target("max_rss_growth_pct", "<=", 10.0, "none", "RSS growth, minute 10 to the end, %"),
    Target("weights_mb", "<=", 200.0, "none", "weights/<run>/ MB"),
)
BASELINE_MINUTE = 10
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


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return 0.0


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


def sample(mark: bytes, driver: int) -> tuple[dict[str, list[float]], float]:
    """RSS (MB) of every process of the run by kind, and what the learner has written (MB)."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    learner_written = 0.0
    for pid in marked(mark):
        kind, rss = kind_of(pid, driver), rss_mb(pid)
        if rss is None or kind == "gone":
            continue
        by_kind[kind].append(rss)
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
    samples: list[tuple[float, dict[str, list[float]], float, float]] = []
    started = time.monotonic()
    try:
        while proc.poll() is None:
            time.sleep(min(args.sample_s, 5.0))
            minute = (time.monotonic() - started) / 60.0
            if samples and minute - samples[-1][0] < args.sample_s / 60.0:
                continue
            by_kind, written = sample(mark.encode(), proc.pid)
            if not by_kind:
                continue
            size = dir_mb(run_dir) if run_dir.exists() else 0.0
            samples.append((minute, by_kind, written, size))
            total = sum(sum(v) for v in by_kind.values())
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
    report(samples, run_dir)


def report(samples: list[tuple[float, dict[str, list[float]], float, float]], run: Path) -> None:
    base = min(samples, key=lambda s: abs(s[0] - BASELINE_MINUTE))
    end = samples[-1]
    hours = max(end[0] - samples[0][0], 1e-9) / 60.0
    growth: dict[str, float] = {}
    rss: dict[str, list[float]] = {}
    print(
        f"\n{'kind':<14} {'procs':>5} {'MB/proc m' + str(round(base[0])):>12} {'MB/proc end':>12}"
        f" {'growth %':>9}"
    )
    for kind in sorted(set(base[1]) & set(end[1])):
        first = sum(base[1][kind]) / len(base[1][kind])
        last = sum(end[1][kind]) / len(end[1][kind])
        growth[kind] = round(100.0 * (last - first) / first, 1)
        rss[kind] = [round(first, 1), round(last, 1)]
        print(
            f"{kind:<14} {len(end[1][kind]):>5} {first:>12.1f} {last:>12.1f} {growth[kind]:>9.1f}"
        )
    figures: dict[str, Any] = {
        "minutes": round(end[0], 1),
        "baseline_minute": round(base[0], 1),
        "rss_mb_per_process": rss,
        "rss_growth_pct": growth,
        "max_rss_growth_pct": max(growth.values()) if growth else None,
        "weights_mb": round(end[3], 1),
        "weights_mb_per_hour": round((end[3] - samples[0][3]) / hours, 1),
        "learner_write_mb_per_hour": round((end[2] - samples[0][2]) / hours, 1),
        "run_dir": str(run),
    }
    finish("soak", figures, TARGETS)


if __name__ == "__main__":
    main()
