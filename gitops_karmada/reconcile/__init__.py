"""The run: one repository state in, the desired cluster folders and binding records out (pure).

``reconcile`` (``reconcile.run``) reads as its steps: prepare → scope → judge → redo → assemble → guard.
"""

from __future__ import annotations

from gitops_karmada.reconcile.outcome import TemplateOutcome
from gitops_karmada.reconcile.request import (
    FanOut,
    Identity,
    ManagedBlobs,
    Ports,
    ReconcileRequest,
    RepoSnapshot,
    RunMode,
    WarmCaches,
    blob_sha,
)
from gitops_karmada.reconcile.result import RenderResult, next_request
from gitops_karmada.reconcile.run import reconcile

__all__ = [
    "FanOut",
    "Identity",
    "ManagedBlobs",
    "Ports",
    "ReconcileRequest",
    "RenderResult",
    "RepoSnapshot",
    "RunMode",
    "TemplateOutcome",
    "WarmCaches",
    "blob_sha",
    "next_request",
    "reconcile",
]
