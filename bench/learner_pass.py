"""Learner benchmark: one PPO pass over a 2,000-turn v2 round, and the time from a weight publish
until 8 bot actors on a local Ray instance have fetched and decoded it.

The pass (GAE, then 4 epochs of shuffled 64-turn minibatches, PPOConfig defaults) runs on one
torch thread, as the learner does by default (learner.torch_threads); the figure is the median
of PASS_REPEATS passes after a warm-up one. For the publish, 8 stand-in bots long-poll
`wait_weights` (learner/publisher.py), which answers the moment a version is published, with a
64-wide v2 policy (~60 KB) inline in the reply. A version's latency runs from its publish until
the last bot decoded it, over PUBLISHES publishes spaced well apart so that every bot is waiting
again; publish_p99_ms_8 is null (and misses its target) if some version never reached every bot.
The table also shows the same with the bytes fetched via the ObjectRef (`ray.get`).
Usage: python -m bench.learner_pass
"""

import argparse
import statistics
import tempfile
import time
from typing import Any

import numpy as np
import ray
import torch

from bench.judge import Target, finish
from tankrl.actor.learner_link import fetch_weights
from tankrl.learner.service import get_or_create_learner
from tankrl.learner.testing import synthetic_round
from tankrl.learner.trainer import Trainer
from tankrl.shared.config import PPOConfig, RunConfig
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy

TARGETS = (
    Target("pass_s_2000", "<=", 0.5, "time", "s per 2,000-turn pass"),
    Target("publish_p99_ms_8", "<=", 50.0, "time", "publish p99 ms to 8 bots"),
)

PASS_REPEATS = 7
FETCHERS = 8
PUBLISHES = 50


def bench_pass() -> list[float]:
    """Seconds per PPO pass (GAE, 4 epochs of shuffled 64-turn minibatches) over 2,000 turns."""
    torch.set_num_threads(1)
    trainer = Trainer(V2, PPOConfig(), seed=0)
    round_ = synthetic_round(V2, NumpyPolicy(V2, trainer.policy_tensors()), 2000)
    trainer.train([round_])  # warm-up
    times = []
    for _ in range(PASS_REPEATS):
        t0 = time.perf_counter()
        trainer.train([round_])
        times.append(time.perf_counter() - t0)
    return times


@ray.remote(num_cpus=0)
class Fetcher:
    """A stand-in bot: long-polls the learner, fetches each new version and decodes it."""

    def __init__(self, learner: Any):
        self.learner = learner

    def ready(self) -> bool:
        return True

    def run(self, until_version: int, deadline_s: float, inline: bool) -> list[tuple[int, float]]:
        """Fetch versions until `until_version`; returns (version, wall time decoded) pairs."""
        have, log = -1, []
        deadline = time.monotonic() + deadline_s
        while have < until_version and time.monotonic() < deadline:
            update = fetch_weights(self.learner, have, timeout_s=5.0, inline=inline)
            if update is not None:
                have = update.policy_version
                log.append((have, time.time()))
        return log


def bench_publish(learner: Any, fetchers: list[Any], inline: bool) -> tuple[list[float], int]:
    """Per-version latency (ms) from publish until every fetcher decoded it, and misses."""
    v0 = ray.get(learner.policy_version.remote())
    logs = [f.run.remote(v0 + PUBLISHES, 300.0, inline) for f in fetchers]
    time.sleep(1.0)  # every fetcher holds the current version and waits for the next
    first = fetch_weights(learner, -1)
    assert first is not None
    policy = NumpyPolicy(V2, first.tensors)
    for i in range(1, PUBLISHES + 1):
        version = v0 + i - 1
        tr = synthetic_round(
            V2, policy, 64, bot_id="bench", round_id=version, policy_version=version
        )
        ray.get(learner.submit.remote(tr.encode()))
        ray.get(learner.wait_weights.remote(version, 30.0))
        time.sleep(0.15)  # well above the latency: every fetcher is idle again
    published = ray.get(learner.publish_times.remote())
    got = [dict(log) for log in ray.get(logs)]
    latencies, misses = [], 0
    for v in range(v0 + 1, v0 + PUBLISHES + 1):
        if all(v in g for g in got):
            latencies.append((max(g[v] for g in got) - published[v]) * 1e3)
        else:
            misses += 1
    return latencies, misses


def p99(latencies: list[float], misses: int) -> float | None:
    """The 99th percentile, or None when some version never reached every fetcher."""
    return float(np.percentile(latencies, 99)) if latencies and not misses else None


def describe(name: str, latencies: list[float], misses: int) -> str:
    """One table row for a latency series."""
    if not latencies:
        return f"{name:<32}{'-':>10}  no version reached all fetchers"
    value = p99(latencies, misses)
    shown = "missed" if value is None else f"{value:.1f}"
    return (
        f"{name:<32}{shown:>10}  p50 {np.percentile(latencies, 50):.1f} ms, max "
        f"{max(latencies):.1f} ms over {len(latencies)} publishes, {misses} missed"
    )


def main() -> None:
    """Run both measurements, print the table and the verdict."""
    argparse.ArgumentParser(
        prog="python -m bench.learner_pass", description=__doc__.splitlines()[0]
    ).parse_args()
    pass_times = bench_pass()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as run_dir:
            cfg = RunConfig(run="bench", ppo=PPOConfig(min_turns_per_update=64))
            learner = get_or_create_learner("bench-learner", cfg, run_dir, num_cpus=0)
            fetchers = [Fetcher.remote(learner) for _ in range(FETCHERS)]  # type: ignore[attr-defined]
            ray.get([f.ready.remote() for f in fetchers])  # every bot process is up
            inline = bench_publish(learner, fetchers, inline=True)
            by_ref = bench_publish(learner, fetchers, inline=False)
            ray.get(learner.shutdown.remote())
    finally:
        ray.shutdown()
    pass_s = statistics.median(pass_times)
    print(f"{'figure':<32}{'value':>10}  detail")
    runs = ", ".join(f"{t:.3f}" for t in pass_times)
    print(f"{'pass_s_2000 (median)':<32}{pass_s:>10.3f}  runs {runs}")
    print(describe("publish_p99_ms_8 (long poll)", *inline))
    print(describe("  same, bytes via ObjectRef", *by_ref))
    result = {"pass_s_2000": round(pass_s, 4), "publish_p99_ms_8": p99(*inline)}
    finish(
        "learner_pass",
        {k: None if v is None else round(v, 2 if "ms" in k else 4) for k, v in result.items()},
        TARGETS,
    )


if __name__ == "__main__":
    main()
