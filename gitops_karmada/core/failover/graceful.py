"""The graceful eviction controller: when an eviction task ends and the old cluster's copy may go.

``pkg/controllers/gracefuleviction/evictiontask.go`` (v1.17's fix applied: each task's gracePeriodSeconds
is its own, where v1.16 and earlier leaked one task's into the following ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time, parse_time, seconds

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from gitops_karmada.model.bindings import AggregatedStatusItem, GracefulEvictionTask, TargetCluster

RESOURCE_HEALTHY = "Healthy"
AFTER_DEADLINE_SECONDS = 1.0
"""How long after a deadline reached exactly the next look comes (times here are whole seconds)."""


@dataclass(frozen=True, slots=True)
class TaskAssessment:
    kept: tuple[GracefulEvictionTask, ...]
    evicted_clusters: tuple[str, ...]
    """Clusters whose task ended: their copy is purged now."""
    next_retry_seconds: float
    """When to look again (0: only on the next change)."""


def _timeout(task: GracefulEvictionTask, default_timeout_seconds: float) -> float:
    return (
        float(task.grace_period_seconds) if task.grace_period_seconds is not None else default_timeout_seconds
    )


def _all_scheduled_healthy(
    schedule_result: Sequence[TargetCluster], observed: Sequence[AggregatedStatusItem]
) -> bool:
    health = {item.cluster_name: item.health for item in observed}
    return all(health.get(target.name) == RESOURCE_HEALTHY for target in schedule_result)


def _keep(
    task: GracefulEvictionTask,
    *,
    now: datetime,
    default_timeout_seconds: float,
    has_scheduled: bool,
    schedule_result: Sequence[TargetCluster],
    observed: Sequence[AggregatedStatusItem],
) -> bool:
    if task.suppress_deletion is not None:
        return task.suppress_deletion
    assert task.creation_timestamp is not None
    if now > parse_time(task.creation_timestamp) + seconds(_timeout(task, default_timeout_seconds)):
        return False
    # a binding the scheduler has not seen yet may carry an old status: health is not trusted then
    return not (has_scheduled and _all_scheduled_healthy(schedule_result, observed))


def assess_eviction_tasks(
    tasks: Sequence[GracefulEvictionTask],
    *,
    now: datetime,
    default_timeout_seconds: float,
    has_scheduled: bool,
    schedule_result: Sequence[TargetCluster],
    observed: Sequence[AggregatedStatusItem],
) -> TaskAssessment:
    """``assessEvictionTasks`` + ``nextRetry``: stamp new tasks, drop the ones whose time is up, whose
    deletion is no longer suppressed, or whose new placement all reports Healthy."""
    kept: list[GracefulEvictionTask] = []
    evicted: list[str] = []
    for task in tasks:
        if task.creation_timestamp is None:
            kept.append(task.model_copy(update={"creation_timestamp": format_time(now)}))
        elif _keep(
            task,
            now=now,
            default_timeout_seconds=default_timeout_seconds,
            has_scheduled=has_scheduled,
            schedule_result=schedule_result,
            observed=observed,
        ):
            kept.append(task)
        else:
            evicted.append(task.from_cluster)
    return TaskAssessment(tuple(kept), tuple(evicted), next_retry_seconds(kept, default_timeout_seconds, now))


def next_retry_seconds(
    tasks: Sequence[GracefulEvictionTask], default_timeout_seconds: float, now: datetime
) -> float:
    """The earliest remaining timeout over tasks not under the user's control (0: none). A timeout reached
    exactly ends the task only once passed ("strictly after"): the next look is then a second later."""
    remaining = [
        (
            parse_time(task.creation_timestamp) + seconds(_timeout(task, default_timeout_seconds)) - now
        ).total_seconds()
        for task in tasks
        if task.suppress_deletion is None and task.creation_timestamp is not None
    ]
    return max(min(remaining), AFTER_DEADLINE_SECONDS) if remaining else 0
