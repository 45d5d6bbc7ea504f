"""FederatedResourceQuota validation (Karmada's FRQ webhook rules beyond the schema)."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.quota import validate_federated_resource_quota
from gitops_karmada.model.quotas import FederatedResourceQuota


def frq(spec: dict[str, Any], name: str = "q") -> FederatedResourceQuota:
    return FederatedResourceQuota.model_validate(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": name, "namespace": "team"},
            "spec": spec,
        }
    )


CASES = [
    ("valid", {"overall": {"cpu": "10", "requests.memory": "8Gi", "nvidia.com/gpu": "2", "pods": "20"},
               "staticAssignments": [{"clusterName": "m1", "hard": {"cpu": "4"}}, {"clusterName": "m2", "hard": {"cpu": "6"}}]}, []),
    ("unknown-plain-name", {"overall": {"foo": "1"}}, ["spec.overall.foo: 'foo' must be a standard resource for quota"]),
    ("bad-qualified-name", {"overall": {"example.com/bad name": "1"}}, ["spec.overall.example.com/bad name"]),
    ("negative", {"overall": {"cpu": "-1"}}, ["spec.overall.cpu: -1 must be greater than or equal to 0"]),
    ("fractional-pods", {"overall": {"pods": "1500m"}}, ["spec.overall.pods: 1500m must be an integer"]),
    ("fractional-extended", {"overall": {"nvidia.com/gpu": "500m"}}, ["spec.overall.nvidia.com/gpu: 500m must be an integer"]),
    ("hugepages-is-standard", {"overall": {"hugepages-2Mi": "1Gi", "requests.hugepages-1Gi": "2Gi"}}, []),
    ("assignment-key-not-in-overall", {"overall": {"cpu": "10"}, "staticAssignments": [{"clusterName": "m1", "hard": {"memory": "1Gi"}}]},
     ["spec.staticAssignments[0].hard.memory: 'memory' is not a resource of spec.overall"]),
    ("assignments-exceed-overall", {"overall": {"cpu": "10"}, "staticAssignments": [{"clusterName": "m1", "hard": {"cpu": "6"}}, {"clusterName": "m2", "hard": {"cpu": "4500m"}}]},
     ["spec.overall.cpu: 10 is less than the sum of staticAssignments (10500m)"]),
    ("duplicate-cluster", {"overall": {"cpu": "10"}, "staticAssignments": [{"clusterName": "m1", "hard": {"cpu": "1"}}, {"clusterName": "m1", "hard": {"cpu": "1"}}]},
     ["spec.staticAssignments[1].clusterName: duplicate cluster 'm1'"]),
    ("bad-cluster-name", {"overall": {"cpu": "10"}, "staticAssignments": [{"clusterName": "Member_1", "hard": {"cpu": "1"}}]},
     ["spec.staticAssignments[0].clusterName: 'Member_1' must be a DNS-1123 label of at most 48 characters"]),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validation(spec: dict[str, Any], expected: list[str]) -> None:
    problems = [str(p) for p in validate_federated_resource_quota(frq(spec))]
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith(start)


def test_name_longer_than_63_characters() -> None:
    problems = validate_federated_resource_quota(frq({"overall": {"cpu": "1"}}, name="q" * 64))
    assert [p.field for p in problems] == ["metadata.name"]
