"""The accurate estimator (karmada-scheduler-estimator) over cluster snapshots, as a scheduler ``Estimator``.

Per cluster with a snapshot: no node → 0; otherwise the smallest answer of NodeResourceEstimator and
ResourceQuotaEstimator (the latter only with gate ResourceQuotaEstimate). A cluster without a snapshot
gives no answer (``None``), like a cluster without an estimator server (Karmada's UnauthenticReplica).

The Estimator protocol carries no namespace; the quota plugin takes it from the replica requirements
(filled by the detector when the gate is on) and, for component sets, from ``namespace`` — build one
estimator per binding with ``for_namespace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar

from gitops_karmada.core.scheduler.accurate.noderesource import (
    NodeCapacity,
    NodeResourceEstimate,
    estimate_replicas_on_nodes,
    estimate_sets_on_nodes,
    node_capacities,
)
from gitops_karmada.core.scheduler.accurate.resourcequota import (
    ResourceQuotaEstimate,
    disabled_quota_estimate,
    estimate_replicas_by_quotas,
    estimate_sets_by_quotas,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.core.scheduler.estimate import AssumedWorkload
    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.bindings import Component, ReplicaRequirements
    from gitops_karmada.model.clusters import Cluster


@dataclass(frozen=True, slots=True, kw_only=True)
class AccurateEstimate:
    """One cluster's accurate answer and both plugins' arithmetic."""

    cluster: str
    value: int
    unit: str
    """``replicas`` or ``sets``."""
    nodes: NodeResourceEstimate | None = None
    quotas: ResourceQuotaEstimate | None = None
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"cluster": self.cluster, "value": self.value, "unit": self.unit}
        if self.note:
            data["note"] = self.note
        if self.nodes is not None:
            data["nodeResource"] = self.nodes.to_dict()
        if self.quotas is not None:
            data["resourceQuota"] = self.quotas.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class ClusterCapacity:
    """A snapshot with its nodes' free resources worked out once."""

    snapshot: ClusterSnapshot
    nodes: tuple[NodeCapacity, ...]

    @classmethod
    def of(cls, snapshot: ClusterSnapshot) -> ClusterCapacity:
        return cls(snapshot, node_capacities(snapshot))


@dataclass(frozen=True, slots=True, kw_only=True)
class AccurateEstimator:
    """Karmada's accurate estimator as an ``Estimator``; build it with ``from_snapshots``."""

    name: ClassVar[str] = "accurate"
    clusters: Mapping[str, ClusterCapacity]
    resource_quota_estimate: bool = False
    """Gate ResourceQuotaEstimate (the quota plugin)."""
    namespace: str = ""
    """The binding's namespace, for the quota plugin on component sets (``""`` = every namespace)."""
    assumed: Mapping[str, tuple[AssumedWorkload, ...]] = field(default_factory=dict)
    """Per cluster, workloads placed earlier in the run (gate SchedulingOvercommitProtection): the node
    plugin places them first."""

    @classmethod
    def from_snapshots(
        cls,
        snapshots: Mapping[str, ClusterSnapshot],
        *,
        resource_quota_estimate: bool = False,
        namespace: str = "",
    ) -> AccurateEstimator:
        return cls(
            clusters={name: ClusterCapacity.of(snapshots[name]) for name in sorted(snapshots)},
            resource_quota_estimate=resource_quota_estimate,
            namespace=namespace,
        )

    def for_namespace(self, namespace: str) -> AccurateEstimator:
        """The same estimator for a binding of ``namespace`` (the node arithmetic is shared, not redone)."""
        return replace(self, namespace=namespace)

    def with_assumed(self, assumed: Mapping[str, tuple[AssumedWorkload, ...]]) -> AccurateEstimator:
        """The same estimator, the ``assumed`` workloads placed on each cluster's nodes first."""
        return replace(self, assumed=assumed) if assumed or self.assumed else self

    def max_available_replicas(
        self, cluster: Cluster, requirements: ReplicaRequirements | None
    ) -> int | None:
        estimate = self.explain_replicas(cluster, requirements)
        return estimate.value if estimate is not None else None

    def max_available_component_sets(self, cluster: Cluster, components: Sequence[Component]) -> int | None:
        estimate = self.explain_component_sets(cluster, components)
        return estimate.value if estimate is not None else None

    def explain_replicas(
        self, cluster: Cluster, requirements: ReplicaRequirements | None
    ) -> AccurateEstimate | None:
        """``MaxAvailableReplicas`` for one cluster, explained; None without a snapshot."""
        capacity = self.clusters.get(cluster.name)
        if capacity is None:
            return None
        if not capacity.nodes:
            return AccurateEstimate(
                cluster=cluster.name, value=0, unit="replicas", note="the cluster has no nodes"
            )
        nodes = estimate_replicas_on_nodes(capacity.nodes, requirements, self.assumed.get(cluster.name, ()))
        quotas = (
            estimate_replicas_by_quotas(
                capacity.snapshot.quotas_in(requirements.namespace if requirements is not None else ""),
                requirements,
            )
            if self.resource_quota_estimate
            else disabled_quota_estimate("replicas")
        )
        return AccurateEstimate(
            cluster=cluster.name,
            value=min(nodes.value, quotas.value),
            unit="replicas",
            nodes=nodes,
            quotas=quotas,
        )

    def explain_component_sets(
        self, cluster: Cluster, components: Sequence[Component]
    ) -> AccurateEstimate | None:
        """``MaxAvailableComponentSets`` for one cluster, explained; None without a snapshot."""
        capacity = self.clusters.get(cluster.name)
        if capacity is None:
            return None
        if not capacity.nodes:
            return AccurateEstimate(
                cluster=cluster.name, value=0, unit="sets", note="the cluster has no nodes"
            )
        nodes = estimate_sets_on_nodes(capacity.nodes, components, self.assumed.get(cluster.name, ()))
        quotas = (
            estimate_sets_by_quotas(capacity.snapshot.quotas_in(self.namespace), components, self.namespace)
            if self.resource_quota_estimate
            else disabled_quota_estimate("sets")
        )
        return AccurateEstimate(
            cluster=cluster.name,
            value=min(nodes.value, quotas.value),
            unit="sets",
            nodes=nodes,
            quotas=quotas,
        )
