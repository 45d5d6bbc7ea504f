"""Karmada's scheduler filter plugins with their reason texts, and the FitError message built from them.

Plugins (``pkg/scheduler/framework/plugins/*``) run in registry order and the first rejection is the
cluster's verdict: APIEnablement, TaintToleration, ClusterAffinity, SpreadConstraint, ClusterEviction, then
(gate WorkloadAffinity) WorkloadAffinity and WorkloadAntiAffinity. The spec does not give those two a place in
the registry; they come last here, so a cluster another plugin rejects is reported with that plugin.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.workload_affinity import (
    AffinityPeers,
    workload_affinity_verdict,
    workload_anti_affinity_verdict,
)
from gitops_karmada.core.selectors import ZoneMatching, cluster_matches
from gitops_karmada.model.base import Taint, Toleration, TolerationOperator
from gitops_karmada.model.policies import ClusterAffinity, Placement, SpreadConstraint, SpreadFieldValue

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

    from gitops_karmada.core.scheduler.cluster_index import ClusterFacts
    from gitops_karmada.model.clusters import Cluster

AFFINITY_REASON = "cluster(s) did not match the placement cluster affinity constraint"
API_REASON = "cluster(s) did not have the API resource"
EVICTION_REASON = "cluster(s) is in the process of eviction"
SPREAD_REASONS = {
    SpreadFieldValue.PROVIDER: "cluster(s) did not have provider property",
    SpreadFieldValue.REGION: "cluster(s) did not have region property",
    SpreadFieldValue.ZONE: "cluster(s) did not have zones property",
}
NO_OVERFLOW = 1000
"""overflowOrder of a cluster that matches neither the primary nor an overflow affinity."""


class FilterPlugin(enum.StrEnum):
    API_ENABLEMENT = "APIEnablement"
    TAINT_TOLERATION = "TaintToleration"
    CLUSTER_AFFINITY = "ClusterAffinity"
    SPREAD_CONSTRAINT = "SpreadConstraint"
    CLUSTER_EVICTION = "ClusterEviction"
    WORKLOAD_AFFINITY = "WorkloadAffinity"
    WORKLOAD_ANTI_AFFINITY = "WorkloadAntiAffinity"


@dataclass(frozen=True, slots=True)
class FilterVerdict:
    """One cluster's filter outcome: passed, rejected by ``plugin`` for ``reason``, or skipped (deleting)."""

    cluster: str
    plugin: FilterPlugin | None = None
    reason: str = ""
    skipped: bool = False
    detail: str = ""
    """What decided it beyond Karmada's reason: the workload-affinity group member that anchored or
    blocked the cluster."""

    @property
    def fits(self) -> bool:
        return self.plugin is None and not self.skipped

    def to_dict(self) -> dict[str, object]:
        detail = {"detail": self.detail} if self.detail else {}
        if self.skipped:
            return {"cluster": self.cluster, "verdict": "skipped", "reason": "cluster is being deleted"}
        if self.plugin is None:
            return {"cluster": self.cluster, "verdict": "passed", **detail}
        return {
            "cluster": self.cluster,
            "verdict": "rejected",
            "plugin": str(self.plugin),
            "reason": self.reason,
            **detail,
        }


# -- TaintToleration -------------------------------------------------------------------------------------


def taint_to_string(taint: Taint) -> str:
    """corev1 ``Taint.ToString``: ``key=value:effect``, or ``key:effect`` without a value."""
    if not taint.value:
        return f"{taint.key}:{taint.effect}"
    return f"{taint.key}={taint.value}:{taint.effect}"


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """corev1 ``Toleration.ToleratesTaint`` (tolerationSeconds is irrelevant to filtering)."""
    if toleration.effect is not None and toleration.effect is not taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator is TolerationOperator.EXISTS:
        return True
    if toleration.operator in (TolerationOperator.LESS_THAN, TolerationOperator.GREATER_THAN):
        return False  # Karmada matches with the comparison operators disabled (spec §7.2)
    return toleration.value == taint.value  # operator Equal or empty


def find_untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """The first taint no toleration tolerates (callers pass only NoSchedule/NoExecute taints)."""
    return next((t for t in taints if not any(tolerates(tol, t) for tol in tolerations)), None)


def taint_toleration_reason(
    scheduling_taints: Iterable[Taint], tolerations: Sequence[Toleration], already_scheduled: bool
) -> str:
    """TaintToleration's rejection reason, or "" when the cluster passes.

    A cluster already in the binding's result always passes: Karmada leaves untolerated NoExecute taints to
    the taint manager's eviction.
    """
    if already_scheduled:
        return ""
    taint = find_untolerated_taint(scheduling_taints, tolerations)
    return "" if taint is None else f"cluster(s) had untolerated taint {{{taint_to_string(taint)}}}"


# -- APIEnablement ---------------------------------------------------------------------------------------


def api_enablement_reason(facts: ClusterFacts, api_version: str, kind: str, already_scheduled: bool) -> str:
    """APIEnablement's rejection reason, or "".

    Deliberate choice of this project: a cluster whose ``status.apiEnablements`` is absent passes (the
    inventory in Git does not say); an explicit list is enforced as Karmada does, and a cluster already in the
    previous result always passes.
    """
    if facts.enabled_apis is None or already_scheduled or (api_version, kind) in facts.enabled_apis:
        return ""
    return API_REASON


# -- ClusterAffinity -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AffinityInForce:
    """The affinity the ClusterAffinity filter applies: a primary one (None = anything) and overflow ones."""

    term_name: str = ""
    primary: ClusterAffinity | None = None
    overflow: tuple[ClusterAffinity, ...] = ()
    zones: ZoneMatching = ZoneMatching.ANY
    """How ``zone In`` matches a multi-zone cluster (the Karmada version followed)."""


def affinity_in_force(
    placement: Placement, observed_name: str, is_workload: bool, zones: ZoneMatching = ZoneMatching.ANY
) -> AffinityInForce:
    """``clusterAffinity`` if set; else the ``clusterAffinities`` term named ``observed_name`` (its overflow
    affinities OR-ed in for workloads); no such term or neither field → no restriction."""
    if placement.cluster_affinity is not None:
        return AffinityInForce(primary=placement.cluster_affinity, zones=zones)
    for term in placement.cluster_affinities:
        if term.affinity_name == observed_name:
            return AffinityInForce(
                term_name=term.affinity_name,
                primary=term,
                overflow=(term.overflow_affinities or ()) if is_workload else (),
                zones=zones,
            )
    return AffinityInForce(zones=zones)


def cluster_affinity_reason(cluster: Cluster, affinity: AffinityInForce) -> str:
    """ClusterAffinity's rejection reason, or ""."""
    if affinity.primary is None or cluster_matches(cluster, affinity.primary, affinity.zones):
        return ""
    if any(cluster_matches(cluster, overflow, affinity.zones) for overflow in affinity.overflow):
        return ""
    return AFFINITY_REASON


def overflow_order(cluster: Cluster, affinity: AffinityInForce) -> int:
    """0 for the primary affinity, i+1 for the first overflow affinity i matched, 1000 otherwise."""
    if (
        not affinity.overflow
        or affinity.primary is None
        or cluster_matches(cluster, affinity.primary, affinity.zones)
    ):
        return 0
    for index, overflow in enumerate(affinity.overflow):
        if cluster_matches(cluster, overflow, affinity.zones):
            return index + 1
    return NO_OVERFLOW


def tier_names(affinity: AffinityInForce, clusters: Iterable[Cluster]) -> dict[str, str]:
    """With overflow affinities, the tier each cluster is in, by name: the term's own ``affinityName`` for
    the primary tier, else the first overflow affinity it matches (empty: none); without them, nothing."""
    if not affinity.overflow or affinity.primary is None:
        return {}
    found: dict[str, str] = {}
    for cluster in clusters:
        order = overflow_order(cluster, affinity)
        if order == 0:
            found[cluster.name] = affinity.term_name
        elif order != NO_OVERFLOW:
            found[cluster.name] = str(getattr(affinity.overflow[order - 1], "affinity_name", ""))
    return found


def binding_tiers(
    placement: Placement,
    observed_name: str,
    is_workload: bool,
    targets: Iterable[Cluster],
    zones: ZoneMatching = ZoneMatching.ANY,
) -> dict[str, str]:
    """``tier_names`` of a binding's target clusters, under the clusterAffinities term it was scheduled with
    (``status.schedulerObservedAffinityName``)."""
    return tier_names(affinity_in_force(placement, observed_name, is_workload, zones), targets)


# -- SpreadConstraint and ClusterEviction ------------------------------------------------------------------


def spread_constraint_reason(facts: ClusterFacts, constraints: Sequence[SpreadConstraint]) -> str:
    """SpreadConstraint's rejection reason (a spread field the cluster lacks), or ""."""
    for constraint in constraints:
        match constraint.spread_by_field:
            case SpreadFieldValue.PROVIDER if not facts.provider:
                return SPREAD_REASONS[SpreadFieldValue.PROVIDER]
            case SpreadFieldValue.REGION if not facts.region:
                return SPREAD_REASONS[SpreadFieldValue.REGION]
            case SpreadFieldValue.ZONE if not facts.zones:
                return SPREAD_REASONS[SpreadFieldValue.ZONE]
    return ""


def cluster_eviction_reason(cluster_name: str, evicted_clusters: Collection[str]) -> str:
    """ClusterEviction's rejection reason (a graceful eviction task is open for it), or ""."""
    return EVICTION_REASON if cluster_name in evicted_clusters else ""


# -- running them ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class FilterInput:
    """The binding-side inputs of the filters for one scheduling attempt."""

    api_version: str
    kind: str
    placement: Placement
    affinity: AffinityInForce
    previous_clusters: frozenset[str]
    evicted_clusters: frozenset[str]
    peers: AffinityPeers | None = None
    """The placed members of the binding's workload-affinity groups (None: gate off, or in no group)."""


def run_filters(facts: ClusterFacts, given: FilterInput) -> FilterVerdict:
    """Every plugin in registry order; the first rejection decides. Deleting clusters are skipped."""
    if facts.deleting:
        return FilterVerdict(facts.name, skipped=True)
    scheduled = facts.name in given.previous_clusters
    reason = api_enablement_reason(facts, given.api_version, given.kind, scheduled)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.API_ENABLEMENT, reason)
    reason = taint_toleration_reason(facts.scheduling_taints, given.placement.cluster_tolerations, scheduled)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.TAINT_TOLERATION, reason)
    reason = cluster_affinity_reason(facts.cluster, given.affinity)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.CLUSTER_AFFINITY, reason)
    reason = spread_constraint_reason(facts, given.placement.spread_constraints)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.SPREAD_CONSTRAINT, reason)
    reason = cluster_eviction_reason(facts.name, given.evicted_clusters)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.CLUSTER_EVICTION, reason)
    if given.peers is None:
        return FilterVerdict(facts.name)
    reason, anchored = workload_affinity_verdict(facts.name, given.peers, given.previous_clusters)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.WORKLOAD_AFFINITY, reason, detail=anchored)
    reason, blocked = workload_anti_affinity_verdict(facts.name, given.peers, given.previous_clusters)
    if reason:
        return FilterVerdict(facts.name, FilterPlugin.WORKLOAD_ANTI_AFFINITY, reason, detail=blocked)
    return FilterVerdict(facts.name, detail="; ".join(d for d in (anchored, blocked) if d))


def fit_error_message(num_all_clusters: int, verdicts: Iterable[FilterVerdict]) -> str:
    """``FitError.Error()``: ``0/N clusters are available: <count> <reason>, ...`` sorted as strings."""
    histogram = Counter(v.reason for v in verdicts if v.plugin is not None)
    entries = sorted(f"{count} {reason}" for reason, count in histogram.items())
    return f"0/{num_all_clusters} clusters are available: {', '.join(entries)}."
