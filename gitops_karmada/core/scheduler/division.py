"""Replica assignment (``pkg/scheduler/core/common.go``, ``assignment.go``, ``division_algorithm.go``).

Duplicated, StaticWeight, DynamicWeight and Aggregated division, overflow tiers, zero-replica removal, empty
workload propagation, and the division of a Job's completions. Every step is recorded in a DivisionRecord.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.errors import AssignmentError, UnschedulableError
from gitops_karmada.core.scheduler.strategy import ReplicaStrategy, replica_strategy
from gitops_karmada.core.scheduler.webster import Seat, spread_replicas_by_target_clusters
from gitops_karmada.core.selectors import ZoneMatching, cluster_matches
from gitops_karmada.model.bindings import ComponentAssignment, TargetCluster
from gitops_karmada.model.versions import NEWEST_VERSION, KarmadaVersion

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.core.scheduler.spread import ClusterDetail
    from gitops_karmada.model.policies import Placement


class DivisionMode(enum.StrEnum):
    """Steady keeps what runs and divides only the change; Fresh re-divides everything (a rebalance)."""

    STEADY = "Steady"
    FRESH = "Fresh"


class ScaleDirection(enum.StrEnum):
    SCALE_UP = "scale up"
    SCALE_DOWN = "scale down"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class WeightEntry:
    """A Webster vote: the cluster, its weight and where the weight came from."""

    cluster: str
    weight: int
    source: str

    def to_dict(self) -> dict[str, object]:
        return {"cluster": self.cluster, "weight": self.weight, "source": self.source}


@dataclass(frozen=True, slots=True, kw_only=True)
class DivisionRecord:
    """How the replicas were divided: strategy, mode, weights, every Webster seat, and the result."""

    strategy: ReplicaStrategy | None
    """None for a non-workload (every selected cluster, no replica count)."""
    replicas: int
    mode: DivisionMode | None = None
    direction: ScaleDirection | None = None
    assigned_before: int = 0
    """Replicas the previous result has on clusters that are still candidates."""
    target: int = 0
    """Seats handed out by Webster."""
    weights: tuple[WeightEntry, ...] = ()
    kept: tuple[TargetCluster, ...] = ()
    """Previous replicas kept and merged into the new seats (Steady scale up)."""
    aggregated_prefix: tuple[str, ...] = ()
    seats: tuple[Seat, ...] = ()
    tiers: tuple[TierRecord, ...] = ()
    result: tuple[TargetCluster, ...] = ()
    removed_zero: tuple[str, ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "strategy": str(self.strategy) if self.strategy else "none (not a workload)",
            "replicas": self.replicas,
        }
        if self.mode is not None:
            data["mode"] = str(self.mode)
        if self.direction is not None:
            data["direction"] = str(self.direction)
            data["assignedBefore"] = self.assigned_before
        if self.weights:
            data["target"] = self.target
            data["weights"] = [w.to_dict() for w in self.weights]
        if self.kept:
            data["kept"] = [c.to_api() for c in self.kept]
        if self.aggregated_prefix:
            data["aggregatedPrefix"] = list(self.aggregated_prefix)
        if self.seats:
            data["seats"] = [s.to_dict() for s in self.seats]
        if self.tiers:
            data["tiers"] = [t.to_dict() for t in self.tiers]
        data["result"] = [c.to_api() for c in self.result]
        if self.removed_zero:
            data["removedZeroReplicas"] = list(self.removed_zero)
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True, slots=True)
class TierRecord:
    """One overflow tier: its order, clusters, capacity and the division inside it."""

    order: int
    clusters: tuple[str, ...]
    capacity: int
    division: DivisionRecord

    def to_dict(self) -> dict[str, object]:
        return {
            "overflowOrder": self.order,
            "clusters": list(self.clusters),
            "capacity": self.capacity,
            "division": self.division.to_dict(),
        }


def _target(name: str, replicas: int) -> TargetCluster:
    return TargetCluster(name=name, replicas=replicas)


# -- Duplicated ------------------------------------------------------------------------------------------


def assign_by_duplicated(candidates: Sequence[ClusterDetail], replicas: int) -> DivisionRecord:
    """Every candidate gets all replicas, in candidate order."""
    result = tuple(_target(c.name, replicas) for c in candidates)
    return DivisionRecord(strategy=ReplicaStrategy.DUPLICATED, replicas=replicas, result=result)


# -- StaticWeight -----------------------------------------------------------------------------------------


def static_weights(
    candidates: Sequence[ClusterDetail], placement: Placement, zones: ZoneMatching = ZoneMatching.ANY
) -> tuple[WeightEntry, ...]:
    """getStaticWeightInfoList: per candidate the max weight of the rules matching it; no weightPreference,
    or no rule matching any candidate, gives every candidate weight 1."""
    scheduling = placement.replica_scheduling
    preference = scheduling.weight_preference if scheduling is not None else None
    if preference is None:
        return tuple(WeightEntry(c.name, 1, "no weightPreference: equal weights") for c in candidates)
    entries = []
    for candidate in candidates:
        matched = [
            (index, rule.weight)
            for index, rule in enumerate(preference.static_weight_list)
            if cluster_matches(candidate.cluster, rule.target_cluster, zones)
        ]
        if matched:
            weight = max(w for _, w in matched)
            rules = ", ".join(f"#{index}={w}" for index, w in matched)
            entries.append(WeightEntry(candidate.name, weight, f"max over rules {rules}"))
    if not entries:
        return tuple(WeightEntry(c.name, 1, "no rule matches a candidate: equal weights") for c in candidates)
    return tuple(entries)


def assign_by_static_weight(
    candidates: Sequence[ClusterDetail],
    placement: Placement,
    replicas: int,
    uid: str = "",
    zones: ZoneMatching = ZoneMatching.ANY,
) -> DivisionRecord:
    """Webster over the static weights from scratch (the previous result is ignored); 0-seat entries kept."""
    if not candidates:
        raise AssignmentError("no clusters available to schedule")
    weights = static_weights(candidates, placement, zones)
    dispensed = spread_replicas_by_target_clusters(
        replicas, [_target(w.cluster, w.weight) for w in weights], uid=uid
    )
    return DivisionRecord(
        strategy=ReplicaStrategy.STATIC_WEIGHT,
        replicas=replicas,
        target=replicas,
        weights=weights,
        seats=dispensed.seats,
        result=dispensed.clusters,
        note="static weights are divided from scratch: the previous result is ignored",
    )


# -- DynamicWeight and Aggregated --------------------------------------------------------------------------


def _sorted_by_replicas(clusters: Sequence[TargetCluster]) -> tuple[TargetCluster, ...]:
    """Go's sort.Sort on TargetClustersList, descending; kept stable (insertion sort for ≤12 items)."""
    return tuple(sorted(clusters, key=lambda c: -c.replicas))


def merge_target_clusters(
    base: Sequence[TargetCluster], new: Sequence[TargetCluster]
) -> tuple[TargetCluster, ...]:
    """MergeTargetClusters: add base replicas into same-named new entries; base-only entries are appended
    (in base order, where Karmada iterates a map)."""
    if not base:
        return tuple(new)
    if not new:
        return tuple(base)
    extra = {c.name: c.replicas for c in base}
    merged = [_target(c.name, c.replicas + extra.pop(c.name)) if c.name in extra else c for c in new]
    merged.extend(c for c in base if c.name in extra)
    return tuple(merged)


def dynamic_divide_replicas(
    available: Sequence[TargetCluster],
    target: int,
    scheduled: Sequence[TargetCluster],
    strategy: ReplicaStrategy,
    uid: str = "",
) -> DivisionRecord:
    """dynamicDivideReplicas: Webster over ``available`` (already sorted), merged with ``scheduled``.

    Aggregated first moves clusters that already run replicas to the front and keeps the shortest prefix
    whose capacity covers ``target``. Raises UnschedulableError when the capacity is short.
    """
    weights = tuple(WeightEntry(c.name, c.replicas, "") for c in available)
    total = sum(c.replicas for c in available)
    if total < target:
        record = DivisionRecord(strategy=strategy, replicas=target, target=target, weights=weights)
        raise UnschedulableError(
            f"Clusters available replicas {total} are not enough to schedule.", detail=record
        )
    prefix: tuple[str, ...] = ()
    if strategy is ReplicaStrategy.AGGREGATED:
        prior = {c.name for c in scheduled if c.replicas > 0}
        ordered = [c for c in available if c.name in prior] + [c for c in available if c.name not in prior]
        covered = 0
        for index, cluster in enumerate(ordered):
            covered += cluster.replicas
            if covered >= target:
                ordered = ordered[: index + 1]
                break
        available = ordered
        prefix = tuple(c.name for c in ordered)
    elif strategy is not ReplicaStrategy.DYNAMIC_WEIGHT:
        raise AssignmentError(f"undefined strategy type: {strategy}")
    dispensed = spread_replicas_by_target_clusters(target, available, uid=uid)
    return DivisionRecord(
        strategy=strategy,
        replicas=target,
        target=target,
        weights=weights,
        aggregated_prefix=prefix,
        seats=dispensed.seats,
        kept=tuple(scheduled),
        result=merge_target_clusters(scheduled, dispensed.clusters),
    )


def assign_by_dynamic_strategy(
    candidates: Sequence[ClusterDetail],
    strategy: ReplicaStrategy,
    replicas: int,
    previous: Sequence[TargetCluster] = (),
    *,
    fresh: bool = False,
    uid: str = "",
    stale_weights: bool = False,
) -> DivisionRecord:
    """assignByDynamicStrategy: Fresh re-divides everything by (free + own) capacity; Steady keeps the
    previous replicas and divides only a scale-up delta by free capacity, re-divides a scale-down in
    proportion to the previous counts, and returns an unchanged count as it was. ``stale_weights``
    (Karmada v1.16): a scale-down weighs every previous cluster, candidates or not (v1.17's 799fa4b32
    keeps only the clusters still candidates)."""
    names = {c.name for c in candidates}
    scheduled = tuple(c for c in previous if c.name in names)
    assigned = sum(c.replicas for c in scheduled)
    mode = DivisionMode.FRESH if fresh else DivisionMode.STEADY
    direction = (
        ScaleDirection.SCALE_UP
        if assigned < replicas
        else ScaleDirection.SCALE_DOWN
        if assigned > replicas
        else ScaleDirection.UNCHANGED
    )
    base: tuple[TargetCluster, ...] = ()
    if fresh:
        own = {c.name: c.replicas for c in scheduled}
        available = _sorted_by_replicas(
            [_target(c.name, c.allocatable + own.get(c.name, 0)) for c in candidates]
        )
        source, target = "allocatable + own previous replicas (Fresh)", replicas
    elif direction is ScaleDirection.SCALE_DOWN:
        available = _sorted_by_replicas(tuple(previous) if stale_weights else scheduled)
        source, target = "previous replicas (scale down)", replicas
    elif direction is ScaleDirection.SCALE_UP:
        available = _sorted_by_replicas([_target(c.name, c.allocatable) for c in candidates])
        source, target, base = "allocatable replicas (scale up)", replicas - assigned, scheduled
    else:
        return DivisionRecord(
            strategy=strategy,
            replicas=replicas,
            mode=mode,
            direction=direction,
            assigned_before=assigned,
            result=scheduled,
            note="replicas unchanged: the previous result is kept",
        )

    def in_context(record: DivisionRecord) -> DivisionRecord:
        weights = tuple(WeightEntry(w.cluster, w.weight, source) for w in record.weights)
        return replace(
            record,
            replicas=replicas,
            mode=mode,
            direction=direction,
            assigned_before=assigned,
            weights=weights,
        )

    try:
        return in_context(dynamic_divide_replicas(available, target, base, strategy, uid))
    except UnschedulableError as err:
        if isinstance(err.detail, DivisionRecord):
            err.detail = in_context(err.detail)
        raise


# -- AssignReplicas ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AssignmentInput:
    """What AssignReplicas reads from the binding (``spec`` and ``status``)."""

    placement: Placement
    replicas: int
    has_requirements: bool = False
    components: tuple[ComponentAssignment, ...] = ()
    """Components copied into each target of a multi-component binding (which is never divided); empty where
    Karmada keeps the legacy result (``schedule.target_components``)."""
    component_count: int = 0
    previous: tuple[TargetCluster, ...] = ()
    fresh: bool = False
    uid: str = ""
    overflow: bool = field(default=False)
    """The observed clusterAffinities term has overflow affinities: fill tier by tier."""
    zones: ZoneMatching = ZoneMatching.ANY
    """How static weight rules match a multi-zone cluster (the Karmada version followed)."""
    version: KarmadaVersion = NEWEST_VERSION
    """The Karmada version followed (v1.16's scale-down weights)."""


def is_workload(given: AssignmentInput) -> bool:
    """The workload path: replicas or requirements, and at most one component."""
    return (given.replicas > 0 or given.has_requirements) and given.component_count <= 1


def _divide(candidates: Sequence[ClusterDetail], given: AssignmentInput, replicas: int) -> DivisionRecord:
    strategy = replica_strategy(given.placement)
    match strategy:
        case ReplicaStrategy.DUPLICATED:
            return assign_by_duplicated(candidates, replicas)
        case ReplicaStrategy.STATIC_WEIGHT:
            return assign_by_static_weight(candidates, given.placement, replicas, given.uid, given.zones)
        case _:
            return assign_by_dynamic_strategy(
                candidates,
                strategy,
                replicas,
                given.previous,
                fresh=given.fresh,
                uid=given.uid,
                stale_weights=not given.version.at_least(KarmadaVersion.V1_17),
            )


def _divide_by_tiers(candidates: Sequence[ClusterDetail], given: AssignmentInput) -> DivisionRecord:
    """Overflow tiers: fill tier 0, 1, ... each with min(remaining, the tier's available replicas).

    A tier that can take nothing is skipped (running a strategy for 0 replicas would only add empty entries).
    """
    tiers: dict[int, list[ClusterDetail]] = {}
    for candidate in candidates:
        tiers.setdefault(candidate.overflow_order, []).append(candidate)
    remaining = given.replicas
    records: list[TierRecord] = []
    result: list[TargetCluster] = []
    for order in sorted(tiers):
        if remaining <= 0:
            break
        members = tiers[order]
        capacity = sum(c.available for c in members)
        tier_replicas = min(remaining, capacity)
        if tier_replicas <= 0:
            continue
        division = _divide(members, given, tier_replicas)
        records.append(TierRecord(order, tuple(c.name for c in members), capacity, division))
        result.extend(division.result)
        remaining -= tier_replicas
    record = DivisionRecord(
        strategy=replica_strategy(given.placement),
        replicas=given.replicas,
        tiers=tuple(records),
        result=tuple(result),
    )
    if remaining > 0:
        raise UnschedulableError("Clusters available replicas are not enough to schedule.", detail=record)
    return record


def assign_replicas(candidates: Sequence[ClusterDetail], given: AssignmentInput) -> DivisionRecord:
    """AssignReplicas: divide a workload (zero-replica entries removed at the end) or, for anything else,
    return every candidate without a replica count."""
    if not candidates:
        raise AssignmentError("no clusters available to schedule")
    if not is_workload(given):
        # per-cluster components only where ``schedule.target_components`` gives them (v1.19, gate on, more
        # than one component, applicable)
        result = tuple(
            TargetCluster(name=c.name, components=given.components)
            if given.components
            else TargetCluster(name=c.name)
            for c in candidates
        )
        return DivisionRecord(strategy=None, replicas=given.replicas, result=result)
    record = (
        _divide_by_tiers(candidates, given) if given.overflow else _divide(candidates, given, given.replicas)
    )
    kept = tuple(c for c in record.result if c.replicas > 0)
    removed = tuple(c.name for c in record.result if c.replicas <= 0)
    return replace(record, result=kept, removed_zero=removed)


def attach_zero_replica_clusters(
    selected: Sequence[ClusterDetail], result: Sequence[TargetCluster]
) -> tuple[TargetCluster, ...]:
    """``--enable-empty-workload-propagation``: every selected cluster missing from the result, with 0."""
    present = {c.name for c in result}
    return tuple(result) + tuple(_target(c.name, 0) for c in selected if c.name not in present)


def divide_job_completions(
    completions: int, targets: Sequence[TargetCluster], uid: str = ""
) -> tuple[TargetCluster, ...]:
    """divideReplicasByJobCompletions: Webster over the assigned replicas as weights (0 entries kept)."""
    return spread_replicas_by_target_clusters(completions, targets, uid=uid).clusters


def job_completions_map(divided: Sequence[TargetCluster]) -> dict[str, int]:
    """``buildJobCompletionsMap`` (v1.18.0; v1.16.5, v1.17.2): each cluster's completions by its name. The
    dispenser returns clusters by name while the binding lists them in schedule order; before the fix the
    completions were taken by position, so clusters got each other's."""
    return {target.name: target.replicas for target in divided}
