"""Per-cluster dispatch decisions of Karmada's binding controller (``pkg/controllers/binding/common.go``).

* ``should_suspend_dispatching``: a cluster's rendered file is frozen when dispatching is suspended;
* ``merge_target_clusters``: where an attached (dependency) binding goes: its own clusters plus those of
  every binding that requires it, first seen first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.model.bindings import BindingSnapshot, TargetCluster
    from gitops_karmada.model.policies import Suspension


def should_suspend_dispatching(suspension: Suspension | None, cluster: str) -> bool:
    """True when ``dispatching`` is true, or the cluster is listed in ``dispatchingOnClusters``."""
    if suspension is None:
        return False
    if suspension.dispatching is True:
        return True
    on_clusters = suspension.dispatching_on_clusters
    return on_clusters is not None and cluster in on_clusters.cluster_names


def merge_target_clusters(
    clusters: Iterable[TargetCluster], required_by: Iterable[BindingSnapshot]
) -> tuple[TargetCluster, ...]:
    """The union of a binding's clusters and its requirers' clusters, in first-seen order."""
    merged: dict[str, TargetCluster] = {}
    for target in clusters:
        merged.setdefault(target.name, target)
    for snapshot in required_by:
        for target in snapshot.clusters:
            merged.setdefault(target.name, target)
    return tuple(merged.values())
