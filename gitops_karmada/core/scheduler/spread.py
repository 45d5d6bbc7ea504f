"""Candidate ranking and Karmada's SelectBestClusters (``pkg/scheduler/core/spreadconstraint``).

Cluster and region algorithms, the selectGroups DFS and region group scores. Zone and provider constraints
only filter (their group scores are never used by Karmada, so they are not computed here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.errors import SpreadConstraintError
from gitops_karmada.core.scheduler.strategy import (
    ignores_available_resource,
    ignores_spread_constraints,
    spread_constraint_by,
)
from gitops_karmada.model.policies import Placement, ReplicaSchedulingType, SpreadConstraint, SpreadFieldValue

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.model.clusters import Cluster

WEIGHT_UNIT = 1000
"""Group score = replicas the group can hold * 1000 + average cluster score (``weightUnit``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterDetail:
    """A candidate as selection sees it (``ClusterDetailInfo``).

    ``allocatable`` is the estimate; ``available`` = estimate + replicas the previous result put there.
    """

    cluster: Cluster
    score: int = 0
    allocatable: int = 0
    available: int = 0
    overflow_order: int = 0

    @property
    def name(self) -> str:
        return self.cluster.name

    @property
    def region(self) -> str:
        return self.cluster.spec.region

    def to_dict(self) -> dict[str, object]:
        return {
            "cluster": self.name,
            "score": self.score,
            "overflowOrder": self.overflow_order,
            "allocatable": self.allocatable,
            "available": self.available,
        }


def rank_key(detail: ClusterDetail) -> tuple[int, int, int, str]:
    """sortClusters: overflowOrder asc, score desc, available replicas desc, name asc."""
    return (detail.overflow_order, -detail.score, -detail.available, detail.name)


def sort_clusters(details: Sequence[ClusterDetail]) -> tuple[ClusterDetail, ...]:
    return tuple(sorted(details, key=rank_key))


# -- selectGroups -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupInfo:
    """A group (region) for selectGroups: value = number of clusters, weight = group score."""

    name: str
    value: int
    weight: int


@dataclass(frozen=True, slots=True)
class GroupPath:
    """A feasible DFS path: its discovery id and its groups re-sorted by (weight desc, name asc)."""

    id: int
    groups: tuple[GroupInfo, ...]

    @property
    def value(self) -> int:
        return sum(g.value for g in self.groups)

    @property
    def weight(self) -> int:
        return sum(g.weight for g in self.groups)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.groups)

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "groups": list(self.names), "weight": self.weight, "value": self.value}


def feasible_group_paths(
    groups: Sequence[GroupInfo], min_groups: int, max_groups: int, target: int
) -> tuple[GroupPath, ...]:
    """Every path of the DFS over groups sorted by (value asc, weight desc, name asc) that reaches
    ``target`` with ``min_groups`` ≤ length ≤ ``max_groups``; a path stops growing once feasible."""
    ordered = sorted(groups, key=lambda g: (g.value, -g.weight, g.name))
    found: list[GroupPath] = []
    path: list[GroupInfo] = []

    def walk(start: int, value: int) -> None:
        if len(path) >= min_groups and value >= target:
            regrouped = tuple(sorted(path, key=lambda g: (-g.weight, g.name)))
            found.append(GroupPath(len(found) + 1, regrouped))
            return
        if len(path) >= max_groups:
            return
        for index in range(start, len(ordered)):
            path.append(ordered[index])
            walk(index + 1, value + ordered[index].value)
            path.pop()

    walk(0, 0)
    return tuple(found)


def best_group_path(paths: Sequence[GroupPath]) -> GroupPath | None:
    """Max total weight, then max total value, then smallest id; then any strict prefix of the choice wins."""
    if not paths:
        return None
    ranked = sorted(paths, key=lambda p: (-p.weight, -p.value, p.id))
    best = ranked[0]
    for path in ranked[1:]:
        if len(path.groups) < len(best.groups) and best.names[: len(path.groups)] == path.names:
            best = path
    return best


def select_groups(
    groups: Sequence[GroupInfo], min_groups: int, max_groups: int, target: int
) -> tuple[GroupInfo, ...] | None:
    """selectGroups: the chosen groups in (weight desc, name asc) order, or None when nothing is feasible."""
    if not groups:
        return None
    best = best_group_path(feasible_group_paths(groups, min_groups, max_groups, target))
    return None if best is None else best.groups


# -- group scores -------------------------------------------------------------------------------------------


def calc_group_score(
    clusters: Sequence[ClusterDetail],
    *,
    replicas: int,
    duplicated: bool,
    min_groups: int,
    cluster_min_groups: int,
) -> int:
    """calcGroupScore for a region's clusters (in rank order)."""
    if duplicated:
        fitting = [c.score for c in clusters if c.available >= replicas]
        return 0 if not fitting else len(fitting) * WEIGHT_UNIT + sum(fitting) // len(fitting)
    target = math.ceil(replicas / min_groups) if min_groups > 0 else replicas
    needed_clusters = max(cluster_min_groups, min_groups)
    total_available = total_score = count = 0
    for cluster in clusters:
        total_available += cluster.available
        total_score += cluster.score
        count += 1
        if count >= needed_clusters and total_available >= target:
            break
    if total_available < target:
        return total_available * WEIGHT_UNIT + (total_score // len(clusters) if clusters else 0)
    return target * WEIGHT_UNIT + (total_score // count if count else 0)


@dataclass(frozen=True, slots=True)
class RegionGroup:
    """The candidates of one region (rank order) and the region's group score."""

    name: str
    score: int
    clusters: tuple[ClusterDetail, ...]

    def to_dict(self) -> dict[str, object]:
        return {"region": self.name, "score": self.score, "clusters": [c.name for c in self.clusters]}


def group_by_region(
    candidates: Sequence[ClusterDetail], placement: Placement, *, replicas: int
) -> tuple[RegionGroup, ...]:
    """Regions of the ranked candidates (clusters without a region are left out), sorted by name."""
    region_constraint = spread_constraint_by(placement, SpreadFieldValue.REGION)
    cluster_constraint = spread_constraint_by(placement, SpreadFieldValue.CLUSTER)
    scheduling = placement.replica_scheduling
    duplicated = scheduling is None or scheduling.replica_scheduling_type is ReplicaSchedulingType.DUPLICATED
    members: dict[str, list[ClusterDetail]] = {}
    for candidate in candidates:
        if candidate.region:
            members.setdefault(candidate.region, []).append(candidate)
    return tuple(
        RegionGroup(
            name,
            calc_group_score(
                clusters,
                replicas=replicas,
                duplicated=duplicated,
                min_groups=region_constraint.min_groups if region_constraint else 0,
                cluster_min_groups=cluster_constraint.min_groups if cluster_constraint else 0,
            ),
            tuple(clusters),
        )
        for name, clusters in sorted(members.items())
    )


# -- SelectBestClusters --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectionRecord:
    """How the candidates were narrowed down by the spread constraints."""

    algorithm: str
    """``all``, ``cluster`` or ``region``."""
    why: str
    need_replicas: int | None = None
    """Replicas the selection had to cover; None when capacity was ignored."""
    regions: tuple[RegionGroup, ...] = ()
    paths: tuple[GroupPath, ...] = ()
    chosen_regions: tuple[str, ...] = ()
    swaps: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"algorithm": self.algorithm, "why": self.why}
        if self.need_replicas is not None:
            data["needReplicas"] = self.need_replicas
        if self.regions:
            data["regions"] = [r.to_dict() for r in self.regions]
            data["feasiblePaths"] = [p.to_dict() for p in self.paths]
            data["chosenRegions"] = list(self.chosen_regions)
        if self.swaps:
            data["swaps"] = list(self.swaps)
        data["selected"] = list(self.selected)
        return data


@dataclass(frozen=True, slots=True)
class Selection:
    clusters: tuple[ClusterDetail, ...]
    record: SelectionRecord


def select_best_clusters(
    placement: Placement,
    candidates: Sequence[ClusterDetail],
    *,
    need_replicas: int,
    replicas: int | None = None,
) -> Selection:
    """SelectBestClusters over ranked ``candidates``; raises SpreadConstraintError with Karmada's text.

    ``need_replicas`` is what the cluster algorithm must cover (spec.replicas, or 1 for a component set);
    ``replicas`` (default ``need_replicas``) feeds the region group scores.
    """
    if not placement.spread_constraints or ignores_spread_constraints(placement):
        why = (
            "static weighting ignores spread constraints"
            if placement.spread_constraints
            else "no spread constraints"
        )
        record = SelectionRecord(algorithm="all", why=why, selected=tuple(c.name for c in candidates))
        return Selection(tuple(candidates), record)
    need = None if ignores_available_resource(placement) else need_replicas
    cluster_constraint = spread_constraint_by(placement, SpreadFieldValue.CLUSTER)
    region_constraint = spread_constraint_by(placement, SpreadFieldValue.REGION)
    if region_constraint is not None:
        regions = group_by_region(
            candidates, placement, replicas=need_replicas if replicas is None else replicas
        )
        return select_best_clusters_by_region(region_constraint, cluster_constraint, regions)
    if cluster_constraint is not None:
        return select_by_cluster(cluster_constraint, candidates, need)
    raise SpreadConstraintError("just support cluster and region spread constraint")


def select_by_cluster(
    constraint: SpreadConstraint, candidates: Sequence[ClusterDetail], need_replicas: int | None
) -> Selection:
    """selectBestClustersByCluster: the top maxGroups, swapping in roomier clusters until the need is met."""
    if constraint.min_groups > len(candidates):
        raise SpreadConstraintError("the number of feasible clusters is less than spreadConstraint.MinGroups")
    count = min(constraint.max_groups, len(candidates))
    why = f"cluster spread constraint: top {count} of {len(candidates)} candidates"
    if need_replicas is None:
        chosen = tuple(candidates[:count])
        record = SelectionRecord(
            algorithm="cluster", why=why + " (capacity ignored)", selected=tuple(c.name for c in chosen)
        )
        return Selection(chosen, record)
    chosen_list, _rest, swaps = _swap_for_capacity(
        list(candidates[:count]), list(candidates[count:]), need_replicas
    )
    record = SelectionRecord(
        algorithm="cluster",
        why=why,
        need_replicas=need_replicas,
        swaps=tuple(swaps),
        selected=tuple(c.name for c in chosen_list),
    )
    if not chosen_list or sum(c.available for c in chosen_list) < need_replicas:
        raise SpreadConstraintError(f"no enough resource when selecting {count} clusters", detail=record)
    return Selection(tuple(chosen_list), record)


def _swap_for_capacity(
    chosen: list[ClusterDetail], rest: list[ClusterDetail], need_replicas: int
) -> tuple[list[ClusterDetail], list[ClusterDetail], list[str]]:
    """selectClustersByAvailableResource: from the last chosen slot upwards, replace a cluster by the rest's
    roomiest cluster that has strictly more available replicas, while the chosen ones cannot hold the need."""
    swaps: list[str] = []
    slot = len(chosen) - 1
    while sum(c.available for c in chosen) < need_replicas and slot >= 0 and rest:
        best = -1
        most = chosen[slot].available
        for index, candidate in enumerate(rest):
            if candidate.available > most:
                best, most = index, candidate.available
        if best >= 0:
            incoming, outgoing = rest[best], chosen[slot]
            swaps.append(
                f"{incoming.name} (available {incoming.available}) replaced {outgoing.name} "
                f"(available {outgoing.available})"
            )
            rest[best], chosen[slot] = outgoing, incoming
        slot -= 1
    return chosen, rest, swaps


def select_best_clusters_by_region(
    region_constraint: SpreadConstraint,
    cluster_constraint: SpreadConstraint | None,
    regions: Sequence[RegionGroup],
) -> Selection:
    """selectBestClustersByRegion: choose regions by selectGroups, take each region's best cluster, then fill
    up to the cluster constraint's maxGroups with the best remaining clusters of the chosen regions."""
    cluster_min = cluster_constraint.min_groups if cluster_constraint else 0
    cluster_max = cluster_constraint.max_groups if cluster_constraint else 0
    if len(regions) < region_constraint.min_groups:
        raise SpreadConstraintError("the number of feasible region is less than spreadConstraint.MinGroups")
    groups = [GroupInfo(r.name, len(r.clusters), r.score) for r in regions]
    paths = feasible_group_paths(
        groups, region_constraint.min_groups, region_constraint.max_groups, cluster_min
    )
    best = best_group_path(paths) if groups else None
    why = (
        f"region spread constraint: {region_constraint.min_groups}-{region_constraint.max_groups} regions "
        f"holding at least {cluster_min} clusters; then up to {cluster_max} clusters"
    )
    if best is None:
        record = SelectionRecord(algorithm="region", why=why, regions=tuple(regions), paths=paths)
        raise SpreadConstraintError(
            "the number of clusters is less than the cluster spreadConstraint.MinGroups", detail=record
        )
    by_name = {r.name: r for r in regions}
    chosen_regions = [by_name[name] for name in best.names]
    selected = [r.clusters[0] for r in chosen_regions]
    still_needed = cluster_max - len(chosen_regions)
    if still_needed > 0:
        rest = sorted((c for r in chosen_regions for c in r.clusters[1:]), key=rank_key)
        selected.extend(rest[:still_needed])
    record = SelectionRecord(
        algorithm="region",
        why=why,
        regions=tuple(regions),
        paths=paths,
        chosen_regions=best.names,
        selected=tuple(c.name for c in selected),
    )
    return Selection(tuple(selected), record)
