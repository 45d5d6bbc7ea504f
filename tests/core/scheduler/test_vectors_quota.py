"""tests/vectors/quota.yaml, ``component_set_estimation`` cases of the general (resourceSummary) estimator.

The accurate-estimator cases of that section belong to the accurate estimators (not part of the scheduler).
At this snapshot the file has no general-estimator case; the derived component-set table in
test_estimate.py covers the general estimator until it does.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.estimate import GeneralEstimator
from gitops_karmada.model.bindings import Component
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.config import KARMADA_DEFAULT_GATES, FeatureGate
from tests.core.scheduler.builders import cluster, load_vector_section

SECTION = load_vector_section("quota.yaml", "component_set_estimation")
GENERAL = "general-resourceSummary"
KNOWN_ESTIMATORS = {GENERAL, "accurate-resourcequota-plugin", "accurate-noderesource-plugin"}
GENERAL_CASES = [case for case in SECTION if case["estimator"] == GENERAL]


def test_no_case_is_lost_to_an_unknown_estimator_name() -> None:
    assert {case["estimator"] for case in SECTION} <= KNOWN_ESTIMATORS


def _cluster(given: dict[str, Any]) -> Cluster:
    if "cluster" in given:
        return Cluster.model_validate(
            {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": "member1"}}
            | given["cluster"]
        )
    status = {"resourceSummary": given["resourceSummary"]} if "resourceSummary" in given else None
    return cluster("member1", status=status, resource_models=given.get("resourceModels"))


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=case["id"]) for case in GENERAL_CASES]
    or [pytest.param(None, id="no-general-case-in-quota.yaml")],
)
def test_general_component_set_vector(case: dict[str, Any] | None) -> None:
    if case is None:
        assert GENERAL_CASES == []
        return
    given = case["input"]
    gates = dict(KARMADA_DEFAULT_GATES)
    gates.update({FeatureGate(k): v for k, v in given.get("featureGates", {}).items()})
    estimator = GeneralEstimator(customized_modeling=gates[FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING])
    components = [Component.model_validate(c) for c in given["components"]]
    assert estimator.max_available_component_sets(_cluster(given), components) == case["expected"]["sets"]
