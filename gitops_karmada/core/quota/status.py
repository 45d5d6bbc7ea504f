"""A FederatedResourceQuota's status: from the bindings (gate on) or the member ResourceQuotas (gate off).

* enforcement controller (gate FederatedQuotaEnforcement on): ``overall`` and ``overallUsed`` from bindings;
* status controller: ``aggregatedStatus`` = the member ResourceQuotas of Works that are Applied, sorted by
  cluster; with the gate off it also sets ``overall`` and ``overallUsed`` = Σ members' ``used`` (all keys).

Member ResourceQuotas come from cluster snapshots: the one Karmada's sync controller created carries the
FRQ's namespace/name and exists only in the clusters named in ``staticAssignments``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.quota.resourcelist import add_resources, sorted_resources
from gitops_karmada.core.quota.usage import overall_used
from gitops_karmada.model.quotas import ClusterQuotaStatus, FederatedResourceQuotaStatus

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.quantity import Quantity
    from gitops_karmada.model.quotas import FederatedResourceQuota


@dataclass(frozen=True, slots=True, kw_only=True)
class MemberQuotaStatus:
    """The member ResourceQuota Karmada placed in one cluster, as its Work reports it."""

    cluster: str
    applied: bool = True
    """The Work's Applied condition is True (only then does the status controller read it)."""
    hard: Mapping[str, Quantity] = field(default_factory=dict)
    used: Mapping[str, Quantity] = field(default_factory=dict)


def aggregated_status(members: Iterable[MemberQuotaStatus]) -> tuple[ClusterQuotaStatus, ...]:
    """``status.aggregatedStatus``: applied members only, sorted by cluster name."""
    return tuple(
        ClusterQuotaStatus(
            cluster_name=member.cluster,
            hard=sorted_resources(member.hard),
            used=sorted_resources(member.used),
        )
        for member in sorted(members, key=lambda m: m.cluster)
        if member.applied
    )


def overall_used_from_member_quotas(
    frq: FederatedResourceQuota, members: Iterable[MemberQuotaStatus]
) -> FederatedResourceQuotaStatus:
    """The status controller with gate FederatedQuotaEnforcement off.

    ``overallUsed`` is the exact sum of every applied member's ``used``, not filtered by ``spec.overall``.
    """
    aggregated = aggregated_status(members)
    used: dict[str, Quantity] = {}
    for item in aggregated:
        used = add_resources(used, item.used)
    return FederatedResourceQuotaStatus(
        overall=sorted_resources(frq.spec.overall), overall_used=used, aggregated_status=aggregated
    )


def member_quota_statuses(
    frq: FederatedResourceQuota, snapshots: Mapping[str, ClusterSnapshot]
) -> tuple[MemberQuotaStatus, ...]:
    """The FRQ's member ResourceQuotas found in cluster snapshots, for clusters named in staticAssignments.

    A snapshot that lacks the ResourceQuota means its Work has not been applied (yet): no entry. Clusters
    without a snapshot report nothing either.
    """
    members = []
    for cluster in sorted({a.cluster_name for a in frq.spec.static_assignments}):
        snapshot = snapshots.get(cluster)
        quota = snapshot.resource_quota(frq.namespace, frq.name) if snapshot is not None else None
        if quota is not None:
            members.append(MemberQuotaStatus(cluster=cluster, hard=quota.hard, used=quota.used))
    return tuple(members)


def federated_quota_status(
    frq: FederatedResourceQuota,
    bindings: Iterable[ResourceBinding],
    *,
    enforcement: bool,
    members: Iterable[MemberQuotaStatus] = (),
) -> FederatedResourceQuotaStatus:
    """The FRQ's status once Karmada's controllers have settled on ``bindings`` and ``members``.

    ``enforcement`` is gate FederatedQuotaEnforcement: on, ``overallUsed`` is recomputed exactly from the
    bindings (the webhook's reservations are replaced by the controller's periodic recount); off, it is the
    sum of the members' ``used`` and bindings are not read.
    """
    if not enforcement:
        return overall_used_from_member_quotas(frq, members)
    return FederatedResourceQuotaStatus(
        overall=sorted_resources(frq.spec.overall),
        overall_used=overall_used(frq, bindings),
        aggregated_status=aggregated_status(members),
    )
