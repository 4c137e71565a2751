"""Bot actors on a local Ray instance with the real LearnerActor: a hosted bot (official Bot API,
in its Ray actor's process, fighting on an embedded arena server) and a native batch stream
trajectories the learner accepts and trains on, both pick up newer weights, and when the learner
is gone the native actor keeps playing with a bounded buffer that drops (and counts) old rounds."""

import time
from pathlib import Path
from typing import Any

import pytest
import ray

from tankrl.actor.service import HostedBotActor, NativeBotActor
from tankrl.learner.service import get_or_create_learner
from tankrl.shared.config import RunConfig


def wait_for(check: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.5)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    return RunConfig.from_dict(
        {
            "run": "actors",
            "weights_dir": str(tmp_path_factory.mktemp("weights")),
            "actors": {"native_arenas": 4, "opponents": ["SpinBot"], "max_buffered_rounds": 4},
            "arena": {"max_turns_per_round": 150},
            "ppo": {"min_turns_per_update": 256, "minibatch_size": 128},
            # with passes this small the native batch moves the learner several versions a
            # second, so a hosted round (no turn cap, official-API pace) would always arrive
            # more than the default 8 versions late and be dropped for lag; the lag rule has
            # its own tests (test_inbox), here both kinds of actor must get rounds accepted
            "learner": {"max_policy_lag": 100_000},
        }
    ).validate()


def test_hosted_and_native_bot_actors_feed_the_learner(ray_local: Any, cfg: RunConfig) -> None:
    name = "learner-actors-test"
    learner = get_or_create_learner(name, cfg, Path(cfg.weights_dir) / cfg.run, num_cpus=0)
    opts = {"num_cpus": 0, "max_restarts": 1}
    native = ray.remote(NativeBotActor).options(**opts).remote(cfg.to_dict(), name, 0)
    hosted = ray.remote(HostedBotActor).options(**opts).remote(cfg.to_dict(), name, 0, None, 2)
    try:

        def accepted(actor: Any) -> dict[str, Any] | None:
            try:  # a busy machine can keep an actor in __init__ (first weights) for a while
                s = ray.get(actor.stats.remote(), timeout=30)
            except ray.exceptions.GetTimeoutError:
                return None
            assert s.get("error") is None, s["error"]
            return s if s.get("learner_accepted", 0) >= 1 else None

        n = wait_for(lambda: accepted(native), 120, "native rounds accepted")
        h = wait_for(lambda: accepted(hosted), 180, "hosted rounds accepted")
        assert n["kind"] == "native" and h["kind"] == "hosted"
        assert h["games"] >= 0 and h["turns"] > 0 and h["skipped_turns"] >= 0
        wait_for(lambda: ray.get(learner.policy_version.remote()) >= 2, 120, "training passes")
        wait_for(
            lambda: ray.get(hosted.stats.remote())["policy_version"] >= 1,
            120,
            "the hosted bot to swap to newer weights",
        )
        wait_for(
            lambda: ray.get(native.stats.remote())["policy_version"] >= 1,
            60,
            "the native batch to swap to newer weights",
        )

        # the learner goes away: the native batch keeps playing; its buffer stays bounded
        ray.kill(learner, no_restart=True)
        before = ray.get(native.stats.remote())
        s = wait_for(
            lambda: (x := ray.get(native.stats.remote()))["dropped_buffer_full"] > 0 and x,
            120,
            "rounds dropped from the full buffer",
        )
        assert s["turns"] > before["turns"]
        assert s["buffered"] <= cfg.actors.max_buffered_rounds
        assert s["link_failures"] > 0
    finally:
        for a in (native, hosted, learner):
            ray.kill(a)


def _learner_stats(learner: Any) -> dict[str, Any] | None:
    try:
        return dict(ray.get(learner.stats.remote(), timeout=30))
    except (ray.exceptions.GetTimeoutError, ray.exceptions.ActorUnavailableError):
        return None


def _actor_stats(actor: Any) -> dict[str, Any] | None:
    try:
        return dict(ray.get(actor.stats.remote(), timeout=30))
    except (ray.exceptions.GetTimeoutError, ray.exceptions.ActorUnavailableError):
        return None


def test_a_restarted_bot_actor_plays_new_rounds_that_are_trained(
    ray_local: Any, cfg: RunConfig, tmp_path: Path
) -> None:
    """Ray restarts a killed bot actor; the new incarnation's bot ids are new to the learner,
    so its first rounds are accepted and trained, not dropped as older than the last one seen."""
    name = "learner-restart-bot"
    learner = get_or_create_learner(name, cfg, tmp_path / "run", num_cpus=0)
    native = (
        ray.remote(NativeBotActor)
        .options(num_cpus=0, max_restarts=1)
        .remote(cfg.to_dict(), name, 0)
    )
    try:
        first = wait_for(
            lambda: (s := _actor_stats(native)) and s.get("learner_accepted", 0) >= 3 and s,
            120,
            "rounds of the first incarnation accepted",
        )
        ray.kill(native, no_restart=False)
        before = wait_for(lambda: _learner_stats(learner), 60, "the learner's counters")
        second = wait_for(
            lambda: (
                (s := _actor_stats(native))
                and s["incarnation"] != first["incarnation"]
                and s.get("learner_accepted", 0) >= 3
                and s
            ),
            180,
            "rounds of the restarted incarnation accepted",
        )
        assert second["pid"] != first["pid"]
        after = wait_for(
            lambda: (
                (s := _learner_stats(learner))
                and s["rounds_trained"] > before["rounds_trained"]
                and s
            ),
            120,
            "the new incarnation's rounds trained",
        )
        assert after["rounds_dropped"]["stale_round"] == before["rounds_dropped"]["stale_round"]
        assert after["rounds_accepted"] >= before["rounds_accepted"] + 3
    finally:
        for a in (native, learner):
            ray.kill(a)


def test_a_restarted_learner_trains_on_and_the_bots_reattach(
    ray_local: Any, cfg: RunConfig, tmp_path: Path
) -> None:
    """The learner is killed mid-run; Ray restarts it from latest/, the bot actor's link
    reconnects to it, and policy_version keeps rising in the learner and in the bot."""
    name = "learner-restart-learner"
    learner = get_or_create_learner(name, cfg, tmp_path / "run", num_cpus=0, max_restarts=1)
    native = ray.remote(NativeBotActor).options(num_cpus=0).remote(cfg.to_dict(), name, 0)
    try:
        killed_at = wait_for(
            lambda: (v := _version(learner)) is not None and v >= 2 and v, 180, "two passes"
        )
        ray.kill(learner, no_restart=False)
        wait_for(
            lambda: (v := _version(learner)) is not None and v >= killed_at + 2,
            240,
            "policy_version rising after the restart",
        )
        wait_for(
            lambda: (s := _actor_stats(native)) and s["policy_version"] >= killed_at + 1,
            120,
            "the bot playing weights published after the restart",
        )
    finally:
        for a in (native, learner):
            ray.kill(a)


def _version(learner: Any) -> int | None:
    try:
        return int(ray.get(learner.policy_version.remote(), timeout=30))
    except (ray.exceptions.GetTimeoutError, ray.exceptions.ActorUnavailableError):
        return None
