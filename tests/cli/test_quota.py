"""FederatedResourceQuota and the accurate estimator end to end, on real repositories."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement

if TYPE_CHECKING:
    from pathlib import Path

GATES = "featureGates:\n  MultiplePodTemplatesScheduling: true\n  FederatedQuotaEnforcement: true\n"
FLINK_V115 = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": "flink", "namespace": "analytics"},
    "spec": {
        "jobManager": {"replicas": 1, "resource": {"cpu": 1, "memory": "1024m"}},
        "taskManager": {"replicas": 1, "resource": {"cpu": 2, "memory": "2048m"}},
    },
}
SINGLE_CLUSTER = {
    "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
}


def frq(namespace: str, overall: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "FederatedResourceQuota",
        "metadata": {"name": "quota", "namespace": namespace},
        "spec": {"overall": overall, **spec},
    }


def roomy(name: str) -> dict[str, Any]:
    return cluster_doc(name, allocatable={"cpu": "100", "memory": "400Gi", "pods": "200"})


def test_v115_flink_example_gives_cpu_3_memory_3072m(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": GATES,
            "inventory/member1.yaml": roomy("member1"),
            "apps/flink.yaml": FLINK_V115,
            "quota.yaml": frq("analytics", {"cpu": "10", "memory": "10Gi"}),
            "p.yaml": pp_doc(
                "flink",
                "analytics",
                [{"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment"}],
                placement=SINGLE_CLUSTER,
            ),
        },
    )
    done = repo.cli("reconcile")
    status = repo.load("karmada-state/quotas/analytics/quota.yaml")["status"]
    assert status["overallUsed"] == {"cpu": "3", "memory": "3072m"}
    assert status["overall"] == {"cpu": "10", "memory": "10Gi"}
    assert "3072m" in done.stdout
    assert "3072m" in repo.cli("render").stdout


def quota_fleet(tmp_path: Path, **extra: Any) -> FleetRepo:
    web = deployment("web", "shop", replicas=4, requests={"cpu": "1", "memory": "1Gi"})
    policy = pp_doc("web", "shop", [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}])
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": GATES,
            "inventory/member1.yaml": roomy("member1"),
            "inventory/member2.yaml": roomy("member2"),
            "apps/web.yaml": web,
            "p.yaml": policy,
            "quota.yaml": frq("shop", {"cpu": "10"}, **extra),
        },
    )


def test_a_change_over_the_quota_is_not_applied_and_records_quota_exceeded(tmp_path: Path) -> None:
    repo = quota_fleet(tmp_path)
    repo.cli("reconcile")  # 4 replicas x 2 clusters (Duplicated) x 1 cpu = 8 of 10
    assert repo.load("karmada-state/quotas/shop/quota.yaml")["status"]["overallUsed"] == {"cpu": "8"}
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=6, requests={"cpu": "1", "memory": "1Gi"}))
    repo.commit("scale web to 6: 12 cpu, over the 10 allowed")
    done = repo.cli("reconcile", check=1)
    assert "QuotaExceeded: FederatedResourceQuota(shop/quota) exceeded for resource cpu" in done.stderr
    record = repo.load("karmada-state/bindings/shop/deployment.apps/web.yaml")
    scheduled = record["status"]["conditions"][0]
    assert (scheduled["status"], scheduled["reason"]) == ("False", "QuotaExceeded")
    assert record["spec"]["replicas"] == 4, "the binding keeps its previous spec"
    assert repo.load("clusters/member1/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 4
    assert repo.load("karmada-state/quotas/shop/quota.yaml")["status"]["overallUsed"] == {"cpu": "8"}
    # raising the quota lets the change through on the next run
    repo.write("quota.yaml", frq("shop", {"cpu": "20"}))
    repo.commit("raise the quota")
    repo.cli("reconcile")
    assert repo.load("clusters/member1/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 6
    assert repo.load("karmada-state/quotas/shop/quota.yaml")["status"]["overallUsed"] == {"cpu": "12"}


def test_without_the_gate_nothing_is_enforced(tmp_path: Path) -> None:
    repo = quota_fleet(tmp_path)
    repo.write("gitops-karmada.yaml", "featureGates:\n  FederatedQuotaEnforcement: false\n")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=6, requests={"cpu": "1"}))
    repo.commit("scale without enforcement")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 6, "member2": 6}


def test_static_assignments_render_resource_quotas_into_the_named_clusters(tmp_path: Path) -> None:
    repo = quota_fleet(tmp_path, staticAssignments=[{"clusterName": "member1", "hard": {"cpu": "6"}}])
    repo.cli("reconcile")
    quota = repo.load("clusters/member1/shop/resourcequota/quota.yaml")
    assert quota["kind"] == "ResourceQuota" and quota["spec"]["hard"] == {"cpu": "6"}
    assert not repo.exists("clusters/member2/shop/resourcequota/quota.yaml")
    repo.write(
        "quota.yaml",
        frq("shop", {"cpu": "10"}, staticAssignments=[{"clusterName": "member2", "hard": {"cpu": "4"}}]),
    )
    repo.commit("move the assignment")
    repo.cli("reconcile")
    assert not repo.exists("clusters/member1/shop/resourcequota/quota.yaml")
    assert repo.load("clusters/member2/shop/resourcequota/quota.yaml")["spec"]["hard"] == {"cpu": "4"}


def test_invalid_quota_is_an_input_error(tmp_path: Path) -> None:
    repo = quota_fleet(tmp_path, staticAssignments=[{"clusterName": "member1", "hard": {"cpu": "20"}}])
    done = repo.cli("validate", check=1)
    assert "quota.yaml[0] spec.overall.cpu: 10 is less than the sum of staticAssignments (20)" in done.stderr


def node(name: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}},
    }


def test_the_accurate_estimator_narrows_what_the_summary_promises(tmp_path: Path) -> None:
    dynamic = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            # both summaries promise 40 CPUs, but member1's nodes are 2 CPUs each: only 2 replicas fit
            "inventory/member1.yaml": cluster_doc(
                "member1", allocatable={"cpu": "40", "memory": "64Gi", "pods": "110"}
            ),
            "inventory/member2.yaml": cluster_doc(
                "member2", allocatable={"cpu": "40", "memory": "64Gi", "pods": "110"}
            ),
            "cluster-snapshots/member1/nodes.yaml": {
                "apiVersion": "v1",
                "kind": "List",
                "items": [node("n1", "1500m"), node("n2", "1500m")],
            },
            "apps/web.yaml": deployment("web", replicas=10, requests={"cpu": "1"}),
            "p.yaml": pp_doc(
                "web",
                "default",
                [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                placement={"replicaScheduling": dynamic},
            ),
        },
    )
    repo.cli("reconcile")
    # weights 2 (what member1's nodes hold) : 40 -> Webster gives member2 all 10 (the summary alone: 5/5)
    assert placement(repo.render_json())["Deployment/web"] == {"member2": 10}
    explained = repo.cli("explain", "Deployment/default/web").stdout
    assert "accurate" in explained
    # a Node in the snapshots folder is never read as a template
    assert repo.tree("clusters/member1/_cluster") == []
