"""``ResourceBindingSpec.GracefulEvictCluster``: take a cluster out of the result and leave a task behind.

The task is what keeps (or purges) the evicted cluster's files and what stops the scheduler from placing
the binding there again (the ClusterEviction filter). Karmada skips the task when one for that cluster
exists already, but removes the cluster from the result either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitops_karmada.model.bindings import GracefulEvictionTask, ResourceBindingSpec

EVICTION_REASON_TAINT_UNTOLERATED = "TaintUntolerated"
EVICTION_REASON_APPLICATION_FAILURE = "ApplicationFailure"
EVICTION_PRODUCER_TAINT_MANAGER = "TaintManager"
RB_APPLICATION_FAILOVER_PRODUCER = "resource-binding-application-failover-controller"
CRB_APPLICATION_FAILOVER_PRODUCER = "cluster-resource-binding-application-failover-controller"


def graceful_evict_cluster(
    spec: ResourceBindingSpec, cluster: str, task: GracefulEvictionTask
) -> ResourceBindingSpec:
    """``spec`` without ``cluster`` in its result and with ``task`` appended (``fromCluster`` and
    ``replicas`` are filled from the evicted target); unchanged when the cluster is not in the result."""
    target = next((c for c in spec.clusters if c.name == cluster), None)
    if target is None:
        return spec
    clusters = tuple(c for c in spec.clusters if c.name != cluster)
    if any(t.from_cluster == cluster for t in spec.graceful_eviction_tasks):
        return spec.model_copy(update={"clusters": clusters})
    filled = task.model_copy(
        update={"from_cluster": cluster, "replicas": target.replicas if target.replicas > 0 else None}
    )
    return spec.model_copy(
        update={"clusters": clusters, "graceful_eviction_tasks": (*spec.graceful_eviction_tasks, filled)}
    )
