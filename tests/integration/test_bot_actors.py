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
