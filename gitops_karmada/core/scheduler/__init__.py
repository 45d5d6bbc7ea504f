"""Karmada's scheduler, pure and explainable: filters, estimation, spread selection, replica division.

The pipeline calls ``schedule()`` with a ``ScheduleRequest`` per binding and a ``ClusterIndex`` built once
for the fleet; the ``ScheduleResult`` carries the target clusters, the Scheduled condition and an
explanation of every step.
"""

from __future__ import annotations

from gitops_karmada.core.scheduler.accurate import AccurateEstimator
from gitops_karmada.core.scheduler.cluster_index import ClusterIndex, effective_taints
from gitops_karmada.core.scheduler.division import divide_job_completions
from gitops_karmada.core.scheduler.errors import ConditionReason
from gitops_karmada.core.scheduler.estimate import (
    AssumedComponent,
    AssumedWorkload,
    Estimator,
    GeneralEstimator,
)
from gitops_karmada.core.scheduler.explanation import ScheduleExplanation
from gitops_karmada.core.scheduler.schedule import ScheduleRequest, ScheduleResult, schedule

__all__ = [
    "AccurateEstimator",
    "AssumedComponent",
    "AssumedWorkload",
    "ClusterIndex",
    "ConditionReason",
    "Estimator",
    "GeneralEstimator",
    "ScheduleExplanation",
    "ScheduleRequest",
    "ScheduleResult",
    "divide_job_completions",
    "effective_taints",
    "schedule",
]
