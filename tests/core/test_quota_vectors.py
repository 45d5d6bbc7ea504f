"""tests/vectors/quota.yaml: resource_usage, overall_used, overall_used_from_member_quotas and admission.

Quantities compare numerically and maps as maps, as the file's header asks. Feature gates are on unless a
case says otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.quota import (
    AdmissionOperation,
    MemberQuotaStatus,
    calculate_resource_usage,
    federated_quota_status,
    overall_used,
    overall_used_from_member_quotas,
    review_binding,
)
from gitops_karmada.model.bindings import ResourceBinding, ResourceBindingSpec
from gitops_karmada.model.quantity import Quantity
from gitops_karmada.model.quotas import FederatedResourceQuota

VECTORS = yaml.safe_load((Path(__file__).resolve().parents[1] / "vectors" / "quota.yaml").read_text())
TESTED_HERE = ("resource_usage", "overall_used", "overall_used_from_member_quotas", "admission")
RESOURCE = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "team", "name": "workload"}


def _params(section: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in VECTORS[section]]


def _spec(raw: dict[str, Any]) -> ResourceBindingSpec:
    # the vectors give the quota-relevant subset of a spec; the resource reference is irrelevant here
    return ResourceBindingSpec.model_validate({"resource": RESOURCE} | raw)


def _binding(raw: dict[str, Any]) -> ResourceBinding:
    return ResourceBinding.model_validate(
        {"metadata": raw["metadata"], "spec": {"resource": RESOURCE} | raw["spec"]}
    )


def _frq(raw: dict[str, Any]) -> FederatedResourceQuota:
    return FederatedResourceQuota.model_validate(
        {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "FederatedResourceQuota"} | raw
    )


def _resources(raw: dict[str, Any] | None) -> dict[str, Quantity]:
    return {name: Quantity.parse(value) for name, value in (raw or {}).items()}


def test_every_case_of_the_assigned_sections_has_a_test() -> None:
    assert all(VECTORS[section] for section in TESTED_HERE)
    ids = [case["id"] for section in TESTED_HERE for case in VECTORS[section]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", _params("resource_usage"))
def test_resource_usage(case: dict[str, Any]) -> None:
    usage = calculate_resource_usage(_spec(case["input"]["spec"]))
    assert usage == _resources(case["expected"]["usage"])


@pytest.mark.parametrize("case", _params("overall_used"))
def test_overall_used(case: dict[str, Any]) -> None:
    frq = _frq(case["input"]["frq"])
    bindings = [_binding(b) for b in case["input"]["bindings"]]
    expected = case["expected"]["status"]
    assert overall_used(frq, bindings) == _resources(expected["overallUsed"])
    status = federated_quota_status(frq, bindings, enforcement=True)
    assert status.overall == _resources(expected["overall"])
    assert status.overall_used == _resources(expected["overallUsed"])


@pytest.mark.parametrize("case", _params("overall_used_from_member_quotas"))
def test_overall_used_from_member_quotas(case: dict[str, Any]) -> None:
    given = case["input"]
    members = [
        MemberQuotaStatus(
            cluster=cluster,
            applied=report.get("applied", True),
            hard=_resources(report.get("hard")),
            used=_resources(report.get("used")),
        )
        for cluster, report in given["memberResourceQuotaStatus"].items()
    ]
    status = overall_used_from_member_quotas(_frq(given["frq"]), members)
    expected = case["expected"]["status"]
    assert status.overall == _resources(expected["overall"])
    assert status.overall_used == _resources(expected["overallUsed"])
    assert [(s.cluster_name, s.hard, s.used) for s in status.aggregated_status] == [
        (item["clusterName"], _resources(item.get("hard")), _resources(item.get("used")))
        for item in expected["aggregatedStatus"]
    ]


@pytest.mark.parametrize("case", _params("admission"))
def test_admission(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    frqs = [_frq(f) for f in given["frqs"]]
    answer = review_binding(
        AdmissionOperation(given["operation"]),
        _spec(given["oldSpec"]) if "oldSpec" in given else None,
        _spec(given["newSpec"]),
        frqs,
        enforcement=given.get("featureGates", {}).get("FederatedQuotaEnforcement", True),
    )
    assert answer.allowed is expected["allowed"]
    if "skipped" in expected:
        assert answer.skipped == expected["skipped"]
    else:
        assert answer.skipped is None
    for key in ("code", "reason", "message"):
        if key in expected:
            assert getattr(answer, key) == expected[key]
    after = answer.overall_used_after()
    if "frq_status_overallUsed_after" in expected:
        assert after == {
            name: _resources(used) for name, used in expected["frq_status_overallUsed_after"].items()
        }
    if "frqs_not_updated" in expected:
        assert not set(after) & set(expected["frqs_not_updated"])
    if not expected["allowed"] or "skipped" in expected:
        assert after == {}
