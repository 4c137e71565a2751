"""deploy/kuberay holds what KubeRay (CRDs ray.io/v1) needs to run tankrl; no Kubernetes here, so
these tests check the structure the manifests rely on: valid YAML of the right kinds, string-only
rayStartParams, CPU/memory requests and limits on every container, a RayJob whose entrypoint the
real `tankrl train` parser accepts (joining the cluster, with an existing named config) and whose
cluster spec equals raycluster.yaml's, enough CPUs for that config's actors, the weights volume
mounted where the job writes, and a Dockerfile in step with the Ray version and the packages."""

import argparse
import importlib.metadata
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tankrl.deploy import train_cmd
from tankrl.deploy.config_cli import resolve
from tankrl.shared.config import RunConfig

REPO = Path(__file__).resolve().parents[2]
KUBERAY = REPO / "deploy" / "kuberay"
LEARNER_CPUS = 1.0  # deploy/train.py: the learner's and each bot actor's num_cpus
BOT_ACTOR_CPUS = 0.5


def _load(name: str) -> dict[str, Any]:
    docs = list(yaml.safe_load_all((KUBERAY / name).read_text()))
    assert len(docs) == 1, f"{name}: one document expected"
    return docs[0]


@pytest.fixture(scope="module")
def cluster() -> dict[str, Any]:
    return _load("raycluster.yaml")


@pytest.fixture(scope="module")
def job() -> dict[str, Any]:
    return _load("rayjob.yaml")


def _pod_specs(spec: dict[str, Any]) -> list[dict[str, Any]]:
    groups = [spec["headGroupSpec"], *spec["workerGroupSpecs"]]
    return [g["template"]["spec"] for g in groups]


def _cpu(quantity: str) -> float:
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def _job_config(job: dict[str, Any]) -> tuple[argparse.Namespace, RunConfig]:
    argv = shlex.split(job["spec"]["entrypoint"])
    assert argv[:2] == ["tankrl", "train"], argv
    parser = argparse.ArgumentParser(prog="tankrl")
    train_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv[1:])
    return args, resolve(args)


def test_every_manifest_is_yaml_with_a_kind_and_a_name():
    files = sorted(KUBERAY.glob("*.yaml"))
    assert {f.name for f in files} >= {"raycluster.yaml", "rayjob.yaml", "weights-pvc.yaml"}
    for f in files:
        for doc in yaml.safe_load_all(f.read_text()):
            assert doc["apiVersion"] and doc["kind"] and doc["metadata"]["name"], f.name


def test_raycluster_has_a_head_and_a_worker_group_with_resources(cluster):
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    spec = cluster["spec"]
    assert spec["headGroupSpec"]["template"]["spec"]["containers"]
    workers = spec["workerGroupSpecs"]
    assert len(workers) >= 1
    for group in [spec["headGroupSpec"], *workers]:
        params = group["rayStartParams"]
        assert all(isinstance(v, str) for v in params.values()), params  # map[string]string
    for group in workers:
        assert group["groupName"]
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"], group
    for pod in _pod_specs(spec):
        for container in pod["containers"]:
            resources = container["resources"]
            for kind in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources[kind]), (container["name"], kind)
            assert container["image"] == "tankrl:dev", "one image (a placeholder) everywhere"


def test_rayjob_runs_tankrl_train_on_the_raycluster_spec(job, cluster):
    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", "RayJob")
    assert "tankrl train" in job["spec"]["entrypoint"]
    assert job["spec"]["rayClusterSpec"] == cluster["spec"], (
        "keep rayjob.yaml and raycluster.yaml equal"
    )
    assert job["spec"]["shutdownAfterJobFinishes"] is True


def test_rayjob_entrypoint_joins_the_cluster_with_a_named_config(job):
    args, cfg = _job_config(job)
    # without --address, train() would start its own Ray inside the job (and ray.init fails
    # because a job's RAY_ADDRESS is set and num_cpus is passed)
    assert args.address == "auto"
    assert args.config in {p.stem for p in (REPO / "deploy" / "configs").glob("*.json")}
    assert Path(cfg.weights_dir).is_absolute(), "the learner's pod must write to the shared volume"


def test_the_cluster_has_cpus_for_the_jobs_learner_and_bot_actors(job):
    _, cfg = _job_config(job)
    spec = job["spec"]["rayClusterSpec"]
    head = sum(_cpu(c["resources"]["limits"]["cpu"]) for c in _pod_specs(spec)[0]["containers"])
    workers = sum(
        g["replicas"] * _cpu(c["resources"]["limits"]["cpu"])
        for g in spec["workerGroupSpecs"]
        for c in g["template"]["spec"]["containers"]
    )
    needed = LEARNER_CPUS + BOT_ACTOR_CPUS * (cfg.actors.native_actors + cfg.actors.hosted_bots)
    assert head + workers >= needed, (head, workers, needed)


def test_every_pod_mounts_the_weights_claim_where_the_job_writes(job):
    _, cfg = _job_config(job)
    claim = _load("weights-pvc.yaml")
    assert claim["kind"] == "PersistentVolumeClaim"
    assert "ReadWriteMany" in claim["spec"]["accessModes"]
    for pod in _pod_specs(job["spec"]["rayClusterSpec"]):
        volumes = {v["name"]: v for v in pod["volumes"]}
        for container in pod["containers"]:
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            volume = volumes[mounts[cfg.weights_dir]]
            assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]


def test_dockerfile_matches_the_ray_version_and_copies_every_package(cluster):
    text = (KUBERAY / "Dockerfile").read_text()
    ray_version = importlib.metadata.version("ray")
    assert cluster["spec"]["rayVersion"] == ray_version
    base = re.search(r"^ARG RAY_IMAGE=rayproject/ray:(\S+)$", text, re.MULTILINE)
    assert base and base.group(1).startswith(f"{ray_version}-py311-cpu"), base
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in text
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    where = project["tool"]["setuptools"]["packages"]["find"]["where"]
    # the tankrl namespace: src/tankrl's symlinks name the top-level folders it is made of
    folders = {p.name for p in (REPO / "src" / "tankrl").iterdir() if p.is_symlink()}
    assert {"shared", "arena", "actor", "learner", "deploy"} <= folders
    copied = re.findall(r"^COPY \S+ (.+)$", text, re.MULTILINE)
    copied_names = {name for line in copied for name in line.split()[:-1]}
    assert {*where, *folders, "pyproject.toml", project["project"]["readme"]} <= copied_names
