"""FederatedResourceQuota: usage of bindings, the webhook's admission check, enforcement over a run, status.

Pure: bindings and quotas in, verdicts and statuses out. The pipeline calls ``enforce_quotas`` once per run
(or ``QuotaLedger`` step by step), writes each FRQ's status to the state folder and renders
``static_assignment_quotas`` into the assigned clusters' folders.
"""

from __future__ import annotations

from gitops_karmada.core.quota.admission import (
    QUOTA_EXCEEDED,
    Admission,
    AdmissionOperation,
    QuotaCheck,
    QuotaCheckOutcome,
    QuotaUpdate,
    SkipReason,
    is_quota_relevant_change,
    review_binding,
)
from gitops_karmada.core.quota.assignments import static_assignment_quotas
from gitops_karmada.core.quota.enforcement import (
    AdmissionStage,
    BindingQuotaVerdict,
    QuotaLedger,
    QuotaOutcome,
    StageAdmission,
    enforce_quotas,
)
from gitops_karmada.core.quota.status import (
    MemberQuotaStatus,
    federated_quota_status,
    member_quota_statuses,
    overall_used_from_member_quotas,
)
from gitops_karmada.core.quota.usage import calculate_resource_usage, overall_used
from gitops_karmada.core.quota.validation import FieldProblem, validate_federated_resource_quota

__all__ = [
    "QUOTA_EXCEEDED",
    "Admission",
    "AdmissionOperation",
    "AdmissionStage",
    "BindingQuotaVerdict",
    "FieldProblem",
    "MemberQuotaStatus",
    "QuotaCheck",
    "QuotaCheckOutcome",
    "QuotaLedger",
    "QuotaOutcome",
    "QuotaUpdate",
    "SkipReason",
    "StageAdmission",
    "calculate_resource_usage",
    "enforce_quotas",
    "federated_quota_status",
    "is_quota_relevant_change",
    "member_quota_statuses",
    "overall_used",
    "overall_used_from_member_quotas",
    "review_binding",
    "static_assignment_quotas",
    "validate_federated_resource_quota",
]
