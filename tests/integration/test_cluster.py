"""The main job on a two-node local cluster (`ray.cluster_utils.Cluster`, head + one worker, both
on 127.0.0.1): `deploy.train.train(cfg, address=...)` places its bot actors on both nodes
(SPREAD), every actor's rounds reach the learner, and policy_version advances in the learner and
in the bots on both nodes (weights cross nodes through the object store).

Two Ray 2.60 details this module works around (see deploy/README.md, "Testing on one machine"):
- Ray rewrites 127.0.0.1 in a connect address to the machine's routable IP
  (ray-project/ray#59110), so a driver cannot reach a loopback-only cluster. Ray keeps loopback
  when multi-node support is switched off (`RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`, read at import
  into `ray_constants.ENABLE_RAY_CLUSTER`); the nodes are started before it is switched off.
- `Cluster` writes /tmp/ray/ray_current_cluster on start and deletes it on shutdown; that file
  makes every plain `ray.init()` on the machine join that cluster, so both calls are disabled
  here to leave other Ray instances on a shared machine alone.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tankrl.shared.config import ActorConfig, ArenaConfig, PPOConfig, RunConfig, TrainConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@dataclass(frozen=True)
class TwoNodes:
    address: str
    head: str
    worker: str


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[TwoNodes]:
    import ray
    import ray._common.utils as ray_common_utils
    import ray._private.ray_constants as ray_constants
    import ray._private.utils as ray_private_utils
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 2, "node_ip_address": "127.0.0.1", "include_dashboard": False}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ray_private_utils, "write_ray_address", lambda *args, **kwargs: None)
        mp.setattr(ray_common_utils, "reset_ray_address", lambda *args, **kwargs: None)
        cluster = Cluster(initialize_head=True, head_node_args=node)
        try:
            worker = cluster.add_node(**node)
            cluster.wait_for_nodes()
            mp.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)  # the driver keeps 127.0.0.1
            assert cluster.head_node.node_id != worker.node_id
            yield TwoNodes(cluster.address, cluster.head_node.node_id, worker.node_id)
        finally:
            ray.shutdown()
            cluster.shutdown()


def _tiny_config(weights_dir: Path) -> RunConfig:
    """The learner (1 CPU) and both native actors (0.5 each) would fit on one 2-CPU node, so
    only SPREAD puts the actors on both nodes (without it, Ray packs them onto one)."""
    return RunConfig(
        run="cluster-it",
        weights_dir=str(weights_dir),
        ppo=PPOConfig(hidden_size=16, min_turns_per_update=256, minibatch_size=128),
        arena=ArenaConfig(max_turns_per_round=150),
        actors=ActorConfig(native_actors=2, native_arenas=4, hosted_bots=0, opponents=("SpinBot",)),
        train=TrainConfig(minutes=0.3, progress_s=5.0),
    ).validate()


def test_bot_actors_run_on_both_nodes_and_policy_version_advances(two_nodes, tmp_path):
    import ray

    from tankrl.deploy.train import train

    lines: list[str] = []
    result = train(
        _tiny_config(tmp_path), address=two_nodes.address, dashboard=False, print_fn=lines.append
    )
    log = "\n".join(lines)
    assert result.stopped_by == "time limit", log
    assert len(ray.nodes()) == 2 and all(n["Alive"] for n in ray.nodes())

    assert len(result.actors) == 2, result.actors
    assert all(a["kind"] == "native" and a["error"] is None for a in result.actors), result.actors
    assert {a["node"] for a in result.actors} == {two_nodes.head, two_nodes.worker}, (
        "SPREAD should put bot actors on both nodes",
        [(a["index"], a["node"]) for a in result.actors],
    )
    for a in result.actors:  # each actor's rounds reached the learner; newer weights reached it
        assert a.get("learner_accepted", 0) >= 1, a
        assert a["policy_version"] >= 1, a

    assert result.policy_version >= 2, log
    assert result.learner["rounds_trained"] >= 3 and result.learner["train_errors"] == 0, log
    assert (result.run_dir / "latest" / "manifest.json").is_file()
