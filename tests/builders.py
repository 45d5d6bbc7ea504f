"""Tiny factories for test inputs: templates, policies, clusters. Plain data, no fakes of project code."""

from __future__ import annotations

from typing import Any

from gitops_karmada.core.defaults import default_policy
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.manifest import Manifest
from gitops_karmada.model.policies import ClusterPropagationPolicy, PropagationPolicy

CLUSTER_SCOPED_KINDS = {"Namespace", "ClusterRole", "ClusterRoleBinding", "StorageClass"}


def manifest(body: dict[str, Any], path: str = "templates/test.yaml", index: int = 0) -> Manifest:
    meta = body.get("metadata", {})
    namespace = "" if body["kind"] in CLUSTER_SCOPED_KINDS else meta.get("namespace", "default")
    key = ObjectKey(body["apiVersion"], body["kind"], namespace, meta["name"])
    return Manifest(key=key, body=body, source=SourceRef(path, index))


def deployment(
    name: str,
    namespace: str = "default",
    *,
    replicas: int = 1,
    labels: dict[str, str] | None = None,
    requests: dict[str, str] | None = None,
    image: str = "nginx:1.27",
) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": image}
    if requests:
        container["resources"] = {"requests": dict(requests)}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def service(name: str, namespace: str = "default", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80}]},
    }


def configmap(name: str, namespace: str = "default", data: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": dict(data or {"key": "value"}),
    }


def pp_doc(name: str, namespace: str, selectors: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"resourceSelectors": selectors, **spec},
    }


def cpp_doc(name: str, selectors: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": name},
        "spec": {"resourceSelectors": selectors, **spec},
    }


def pp(name: str, namespace: str, selectors: list[dict[str, Any]], **spec: Any) -> PropagationPolicy:
    return default_policy(PropagationPolicy.model_validate(pp_doc(name, namespace, selectors, **spec)))


def cpp(name: str, selectors: list[dict[str, Any]], **spec: Any) -> ClusterPropagationPolicy:
    return default_policy(ClusterPropagationPolicy.model_validate(cpp_doc(name, selectors, **spec)))


def cluster_doc(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    provider: str = "",
    region: str = "",
    zones: list[str] | None = None,
    taints: list[dict[str, str]] | None = None,
    allocatable: dict[str, str] | None = None,
    allocated: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if provider:
        spec["provider"] = provider
    if region:
        spec["region"] = region
    if zones:
        spec["zones"] = zones
    if taints:
        spec["taints"] = taints
    status: dict[str, Any] = {}
    if allocatable is not None:
        status["resourceSummary"] = {
            "allocatable": allocatable,
            **({"allocated": allocated} if allocated else {}),
        }
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, **({"labels": labels} if labels else {})},
        "spec": spec,
        "status": status,
    }


def cluster(name: str, **kwargs: Any) -> Cluster:
    return Cluster.model_validate(cluster_doc(name, **kwargs))
