"""tests/vectors/divide.yaml: AssignReplicas and the four division strategies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.defaults import default_placement
from gitops_karmada.core.scheduler.division import (
    AssignmentInput,
    DivisionRecord,
    assign_by_duplicated,
    assign_by_dynamic_strategy,
    assign_by_static_weight,
    assign_replicas,
    dynamic_divide_replicas,
)
from gitops_karmada.core.scheduler.errors import ScheduleStepError
from gitops_karmada.core.scheduler.filters import affinity_in_force
from gitops_karmada.core.scheduler.strategy import ReplicaStrategy, replica_strategy
from tests.core.scheduler.builders import (
    detail,
    load_vector_section,
    pairs,
    params,
    placement_from_snake,
    targets,
)

if TYPE_CHECKING:
    from gitops_karmada.core.scheduler.spread import ClusterDetail
    from gitops_karmada.model.bindings import TargetCluster

CASES = load_vector_section("divide.yaml")


def _candidates(entries: list[dict[str, Any]]) -> list[ClusterDetail]:
    return [
        detail(
            e["name"],
            allocatable=e.get("allocatable", 0),
            available=e.get("available"),
            overflow_order=e.get("overflow_order", 0),
        )
        for e in entries
    ]


def _run(case: dict[str, Any]) -> tuple[TargetCluster, ...]:
    given = case["input"]
    if case["function"] == "dynamic_divide_replicas":
        record: DivisionRecord = dynamic_divide_replicas(
            targets(given["available_clusters"]),
            given["target_replicas"],
            targets(given["scheduled_clusters"]),
            ReplicaStrategy(given["strategy"]),
            given["uid"],
        )
        return record.result
    spec, status = given["spec"], given.get("status") or {}
    placement = default_placement(placement_from_snake(spec["placement"]))
    candidates = _candidates(given["candidates"])
    previous = targets(spec["clusters"])
    fresh = bool(status.get("reschedule_required"))
    match case["function"]:
        case "assign_replicas":
            observed = status.get("scheduler_observed_affinity_name", "")
            assignment = AssignmentInput(
                placement=placement,
                replicas=spec["replicas"],
                has_requirements=bool(spec.get("replica_requirements")),
                previous=previous,
                fresh=fresh,
                uid=spec["uid"],
                overflow=bool(affinity_in_force(placement, observed, True).overflow),
            )
            return assign_replicas(candidates, assignment).result
        case "assign_by_static_weight":
            return assign_by_static_weight(candidates, placement, spec["replicas"], spec["uid"]).result
        case "assign_by_dynamic_strategy" | "dynamic_scale_up":
            strategy = replica_strategy(placement)
            return assign_by_dynamic_strategy(
                candidates, strategy, spec["replicas"], previous, fresh=fresh, uid=spec["uid"]
            ).result
        case "assign_by_duplicated":
            return assign_by_duplicated(candidates, spec["replicas"]).result
    pytest.fail(f"unknown function {case['function']}")


@pytest.mark.parametrize("case", params(CASES))
def test_divide_vector(case: dict[str, Any]) -> None:
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(ScheduleStepError, match=expected["error"]):
            _run(case)
        return
    result = pairs(_run(case))
    wanted = pairs(targets(expected["clusters"]))
    if case["compare"] == "ordered":
        assert result == wanted
    else:
        assert sorted(result) == sorted(wanted)
