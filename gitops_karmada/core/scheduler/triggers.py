"""When a binding is scheduled again, following ``doScheduleBinding`` (``pkg/scheduler/scheduler.go``).

Karmada schedules a binding when its placement changed, its replicas changed, a reschedule was
requested, or it is Duplicated / has no replicas (re-evaluated whenever it is enqueued). A binding is
enqueued when something it reads changed: here, when its inputs' fingerprint differs from the one its
record was made from. So a Duplicated binding whose inputs did not change keeps its result, as in Karmada,
and a run is idempotent on its own output (a result that depended on the previous clusters, such as a
NoSchedule taint tolerated on a cluster the binding was already on, is not re-judged without its old
clusters). A Divided workload whose
placement and replicas are unchanged keeps its division even when clusters change (Karmada's own
"TODO: reschedule bindings on cluster change"). Two additions, both what a user expects of a
reconciler that runs per commit: a binding whose last scheduling failed is retried (Karmada's queue
retries it too), and a binding that targets a cluster no longer in the inventory is rescheduled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.model.policies import ReplicaSchedulingType
from gitops_karmada.model.versions import KarmadaVersion

if TYPE_CHECKING:
    from collections.abc import Set

    from gitops_karmada.model.bindings import Component, ResourceBinding, TargetCluster
    from gitops_karmada.model.policies import Placement, ReplicaSchedulingStrategy


def scheduling_reason(
    previous: ResourceBinding | None,
    placement: Placement,
    replicas: int,
    components: tuple[Component, ...],
    cluster_names: Set[str],
    *,
    reschedule: bool,
    enqueued: bool = True,
) -> str | None:
    """Why the binding must be scheduled now, or None to keep the previous result.

    ``enqueued``: something the binding reads changed since its record was made (False: no event would
    enqueue it, so a Duplicated or non-workload binding is not re-evaluated)."""
    if previous is None:
        return "first schedule"
    if reschedule:
        return "reschedule requested"
    scheduled = previous.condition("Scheduled")
    if scheduled is None or scheduled.status != "True":
        return "the previous scheduling did not succeed"
    if previous.spec.placement != placement:
        return "placement changed"
    strategy = placement.replica_scheduling
    duplicated = strategy is None or strategy.replica_scheduling_type is ReplicaSchedulingType.DUPLICATED
    if replicas == 0 or duplicated:
        return "duplicated and non-workload bindings are re-evaluated when enqueued" if enqueued else None
    if previous.spec.components != components:
        return "components changed"
    if (
        sum(target.replicas for target in previous.spec.clusters) != replicas
        or previous.spec.replicas != replicas
    ):
        return "replicas changed"
    missing = sorted(target.name for target in previous.spec.clusters if target.name not in cluster_names)
    if missing:
        return f"target cluster(s) {', '.join(missing)} left the inventory"
    return None


def binding_replicas_changed(
    *,
    replicas: int,
    components: tuple[Component, ...],
    clusters: tuple[TargetCluster, ...],
    strategy: ReplicaSchedulingStrategy | None,
    multiple_pod_templates: bool,
    version: KarmadaVersion,
) -> bool:
    """``IsBindingReplicasChanged``: a Duplicated target without the binding's replicas, a Divided sum that
    differs; and (gate MultiplePodTemplatesScheduling, v1.17; v1.16.2) a component workload whose target
    list was emptied (a failover eviction), so that it is scheduled again: with at least one component from
    v1.18, more than one before. ``scheduling_reason`` re-evaluates component workloads every run anyway
    (they have no replicas of their own)."""
    fewest = 1 if version.at_least(KarmadaVersion.V1_18) else 2
    if multiple_pod_templates and len(components) >= fewest and not clusters:
        return True
    if strategy is None:
        return False
    if strategy.replica_scheduling_type is ReplicaSchedulingType.DUPLICATED:
        return any(target.replicas != replicas for target in clusters)
    return sum(target.replicas for target in clusters) != replicas
