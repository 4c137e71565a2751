"""LearnerActor on a local Ray instance: several sender actors submit rounds concurrently and the
policy_version rises; each sender gets the newest weights with one call and None when current;
the long poll wakes on a publish; bad trajectories are rejected with a reason while good ones
still train; the metrics endpoint shows the `tankrl_` counters; a restarted learner resumes
from latest/; shutdown leaves a run dir that exports to a valid package."""

import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray

from tankrl.actor.learner_link import fetch_weights
from tankrl.learner.package import export_package, load_package
from tankrl.learner.service import get_or_create_learner
from tankrl.learner.testing import random_tensors, synthetic_round
from tankrl.shared.config import LearnerConfig, PPOConfig, RunConfig
from tankrl.shared.contracts import V1, V2
from tankrl.shared.policy import NumpyPolicy
from tankrl.shared.wire import Trajectory, WeightsUpdate

CFG = RunConfig(
    run="it",
    ppo=PPOConfig(hidden_size=16, min_turns_per_update=120),
    # latest/ after every pass, so a restart resumes from exactly the version it was killed at
    learner=LearnerConfig(max_policy_lag=3, max_trajectory_bytes=200_000, latest_every_s=0.0),
)


@ray.remote(num_cpus=0)
class Sender:
    """A stand-in bot: fetch the newest weights, play a synthetic round with them, submit it."""

    def __init__(self, learner: Any, bot_id: str):
        self.learner, self.bot_id = learner, bot_id

    def play(self, rounds: int, turns: int) -> list[dict[str, Any]]:
        have, policy, results = -1, None, []
        for round_id in range(rounds):
            update = fetch_weights(self.learner, have)
            if update is not None:
                have, policy = update.policy_version, NumpyPolicy(V2, update.tensors)
            assert policy is not None
            tr = synthetic_round(
                V2, policy, turns, bot_id=self.bot_id, round_id=round_id, policy_version=have,
                seed=hash((self.bot_id, round_id)) % 2**32,
                info={"opponent": "SpinBot", "won": round_id % 2 == 0, "kind": "native"},
            )  # fmt: skip
            results.append(ray.get(self.learner.submit.remote(tr.encode())))
            time.sleep(0.05)
        return results


def _wait_for(predicate, timeout_s: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if got := predicate():
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("weights") / "it"


@pytest.fixture(scope="module")
def learner(ray_local, run_dir: Path):
    handle = get_or_create_learner("it-learner", CFG, run_dir, num_cpus=0, max_restarts=1)
    assert ray.get(handle.policy_version.remote()) == 0
    yield handle
    ray.kill(handle, no_restart=True)


def test_concurrent_senders_are_trained_on_and_versions_increase(learner):
    versions = []
    senders = [Sender.remote(learner, f"bot-{i}") for i in range(3)]  # type: ignore[attr-defined]
    refs = [s.play.remote(6, 60) for s in senders]
    pending = list(refs)
    while pending:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=0.1)
        versions.append(ray.get(learner.policy_version.remote()))
    results = [r for ref in refs for r in ray.get(ref)]
    assert len(results) == 18 and all(r["accepted"] for r in results), results

    def settled() -> dict[str, Any] | None:  # every round trained, replaced or still queued
        s = ray.get(learner.stats.remote())
        done = s["rounds_trained"] + s["rounds_dropped"]["stale_pass"] + s["queue_depth"]
        return s if done == 18 else None

    final = _wait_for(settled, what="the last pass")
    versions.append(ray.get(learner.policy_version.remote()))
    # A pass needs two bots' rounds (120 turns) and each bot queues only its newest round, so
    # the first pass and the rounds left after it make at least two versions; how many more
    # depends on how many rounds a busy machine lets pile up (and replace) while a pass trains.
    assert versions == sorted(versions) and versions[-1] >= 2
    assert final["rounds_accepted"] == 18
    assert final["win_rate"] == {"SpinBot": pytest.approx(0.5)}


def test_one_call_fetches_the_newest_weights_and_none_when_current(learner):
    version = ray.get(learner.policy_version.remote())
    refs = ray.get(learner.get_weights.remote(-1))
    assert isinstance(refs, list) and len(refs) == 1
    update = WeightsUpdate.decode(ray.get(refs[0]))
    assert update.policy_version == version and update.contract_sha256 == V2.sha256
    NumpyPolicy(V2, update.tensors)  # valid tensors for the contract
    assert ray.get(learner.get_weights.remote(version)) is None
    assert ray.get(learner.get_weights.remote(version + 5)) is None
    same = WeightsUpdate.decode(ray.get(ray.get(learner.get_weights.remote(version - 1))[0]))
    assert same.policy_version == version  # one object per version, whoever asks


def test_long_poll_returns_on_publish_and_none_on_timeout(learner):
    version = ray.get(learner.policy_version.remote())
    t0 = time.monotonic()
    assert fetch_weights(learner, version, timeout_s=0.5) is None
    assert time.monotonic() - t0 >= 0.45
    waiting = learner.wait_weights.remote(version, 30.0)
    time.sleep(0.3)
    policy = NumpyPolicy(V2, fetch_weights(learner, -1).tensors)
    tr = synthetic_round(V2, policy, 150, bot_id="poller", round_id=1, policy_version=version)
    assert ray.get(learner.submit.remote(tr.encode()))["accepted"]
    got = ray.get(waiting, timeout=30)
    assert isinstance(got, bytes)  # a small policy comes inline in the reply
    assert WeightsUpdate.decode(got).policy_version == version + 1
    by_ref = ray.get(learner.wait_weights.remote(version, 1.0, False))
    assert isinstance(by_ref, list) and ray.get(by_ref[0]) == got  # the same published bytes


def _bad_messages(good: Trajectory) -> dict[str, bytes]:
    nan = Trajectory(**{**vars(good), "rewards": good.rewards.copy()})
    nan.rewards[3] = np.nan
    shapes = Trajectory(**{**vars(good), "values": good.values[:-1]})
    width = Trajectory(**{**vars(good), "obs": good.obs[:, :42]})
    big = synthetic_round(V2, NumpyPolicy(V2, random_tensors(V2)), 1200, bot_id="big")
    foreign = Trajectory(**{**vars(good), "contract_sha256": V1.sha256, "round_id": 99})
    return {
        "garbage": b"\x93not a trajectory",
        "nan": nan.encode(),
        "shapes": shapes.encode(),
        "width": width.encode(),
        "oversize": big.encode(),
        "contract": foreign.encode(),
    }


def test_bad_trajectories_are_rejected_with_a_reason_and_good_ones_still_count(learner):
    before = ray.get(learner.stats.remote())
    version = before["policy_version"]
    policy = NumpyPolicy(V2, fetch_weights(learner, -1).tensors)
    good = synthetic_round(V2, policy, 150, bot_id="mixed", round_id=1, policy_version=version)
    bad = _bad_messages(good)
    replies = {name: learner.submit.remote(data) for name, data in bad.items()}
    ok = learner.submit.remote(good.encode())
    replies = {name: ray.get(r) for name, r in replies.items()}
    assert ray.get(ok)["accepted"]
    assert {n: r["reason"] for n, r in replies.items()} == {
        "garbage": "invalid", "nan": "invalid", "shapes": "invalid", "width": "invalid",
        "oversize": "invalid", "contract": "contract",
    }  # fmt: skip
    assert "non-finite" in replies["nan"]["detail"]
    assert "exceeds the limit" in replies["oversize"]["detail"]
    assert V1.sha256 in replies["contract"]["detail"] and V2.sha256 in replies["contract"]["detail"]
    after = _wait_for(
        lambda: (s := ray.get(learner.stats.remote()))["policy_version"] > version and s
    )
    assert after["rounds_dropped"]["invalid"] - before["rounds_dropped"]["invalid"] == 5
    assert after["rounds_dropped"]["contract"] - before["rounds_dropped"]["contract"] == 1
    assert after["train_errors"] == 0


def test_stale_and_lagging_rounds_are_dropped_and_counted(learner):
    version = ray.get(learner.policy_version.remote())
    assert version >= 4
    policy = NumpyPolicy(V2, fetch_weights(learner, -1).tensors)
    old = synthetic_round(V2, policy, 10, bot_id="lagger", round_id=1, policy_version=version - 4)
    reply = ray.get(learner.submit.remote(old.encode()))
    assert (reply["accepted"], reply["reason"]) == (False, "lag")
    again = synthetic_round(V2, policy, 10, bot_id="mixed", round_id=1, policy_version=version)
    reply = ray.get(learner.submit.remote(again.encode()))  # round 1 of "mixed" was trained
    assert (reply["accepted"], reply["reason"]) == (False, "stale_round")


def _metrics_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def test_metrics_endpoint_shows_the_tankrl_counters(learner, ray_local):
    assert ray.get(learner.submit.remote(b"garbage"))["reason"] == "invalid"
    wanted = (
        "ray_tankrl_rounds_received_total",
        "ray_tankrl_rounds_trained_total",
        'reason="invalid"',
        'reason="lag"',
        "ray_tankrl_policy_version",
        "ray_tankrl_policy_loss",
        "ray_tankrl_win_rate",
    )

    def shows_all() -> str | None:
        text = _metrics_text(ray_local.metrics_url)
        return text if all(w in text for w in wanted) else None

    text = _wait_for(shows_all, 30.0, f"{wanted} at {ray_local.metrics_url}")
    received = [
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("ray_tankrl_rounds_received_total")
    ]
    assert sum(received) >= 18


def test_a_restarted_learner_resumes_from_latest_and_shutdown_checkpoints(
    learner, run_dir, tmp_path
):
    version = ray.get(learner.policy_version.remote())
    ray.kill(learner, no_restart=False)  # Ray restarts it (max_restarts=1)

    def restarted() -> dict[str, Any] | None:  # the first instance started from random init
        s = _try(lambda: ray.get(learner.stats.remote(), timeout=5))
        return s if s is not None and s["startup"]["source"] == "latest" else None

    resumed = _wait_for(restarted, 60.0, "the restarted learner")
    assert resumed["policy_version"] == version
    assert f"policy_version {version}" in resumed["startup"]["message"]
    saved = ray.get(learner.shutdown.remote())
    assert saved["policy_version"] == version
    exported = export_package(run_dir, tmp_path / "policy.zip")
    _, _, manifest = load_package(exported.path, V2)
    assert manifest["policy_version"] == version and manifest["config"]["run"] == "it"
    assert (run_dir / "config.json").is_file() and any((run_dir / "tb").iterdir())


def _try(fn) -> Any:
    try:
        return fn()
    except (ray.exceptions.RayError, TimeoutError):
        return None


def test_the_demonstrator_reaches_the_learner_and_anchors_the_named_opponent(ray_local, tmp_path):
    """What `tankrl train` does with ppo.bc_coef: the demonstrator travels to the learner actor
    through Ray, and a pass over rounds against an anchored opponent reports a bc loss."""
    from tankrl.actor.expert import GotoAimExpert

    ppo = PPOConfig(hidden_size=16, min_turns_per_update=100, bc_coef=1.0, bc_opponents=("Fire",))
    cfg = RunConfig(run="it-bc", ppo=ppo, learner=CFG.learner)
    demonstrator = GotoAimExpert(V2, 800, 600).actions
    handle = get_or_create_learner(
        "it-bc-learner", cfg, tmp_path / "bc", num_cpus=0, demonstrator=demonstrator
    )
    try:
        policy = NumpyPolicy(V2, random_tensors(V2, hidden=16))
        for i, opponent in enumerate(("Fire", "Walls")):
            tr = synthetic_round(
                V2, policy, 60, bot_id=f"bot-{i}", info={"opponent": opponent}, seed=i
            )
            assert ray.get(handle.submit.remote(tr.encode()))["accepted"]

        def trained() -> dict[str, Any] | None:
            s = ray.get(handle.stats.remote())
            return s if s["rounds_trained"] >= 2 else None

        last = _wait_for(trained, what="a pass")["last_pass"]
        assert last["bc_loss"] > 0.0
    finally:
        ray.kill(handle, no_restart=True)
