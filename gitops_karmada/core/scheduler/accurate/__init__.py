"""Karmada's accurate estimator over per-cluster snapshots: node fit and member ResourceQuotas.

``AccurateEstimator.from_snapshots(...)`` implements the scheduler's ``Estimator`` protocol; the plugin
functions are public for tests and explanations.
"""

from __future__ import annotations

from gitops_karmada.core.scheduler.accurate.estimator import (
    AccurateEstimate,
    AccurateEstimator,
    ClusterCapacity,
)
from gitops_karmada.core.scheduler.accurate.nodefit import NodeClaimFilter
from gitops_karmada.core.scheduler.accurate.noderesource import (
    ComponentPlacement,
    NodeAnswer,
    NodeCapacity,
    NodeResourceEstimate,
    estimate_replicas_on_nodes,
    estimate_sets_on_nodes,
    node_capacities,
)
from gitops_karmada.core.scheduler.accurate.resourcequota import (
    QuotaAnswer,
    ResourceQuotaEstimate,
    estimate_replicas_by_quotas,
    estimate_sets_by_quotas,
)

__all__ = [
    "AccurateEstimate",
    "AccurateEstimator",
    "ClusterCapacity",
    "ComponentPlacement",
    "NodeAnswer",
    "NodeCapacity",
    "NodeClaimFilter",
    "NodeResourceEstimate",
    "QuotaAnswer",
    "ResourceQuotaEstimate",
    "estimate_replicas_by_quotas",
    "estimate_replicas_on_nodes",
    "estimate_sets_by_quotas",
    "estimate_sets_on_nodes",
    "node_capacities",
]
