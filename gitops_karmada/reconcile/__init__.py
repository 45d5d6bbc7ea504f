"""The run: one repository state in, the desired cluster folders and binding records out (pure)."""

from __future__ import annotations

from gitops_karmada.reconcile.run import (
    Identity,
    PreviousRun,
    ReconcileRequest,
    RenderResult,
    TemplateOutcome,
    blob_sha,
    next_request,
    reconcile,
)

__all__ = [
    "Identity",
    "PreviousRun",
    "ReconcileRequest",
    "RenderResult",
    "TemplateOutcome",
    "blob_sha",
    "next_request",
    "reconcile",
]
