"""How a Placement divides replicas: Karmada's strategy selection and the scheduler-relevant defaults."""

from __future__ import annotations

import enum

from gitops_karmada.core.scheduler.errors import AssignmentError
from gitops_karmada.model.policies import (
    Placement,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    SpreadConstraint,
    SpreadFieldValue,
)


class ReplicaStrategy(enum.StrEnum):
    """The four assignment strategies of ``pkg/scheduler/core/assignment.go``."""

    DUPLICATED = "Duplicated"
    STATIC_WEIGHT = "StaticWeight"
    DYNAMIC_WEIGHT = "DynamicWeight"
    AGGREGATED = "Aggregated"


def replica_strategy(placement: Placement) -> ReplicaStrategy:
    """``newAssignState``: nil/Duplicated → Duplicated; Divided → Aggregated, Dynamic or Static weight."""
    scheduling = placement.replica_scheduling
    if scheduling is None or scheduling.replica_scheduling_type is ReplicaSchedulingType.DUPLICATED:
        return ReplicaStrategy.DUPLICATED
    match scheduling.replica_division_preference:
        case ReplicaDivisionPreference.AGGREGATED:
            return ReplicaStrategy.AGGREGATED
        case ReplicaDivisionPreference.WEIGHTED:
            preference = scheduling.weight_preference
            if preference is not None and preference.dynamic_weight is not None:
                return ReplicaStrategy.DYNAMIC_WEIGHT
            return ReplicaStrategy.STATIC_WEIGHT
    raise AssignmentError(
        "unsupported replica scheduling strategy, "
        f"replicaSchedulingType: {scheduling.replica_scheduling_type}, "
        "replicaDivisionPreference: , "
        "please try another scheduling strategy"
    )


def ignores_spread_constraints(placement: Placement) -> bool:
    """``shouldIgnoreSpreadConstraint``: static weighting never looks at spread constraints.

    Note the asymmetry Karmada has: Weighted with an empty (non-nil) weightPreference divides by static
    weight (every cluster weight 1) yet still honours spread constraints.
    """
    scheduling = placement.replica_scheduling
    if scheduling is None or scheduling.replica_scheduling_type is not ReplicaSchedulingType.DIVIDED:
        return False
    if scheduling.replica_division_preference is not ReplicaDivisionPreference.WEIGHTED:
        return False
    preference = scheduling.weight_preference
    return preference is None or (bool(preference.static_weight_list) and preference.dynamic_weight is None)


def ignores_available_resource(placement: Placement) -> bool:
    """``shouldIgnoreAvailableResource``: Duplicated (or no strategy) selects without capacity checks."""
    scheduling = placement.replica_scheduling
    return scheduling is None or scheduling.replica_scheduling_type is ReplicaSchedulingType.DUPLICATED


def spread_constraint_by(placement: Placement, field: SpreadFieldValue) -> SpreadConstraint | None:
    """The spread constraint on ``field`` (the webhook forbids duplicates, so there is at most one)."""
    return next((c for c in placement.spread_constraints if c.spread_by_field is field), None)
