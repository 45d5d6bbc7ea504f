"""tests/vectors/quota.yaml ``component_set_estimation``: the accurate estimator's plugin cases.

accurate-resourcequota-plugin cases run the quota plugin over the given ResourceQuotas (parsed by the
snapshot reader), accurate-noderesource-plugin cases the node plugin over nodes with the given free
resources. The general-estimator cases are the scheduler's (test_vectors_quota.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.accurate import (
    estimate_sets_by_quotas,
    estimate_sets_on_nodes,
    node_capacities,
)
from gitops_karmada.core.scheduler.accurate.resourcequota import disabled_quota_estimate
from gitops_karmada.core.scheduler.snapshot import parse_snapshot_document
from gitops_karmada.model.bindings import Component
from tests.core.scheduler.builders import load_vector_section, params

SECTION = load_vector_section("quota.yaml", "component_set_estimation")
QUOTA_PLUGIN = "accurate-resourcequota-plugin"
NODE_PLUGIN = "accurate-noderesource-plugin"
QUOTA_CASES = [case for case in SECTION if case["estimator"] == QUOTA_PLUGIN]
NODE_CASES = [case for case in SECTION if case["estimator"] == NODE_PLUGIN]


def test_the_file_has_cases_for_both_plugins() -> None:
    assert QUOTA_CASES and NODE_CASES


def _gate(given: dict[str, Any], name: str) -> bool:
    return bool(given.get("featureGates", {}).get(name, True))


@pytest.mark.parametrize("case", params(QUOTA_CASES))
def test_resource_quota_plugin_sets(case: dict[str, Any]) -> None:
    given = case["input"]
    snapshot = parse_snapshot_document(
        {"apiVersion": "v1", "kind": "ResourceQuotaList", "items": given["resourceQuotas"]}
    )
    components = [Component.model_validate(c) for c in given["components"]]
    namespace = given["namespace"]
    if _gate(given, "ResourceQuotaEstimate"):
        estimate = estimate_sets_by_quotas(snapshot.quotas_in(namespace), components, namespace)
    else:
        estimate = disabled_quota_estimate("sets")
    assert estimate.value == case["expected"]["sets"]


def _node_document(node: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "taints": node.get("taints", []),
        "unschedulable": node.get("unschedulable", False),
    }
    return {
        "metadata": {"name": node["name"], "labels": node.get("labels", {})},
        "spec": spec,
        "status": {"allocatable": node.get("available", node.get("allocatable", {}))},
    }


@pytest.mark.parametrize("case", params(NODE_CASES))
def test_node_resource_plugin_sets(case: dict[str, Any]) -> None:
    given = case["input"]
    snapshot = parse_snapshot_document(
        {"apiVersion": "v1", "kind": "NodeList", "items": [_node_document(n) for n in given["nodes"]]}
    )
    components = [Component.model_validate(c) for c in given["components"]]
    assert estimate_sets_on_nodes(node_capacities(snapshot), components).value == case["expected"]["sets"]
