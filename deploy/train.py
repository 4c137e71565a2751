"""The main job: start (or join) Ray, the learner, the bot actors of both kinds, report progress,
stop at the time limit or the target win rate (or Ctrl-C), and leave a complete run directory.

Everything started here is ended here: actors are stopped and killed, a final checkpoint is
written, and a Ray instance we started ourselves is shut down.
"""

import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tankrl.deploy.config_cli import describe
from tankrl.deploy.progress import report, target_reached
from tankrl.shared.config import RAY_NAMESPACE as NAMESPACE
from tankrl.shared.config import RunConfig


@dataclass
class TrainResult:
    run_dir: Path
    policy_version: int
    minutes: float
    stopped_by: str
    learner: dict[str, Any]
    actors: list[dict[str, Any]] = field(default_factory=list)
    """The bot actors' final stats (their `stop()` replies), each with the Ray `node` it ran on."""


def learner_name(run: str) -> str:
    return f"tankrl-learner-{run}"


def _start_ray(address: str | None, cfg: RunConfig, dashboard: bool) -> bool:
    """Connect to a cluster (address) or start a local instance; True if we started it."""
    import ray

    address = address or os.environ.get("RAY_ADDRESS")  # set inside `ray job submit`
    if address:
        ray.init(address=address, namespace=NAMESPACE, log_to_driver=False)
        return False
    needed = 1 + cfg.actors.native_actors + cfg.actors.hosted_bots
    ray.init(
        num_cpus=max(2, needed),
        namespace=NAMESPACE,
        include_dashboard=dashboard,
        dashboard_host="127.0.0.1",
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    return True


def _start_actors(cfg: RunConfig, name: str) -> list[Any]:
    import ray

    from tankrl.actor.service import HostedBotActor, NativeBotActor

    spread = {"scheduling_strategy": "SPREAD", "max_restarts": 3, "max_task_retries": 0}
    config = cfg.to_dict()
    actors: list[Any] = []
    native = ray.remote(NativeBotActor).options(num_cpus=0.5, **spread)
    for i in range(cfg.actors.native_actors):
        actors.append(native.remote(config, name, i, NAMESPACE))
    hosted = ray.remote(HostedBotActor).options(num_cpus=0.5, **spread)
    for i in range(cfg.actors.hosted_bots):
        actors.append(hosted.remote(config, name, i, NAMESPACE, cfg.train.hosted_rounds_per_game))
    return actors


def _stats(actors: list[Any], timeout_s: float = 10.0) -> list[dict[str, Any]]:
    import ray

    out = []
    for a in actors:
        try:
            out.append(ray.get(a.stats.remote(), timeout=timeout_s))
        except Exception as error:  # a restarting actor: report and carry on
            out.append({"kind": "?", "error": repr(error)[:120]})
    return out


def train(
    cfg: RunConfig, address: str | None = None, dashboard: bool = True, print_fn: Any = print
) -> TrainResult:
    """Run the main job; returns where the weights are and why it stopped."""
    import ray

    from tankrl.learner.service import get_or_create_learner

    # absolute, so the learner writes where the driver points wherever Ray places it (on a
    # multi-machine cluster weights_dir must be shared storage; see deploy/README.md)
    run_dir = (Path(cfg.weights_dir) / cfg.run).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    _warm_start(cfg, run_dir, print_fn)
    stop = threading.Event()
    stopped_by = ["time limit"]

    def on_signal(signum: int, _frame: Any) -> None:
        stopped_by[0] = "Ctrl-C" if signum == signal.SIGINT else f"signal {signum}"
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    started_ray = _start_ray(address, cfg, dashboard)
    name = learner_name(cfg.run)
    actors: list[Any] = []
    learner = None
    try:
        print_fn(f"tankrl train: run {cfg.run} -> {run_dir}  ({describe(cfg)})")
        if started_ray and dashboard:
            print_fn("Ray dashboard: http://127.0.0.1:8265 (actors, logs; metrics tankrl_*)")
        learner = get_or_create_learner(name, cfg, run_dir, namespace=NAMESPACE, num_cpus=1.0)
        stats = ray.get(learner.stats.remote(), timeout=120)
        print_fn(f"learner: {stats['startup']['message']}")
        actors = _start_actors(cfg, name)
        t0 = time.monotonic()
        deadline = t0 + 60.0 * cfg.train.minutes
        while not stop.wait(min(cfg.train.progress_s, max(0.0, deadline - time.monotonic()))):
            stats = ray.get(learner.stats.remote(), timeout=60)
            print_fn(report(time.monotonic() - t0, stats, _stats(actors)))
            if time.monotonic() >= deadline:
                break
            if target_reached(
                stats, cfg.actors.opponents, cfg.train.target_win_rate, cfg.train.target_window
            ):
                stopped_by[0] = f"target win rate {cfg.train.target_win_rate:.0%} reached"
                break
        minutes = (time.monotonic() - t0) / 60.0
        return _finish(cfg, learner, actors, run_dir, minutes, stopped_by[0], print_fn)
    finally:
        for a in actors:
            ray.kill(a)
        if learner is not None:
            ray.kill(learner)
        if started_ray:
            ray.shutdown()
        for s, handler in old.items():
            signal.signal(s, handler)


def _warm_start(cfg: RunConfig, run_dir: Path, print_fn: Any) -> None:
    """Behaviour-clone the demonstrator into a fresh run dir when train.pretrain_turns > 0."""
    if cfg.train.pretrain_turns <= 0:
        return
    if (run_dir / "latest").exists() or any(run_dir.glob("checkpoint_*")):
        print_fn("warm start skipped: the run already has a policy (resuming it)")
        return
    from tankrl.deploy.pretrain import pretrain

    print_fn(f"warm start: behaviour cloning for {cfg.train.pretrain_turns:,} arena-turns")
    result = pretrain(cfg, run_dir, print_fn)
    print_fn(
        f"warm start done in {result.seconds:.0f} s ({result.samples:,} samples, "
        f"action mse {result.action_mse:.4f})"
    )


def _finish(
    cfg: RunConfig,
    learner: Any,
    actors: list[Any],
    run_dir: Path,
    minutes: float,
    stopped_by: str,
    print_fn: Any,
) -> TrainResult:
    import ray

    print_fn(f"stopping ({stopped_by}) ...")
    final: list[dict[str, Any]] = []
    for a in actors:
        try:
            final.append(ray.get(a.stop.remote(), timeout=30))
        except Exception as error:
            print_fn(f"  a bot actor did not stop cleanly: {error!r}"[:200])
            final.append({"kind": "?", "error": repr(error)[:120]})
    saved = ray.get(learner.shutdown.remote(), timeout=300)
    stats = ray.get(learner.stats.remote(), timeout=60)
    print_fn(report(60.0 * minutes, stats, []))
    print_fn(
        f"\nweights: {run_dir}/latest (policy_version {saved['policy_version']}), "
        f"checkpoints in {run_dir}/checkpoint_1..{cfg.learner.keep_checkpoints}, "
        f"config {run_dir}/config.json, "
        f"metrics {run_dir}/tb\nnext:\n"
        f"  tankrl evaluate {run_dir} --rounds 100\n"
        f"  tankrl plot {cfg.run}\n"
        f"  tankrl export {cfg.run} --out {cfg.run}.zip"
    )
    return TrainResult(run_dir, int(saved["policy_version"]), minutes, stopped_by, stats, final)
