"""The quota plugin of the accurate estimator: folded resource names, scopes, per-quota minimum."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.accurate import estimate_replicas_by_quotas, estimate_sets_by_quotas
from gitops_karmada.core.scheduler.accurate.resourcequota import folded_resource, scope_matches
from gitops_karmada.core.scheduler.estimate import MAX_INT32
from gitops_karmada.core.scheduler.snapshot import (
    ScopeOperator,
    ScopeSelectorRequirement,
    SnapshotResourceQuota,
    parse_snapshot_document,
)
from gitops_karmada.model.bindings import Component, ReplicaRequirements


def quota(
    hard: dict[str, str],
    used: dict[str, str],
    name: str = "rq",
    scopes: list[str] | None = None,
    selector: list[dict[str, Any]] | None = None,
) -> SnapshotResourceQuota:
    spec: dict[str, Any] = {"hard": hard}
    if scopes:
        spec["scopes"] = scopes
    if selector:
        spec["scopeSelector"] = {"matchExpressions": selector}
    (parsed,) = parse_snapshot_document(
        {
            "kind": "ResourceQuota",
            "metadata": {"name": name, "namespace": "team"},
            "spec": spec,
            "status": {"hard": hard, "used": used},
        }
    ).resource_quotas
    return parsed


def replica(request: dict[str, str], priority: str = "") -> ReplicaRequirements:
    return ReplicaRequirements.model_validate(
        {"resourceRequest": request, "priorityClassName": priority, "namespace": "team"}
    )


def component(name: str, replicas: int, request: dict[str, str], priority: str = "") -> Component:
    return Component.model_validate(
        {
            "name": name,
            "replicas": replicas,
            "replicaRequirements": {"resourceRequest": request, "priorityClassName": priority},
        }
    )


FOLDING = [
    ("cpu", "cpu"), ("requests.cpu", "cpu"), ("memory", "memory"), ("requests.memory", "memory"),
    ("requests.nvidia.com/gpu", "nvidia.com/gpu"), ("limits.cpu", None), ("limits.memory", None), ("pods", None),
    ("requests.storage", None), ("count/deployments.apps", None), ("requests.ephemeral-storage", None),
    ("nvidia.com/gpu", None), ("requests.hugepages-2Mi", None),
]  # fmt: skip


@pytest.mark.parametrize(("key", "folded"), FOLDING, ids=[f[0] for f in FOLDING])
def test_quota_keys_the_plugin_reads(key: str, folded: str | None) -> None:
    assert folded_resource(key) == folded


SCOPES = [
    # id, scope name, operator, values, priority class of the replica, matches
    ("exists-with-class", "PriorityClass", ScopeOperator.EXISTS, (), "high", True),
    ("exists-without-class", "PriorityClass", ScopeOperator.EXISTS, (), "", False),
    ("in", "PriorityClass", ScopeOperator.IN, ("high", "mid"), "mid", True),
    ("in-other", "PriorityClass", ScopeOperator.IN, ("high",), "low", False),
    ("in-without-class", "PriorityClass", ScopeOperator.IN, ("high",), "", False),
    ("not-in", "PriorityClass", ScopeOperator.NOT_IN, ("high",), "low", True),
    ("not-in-without-class", "PriorityClass", ScopeOperator.NOT_IN, ("high",), "", True),
    ("not-in-listed", "PriorityClass", ScopeOperator.NOT_IN, ("high",), "high", False),
    ("does-not-exist-never", "PriorityClass", ScopeOperator.DOES_NOT_EXIST, (), "", False),
    ("terminating-never", "Terminating", ScopeOperator.EXISTS, (), "high", False),
    ("not-best-effort-never", "NotBestEffort", ScopeOperator.EXISTS, (), "high", False),
    ("cross-namespace-affinity-never", "CrossNamespacePodAffinity", ScopeOperator.EXISTS, (), "high", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "operator", "values", "priority", "matches"),
    [s[1:] for s in SCOPES],
    ids=[s[0] for s in SCOPES],
)
def test_scope_matching(
    scope: str, operator: ScopeOperator, values: tuple[str, ...], priority: str, matches: bool
) -> None:
    requirement = ScopeSelectorRequirement(scope_name=scope, operator=operator, values=values)
    assert scope_matches(requirement, priority) is matches


COMPUTE = {"requests.cpu": "10", "requests.memory": "20Gi"}
COMPUTE_USED = {"requests.cpu": "4", "requests.memory": "8Gi"}

REPLICA_CASES = [
    ("cpu-bound", quota(COMPUTE, COMPUTE_USED), replica({"cpu": "500m", "memory": "1Gi"}), 12),
    ("memory-bound", quota(COMPUTE, COMPUTE_USED), replica({"cpu": "100m", "memory": "4Gi"}), 3),
    ("plain-cpu-key", quota({"cpu": "2"}, {"cpu": "1"}), replica({"cpu": "250m"}), 4),
    ("tighter-of-cpu-and-requests-cpu", quota({"cpu": "2", "requests.cpu": "10"}, {"cpu": "1"}), replica({"cpu": "250m"}), 4),
    ("used-over-hard", quota({"requests.cpu": "2"}, {"requests.cpu": "3"}), replica({"cpu": "1"}), 0),
    ("used-missing-counts-zero", quota({"requests.cpu": "2"}, {}), replica({"cpu": "1"}), 2),
    ("extended-resource", quota({"requests.nvidia.com/gpu": "4"}, {"requests.nvidia.com/gpu": "1"}), replica({"cpu": "1", "nvidia.com/gpu": "2"}), 1),
    ("limits-ignored", quota({"limits.cpu": "1"}, {}), replica({"cpu": "2"}), MAX_INT32),
    ("pods-count-ignored", quota({"pods": "1"}, {"pods": "1"}), replica({"cpu": "1"}), MAX_INT32),
    ("unrequested-resource-no-constraint", quota({"requests.nvidia.com/gpu": "0"}, {}), replica({"cpu": "1"}), MAX_INT32),
    ("scoped-match", quota(COMPUTE, COMPUTE_USED, selector=[{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]), replica({"cpu": "1"}, "high"), 6),
    ("scoped-mismatch", quota(COMPUTE, COMPUTE_USED, selector=[{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]), replica({"cpu": "1"}, "low"), MAX_INT32),
    ("scopes-list-is-exists", quota(COMPUTE, COMPUTE_USED, scopes=["PriorityClass"]), replica({"cpu": "1"}, "any"), 6),
    ("other-scope-never-matches", quota(COMPUTE, COMPUTE_USED, scopes=["NotTerminating"]), replica({"cpu": "1"}), MAX_INT32),
    ("all-selectors-must-match", quota(COMPUTE, COMPUTE_USED, scopes=["NotTerminating"], selector=[{"scopeName": "PriorityClass", "operator": "Exists"}]), replica({"cpu": "1"}, "high"), MAX_INT32),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rq", "wanted", "expected"), [c[1:] for c in REPLICA_CASES], ids=[c[0] for c in REPLICA_CASES]
)
def test_replicas_within_one_quota(
    rq: SnapshotResourceQuota, wanted: ReplicaRequirements, expected: int
) -> None:
    assert estimate_replicas_by_quotas([rq], wanted).value == expected


def test_minimum_over_quotas_and_explanation() -> None:
    quotas = [
        quota(COMPUTE, COMPUTE_USED, name="a-compute"),
        quota({"requests.memory": "4Gi"}, {}, name="b-memory"),
    ]
    estimate = estimate_replicas_by_quotas(quotas, replica({"cpu": "500m", "memory": "1Gi"}))
    assert estimate.value == 4
    assert estimate.to_dict() == {
        "value": 4,
        "unit": "replicas",
        "enabled": True,
        "namespace": "team",
        "quotas": [
            {
                "quota": "team/a-compute",
                "value": 12,
                "counted": ["replica"],
                "resources": [
                    {"resource": "cpu", "free": "6", "demand": "500m", "allows": 12},
                    {"resource": "memory", "free": "12Gi", "demand": "1Gi", "allows": 12},
                ],
            },
            {
                "quota": "team/b-memory",
                "value": 4,
                "counted": ["replica"],
                "resources": [{"resource": "memory", "free": "4Gi", "demand": "1Gi", "allows": 4}],
            },
        ],
    }


def test_no_requirements_and_no_quotas_are_no_constraint() -> None:
    assert estimate_replicas_by_quotas([quota(COMPUTE, COMPUTE_USED)], None).value == MAX_INT32
    assert estimate_replicas_by_quotas([], replica({"cpu": "1"})).value == MAX_INT32


SET_CASES = [
    ("all-components-count", None, 2),  # per set 3 cpu, 6Gi → min(6/3, 12/6)
    ("only-high-priority-counts", [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}], 6),
    ("only-unprioritised-count", [{"scopeName": "PriorityClass", "operator": "NotIn", "values": ["high"]}], 3),
    ("nothing-matches", [{"scopeName": "PriorityClass", "operator": "In", "values": ["batch"]}], MAX_INT32),
]  # fmt: skip


@pytest.mark.parametrize(("selector", "expected"), [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_component_sets_count_matching_components(
    selector: list[dict[str, Any]] | None, expected: int
) -> None:
    components = [
        component("jobmanager", 1, {"cpu": "1", "memory": "2Gi"}, "high"),
        component("taskmanager", 2, {"cpu": "1", "memory": "2Gi"}),
        component("idle", 0, {"cpu": "100"}),
    ]
    estimate = estimate_sets_by_quotas([quota(COMPUTE, COMPUTE_USED, selector=selector)], components, "team")
    assert estimate.value == expected
