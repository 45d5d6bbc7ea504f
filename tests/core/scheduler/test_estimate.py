"""The general estimator: pod slots, summary bounds, resource models, component sets, the merge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.scheduler.estimate import (
    MAX_INT32,
    AssumedComponent,
    AssumedWorkload,
    EstimatePath,
    GeneralEstimator,
    estimate_component_sets,
    estimate_replicas,
    merge_estimates,
)
from gitops_karmada.model.bindings import Component, ReplicaRequirements
from gitops_karmada.model.quantity import Quantity
from tests.core.scheduler.builders import cluster

if TYPE_CHECKING:
    from gitops_karmada.model.clusters import Cluster

MODELS = [
    {
        "grade": 0,
        "ranges": [{"name": "cpu", "min": "1", "max": "2"}, {"name": "memory", "min": "2Gi", "max": "4Gi"}],
    },
    {
        "grade": 1,
        "ranges": [{"name": "cpu", "min": "4", "max": "8"}, {"name": "memory", "min": "8Gi", "max": "16Gi"}],
    },
]


def _cluster(summary: dict[str, Any] | None, models: list[dict[str, Any]] | None = None) -> Cluster:
    return cluster(
        "member1", status=None if summary is None else {"resourceSummary": summary}, resource_models=models
    )


def _requirements(request: dict[str, str] | None) -> ReplicaRequirements | None:
    return None if request is None else ReplicaRequirements.model_validate({"resourceRequest": request})


BASE = {
    "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "100"},
    "allocated": {"cpu": "1", "memory": "2Gi", "pods": "20"},
}

# summary, request, replicas, path, bound
SUMMARY_TABLE = [
    (BASE, {"cpu": "500m", "memory": "1Gi"}, 6, EstimatePath.RESOURCE_SUMMARY, "resource cpu"),
    (BASE, {"cpu": "100m"}, 30, EstimatePath.RESOURCE_SUMMARY, "resource cpu"),
    (BASE, {"cpu": "1m"}, 80, EstimatePath.RESOURCE_SUMMARY, "pods"),
    (BASE, {"memory": "1500m"}, 80, EstimatePath.RESOURCE_SUMMARY, "pods"),
    (BASE, {"nvidia.com/gpu": "1"}, 0, EstimatePath.RESOURCE_SUMMARY, "resource nvidia.com/gpu"),
    (BASE, {"cpu": "0", "memory": "1Gi"}, 6, EstimatePath.RESOURCE_SUMMARY, "resource memory"),
    (BASE, {}, 80, EstimatePath.RESOURCE_SUMMARY, "pods"),
    (BASE, None, 80, EstimatePath.NO_REQUIREMENTS, "pods"),
    (None, {"cpu": "1"}, 0, EstimatePath.NO_RESOURCE_SUMMARY, "no resourceSummary"),
    ({"allocatable": {"cpu": "4"}}, {"cpu": "1"}, 0, EstimatePath.NO_POD_SLOTS, "pods"),
    (
        BASE | {"allocating": {"cpu": "3", "pods": "70"}},
        {"cpu": "1"},
        0,
        EstimatePath.RESOURCE_SUMMARY,
        "resource cpu",
    ),
    (BASE | {"allocating": {"pods": "75"}}, {"cpu": "100m"}, 5, EstimatePath.RESOURCE_SUMMARY, "pods"),
]


@pytest.mark.parametrize(
    ("summary", "request_", "replicas", "path", "bound"),
    SUMMARY_TABLE,
    ids=[
        "cpu-milli-and-memory",
        "cpu-bound",
        "pods-bound",
        "memory-rounded-up-to-units",
        "resource-not-allocatable",
        "zero-request-skipped",
        "empty-request-pods-only",
        "no-requirements",
        "no-summary",
        "no-pod-slots",
        "allocating-exhausts-cpu",
        "allocating-pods",
    ],
)
def test_summary_estimate(
    summary: dict[str, Any] | None,
    request_: dict[str, str] | None,
    replicas: int,
    path: EstimatePath,
    bound: str,
) -> None:
    estimate = estimate_replicas(_cluster(summary), _requirements(request_))
    assert (estimate.value, estimate.path, estimate.bound) == (replicas, path, bound)


def test_summary_arithmetic_is_recorded() -> None:
    estimate = estimate_replicas(_cluster(BASE), _requirements({"cpu": "500m", "memory": "1Gi"}))
    assert [r.to_dict() for r in estimate.resources] == [
        {
            "resource": "cpu",
            "available": "3",
            "request": "500m",
            "unit": "milli",
            "availableUnits": 3000,
            "requestUnits": 500,
            "allows": 6,
        },
        {
            "resource": "memory",
            "available": "6Gi",
            "request": "1Gi",
            "unit": "units",
            "availableUnits": 6 * 2**30,
            "requestUnits": 2**30,
            "allows": 6,
        },
    ]
    assert estimate.pod_slots is not None and estimate.pod_slots.allowed == 80


MODEL_SUMMARY = {
    "allocatable": {"cpu": "100", "memory": "1Ti", "pods": "1000"},
    "allocatableModelings": [{"grade": 0, "count": 2}, {"grade": 1, "count": 1}, {"grade": 7, "count": 9}],
}


@pytest.mark.parametrize(
    ("summary", "models", "modeling", "request_", "replicas", "path"),
    [
        (MODEL_SUMMARY, MODELS, True, {"cpu": "1", "memory": "2Gi"}, 2 * 1 + 4, EstimatePath.RESOURCE_MODELS),
        (MODEL_SUMMARY, MODELS, True, {"cpu": "2"}, 0 + 2, EstimatePath.RESOURCE_MODELS),
        (MODEL_SUMMARY, MODELS, False, {"cpu": "1", "memory": "2Gi"}, 100, EstimatePath.RESOURCE_SUMMARY),
        (MODEL_SUMMARY, None, True, {"cpu": "1", "memory": "2Gi"}, 100, EstimatePath.RESOURCE_SUMMARY),
        (
            MODEL_SUMMARY | {"allocatableModelings": []},
            MODELS,
            True,
            {"cpu": "1"},
            100,
            EstimatePath.RESOURCE_SUMMARY,
        ),
        (
            MODEL_SUMMARY | {"allocatable": {"cpu": "1", "pods": "1000"}},
            MODELS,
            True,
            {"cpu": "1"},
            6,
            EstimatePath.RESOURCE_MODELS,
        ),
        (
            MODEL_SUMMARY | {"allocatable": {"cpu": "100", "pods": "5"}},
            MODELS,
            True,
            {"cpu": "1"},
            5,
            EstimatePath.RESOURCE_MODELS,
        ),
        (MODEL_SUMMARY, MODELS, True, {"cpu": "10m"}, 2 * 100 + 110, EstimatePath.RESOURCE_MODELS),
    ],
    ids=[
        "first-fit-per-grade",
        "small-grade-fits-nothing",
        "gate-off-uses-summary",
        "no-models-falls-back",
        "no-modelings-uses-summary",
        "summary-bound-not-applied-on-model-path",
        "pod-slots-still-cap",
        "node-pod-slots-110",
    ],
)
def test_resource_model_estimate(
    summary: dict[str, Any],
    models: list[dict[str, Any]] | None,
    modeling: bool,
    request_: dict[str, str],
    replicas: int,
    path: EstimatePath,
) -> None:
    estimate = estimate_replicas(
        _cluster(summary, models), _requirements(request_), customized_modeling=modeling
    )
    assert (estimate.value, estimate.path) == (replicas, path)


def test_unusable_models_are_explained() -> None:
    estimate = estimate_replicas(_cluster(MODEL_SUMMARY), _requirements({"cpu": "1"}))
    assert estimate.models is not None and "no resource models" in estimate.models.error


def test_assumed_workloads_reduce_the_summary_and_pod_slots() -> None:
    assumed = AssumedWorkload(
        components=(AssumedComponent(replicas=70, resource_request={"cpu": Quantity.parse("10m")}),)
    )
    estimator = GeneralEstimator(assumed={"member1": (assumed,)})
    assert estimator.max_available_replicas(_cluster(BASE), _requirements({"cpu": "10m"})) == 10
    assert GeneralEstimator().max_available_replicas(_cluster(BASE), _requirements({"cpu": "10m"})) == 80


def _components(*specs: tuple[str, int, dict[str, str] | None]) -> list[Component]:
    return [
        Component.model_validate(
            {"name": name, "replicas": replicas}
            | ({} if request is None else {"replicaRequirements": {"resourceRequest": request}})
        )
        for name, replicas, request in specs
    ]


SET_SUMMARY = {"allocatable": {"cpu": "10", "memory": "20Gi", "pods": "110"}, "allocated": {"pods": "10"}}

# summary, models, components, sets, bound
COMPONENT_SET_TABLE = [
    (
        SET_SUMMARY,
        None,
        [("jm", 1, {"cpu": "1", "memory": "2Gi"}), ("tm", 2, {"cpu": "2", "memory": "4Gi"})],
        2,
        "resource cpu",
    ),
    (SET_SUMMARY, None, [("jm", 1, {"memory": "2G"})], 0, "resource memory"),
    (SET_SUMMARY, None, [("jm", 1, {"memory": "2Gi"})], 10, "resource memory"),
    (SET_SUMMARY, None, [("jm", 30, None), ("tm", 20, None)], 2, "pods"),
    (SET_SUMMARY, None, [("jm", 0, {"cpu": "1"})], 100, "pods"),
    (SET_SUMMARY, None, [("jm", 1, {"nvidia.com/gpu": "1"})], 0, "resource nvidia.com/gpu"),
    (None, None, [("jm", 1, {"cpu": "1"})], 0, "no resourceSummary"),
    (
        SET_SUMMARY | {"allocatableModelings": [{"grade": 0, "count": 3}]},
        MODELS,
        [("jm", 1, {"cpu": "1", "memory": "1Gi"}), ("tm", 1, {"cpu": "1", "memory": "1Gi"})],
        1,
        "resource models",
    ),
    (
        SET_SUMMARY | {"allocatableModelings": [{"grade": 1, "count": 1}]},
        MODELS,
        [("jm", 1, {"cpu": "500m"}), ("tm", 2, {"cpu": "1"})],
        1,
        "resource models",
    ),
]


@pytest.mark.parametrize(
    ("summary", "models", "components", "sets", "bound"),
    COMPONENT_SET_TABLE,
    ids=[
        "flink-like-cpu-bound",
        "decimal-si-memory-counts-milli-bytes",
        "binary-si-memory-counts-bytes",
        "pods-per-set",
        "no-pods-per-set-returns-pod-slots",
        "resource-not-allocatable",
        "no-summary",
        "models-first-fit-in-order",
        "models-component-order-matters",
    ],
)
def test_component_sets(
    summary: dict[str, Any] | None,
    models: list[dict[str, Any]] | None,
    components: list[tuple[str, int, dict[str, str] | None]],
    sets: int,
    bound: str,
) -> None:
    estimate = estimate_component_sets(_cluster(summary, models), _components(*components))
    assert (estimate.value, estimate.bound) == (sets, bound)


@pytest.mark.parametrize(
    ("answers", "replicas", "value"),
    [([5, 3, None], 9, 3), ([None, None], 9, 9), ([MAX_INT32], 4, 4), ([], 4, 4), ([0, None], 4, 0)],
    ids=["minimum", "no-answer-gives-replicas", "max-int32-gives-replicas", "no-estimator", "zero-counts"],
)
def test_merge_estimates(answers: list[int | None], replicas: int, value: int) -> None:
    assert merge_estimates(answers, replicas) == value
