"""Factories for override tests: clusters, (Cluster)OverridePolicies and workload templates as plain data."""

from __future__ import annotations

from typing import Any

from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy

POLICY_API_VERSION = "policy.karmada.io/v1alpha1"


def cluster(name: str, labels: dict[str, str] | None = None, **spec: Any) -> Cluster:
    return Cluster.model_validate(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": name, **({"labels": labels} if labels else {})},
            "spec": spec,
        }
    )


def override_policy(name: str, namespace: str = "default", **spec: Any) -> OverridePolicy:
    return OverridePolicy.model_validate(
        {
            "apiVersion": POLICY_API_VERSION,
            "kind": "OverridePolicy",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )


def cluster_override_policy(name: str, **spec: Any) -> ClusterOverridePolicy:
    return ClusterOverridePolicy.model_validate(
        {
            "apiVersion": POLICY_API_VERSION,
            "kind": "ClusterOverridePolicy",
            "metadata": {"name": name},
            "spec": spec,
        }
    )


def rule(overriders: dict[str, Any], clusters: list[str] | None = None) -> dict[str, Any]:
    """One overrideRules entry; ``clusters`` becomes a clusterNames targetCluster."""
    return {"overriders": overriders, **({"targetCluster": {"clusterNames": clusters}} if clusters else {})}


def deployment(
    name: str = "nginx",
    namespace: str = "default",
    *,
    labels: dict[str, str] | None = None,
    containers: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": containers or [{"name": name, "image": "nginx:1.27"}]},
            },
        },
    }


def config_map(name: str, data: dict[str, str], namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": data,
    }
