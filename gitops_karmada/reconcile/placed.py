"""A template placed: what interpretation and the scheduler made of its claim (``reconcile.placing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitops_karmada.core.scheduler import ScheduleResult
    from gitops_karmada.model.bindings import (
        Component,
        ReplicaRequirements,
        TargetCluster,
        WorkloadAffinityGroups,
    )
    from gitops_karmada.model.clusters import Condition
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.reconcile.claims import Claim


@dataclass(frozen=True, slots=True)
class Placed:
    claim: Claim
    replicas: int
    requirements: ReplicaRequirements | None
    components: tuple[Component, ...]
    targets: tuple[TargetCluster, ...]
    condition: Condition | None
    """The Scheduled condition; None for an attached binding (never scheduled itself)."""
    changed: bool
    """Whether the scheduling result differs from the previous one (for lastScheduledTime)."""
    observed_affinity: str
    template_hash: str
    lazy_hold: bool
    schedule: ScheduleResult | None = None
    reason: str | None = None
    """Why scheduling ran; None when the previous result was kept."""
    diagnostics: tuple[Diagnostic, ...] = ()
    groups: WorkloadAffinityGroups | None = None
    """``spec.workloadAffinityGroups`` (gate WorkloadAffinity, ``core.scheduler.workload_affinity``)."""
