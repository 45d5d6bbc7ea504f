"""The member ResourceQuotas of a FederatedResourceQuota's staticAssignments (the sync controller's Works).

For every cluster named in ``spec.staticAssignments`` Karmada puts a ``v1 ResourceQuota`` with the FRQ's
namespace and name and ``spec.hard`` = that cluster's assignment. Plain dicts here; the pipeline renders
them into the cluster folders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.quota.resourcelist import resources_to_api

if TYPE_CHECKING:
    from gitops_karmada.model.quotas import FederatedResourceQuota


def static_assignment_quotas(frq: FederatedResourceQuota) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(cluster name, ResourceQuota manifest) per assigned cluster, sorted by cluster name.

    A cluster listed twice gets its first assignment, as ``extractClusterHardResourceList`` returns the
    first match (the FRQ validation in ``validation.py`` reports such duplicates).
    """
    hard_by_cluster: dict[str, dict[str, str]] = {}
    for assignment in frq.spec.static_assignments:
        hard_by_cluster.setdefault(assignment.cluster_name, resources_to_api(assignment.hard))
    return tuple(
        (
            cluster,
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": frq.name, "namespace": frq.namespace},
                "spec": {"hard": hard_by_cluster[cluster]},
            },
        )
        for cluster in sorted(hard_by_cluster)
    )
