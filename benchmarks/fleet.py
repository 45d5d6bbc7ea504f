"""A synthetic fleet repository: N Deployments, M policies, K clusters (deterministic, seed-free).

Half of the policies place their Deployments Duplicated on every cluster, the other half divide
60 replicas over every cluster by available capacity (dynamic weights), so a full run renders
about N x K manifests and exercises the scheduler on every template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.serialize import dump_yaml_documents

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def cluster_doc(index: int) -> dict[str, object]:
    region = ("us-east", "eu-west", "ap-south")[index % 3]
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": f"c{index:02d}", "labels": {"env": "prod", "region": region}},
        "spec": {
            "provider": ("aws", "gcp")[index % 2],
            "region": region,
            "zones": [f"{region}-{index % 2}a"],
        },
        "status": {
            "resourceSummary": {
                "allocatable": {"cpu": str(64 + index), "memory": f"{256 + 4 * index}Gi", "pods": "1000"},
                "allocated": {"cpu": str(index % 7), "memory": f"{index % 5}Gi", "pods": "10"},
            }
        },
    }


def deployment_doc(index: int, namespace: str) -> dict[str, object]:
    name = f"svc-{index:05d}"
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name, "tier": f"t{index % 4}"}},
        "spec": {
            "replicas": 60 if index % 4 >= 2 else 3,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": f"registry.example.com/team/{name}:1.{index % 10}.0",
                            "ports": [{"containerPort": 8080}],
                            "env": [{"name": "REVISION", "value": f"{index:08x}"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                        }
                    ]
                },
            },
        },
    }


def policy_doc(index: int, namespace: str, names: list[str], region: str = "") -> dict[str, object]:
    selectors = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name} for name in names]
    labels = {"env": "prod", **({"region": region} if region else {})}
    placement: dict[str, object] = {"clusterAffinity": {"labelSelector": {"matchLabels": labels}}}
    if index % 2:
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": f"pp-{index:05d}", "namespace": namespace},
        "spec": {"resourceSelectors": selectors, "placement": placement},
    }


def regional_policy_doc(index: int, namespace: str, names: list[str]) -> dict[str, object]:
    """Fleet MR's policy: fleet M's, choosing the clusters of one region (``cluster_doc``'s three) by its
    index, so each cluster can hold about a third of the templates."""
    return policy_doc(index, namespace, names, region=("us-east", "eu-west", "ap-south")[index % 3])


def write_fleet(
    root: Path,
    templates: int,
    policies: int,
    clusters: int,
    namespaces: int = 20,
    *,
    workload: Callable[[int, str], dict[str, object]] | None = None,
    policy: Callable[[int, str, list[str]], dict[str, object]] | None = None,
) -> None:
    """Write the fleet under ``root`` (one file per cluster, per template, per policy): fleet M by default."""
    make_workload = workload or deployment_doc
    make_policy = policy or policy_doc
    (root / "clusters-inventory").mkdir(parents=True, exist_ok=True)
    for i in range(clusters):
        (root / "clusters-inventory" / f"c{i:02d}.yaml").write_text(dump_yaml_documents([cluster_doc(i)]))
    per_policy = max(1, templates // policies)
    for p in range(policies):
        namespace = f"team-{p % namespaces:02d}"
        first = p * per_policy
        last = templates if p == policies - 1 else min(templates, first + per_policy)
        folder = root / "apps" / namespace
        folder.mkdir(parents=True, exist_ok=True)
        names = []
        for t in range(first, last):
            names.append(f"svc-{t:05d}")
            (folder / f"svc-{t:05d}.yaml").write_text(dump_yaml_documents([make_workload(t, namespace)]))
        (folder / f"pp-{p:05d}.yaml").write_text(dump_yaml_documents([make_policy(p, namespace, names)]))


def karmada_deployment_doc(index: int, namespace: str) -> dict[str, object]:
    """Karmada's v1.15 report workload: a small Deployment of 2 to 10 replicas."""
    doc = deployment_doc(index, namespace)
    spec = doc["spec"]
    assert isinstance(spec, dict)
    spec["replicas"] = 2 + index % 9
    return doc


def karmada_policy_doc(index: int, namespace: str, names: list[str]) -> dict[str, object]:
    """Divided by dynamic weight (available replicas) over every cluster."""
    selectors = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name} for name in names]
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": f"pp-{index:05d}", "namespace": namespace},
        "spec": {
            "resourceSelectors": selectors,
            "placement": {
                "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}},
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                    "weightPreference": {"dynamicWeight": "AvailableReplicas"},
                },
            },
        },
    }


def write_karmada_fleet(
    root: Path, templates: int, policies: int, clusters: int, namespaces: int = 20
) -> None:
    """Fleet K (Karmada's v1.15 report scale): small Divided workloads, about 6 manifests each."""
    write_fleet(
        root,
        templates,
        policies,
        clusters,
        namespaces,
        workload=karmada_deployment_doc,
        policy=karmada_policy_doc,
    )
