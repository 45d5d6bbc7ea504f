"""Issue 35 item 7: the behaviour changes of Karmada v1.17-v1.19 (spec §8-§11), through the CLI on real
repositories, each also followed on the older side where the spec records one (``karmadaVersion``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]


def fleet(tmp_path: Path, files: dict[str, Any], version: str = "v1.19", **config: Any) -> FleetRepo:
    return FleetRepo.create(
        tmp_path / "fleet",
        {"gitops-karmada.yaml": yaml.safe_dump({"karmadaVersion": version, **config}), **files},
    )


def rendered(repo: FleetRepo, kind: str = "deployment.apps", name: str = "web") -> dict[str, Any]:
    """cluster → the manifest rendered there."""
    found = {}
    for path in repo.tree("clusters/"):
        parts = path.split("/")
        if parts[3] == kind and parts[4] == f"{name}.yaml":
            found[parts[1]] = repo.load(path)
    return found


def weighted(weights: dict[str, int]) -> dict[str, Any]:
    return {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": [name]}, "weight": weight}
                for name, weight in weights.items()
            ]
        },
    }


# -- §8 zone matching ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "placed"), [("v1.19", ["multi", "single"]), ("v1.17", ["single"])])
def test_zone_in_matches_a_multi_zone_cluster_from_1_18(
    tmp_path: Path, version: str, placed: list[str]
) -> None:
    in_z1 = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "zone-label", "namespace": "default"},
        "spec": {
            "resourceSelectors": [*DEPLOYMENTS, {"apiVersion": "v1", "kind": "ConfigMap"}],
            "overrideRules": [
                {
                    "targetCluster": {"fieldSelector": in_z1},
                    "overriders": {"labelsOverrider": [{"operator": "add", "value": {"zone": "z1"}}]},
                }
            ],
        },
    }
    repo = fleet(
        tmp_path,
        {
            "inventory/multi.yaml": cluster_doc("multi", zones=["z1", "z2"]),
            "inventory/single.yaml": cluster_doc("single", zones=["z1"]),
            "inventory/other.yaml": cluster_doc("other", zones=["z3"]),
            "apps/web.yaml": deployment("web", replicas=2),
            "policy.yaml": pp_doc(
                "web", "default", DEPLOYMENTS, placement={"clusterAffinity": {"fieldSelector": in_z1}}
            ),
            "labelled.yaml": pp_doc("labelled", "default", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            "apps/config.yaml": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "config", "namespace": "default"},
                "data": {"a": "b"},
            },
            "override.yaml": override,
        },
        version,
    )
    repo.cli("reconcile")
    assert sorted(rendered(repo)) == placed
    for name, manifest in rendered(repo).items():
        assert manifest["metadata"]["labels"].get("zone") == "z1", name
    # the override policy follows the same rule for the ConfigMap, which goes everywhere
    config = {
        path.split("/")[1]: repo.load(path)
        for path in repo.tree("clusters/")
        if path.endswith("/config.yaml")
    }
    assert sorted(config) == ["multi", "other", "single"]
    assert [n for n, m in sorted(config.items()) if "zone" in m["metadata"].get("labels", {})] == placed


# -- §10.1 Job completions by cluster name, §10.2 ReviseReplica for every workload -------------------------


def test_job_completions_go_to_their_cluster_by_name(tmp_path: Path) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "crunch", "namespace": "default"},
        "spec": {
            "parallelism": 4,
            "completions": 8,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
            },
        },
    }
    repo = fleet(
        tmp_path,
        {
            "inventory/a.yaml": cluster_doc("a"),
            "inventory/b.yaml": cluster_doc("b"),
            "apps/job.yaml": job,
            "p.yaml": pp_doc(
                "crunch",
                "default",
                [{"apiVersion": "batch/v1", "kind": "Job"}],
                placement={"replicaScheduling": weighted({"b": 3, "a": 1})},
            ),
        },
    )
    repo.cli("reconcile")
    specs = {c: m["spec"] for c, m in rendered(repo, "job.batch", "crunch").items()}
    # the spec's example: clusters [b: 3, a: 1], completions 8 → a: 2, b: 6 (Webster by replicas)
    assert {c: (s["parallelism"], s["completions"]) for c, s in specs.items()} == {"a": (1, 2), "b": (3, 6)}


REVISE_RECORDER = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "deployment-revision"},
    "spec": {
        "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
        "customizations": {
            "replicaResource": {
                "luaScript": "function GetReplicas(obj)\n"
                "  return obj.spec.replicas, {resourceRequest = {cpu = '100m'}}\n"
                "end"
            },
            "replicaRevision": {
                "luaScript": "function ReviseReplica(obj, replicas)\n"
                "  obj.spec.replicas = replicas\n"
                "  obj.metadata.annotations = {revised = tostring(replicas)}\n"
                "  return obj\n"
                "end"
            },
        },
    },
}


@pytest.mark.parametrize(("version", "revised"), [("v1.19", True), ("v1.16", False)])
def test_revise_replica_runs_for_a_workload_with_no_replicas_from_1_17(
    tmp_path: Path, version: str, revised: bool
) -> None:
    repo = fleet(
        tmp_path,
        {
            "inventory/member1.yaml": cluster_doc("member1"),
            "inventory/member2.yaml": cluster_doc("member2"),
            "apps/web.yaml": deployment("web", replicas=0),
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement={"replicaScheduling": weighted({"member1": 1, "member2": 1})},
            ),
            "interpreter.yaml": REVISE_RECORDER,
        },
        version,
        enableEmptyWorkloadPropagation=True,
    )
    repo.cli("reconcile")
    manifests = rendered(repo)
    assert sorted(manifests) == ["member1", "member2"]
    for manifest in manifests.values():
        assert manifest["spec"]["replicas"] == 0
        assert ("revised" in manifest["metadata"].get("annotations", {})) is revised


# -- §9.1 purge mode names, §9.3 the taint manager's enqueue --------------------------------------------------


@pytest.mark.parametrize(
    ("version", "why"), [("v1.19", "Karmada v1.19 rejects it"), ("v1.18", "Karmada v1.19 removes it")]
)
def test_old_purge_mode_names_are_read_as_the_new_ones_with_a_warning(
    tmp_path: Path, version: str, why: str
) -> None:
    failover = {
        "application": {"purgeMode": "Immediately", "decisionConditions": {"tolerationSeconds": 60}},
        "cluster": {"purgeMode": "Graciously"},
    }
    repo = fleet(
        tmp_path,
        {
            "inventory/member1.yaml": cluster_doc("member1"),
            "apps/web.yaml": deployment("web", replicas=2),
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS, propagateDeps=True, failover=failover),
        },
        version,
    )
    warnings = repo.cli("validate").stderr
    for field, old, new in (
        ("application", "Immediately", "Directly"),
        ("cluster", "Graciously", "Gracefully"),
    ):
        assert (
            f"warning: policy.yaml[0] spec.failover.{field}.purgeMode: purgeMode {old} is the deprecated name of "
            f"{new} ({why}): read as {new}; write {new}"
        ) in warnings
    repo.cli("reconcile")
    record = repo.load("karmada-state/bindings/default/deployment.apps/web.yaml")
    assert record["spec"]["failover"]["application"]["purgeMode"] == "Directly"
    assert record["spec"]["failover"]["cluster"]["purgeMode"] == "Gracefully"


def test_a_binding_tolerating_a_no_execute_taint_for_ever_is_never_looked_at_again(tmp_path: Path) -> None:
    taint = {"key": "maintenance", "effect": "NoExecute", "timeAdded": "2026-01-02T03:00:00Z"}
    toleration = {"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}
    repo = fleet(
        tmp_path,
        {
            "inventory/member1.yaml": cluster_doc("member1", taints=[taint]),
            "apps/web.yaml": deployment("web", replicas=2),
            "policy.yaml": pp_doc(
                "web", "default", DEPLOYMENTS, placement={"clusterTolerations": [toleration]}
            ),
        },
        featureGates={"Failover": True},
        failover={"enableNoExecuteTaintEviction": True},
    )
    repo.cli("reconcile")
    # the taint manager reads the binding as recorded: a full run over the record
    done = repo.cli("reconcile", "--full")
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")
    assert "failover decides more" not in done.stderr
    # a toleration for a while: looked at again when it runs out (timeAdded + 3600 s, from the commit's time)
    repo.write(
        "policy.yaml",
        pp_doc(
            "web",
            "default",
            DEPLOYMENTS,
            placement={"clusterTolerations": [{**toleration, "tolerationSeconds": 3600}]},
        ),
    )
    repo.commit("tolerate for an hour")
    repo.cli("reconcile")
    done = repo.cli("reconcile", "--full")
    assert "failover decides more in 3355 s" in done.stderr


# -- §11 built-in interpreters --------------------------------------------------------------------------------

RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "serve", "namespace": "default"},
    "spec": {
        "rayClusterConfig": {
            "headGroupSpec": {"template": {"spec": {"containers": [{"name": "head", "image": "ray"}]}}},
            "workerGroupSpecs": [
                {
                    "groupName": "workers",
                    "replicas": 3,
                    "template": {"spec": {"containers": [{"name": "worker", "image": "ray"}]}},
                }
            ],
        }
    },
}


@pytest.mark.parametrize(("version", "workers"), [("v1.19", [1, 1]), ("v1.16", [3, 3])])
def test_a_ray_service_is_a_workload_from_1_17(tmp_path: Path, version: str, workers: list[int]) -> None:
    repo = fleet(
        tmp_path,
        {
            "inventory/member1.yaml": cluster_doc("member1"),
            "inventory/member2.yaml": cluster_doc("member2"),
            "apps/serve.yaml": RAY_SERVICE,
            "policy.yaml": pp_doc(
                "serve",
                "default",
                [{"apiVersion": "ray.io/v1", "kind": "RayService"}],
                placement={"replicaScheduling": weighted({"member1": 1, "member2": 1})},
            ),
        },
        version,
    )
    repo.cli("reconcile")
    # v1.17+: 1 head + 3 workers = 4 replicas, 2 per cluster, i.e. 1 worker each; before: not a workload
    manifests = rendered(repo, "rayservice.ray.io", "serve")
    assert [
        m["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] for _, m in sorted(manifests.items())
    ] == workers
    record = repo.load("karmada-state/bindings/default/rayservice.ray.io/serve.yaml")
    assert record["spec"].get("replicas", 0) == (4 if version == "v1.19" else 0)
