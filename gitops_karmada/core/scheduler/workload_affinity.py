"""WorkloadAffinity (v1.17, gate WorkloadAffinity, alpha): workloads placed with, or away from, their group.

A policy's ``placement.workloadAffinity`` names a label key of the resource template; the detector makes the
template's group ``<key>=<value>`` from its own labels (``getWorkloadAffinityGroups``), recorded on its
ResourceBinding as ``workloadAffinityGroups``. The scheduler's two filters then compare a candidate cluster
with the clusters of the other bindings of the same group and namespace that are already placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gitops_karmada.model.bindings import WorkloadAffinityGroups

if TYPE_CHECKING:
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
