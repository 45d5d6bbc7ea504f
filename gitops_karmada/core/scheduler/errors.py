"""The scheduler's failures, each mapped to the Scheduled condition reason Karmada would report."""

from __future__ import annotations

import enum

from gitops_karmada.model.errors import SchedulingError


class ConditionReason(enum.StrEnum):
    """Reasons of the binding's ``Scheduled`` condition (``pkg/apis/work/v1alpha2``)."""

    SUCCESS = "Success"
    NO_CLUSTER_FIT = "NoClusterFit"
    UNSCHEDULABLE = "Unschedulable"
    SCHEDULER_ERROR = "SchedulerError"


class ScheduleStepError(SchedulingError):
    """A step of the algorithm failed; ``detail`` keeps that step's explanation record (or None)."""

    reason = ConditionReason.SCHEDULER_ERROR

    def __init__(self, message: str, detail: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class FitError(ScheduleStepError):
    """No cluster passed the filters (``framework.FitError``); the message is Karmada's histogram."""

    reason = ConditionReason.NO_CLUSTER_FIT


class UnschedulableError(ScheduleStepError):
    """The candidates cannot hold the replicas (``framework.UnschedulableError``)."""

    reason = ConditionReason.UNSCHEDULABLE


class SpreadConstraintError(ScheduleStepError):
    """The spread constraints cannot be satisfied by the candidates."""


class AssignmentError(ScheduleStepError):
    """Replica assignment is impossible for a reason other than capacity (no candidates, bad strategy)."""
