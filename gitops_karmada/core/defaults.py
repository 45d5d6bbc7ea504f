"""Karmada's mutating-webhook defaults for policies, applied once after parsing.

Bindings copy the *defaulted* placement, as Karmada stores it in etcd; parsing keeps what the user
wrote so that validation messages point at the user's text. Permanent IDs, which Karmada draws at random
when a policy is created, are derived from the policy's identity here (unless the object already carries
one, as an export from a live control plane does), so that every run computes the same claims.
"""

from __future__ import annotations

import functools
import uuid
from typing import TypeVar

from gitops_karmada.model import wellknown
from gitops_karmada.model.policies import (
    AnyPropagationPolicy,
    ClusterPropagationPolicy,
    DecisionConditions,
    FailoverBehavior,
    Placement,
    PropagationPolicy,
    PurgeMode,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    SpreadConstraint,
    SpreadFieldValue,
)

P = TypeVar("P", PropagationPolicy, ClusterPropagationPolicy)

_PERMANENT_ID_NAMESPACE = uuid.UUID("6f1b8e8e-5a36-4f49-9d3c-0b7c2f8f6a11")
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_TOLERATION_SECONDS = 300
DEFAULT_GRACE_PERIOD_SECONDS = 600


def permanent_id(policy: AnyPropagationPolicy) -> str:
    """The policy's permanent ID: its own label if present, else a UUID derived from kind/namespace/name."""
    label = wellknown.CPP_PERMANENT_ID_LABEL if policy.is_cluster_scoped else wellknown.PP_PERMANENT_ID_LABEL
    existing = policy.metadata.labels.get(label)
    if existing:
        return existing
    return _derived_id(f"{policy.kind}/{policy.namespace}/{policy.name}")


@functools.lru_cache(maxsize=65536)
def _derived_id(identity: str) -> str:
    # uuid5 costs ~10 us and is asked for once per rendered manifest: cache it (pure, bounded)
    return str(uuid.uuid5(_PERMANENT_ID_NAMESPACE, identity))


def _default_spread_constraint(constraint: SpreadConstraint) -> SpreadConstraint:
    update: dict[str, object] = {}
    if constraint.spread_by_field is None and not constraint.spread_by_label:
        update["spread_by_field"] = SpreadFieldValue.CLUSTER
    if constraint.min_groups == 0:
        update["min_groups"] = 1
    return constraint.model_copy(update=update) if update else constraint


def default_placement(placement: Placement) -> Placement:
    """The webhook's placement defaults, idempotently (an already defaulted placement comes back as is).

    spreadByField and spreadByLabel both empty → ``cluster``; minGroups 0 → 1 (maxGroups has no default);
    Divided without a division preference → Weighted.
    """
    update: dict[str, object] = {}
    constraints = tuple(_default_spread_constraint(c) for c in placement.spread_constraints)
    if any(new is not old for new, old in zip(constraints, placement.spread_constraints, strict=True)):
        update["spread_constraints"] = constraints
    strategy = placement.replica_scheduling
    if (
        strategy is not None
        and strategy.replica_scheduling_type is ReplicaSchedulingType.DIVIDED
        and strategy.replica_division_preference is None
    ):
        update["replica_scheduling"] = strategy.model_copy(
            update={"replica_division_preference": ReplicaDivisionPreference.WEIGHTED}
        )
    return placement.model_copy(update=update) if update else placement


def _default_failover(failover: FailoverBehavior) -> FailoverBehavior:
    update: dict[str, object] = {}
    if failover.application is not None:
        app = failover.application
        purge = app.purge_mode or PurgeMode.GRACEFULLY
        app_update: dict[str, object] = {"purge_mode": purge}
        if app.decision_conditions.toleration_seconds is None:
            app_update["decision_conditions"] = DecisionConditions(
                toleration_seconds=DEFAULT_TOLERATION_SECONDS
            )
        if purge in (PurgeMode.GRACEFULLY, PurgeMode.GRACIOUSLY) and app.grace_period_seconds is None:
            app_update["grace_period_seconds"] = DEFAULT_GRACE_PERIOD_SECONDS
        update["application"] = app.model_copy(update=app_update)
    if failover.cluster is not None and failover.cluster.purge_mode is None:
        update["cluster"] = failover.cluster.model_copy(update={"purge_mode": PurgeMode.GRACEFULLY})
    return failover.model_copy(update=update) if update else failover


def default_policy(policy: P) -> P:
    """The policy as Karmada's mutating webhook would store it."""
    spec = policy.spec
    spec_update: dict[str, object] = {"placement": default_placement(spec.placement)}
    if not policy.is_cluster_scoped:
        # a PropagationPolicy only ever selects objects of its own namespace
        spec_update["resource_selectors"] = tuple(
            s if s.namespace else s.model_copy(update={"namespace": policy.namespace})
            for s in spec.resource_selectors
        )
    if not spec.scheduler_name:
        spec_update["scheduler_name"] = DEFAULT_SCHEDULER_NAME
    if spec.failover is not None:
        spec_update["failover"] = _default_failover(spec.failover)
    if any(
        s.api_version == "multicluster.x-k8s.io/v1alpha1" and s.kind == "ServiceImport"
        for s in spec.resource_selectors
    ):
        spec_update["propagate_deps"] = True
    return policy.model_copy(update={"spec": spec.model_copy(update=spec_update)})
