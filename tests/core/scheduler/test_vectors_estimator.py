"""tests/vectors/estimator.yaml: the general estimator (pod slots, summary bound, resource models)."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.estimate import (
    AssumedComponent,
    AssumedWorkload,
    GeneralEstimator,
    ResourceModelError,
    allowed_pod_number,
    max_replicas_by_resource_models,
    max_replicas_by_summary,
)
from gitops_karmada.model.bindings import ReplicaRequirements
from gitops_karmada.model.clusters import Cluster, ResourceSummary
from gitops_karmada.model.config import KARMADA_DEFAULT_GATES, FeatureGate
from gitops_karmada.model.quantity import Quantity
from tests.core.scheduler.builders import cluster, load_vector_section, params

CASES = load_vector_section("estimator.yaml")


def _summary(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    summary = {k: v for k, v in raw.items() if k != "allocatable_modelings"}
    if "allocatable_modelings" in raw:
        summary["allocatableModelings"] = raw["allocatable_modelings"]
    return summary


def _cluster(given: dict[str, Any]) -> Cluster:
    raw = _summary(given.get("resource_summary"))
    if raw is None and "allocatable_modelings" in given:
        raw = {"allocatableModelings": given["allocatable_modelings"]}
    return cluster(
        "member1",
        status=None if raw is None else {"resourceSummary": raw},
        resource_models=given.get("resource_models"),
    )


def _requirements(given: dict[str, Any]) -> ReplicaRequirements | None:
    raw = given.get("replica_requirements")
    return (
        None
        if raw is None
        else ReplicaRequirements.model_validate({"resourceRequest": raw["resource_request"]})
    )


def _assumed(given: dict[str, Any], gates: dict[FeatureGate, bool]) -> tuple[AssumedWorkload, ...]:
    if not gates[FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION]:
        return ()
    return tuple(
        AssumedWorkload(
            namespace=w.get("namespace", ""),
            components=tuple(
                AssumedComponent(
                    replicas=c["replicas"],
                    resource_request={k: Quantity.parse(v) for k, v in c["resource_request"].items()},
                )
                for c in w["components"]
            ),
        )
        for w in given.get("assumed_workloads", [])
    )


def _check(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    match case["function"]:
        case "max_available_replicas":
            gates = dict(KARMADA_DEFAULT_GATES)
            gates.update({FeatureGate(k): v for k, v in given.get("feature_gates", {}).items()})
            estimator = GeneralEstimator(
                customized_modeling=gates[FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING],
                assumed={"member1": _assumed(given, gates)},
            )
            assert (
                estimator.max_available_replicas(_cluster(given), _requirements(given))
                == expected["replicas"]
            )
        case "allowed_pod_number":
            summary = ResourceSummary.model_validate(_summary(given["resource_summary"]))
            assert allowed_pod_number(summary) == expected["pods"]
        case "max_replicas_by_summary":
            summary = ResourceSummary.model_validate(_summary(given["resource_summary"]))
            request = _requirements(given)
            assert request is not None
            assert max_replicas_by_summary(summary, request.resource_request) == expected["replicas"]
        case "max_replicas_by_resource_models":
            request = _requirements(given)
            assert request is not None
            try:
                replicas, error = (
                    max_replicas_by_resource_models(_cluster(given), request.resource_request),
                    False,
                )
            except ResourceModelError:
                replicas, error = -1, True
            assert (replicas, error) == (expected["replicas"], expected["error"])
        case other:
            pytest.fail(f"unknown function {other}")


@pytest.mark.parametrize("case", params(CASES))
def test_estimator_vector(case: dict[str, Any]) -> None:
    _check(case)
