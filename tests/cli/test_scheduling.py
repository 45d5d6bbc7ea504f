"""Issue 3 through render/reconcile on real repositories: filters, division, Steady vs Fresh, FitError, explain."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement

if TYPE_CHECKING:
    from pathlib import Path

SELECT_WEB = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]
DYNAMIC = {
    "replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted",
    "weightPreference": {"dynamicWeight": "AvailableReplicas"},
}


def fleet(tmp_path: Path, clusters: dict[str, dict[str, Any]], files: dict[str, Any]) -> FleetRepo:
    documents = {f"inventory/{name}.yaml": cluster_doc(name, **spec) for name, spec in clusters.items()}
    return FleetRepo.create(tmp_path / "fleet", {**documents, **files})


def capacity(cpu: int) -> dict[str, Any]:
    return {"allocatable": {"cpu": str(cpu), "memory": "64Gi", "pods": "110"}}


def web(replicas: int) -> dict[str, Any]:
    return deployment("web", replicas=replicas, requests={"cpu": "1", "memory": "1Gi"})


def binding(repo: FleetRepo) -> dict[str, Any]:
    loaded: dict[str, Any] = repo.load("karmada-state/bindings/default/deployment.apps/web.yaml")
    return loaded


def test_taints_tolerations_and_fit_error_wording(tmp_path: Path) -> None:
    tainted = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    repo = fleet(
        tmp_path,
        {"a": tainted, "b": tainted, "c": {"labels": {"env": "dev"}}},
        {
            "apps/web.yaml": web(2),
            "p.yaml": pp_doc(
                "web",
                "default",
                SELECT_WEB,
                placement={"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}},
            ),
        },
    )
    done = repo.cli("reconcile", check=1)
    condition = binding(repo)["status"]["conditions"][0]
    assert condition["status"] == "False" and condition["reason"] == "NoClusterFit"
    expected = (
        "0/3 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint, "
        "2 cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}."
    )
    assert expected in condition["message"]
    assert expected in done.stderr
    # tolerating the taint lets the workload land on the tainted clusters
    repo.write(
        "p.yaml",
        pp_doc(
            "web",
            "default",
            SELECT_WEB,
            placement={
                "clusterTolerations": [
                    {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
                ]
            },
        ),
    )
    repo.commit("tolerate")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"a": 2, "b": 2, "c": 2}


def test_failure_keeps_the_previous_clusters(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {"a": {"allocatable": capacity(10)["allocatable"]}},
        {
            "apps/web.yaml": web(4),
            "p.yaml": pp_doc("web", "default", SELECT_WEB, placement={"replicaScheduling": DYNAMIC}),
        },
    )
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"a": 4}
    repo.write("apps/web.yaml", web(40))
    repo.commit("more than the fleet can hold")
    repo.cli("reconcile", check=1)
    record = binding(repo)
    assert record["spec"]["clusters"] == [{"name": "a", "replicas": 4}], "nothing is emptied"
    assert (
        "Clusters available replicas 10 are not enough to schedule."
        in record["status"]["conditions"][0]["message"]
    )
    assert repo.exists("clusters/a/default/deployment.apps/web.yaml")


def test_dynamic_weights_steady_scale_up_and_down_then_fresh_reschedule(tmp_path: Path) -> None:
    inventory = {
        name: {"allocatable": capacity(cpu)["allocatable"]} for name, cpu in (("a", 30), ("b", 20), ("c", 10))
    }
    repo = fleet(
        tmp_path,
        inventory,
        {
            "apps/web.yaml": web(6),
            "p.yaml": pp_doc("web", "default", SELECT_WEB, placement={"replicaScheduling": DYNAMIC}),
        },
    )
    repo.cli("reconcile")
    first = placement(repo.render_json())["Deployment/web"]
    assert first == {"a": 3, "b": 2, "c": 1}
    # capacity changes alone never move a Divided workload (Karmada reschedules on placement/replica changes)
    repo.write("inventory/a.yaml", cluster_doc("a", allocatable=capacity(2)["allocatable"]))
    repo.commit("a is almost full")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == first
    # scale up: only the 3 extra replicas are divided, by free capacity; existing replicas stay
    repo.write("apps/web.yaml", web(9))
    repo.commit("scale to 9")
    repo.cli("reconcile")
    up = placement(repo.render_json())["Deployment/web"]
    assert sum(up.values()) == 9 and all(up[c] >= first[c] for c in first)
    assert up["a"] == first["a"], "a has no room left: it gets nothing of the scale-up"
    # scale down: re-divided in proportion to the previous counts
    repo.write("apps/web.yaml", web(3))
    repo.commit("scale to 3")
    repo.cli("reconcile")
    assert sum(placement(repo.render_json())["Deployment/web"].values()) == 3
    # a Fresh division by reschedule uses free capacity plus what each cluster already runs
    before = repo.commit_count()
    repo.cli("reschedule", "Deployment/default/web", "--allow", "cluster-emptied")
    assert repo.commit_count() == before + 1
    record = binding(repo)
    assert "rescheduleTriggeredAt" in record["spec"]


def test_static_weights_and_aggregated(tmp_path: Path) -> None:
    static = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["a"]}, "weight": 2},
                {"targetCluster": {"clusterNames": ["b", "c"]}, "weight": 1},
            ]
        },
    }
    aggregated = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
    inventory = {
        name: {"allocatable": capacity(cpu)["allocatable"]} for name, cpu in (("a", 4), ("b", 10), ("c", 3))
    }
    repo = fleet(
        tmp_path,
        inventory,
        {
            "apps/web.yaml": web(8),
            "apps/api.yaml": deployment("api", replicas=12, requests={"cpu": "1"}),
            "p.yaml": [
                pp_doc("web", "default", SELECT_WEB, placement={"replicaScheduling": static}),
                pp_doc(
                    "api",
                    "default",
                    [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}],
                    placement={"replicaScheduling": aggregated},
                ),
            ],
        },
    )
    repo.cli("reconcile")
    result = placement(repo.render_json())
    assert result["Deployment/web"] == {"a": 4, "b": 2, "c": 2}
    # the shortest prefix (by capacity) that covers 12 is b+a, then divided in proportion (Webster)
    assert result["Deployment/api"] == {"b": 9, "a": 3}


def test_cluster_affinities_fall_back_and_remember_the_group(tmp_path: Path) -> None:
    affinities = [
        {"affinityName": "primary", "clusterNames": ["a"]},
        {"affinityName": "backup", "clusterNames": ["b"]},
    ]
    repo = fleet(
        tmp_path,
        {"a": {"taints": [{"key": "maintenance", "effect": "NoSchedule"}]}, "b": {}},
        {
            "apps/web.yaml": web(2),
            "p.yaml": pp_doc("web", "default", SELECT_WEB, placement={"clusterAffinities": affinities}),
        },
    )
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"b": 2}
    assert binding(repo)["status"]["schedulerObservedAffinityName"] == "backup"
    # the maintenance ends; Karmada does not return to an earlier group by itself
    repo.write("inventory/a.yaml", cluster_doc("a"))
    repo.commit("a is back")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"b": 2}


def test_spread_by_region_and_api_enablements(tmp_path: Path) -> None:
    apps = {
        "apiEnablements": [
            {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}
        ]
    }
    inventory: dict[str, dict[str, Any]] = {
        "east1": {"region": "east"},
        "east2": {"region": "east"},
        "west1": {"region": "west"},
        "old": {"region": "west"},
    }
    repo = fleet(tmp_path, inventory, {"apps/web.yaml": web(2)})
    for name, spec in inventory.items():
        doc = cluster_doc(name, **spec)
        doc["status"] = apps if name != "old" else {"apiEnablements": []}
        repo.write(f"inventory/{name}.yaml", doc)
    spread = [
        {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
        {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2},
    ]
    repo.write("p.yaml", pp_doc("web", "default", SELECT_WEB, placement={"spreadConstraints": spread}))
    repo.commit("spread over two regions")
    repo.cli("reconcile")
    chosen = placement(repo.render_json())["Deployment/web"]
    assert len(chosen) == 2 and "old" not in chosen
    assert {name[:4] for name in chosen} == {"east", "west"}


def test_explain_shows_filters_capacity_and_every_seat(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {
            "a": {"allocatable": capacity(8)["allocatable"]},
            "b": {"allocatable": capacity(4)["allocatable"]},
            "c": {"taints": [{"key": "x", "effect": "NoSchedule"}]},
        },
        {
            "apps/web.yaml": web(3),
            "p.yaml": pp_doc("web", "default", SELECT_WEB, placement={"replicaScheduling": DYNAMIC}),
        },
    )
    text = repo.cli("explain", "Deployment/default/web").stdout
    assert "Policy: PropagationPolicy/default/web [fresh]" in text
    assert "c  TaintToleration: cluster(s) had untolerated taint {x:NoSchedule}" in text
    assert "seat   1: a at 8/1" in text
    assert "cpu" in text and "-> 8" in text
    data = json.loads(repo.cli("explain", "Deployment/default/web", "-o", "json").stdout)
    assert data["scheduling"]["ran"] is True
    assert [c["name"] for c in data["clusters"]] == ["a", "b"]
    everything = json.loads(repo.cli("render", "-o", "json", "--explain").stdout)
    assert [item["metadata"]["name"] for item in everything["items"]] == ["Deployment.apps/default/web"]
    unknown = repo.cli("explain", "Deployment/default/nope", check=1)
    assert "no template 'Deployment/default/nope'" in unknown.stderr


def test_job_completions_follow_the_division(tmp_path: Path) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "crunch", "namespace": "default"},
        "spec": {
            "parallelism": 4,
            "completions": 8,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                    ],
                }
            },
        },
    }
    static = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["a"]}, "weight": 3},
                {"targetCluster": {"clusterNames": ["b"]}, "weight": 1},
            ]
        },
    }
    repo = fleet(
        tmp_path,
        {"a": {}, "b": {}},
        {
            "apps/job.yaml": job,
            "p.yaml": pp_doc(
                "crunch",
                "default",
                [{"apiVersion": "batch/v1", "kind": "Job"}],
                placement={"replicaScheduling": static},
            ),
        },
    )
    repo.cli("reconcile")
    a = repo.load("clusters/a/default/job.batch/crunch.yaml")["spec"]
    b = repo.load("clusters/b/default/job.batch/crunch.yaml")["spec"]
    assert (a["parallelism"], b["parallelism"]) == (3, 1)
    assert (a["completions"], b["completions"]) == (6, 2)
