"""Application failover: evict a workload from clusters where it stayed unhealthy too long.

``pkg/controllers/applicationfailover/`` (RB and CRB controllers, ``common.go``). Karmada keeps the
first-seen-unhealthy times in the controller's memory; here they are an input and an output (the caller
keeps them in the state), so a run is a pure function of the binding, the observed status and ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.failover.evict import (
    CRB_APPLICATION_FAILOVER_PRODUCER,
    EVICTION_REASON_APPLICATION_FAILURE,
    RB_APPLICATION_FAILOVER_PRODUCER,
    graceful_evict_cluster,
)
from gitops_karmada.core.failover.state import StatePreservationError, build_preserved_label_state
from gitops_karmada.model.bindings import AggregatedStatusItem, GracefulEvictionTask, ResourceBindingSpec
from gitops_karmada.model.policies import ApplicationFailoverBehavior, PurgeMode, StatePreservation
from gitops_karmada.model.purge_modes import canonical_purge_mode

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

RESOURCE_UNHEALTHY = "Unhealthy"
_FORGOTTEN_HEALTH = frozenset({"Healthy", "Unknown"})
DEFAULT_TOLERATION_SECONDS = 300
AFTER_DEADLINE_SECONDS = 1
"""How long after a deadline reached exactly the next look comes (times here are whole seconds)."""


class ApplicationFailoverError(ValueError):
    """A failover that cannot be carried out yet (status not collected, a gate off): retried next run."""


@dataclass(frozen=True, slots=True)
class ApplicationFailoverResult:
    spec: ResourceBindingSpec
    evicted_clusters: tuple[str, ...] = ()
    requeue_after_seconds: float = 0
    """When to look again (0: only on the next change)."""
    unhealthy_since: Mapping[str, str] = field(default_factory=dict)
    """First-seen-unhealthy time per cluster after this run."""
    ignored: bool = False
    """The binding is not subject to application failover (its memory is dropped)."""
    error: str = ""
    """Why a due eviction could not be carried out (status not collected, a gate off): Karmada returns the
    error and retries, so nothing is evicted and the new first-seen times are kept."""


def applies(spec: ResourceBindingSpec, observed: Sequence[AggregatedStatusItem], health_hook: bool) -> bool:
    """The controllers' filter: failover.application set, status observed, a health hook, propagateDeps."""
    return (
        spec.failover is not None
        and spec.failover.application is not None
        and bool(observed)
        and health_hook
        and spec.propagate_deps
    )


def _task(
    behavior: ApplicationFailoverBehavior,
    observed: Sequence[AggregatedStatusItem],
    cluster: str,
    *,
    cluster_scoped: bool,
    clusters_before: tuple[str, ...],
    graceful_eviction_gate: bool,
    injection_gate: bool,
) -> GracefulEvictionTask:
    """``buildTaskOptions``: the task an eviction from ``cluster`` leaves."""
    update: dict[str, object] = {}
    if injection_gate and behavior.state_preservation is not None and behavior.state_preservation.rules:
        update |= _preserved(behavior.state_preservation, observed, cluster, clusters_before)
    mode = canonical_purge_mode(behavior.purge_mode)
    if mode is PurgeMode.GRACEFULLY and not graceful_eviction_gate:
        raise ApplicationFailoverError(
            f"GracefulEviction featureGate must be enabled when purgeMode is {behavior.purge_mode or mode}"
        )
    if mode is PurgeMode.GRACEFULLY:
        update["grace_period_seconds"] = behavior.grace_period_seconds
    elif mode is PurgeMode.NEVER:
        update["suppress_deletion"] = True
    return GracefulEvictionTask(
        from_cluster=cluster,
        purge_mode=str(behavior.purge_mode or PurgeMode.GRACEFULLY),
        reason=EVICTION_REASON_APPLICATION_FAILURE,
        producer=CRB_APPLICATION_FAILOVER_PRODUCER if cluster_scoped else RB_APPLICATION_FAILOVER_PRODUCER,
    ).model_copy(update=update)


def _preserved(
    preservation: StatePreservation,
    observed: Sequence[AggregatedStatusItem],
    cluster: str,
    clusters_before: tuple[str, ...],
) -> dict[str, object]:
    item = next((i for i in observed if i.cluster_name == cluster), None)
    if item is None or item.status is None:
        raise ApplicationFailoverError(
            f"the application status has not yet been collected from Cluster({cluster})"
        )
    try:
        labels = build_preserved_label_state(preservation.rules, item.status)
    except StatePreservationError as problem:
        raise ApplicationFailoverError(str(problem)) from problem
    return {"preserved_label_state": labels, "clusters_before_failover": clusters_before} if labels else {}


def run_application_failover(
    spec: ResourceBindingSpec,
    observed: Sequence[AggregatedStatusItem],
    *,
    now: datetime,
    unhealthy_since: Mapping[str, str],
    health_hook: bool,
    cluster_scoped: bool = False,
    graceful_eviction_gate: bool = True,
    injection_gate: bool = False,
) -> ApplicationFailoverResult:
    """One reconcile of the application failover controller for one binding."""
    if not applies(spec, observed, health_hook):
        return ApplicationFailoverResult(spec, ignored=True)
    assert spec.failover is not None and spec.failover.application is not None
    behavior = spec.failover.application
    toleration = behavior.decision_conditions.toleration_seconds
    toleration = DEFAULT_TOLERATION_SECONDS if toleration is None else toleration
    in_tasks = {task.from_cluster for task in spec.graceful_eviction_tasks}
    unhealthy = [
        i.cluster_name for i in observed if i.health == RESOURCE_UNHEALTHY and i.cluster_name not in in_tasks
    ]
    # ``distinguishUnhealthyClustersWithOthers``: only a Healthy or Unknown report makes it forget a
    # cluster (an Unhealthy one with an eviction task keeps its time)
    others = {i.cluster_name for i in observed if i.health in _FORGOTTEN_HEALTH}
    memory = dict(unhealthy_since)
    requeue: float | None = None
    due: list[str] = []
    for cluster in unhealthy:
        if cluster not in memory:
            memory[cluster] = format_time(now)
            requeue = toleration if requeue is None else min(requeue, toleration)
            continue
        since = parse_time(memory[cluster])
        if now > since + seconds(toleration):
            due.append(cluster)
        else:
            # Karmada truncates the elapsed time to whole seconds; at the deadline itself nothing is due
            # yet ("strictly after"), so the next look is a second later, never "now" again
            left = max(toleration - int((now - since).total_seconds()), AFTER_DEADLINE_SECONDS)
            requeue = left if requeue is None else min(requeue, left)
    clusters_before = tuple(c.name for c in spec.clusters)
    before = set(clusters_before)
    result = spec
    try:
        for cluster in due:
            task = _task(
                behavior,
                observed,
                cluster,
                cluster_scoped=cluster_scoped,
                clusters_before=clusters_before,
                graceful_eviction_gate=graceful_eviction_gate,
                injection_gate=injection_gate,
            )
            result = graceful_evict_cluster(result, cluster, task)
    except ApplicationFailoverError as problem:
        return ApplicationFailoverResult(
            spec, unhealthy_since=dict(sorted(memory.items())), error=str(problem)
        )
    # ``deleteIrrelevantClusters``: forget clusters no longer scheduled once the binding is updated (those
    # just evicted included) and those reporting Healthy or Unknown
    scheduled = {c.name for c in result.clusters}
    memory = {c: t for c, t in memory.items() if c in scheduled and c not in others}
    return ApplicationFailoverResult(
        result,
        evicted_clusters=tuple(c for c in due if c in before),
        requeue_after_seconds=float(requeue or 0),
        unhealthy_since=dict(sorted(memory.items())),
    )
