"""Test helpers: load the Karmada vectors and build models from their compact case inputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.scheduler.spread import ClusterDetail
from gitops_karmada.model.bindings import TargetCluster
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.policies import Placement

VECTORS = Path(__file__).resolve().parents[2] / "vectors"


def load_vector_section(file_name: str, section: str = "cases") -> list[dict[str, Any]]:
    with (VECTORS / file_name).open(encoding="utf-8") as stream:
        data = yaml.safe_load(stream)
    cases = data[section]
    assert isinstance(cases, list)
    return cases


def params(cases: list[dict[str, Any]]) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in cases]


def cluster(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    provider: str = "",
    region: str = "",
    zones: list[str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    status: dict[str, Any] | None = None,
    resource_models: list[dict[str, Any]] | None = None,
    deleting: bool = False,
) -> Cluster:
    """A Cluster model from the few fields the scheduler reads."""
    metadata: dict[str, Any] = {"name": name, "labels": labels or {}}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    spec: dict[str, Any] = {"provider": provider, "region": region, "zones": zones or []}
    if taints:
        spec["taints"] = taints
    if resource_models:
        spec["resourceModels"] = resource_models
    document: dict[str, Any] = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": metadata,
        "spec": spec,
    }
    if status is not None:
        document["status"] = status
    return Cluster.model_validate(document)


def detail(
    name: str,
    *,
    score: int = 0,
    allocatable: int = 0,
    available: int | None = None,
    overflow_order: int = 0,
    region: str = "",
    provider: str = "",
    zones: list[str] | None = None,
) -> ClusterDetail:
    return ClusterDetail(
        cluster=cluster(name, region=region, provider=provider, zones=zones),
        score=score,
        allocatable=allocatable,
        available=allocatable if available is None else available,
        overflow_order=overflow_order,
    )


def targets(entries: list[dict[str, Any]] | None) -> tuple[TargetCluster, ...]:
    return tuple(TargetCluster(name=e["name"], replicas=e.get("replicas", 0)) for e in entries or ())


def pairs(clusters: tuple[TargetCluster, ...] | list[TargetCluster]) -> list[tuple[str, int]]:
    return [(c.name, c.replicas) for c in clusters]


def placement_from_snake(spec: dict[str, Any]) -> Placement:
    """divide.yaml's snake_case placement → a Placement (API JSON field names)."""
    document: dict[str, Any] = {}
    scheduling = spec.get("replica_scheduling")
    if scheduling is not None:
        strategy: dict[str, Any] = {"replicaSchedulingType": scheduling["type"]}
        if "division_preference" in scheduling:
            strategy["replicaDivisionPreference"] = scheduling["division_preference"]
        preference = scheduling.get("weight_preference")
        if preference is not None:
            weights: dict[str, Any] = {}
            if preference.get("static_weight_list"):
                weights["staticWeightList"] = [
                    {
                        "targetCluster": {"clusterNames": rule["target_cluster"]["cluster_names"]},
                        "weight": rule["weight"],
                    }
                    for rule in preference["static_weight_list"]
                ]
            if preference.get("dynamic_weight"):
                weights["dynamicWeight"] = preference["dynamic_weight"]
            strategy["weightPreference"] = weights
        document["replicaScheduling"] = strategy
    terms = spec.get("cluster_affinities")
    if terms:
        document["clusterAffinities"] = [
            {
                "affinityName": term["affinity_name"],
                "clusterNames": term.get("cluster_names", []),
                "overflowAffinities": [
                    {"affinityName": o["affinity_name"], "clusterNames": o.get("cluster_names", [])}
                    for o in term.get("overflow_affinities", [])
                ],
            }
            for term in terms
        ]
    return Placement.model_validate(document)
