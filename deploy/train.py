"""The main job: start (or join) Ray, the learner, the bot actors of both kinds, report progress,
stop at the time limit or the target win rate (or Ctrl-C), and leave a complete run directory.

Everything started here is ended here: actors are stopped and killed, a final checkpoint is
written, and a Ray instance we started ourselves is shut down.
"""

import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tankrl.deploy.config_cli import describe
from tankrl.deploy.progress import report, target_reached
from tankrl.shared.config import RAY_NAMESPACE as NAMESPACE
from tankrl.shared.config import RAY_TASK_EVENTS, RunConfig

T = TypeVar("T")


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


LOOPBACK_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray reads this when it is imported: "0" switches multi-node support off, and with it Ray's
rewriting of 127.0.0.1 into the machine's routable address, so every server of a local instance
(GCS, raylet, workers, dashboard) listens on the loopback interface only."""


def _start_ray(address: str | None, cfg: RunConfig, dashboard: bool) -> bool:
    """Connect to a cluster (address) or start a local instance; True if we started it. A local
    instance listens on 127.0.0.1 only (with token authentication, Ray's default for local
    instances since 2.59); a warning says so when Ray was imported too early to be told."""
    import ray

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
        _system_config={"task_events_max_num_task_in_gcs": cfg.train.ray_task_events},
    )
    ip = str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
    if ip not in ("127.0.0.1", "::1"):
        print(
            f"warning: the local Ray instance listens on {ip} (Ray was imported before "
            f"tankrl train could set {LOOPBACK_ONLY_ENV}=0)"
        )
    return True


@dataclass
class Actor:
    """A bot actor the job started, and its name in progress lines (native0, hosted1)."""

    label: str
    handle: Any


def _demonstrator(cfg: RunConfig) -> Callable[[Any], Any] | None:
    """What labels the anchored rounds when ppo.bc_coef > 0: the scripted demonstrator that the
    warm start copies, for this contract and arena."""
    if cfg.ppo.bc_coef <= 0:
        return None
    from tankrl.actor.expert import GotoAimExpert
    from tankrl.shared.contracts import get_contract

    expert = GotoAimExpert(
        get_contract(cfg.contract), cfg.arena.arena_width, cfg.arena.arena_height
    )
    return expert.actions


def _start_actors(cfg: RunConfig, name: str) -> list[Actor]:
    import ray

    from tankrl.actor.service import HostedBotActor, NativeBotActor

    spread = {
        "scheduling_strategy": "SPREAD",
        "max_restarts": 3,
        "max_task_retries": 0,
        "enable_task_events": RAY_TASK_EVENTS,
    }
    config = cfg.to_dict()
    actors: list[Actor] = []
    native = ray.remote(NativeBotActor).options(num_cpus=0.5, **spread)
    for i in range(cfg.actors.native_actors):
        actors.append(Actor(f"native{i}", native.remote(config, name, i, NAMESPACE)))
    hosted = ray.remote(HostedBotActor).options(num_cpus=0.5, **spread)
    for i in range(cfg.actors.hosted_bots):
        handle = hosted.remote(config, name, i, NAMESPACE, cfg.train.hosted_rounds_per_game)
        actors.append(Actor(f"hosted{i}", handle))
    return actors


def why_no_answer(error: BaseException, timeout_s: float) -> str:
    """A short reason for an actor call that returned no result."""
    import ray

    if isinstance(error, ray.exceptions.GetTimeoutError):
        return f"busy: no answer within {timeout_s:.0f} s"
    if isinstance(error, ray.exceptions.ActorUnavailableError):
        return "restarting"
    if isinstance(error, ray.exceptions.ActorDiedError):
        return "dead: " + (str(error).strip().splitlines() or ["?"])[0][:160]
    return f"{type(error).__name__}: {error}"[:160]


def _stats(actors: list[Actor], timeout_s: float = 10.0) -> list[dict[str, Any]]:
    """Every actor's stats, asked at once; one that does not answer in time is reported by
    name with the reason (`no_answer`)."""
    import ray

    calls = []
    for a in actors:
        try:
            calls.append(a.handle.stats.remote())
        except Exception as error:  # a dead handle can refuse the call itself
            calls.append(error)
    pending = [c for c in calls if not isinstance(c, Exception)]
    if pending:
        ray.wait(pending, num_returns=len(pending), timeout=timeout_s)
    out = []
    for a, call in zip(actors, calls, strict=True):
        try:
            if isinstance(call, Exception):
                raise call
            out.append(ray.get(call, timeout=0.001))
        except Exception as error:
            out.append({"label": a.label, "no_answer": why_no_answer(error, timeout_s)})
    return out


def train(
    cfg: RunConfig, address: str | None = None, dashboard: bool = True, print_fn: Any = print
) -> TrainResult:
    """Run the main job; returns where the weights are and why it stopped."""
    address = address or os.environ.get("RAY_ADDRESS")  # set inside `ray job submit`
    if not address:
        os.environ.setdefault(LOOPBACK_ONLY_ENV, "0")  # before Ray is imported
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
    for s in old:  # again: Ray's core worker installs its own SIGTERM handler, which aborts
        signal.signal(s, on_signal)
    name = learner_name(cfg.run)
    actors: list[Any] = []
    learner = None
    try:
        print_fn(f"tankrl train: run {cfg.run} -> {run_dir}  ({describe(cfg)})")
        if started_ray and dashboard:
            print_fn("Ray dashboard: http://127.0.0.1:8265 (actors, logs; metrics tankrl_*)")
        learner = get_or_create_learner(
            name, cfg, run_dir, namespace=NAMESPACE, num_cpus=1.0, demonstrator=_demonstrator(cfg)
        )
        stats = ray.get(learner.stats.remote(), timeout=120)
        trained_before = int(stats.get("turns_trained", 0))
        print_fn(f"learner: {stats['startup']['message']}")
        actors = _start_actors(cfg, name)
        t0 = time.monotonic()
        deadline = t0 + 60.0 * cfg.train.minutes
        while not stop.wait(min(cfg.train.progress_s, max(0.0, deadline - time.monotonic()))):
            try:
                stats = ray.get(learner.stats.remote(), timeout=60)
            except Exception as error:  # restarting: it resumes from latest/, bots re-attach
                stats = {"no_answer": why_no_answer(error, 60)}
            print_fn(report(time.monotonic() - t0, stats, _stats(actors), trained_before))
            if time.monotonic() >= deadline:
                break
            if target_reached(
                stats, cfg.actors.opponents, cfg.train.target_win_rate, cfg.train.target_window
            ):
                stopped_by[0] = f"target win rate {cfg.train.target_win_rate:.0%} reached"
                break
        minutes = (time.monotonic() - t0) / 60.0
        result = _finish(cfg, learner, actors, run_dir, minutes, stopped_by[0], print_fn)
    finally:
        for a in actors:
            ray.kill(a.handle)
        if learner is not None:
            ray.kill(learner)
        if started_ray:
            ray.shutdown()
        for s, handler in old.items():
            signal.signal(s, handler)
    return _consolidate(cfg, run_dir, result, print_fn)


def _consolidate(cfg: RunConfig, run_dir: Path, result: TrainResult, print_fn: Any) -> TrainResult:
    """The consolidation after PPO (train.distill_turns > 0), unless a signal stopped the run."""
    if cfg.train.distill_turns <= 0:
        return result
    if result.stopped_by.startswith(("Ctrl-C", "signal")):
        print_fn(f"consolidation skipped: stopped by {result.stopped_by}")
        return result
    from tankrl.deploy.distill import BEFORE_DISTILL, distill

    print_fn(
        f"consolidation: {cfg.train.distill_turns:,} arena-turns copying the demonstrator "
        f"against {', '.join(cfg.train.distill_demonstrated) or 'no one'} and policy_version "
        f"{result.policy_version} against the others"
    )
    done = distill(cfg, run_dir, print_fn)
    print_fn(
        f"consolidation done in {done.seconds:.0f} s: {run_dir}/latest is policy_version "
        f"{done.policy_version}; PPO's policy is kept in {run_dir}/{BEFORE_DISTILL}"
    )
    result.policy_version = done.policy_version
    return result


def _warm_start(cfg: RunConfig, run_dir: Path, print_fn: Any) -> None:
    """A fresh run starts from train.init_from's policy, or behaviour-clones the demonstrator
    when train.pretrain_turns > 0; a run that has a policy resumes it."""
    if not cfg.train.init_from and cfg.train.pretrain_turns <= 0:
        return
    if (run_dir / "latest").exists() or any(run_dir.glob("checkpoint_*")):
        print_fn("warm start skipped: the run already has a policy (resuming it)")
        return
    if cfg.train.init_from:
        _init_from(cfg, run_dir, print_fn)
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
    stops = [a.handle.stop.remote() for a in actors]  # all at once: each ends its battle
    for a, call in zip(actors, stops, strict=True):
        try:
            final.append(ray.get(call, timeout=60))
        except Exception as error:
            print_fn(f"  {a.label} did not stop cleanly: {why_no_answer(error, 60)}")
            final.append({"label": a.label, "no_answer": why_no_answer(error, 60)})
    saved = _retry(lambda: ray.get(learner.shutdown.remote(), timeout=300))
    stats = _retry(lambda: ray.get(learner.stats.remote(), timeout=60))
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


def _retry(call: Callable[[], T], attempts: int = 30, wait_s: float = 2.0) -> T:
    """`call()`, again while the learner is restarting (it comes back from latest/)."""
    import ray

    for _ in range(attempts - 1):
        try:
            return call()
        except ray.exceptions.ActorUnavailableError:
            time.sleep(wait_s)
    return call()


def _init_from(cfg: RunConfig, run_dir: Path, print_fn: Any) -> None:
    """Start the run's latest/ from a given policy (its version numbering continues)."""
    import numpy as np

    from tankrl.learner import checkpoints
    from tankrl.shared.config import ConfigError
    from tankrl.shared.contracts import get_contract
    from tankrl.shared.policy_files import encode_policy
    from tankrl.shared.policy_package import load_policy

    path = Path(cfg.train.init_from).expanduser()
    contract, tensors, manifest = load_policy(path)
    wanted = get_contract(cfg.contract)
    if contract.sha256 != wanted.sha256:
        raise ConfigError(
            f"train.init_from {path} is contract {contract.name} ({contract.sha256[:12]}), the run "
            f"is {wanted.name} ({wanted.sha256[:12]}): set --contract {contract.name}"
        )
    version = int(manifest.get("policy_version", 0))
    # as every fresh run starts (random init, warm start): exploring with ppo.log_std_init
    tensors = {**tensors, "log_std": np.full_like(tensors["log_std"], cfg.ppo.log_std_init)}
    files = encode_policy(contract, version, tensors, cfg.to_dict())
    state = {"policy_version": version, "rounds_trained": 0, "turns_trained": 0, "trainer": {}}
    checkpoints.write_latest(run_dir, files, None, state)
    print_fn(
        f"starting from {path} (contract {contract.name}, policy_version {version}, "
        f"action log-std {cfg.ppo.log_std_init:g})"
    )
