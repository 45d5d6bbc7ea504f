"""Strategy selection and the scheduler-relevant placement defaults."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.defaults import default_placement
from gitops_karmada.core.scheduler.errors import AssignmentError
from gitops_karmada.core.scheduler.strategy import (
    ReplicaStrategy,
    ignores_available_resource,
    ignores_spread_constraints,
    replica_strategy,
)
from gitops_karmada.model.policies import Placement

DIVIDED: dict[str, Any] = {"replicaSchedulingType": "Divided"}
WEIGHTED = DIVIDED | {"replicaDivisionPreference": "Weighted"}
STATIC_LIST: dict[str, Any] = {"staticWeightList": [{"targetCluster": {"clusterNames": ["a"]}, "weight": 1}]}
STATIC = WEIGHTED | {"weightPreference": STATIC_LIST}
DYNAMIC = WEIGHTED | {"weightPreference": {"dynamicWeight": "AvailableReplicas"}}
EMPTY_PREFERENCE = WEIGHTED | {"weightPreference": {}}
AGGREGATED = DIVIDED | {"replicaDivisionPreference": "Aggregated"}
DUPLICATED = {"replicaSchedulingType": "Duplicated"}

# replicaScheduling, strategy, ignores spread constraints, ignores available resources
STRATEGY_TABLE = [
    (None, ReplicaStrategy.DUPLICATED, False, True),
    (DUPLICATED, ReplicaStrategy.DUPLICATED, False, True),
    (AGGREGATED, ReplicaStrategy.AGGREGATED, False, False),
    (WEIGHTED, ReplicaStrategy.STATIC_WEIGHT, True, False),
    (STATIC, ReplicaStrategy.STATIC_WEIGHT, True, False),
    (DYNAMIC, ReplicaStrategy.DYNAMIC_WEIGHT, False, False),
    (EMPTY_PREFERENCE, ReplicaStrategy.STATIC_WEIGHT, False, False),
    (
        WEIGHTED | {"weightPreference": STATIC_LIST | {"dynamicWeight": "AvailableReplicas"}},
        ReplicaStrategy.DYNAMIC_WEIGHT,
        False,
        False,
    ),
]
STRATEGY_IDS = [
    "nil-is-duplicated",
    "duplicated",
    "aggregated",
    "weighted-no-preference",
    "static-list",
    "dynamic",
    "empty-preference-static-but-spread-honoured",
    "dynamic-beats-static-list",
]


@pytest.mark.parametrize(
    ("scheduling", "strategy", "no_spread", "no_capacity"), STRATEGY_TABLE, ids=STRATEGY_IDS
)
def test_strategy_selection(
    scheduling: dict[str, Any] | None, strategy: ReplicaStrategy, no_spread: bool, no_capacity: bool
) -> None:
    placement = Placement.model_validate({} if scheduling is None else {"replicaScheduling": scheduling})
    assert replica_strategy(placement) is strategy
    assert ignores_spread_constraints(placement) is no_spread
    assert ignores_available_resource(placement) is no_capacity


def test_divided_without_preference_is_unsupported_until_defaulted() -> None:
    placement = Placement.model_validate({"replicaScheduling": DIVIDED})
    with pytest.raises(AssignmentError, match="unsupported replica scheduling strategy"):
        replica_strategy(placement)
    assert replica_strategy(default_placement(placement)) is ReplicaStrategy.STATIC_WEIGHT


@pytest.mark.parametrize(
    ("constraint", "defaulted"),
    [
        ({}, {"spreadByField": "cluster", "minGroups": 1}),
        ({"maxGroups": 3}, {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 3}),
        (
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 4},
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 4},
        ),
        ({"spreadByLabel": "topology"}, {"spreadByLabel": "topology", "minGroups": 1}),
    ],
    ids=["empty-is-cluster", "max-groups-not-defaulted", "explicit-kept", "label-kept"],
)
def test_spread_constraint_defaults(constraint: dict[str, Any], defaulted: dict[str, Any]) -> None:
    placement = default_placement(Placement.model_validate({"spreadConstraints": [constraint]}))
    (result,) = placement.spread_constraints
    assert result.spread_by_field == defaulted.get("spreadByField")
    assert result.spread_by_label == defaulted.get("spreadByLabel", "")
    assert (result.min_groups, result.max_groups) == (defaulted["minGroups"], defaulted.get("maxGroups", 0))


def test_defaults_are_idempotent() -> None:
    placement = default_placement(
        Placement.model_validate({"spreadConstraints": [{}], "replicaScheduling": DIVIDED})
    )
    assert default_placement(placement) is placement
