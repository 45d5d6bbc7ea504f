"""Every case of tests/vectors/matching.yaml (Karmada's selector, compare and binding-controller tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.defaults import permanent_id
from gitops_karmada.core.detector import (
    Candidate,
    ClaimState,
    PolicyIndex,
    PolicyRef,
    highest_priority_policy,
    match_policy,
    rank_candidates,
)
from gitops_karmada.core.selectors import (
    ImplicitPriority,
    resource_match_selectors_priority,
    resource_selector_priority,
)
from gitops_karmada.model import wellknown
from gitops_karmada.model.base import ObjectMeta
from gitops_karmada.model.bindings import (
    BindingSnapshot,
    ObjectReference,
    ResourceBinding,
    ResourceBindingSpec,
    TargetCluster,
)
from gitops_karmada.model.policies import ConflictResolution, ResourceSelector, Suspension
from gitops_karmada.reconcile.dispatch import merge_target_clusters, should_suspend_dispatching
from gitops_karmada.reconcile.manifest import work_conflict_resolution
from tests.builders import cpp, manifest, pp

VECTORS = yaml.safe_load((Path(__file__).parents[1] / "vectors" / "matching.yaml").read_text())["cases"]


def _policy(kind: str, spec: dict[str, Any]) -> Any:
    extra = {"priority": spec["priority"]} if "priority" in spec else {}
    if kind == "PropagationPolicy":
        return pp(spec["name"], spec["namespace"], spec["resourceSelectors"], **extra)
    return cpp(spec["name"], spec["resourceSelectors"], **extra)


def _claimed_binding(claim: dict[str, str], policy_id: str) -> ResourceBinding:
    return ResourceBinding(
        metadata=ObjectMeta(
            name="nginx-deployment",
            namespace="test",
            labels={wellknown.PP_PERMANENT_ID_LABEL: policy_id},
            annotations={
                wellknown.PP_NAME_ANNOTATION: claim["name"],
                wellknown.PP_NAMESPACE_ANNOTATION: claim["namespace"],
            },
        ),
        spec=ResourceBindingSpec(
            resource=ObjectReference(api_version="apps/v1", kind="Deployment", namespace="test", name="nginx")
        ),
    )


def run_case(function: str, data: dict[str, Any]) -> dict[str, Any]:
    match function:
        case "resource_selector_priority":
            selector = ResourceSelector.model_validate(data["selector"])
            return {"priority": int(resource_selector_priority(data["resource"], selector))}
        case "resource_match_selectors_priority":
            selectors = [ResourceSelector.model_validate(s) for s in data["selectors"]]
            return {"priority": int(resource_match_selectors_priority(data["resource"], selectors))}
        case "highest_priority_policy":
            policies = [_policy(data["kind"], p) for p in data["policies"]]
            winner = highest_priority_policy(manifest(data["resource"]), policies)
            return {"policy": winner.name if winner is not None else None}
        case "higher_priority_by_name":
            # two candidates tied on both priorities: the byte-wise smaller name wins
            tied = [
                Candidate(PolicyRef("PropagationPolicy", "test", name), 0, ImplicitPriority.MATCH_NAME)
                for name in (data["a"], data["b"])
            ]
            return {"winner": rank_candidates(tied)[0].policy.name}
        case "select_policy_for_claimed_template":
            policies = [_policy("PropagationPolicy", p) for p in data["propagation_policies"]]
            index = PolicyIndex.build(policies, [])
            claimed = next(p for p in policies if p.name == data["resource_claim"]["name"])
            template = manifest(
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "test"},
                }
            )
            decided = match_policy(
                template,
                index,
                _claimed_binding(data["resource_claim"], permanent_id(claimed)),
                preemption_enabled=False,
            )
            assert decided.state is ClaimState.STICKY
            assert decided.policy is not None
            return {"kind": decided.policy.kind, "policy": decided.policy.name}
        case "work_conflict_resolution_annotation":
            template_value = data["template_annotation"]
            annotations = {wellknown.CONFLICT_RESOLUTION_ANNOTATION: template_value} if template_value else {}
            binding_value = data["binding_conflict_resolution"]
            resolution = ConflictResolution(binding_value) if binding_value else None
            value = work_conflict_resolution(annotations, resolution)
            return {"annotation": {wellknown.CONFLICT_RESOLUTION_ANNOTATION: value}}
        case "should_suspend_dispatching":
            suspension = (
                Suspension.model_validate(data["suspension"]) if data["suspension"] is not None else None
            )
            return {"suspend": should_suspend_dispatching(suspension, data["cluster"])}
        case "merge_target_clusters":
            clusters = [TargetCluster.model_validate(c) for c in data["clusters"]]
            required = [BindingSnapshot(name="parent", clusters=r["clusters"]) for r in data["required_by"]]
            merged = merge_target_clusters(clusters, required)
            return {"clusters": [c.to_api() for c in merged]}
    raise AssertionError(f"no runner for {function}")


@pytest.mark.parametrize("case", VECTORS, ids=[c["id"] for c in VECTORS])
def test_matching_vector(case: dict[str, Any]) -> None:
    assert run_case(case["function"], case["input"]) == case["expected"]


def test_every_function_in_the_file_has_a_runner() -> None:
    assert {c["function"] for c in VECTORS} <= {
        "resource_selector_priority",
        "resource_match_selectors_priority",
        "highest_priority_policy",
        "higher_priority_by_name",
        "select_policy_for_claimed_template",
        "work_conflict_resolution_annotation",
        "should_suspend_dispatching",
        "merge_target_clusters",
    }
