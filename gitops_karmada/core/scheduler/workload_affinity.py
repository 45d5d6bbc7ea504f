"""WorkloadAffinity (v1.17, gate WorkloadAffinity, alpha): workloads placed with, or away from, their group.

A policy's ``placement.workloadAffinity`` names a label key of the resource template; the detector makes the
template's group ``<key>=<value>`` from its own labels (``getWorkloadAffinityGroups``), recorded on its
ResourceBinding as ``workloadAffinityGroups``. The scheduler's two filters then compare a candidate cluster
with the clusters of the other bindings of the same group and namespace that are already placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.model.bindings import WorkloadAffinityGroups

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from gitops_karmada.model.policies import Placement


def affinity_groups(
    template: Mapping[str, Any], placement: Placement, *, enabled: bool, namespaced: bool
) -> WorkloadAffinityGroups | None:
    """``getWorkloadAffinityGroups``: for each term whose label key the template's own labels have (an empty
    value included), the group ``key=value``; None without the gate, for a ClusterResourceBinding
    (a cluster-scoped template), without ``workloadAffinity``, or when the template is in neither group."""
    affinity = placement.workload_affinity
    if not enabled or not namespaced or affinity is None:
        return None
    metadata = template.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    labels = labels if isinstance(labels, Mapping) else {}
    groups: dict[str, str] = {}
    for field, term in (
        ("affinity_group", affinity.affinity),
        ("anti_affinity_group", affinity.anti_affinity),
    ):
        if term is not None and term.group_by_label_key in labels:
            groups[field] = f"{term.group_by_label_key}={labels[term.group_by_label_key]}"
    return WorkloadAffinityGroups(**groups) if groups else None


AFFINITY_REASON = "ResourceBinding with the same affinity group does not target this cluster"
ANTI_AFFINITY_REASON = "cluster already has workload with the same anti-affinity group"


@dataclass(frozen=True, slots=True)
class GroupMember:
    """A binding as the two filters see it: its groups and the clusters it is placed on (spec §1.5: its
    result of this run when it was scheduled earlier in the run's order, else its recorded one)."""

    binding: str
    """``namespace/name`` of the template, for what ``explain`` says."""
    namespace: str
    groups: WorkloadAffinityGroups
    clusters: frozenset[str]


@dataclass(frozen=True, slots=True)
class AffinityPeers:
    """The placed members of a binding's groups (itself excluded), by term."""

    groups: WorkloadAffinityGroups
    affinity: tuple[GroupMember, ...] = ()
    """Members of its affinity group with a non-empty target list (an empty one does not constrain)."""
    anti_affinity: tuple[GroupMember, ...] = ()
    """Members of its anti-affinity group."""


def affinity_peers(
    groups: WorkloadAffinityGroups | None, namespace: str, itself: str, members: Iterable[GroupMember]
) -> AffinityPeers | None:
    """The members each filter compares with (same namespace, same group string, not itself), by name;
    None when the binding is in no group (both filters pass everything)."""
    if groups is None or not (groups.affinity_group or groups.anti_affinity_group):
        return None
    same = sorted(
        (m for m in members if m.namespace == namespace and m.binding != itself), key=lambda m: m.binding
    )
    affinity = tuple(
        m
        for m in same
        if groups.affinity_group and m.groups.affinity_group == groups.affinity_group and m.clusters
    )
    anti = tuple(
        m
        for m in same
        if groups.anti_affinity_group and m.groups.anti_affinity_group == groups.anti_affinity_group
    )
    return AffinityPeers(groups, affinity, anti)


def workload_affinity_verdict(
    cluster: str, peers: AffinityPeers | None, previous_clusters: Collection[str]
) -> tuple[str, str]:
    """WorkloadAffinity's filter (``obeyAffinityGroup``): (rejection reason or "", what decided it). A
    cluster the binding already targets passes; otherwise it must be in the target list of every placed
    member of the affinity group (none placed: the binding is the group's first and places freely)."""
    if peers is None or not peers.groups.affinity_group:
        return "", ""
    group = peers.groups.affinity_group
    if cluster in previous_clusters:
        held = [m.binding for m in peers.affinity if cluster in m.clusters]
        tail = f"; anchored by {', '.join(held)}" if held else ""
        return "", f"affinity group {group}: already targeted, which always passes{tail}"
    missing = [m.binding for m in peers.affinity if cluster not in m.clusters]
    if missing:
        return AFFINITY_REASON, f"affinity group {group}: {', '.join(missing)} not on this cluster"
    if peers.affinity:
        anchors = ", ".join(m.binding for m in peers.affinity)
        return "", f"affinity group {group}: anchored by {anchors}"
    return "", f"affinity group {group}: no member placed yet, this binding anchors it"


def workload_anti_affinity_verdict(
    cluster: str, peers: AffinityPeers | None, previous_clusters: Collection[str]
) -> tuple[str, str]:
    """WorkloadAntiAffinity's filter (``obeyAntiAffinityGroup``): a cluster the binding already targets
    passes; otherwise no member of the anti-affinity group may target it."""
    if peers is None or not peers.groups.anti_affinity_group:
        return "", ""
    group = peers.groups.anti_affinity_group
    blocking = [m.binding for m in peers.anti_affinity if cluster in m.clusters]
    if cluster in previous_clusters:
        tail = f"; {', '.join(blocking)} is on it too" if blocking else ""
        return "", f"anti-affinity group {group}: already targeted, which always passes{tail}" if tail else ""
    if blocking:
        return ANTI_AFFINITY_REASON, f"anti-affinity group {group}: {', '.join(blocking)} is on this cluster"
    return "", ""
