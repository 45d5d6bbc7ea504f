"""FederatedResourceQuota enforcement over one reconcile run: each binding change admitted in order.

Karmada writes a binding in two requests, and the webhook judges each one:

1. TEMPLATE — the resource detector writes the new replicas/requirements/components (``spec.clusters`` as
   stored; a new binding is created without clusters, which is never checked);
2. PLACEMENT — the scheduler patches ``spec.clusters``.

A denial at (1) leaves the binding exactly as stored (the members keep their manifests); a denial at (2)
keeps the template's new demand with the stored placement, and the scheduler records
``Scheduled=False, reason QuotaExceeded``. Accepted requests reserve their delta in the FRQ's
``status.overallUsed`` before the next request is judged.

Order assumed (documented for the pipeline): bindings of templates deleted in this run go first (the
controller recounts on deletion, freeing their usage), then the proposed bindings in the order given — the
pipeline's template order, sorted by (group, kind, namespace, name). At the end each FRQ's status is the
enforcement controller's exact recount over the bindings that stand.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.quota.admission import Admission, AdmissionOperation, QuotaUpdate, review_binding
from gitops_karmada.core.quota.resourcelist import sorted_resources
from gitops_karmada.core.quota.status import federated_quota_status, member_quota_statuses
from gitops_karmada.core.quota.usage import RESOURCE_BINDING, overall_used
from gitops_karmada.model.quotas import FederatedResourceQuotaStatus

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.bindings import ResourceBinding, ResourceBindingSpec
    from gitops_karmada.model.quantity import Quantity
    from gitops_karmada.model.quotas import FederatedResourceQuota

BindingIdentity = tuple[str, str, str]
"""(kind, namespace, name) of a binding."""


class AdmissionStage(enum.StrEnum):
    TEMPLATE = "template"
    """The detector writes what the template demands (replicas, requirements, components)."""
    PLACEMENT = "placement"
    """The scheduler patches the placement (``spec.clusters``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StageAdmission:
    stage: AdmissionStage
    operation: AdmissionOperation
    admission: Admission

    def to_dict(self) -> dict[str, object]:
        return {"stage": str(self.stage), "operation": str(self.operation), **self.admission.to_dict()}


@dataclass(frozen=True, slots=True, kw_only=True)
class BindingQuotaVerdict:
    """What quota enforcement made of one proposed binding."""

    binding: ResourceBinding
    """The binding that stands: the proposal, or (denied) the stored one / the stored placement."""
    steps: tuple[StageAdmission, ...] = ()
    """The webhook requests judged (none for a ClusterResourceBinding: FRQs are namespaced)."""

    @property
    def denial(self) -> StageAdmission | None:
        return next((s for s in self.steps if not s.admission.allowed), None)

    @property
    def allowed(self) -> bool:
        return self.denial is None

    @property
    def denied_at(self) -> AdmissionStage | None:
        denial = self.denial
        return denial.stage if denial is not None else None

    @property
    def keeps_previous(self) -> bool:
        """Denied before the template's demand was written: binding and manifests stay as they were."""
        return self.denied_at is AdmissionStage.TEMPLATE

    @property
    def reason(self) -> str:
        denial = self.denial
        return denial.admission.reason if denial is not None else ""

    @property
    def message(self) -> str:
        denial = self.denial
        return denial.admission.message if denial is not None else ""

    def to_dict(self) -> dict[str, object]:
        meta = self.binding.metadata
        data: dict[str, object] = {
            "binding": f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name,
            "allowed": self.allowed,
        }
        if not self.allowed:
            data |= {"deniedAt": str(self.denied_at), "reason": self.reason, "message": self.message}
        data["steps"] = [step.to_dict() for step in self.steps]
        return data


def binding_identity(binding: ResourceBinding) -> BindingIdentity:
    return (binding.kind, binding.metadata.namespace or "", binding.metadata.name)


def _with_overall_used(frq: FederatedResourceQuota, used: Mapping[str, Quantity]) -> FederatedResourceQuota:
    status = FederatedResourceQuotaStatus(
        overall=sorted_resources(frq.spec.overall),
        overall_used=dict(used),
        aggregated_status=frq.status.aggregated_status,
    )
    return frq.model_copy(update={"status": status})


@dataclass(frozen=True, slots=True)
class QuotaLedger:
    """The FRQs with their running ``status.overallUsed`` while a run's binding changes are admitted.

    Immutable: ``admit_binding`` returns the next ledger together with its verdict.
    """

    enforcement: bool
    """Gate FederatedQuotaEnforcement; off, every change is allowed without a check."""
    quotas: tuple[FederatedResourceQuota, ...] = ()
    """Sorted by (namespace, name) — the webhook lists a namespace's FRQs in name order."""

    @classmethod
    def open(
        cls,
        frqs: Iterable[FederatedResourceQuota],
        standing: Iterable[ResourceBinding],
        *,
        enforcement: bool,
    ) -> QuotaLedger:
        """Start from the controller's exact count over ``standing`` (bindings of deleted templates left out).

        A status already written in an FRQ document is not trusted: the enforcement controller recounts on
        create and periodically, so the settled value is the count.
        """
        bindings = tuple(standing)
        quotas = sorted(frqs, key=lambda q: (q.namespace, q.name))
        return cls(
            enforcement=enforcement,
            quotas=tuple(_with_overall_used(q, overall_used(q, bindings)) for q in quotas),
        )

    def in_namespace(self, namespace: str) -> tuple[FederatedResourceQuota, ...]:
        return tuple(q for q in self.quotas if q.namespace == namespace)

    def _apply(self, updates: Sequence[QuotaUpdate]) -> QuotaLedger:
        if not updates:
            return self
        written = {(u.namespace, u.name): u.overall_used for u in updates}
        quotas = tuple(
            _with_overall_used(q, written[(q.namespace, q.name)]) if (q.namespace, q.name) in written else q
            for q in self.quotas
        )
        return replace(self, quotas=quotas)

    def admit_binding(
        self, previous: ResourceBinding | None, proposed: ResourceBinding
    ) -> tuple[QuotaLedger, BindingQuotaVerdict]:
        """Judge ``proposed`` against the running status (``previous``: the stored binding, None if new)."""
        if proposed.kind != RESOURCE_BINDING:
            return self, BindingQuotaVerdict(binding=proposed)
        frqs = self.in_namespace(proposed.metadata.namespace or "")
        stored: ResourceBindingSpec | None = previous.spec if previous is not None else None
        # the detector's write: the template's demand, the placement as stored
        demand_spec = proposed.spec.model_copy(
            update={"clusters": stored.clusters if stored is not None else ()}
        )
        operation = AdmissionOperation.UPDATE if stored is not None else AdmissionOperation.CREATE
        first = StageAdmission(
            stage=AdmissionStage.TEMPLATE,
            operation=operation,
            admission=review_binding(operation, stored, demand_spec, frqs, enforcement=self.enforcement),
        )
        if not first.admission.allowed:
            assert previous is not None  # a CREATE has no clusters and is never checked
            return self, BindingQuotaVerdict(binding=previous, steps=(first,))
        ledger = self._apply(first.admission.updates)
        second = StageAdmission(
            stage=AdmissionStage.PLACEMENT,
            operation=AdmissionOperation.UPDATE,
            admission=review_binding(
                AdmissionOperation.UPDATE,
                demand_spec,
                proposed.spec,
                ledger.in_namespace(proposed.metadata.namespace or ""),
                enforcement=self.enforcement,
            ),
        )
        if not second.admission.allowed:
            kept = proposed.model_copy(update={"spec": demand_spec})
            return ledger, BindingQuotaVerdict(binding=kept, steps=(first, second))
        return ledger._apply(second.admission.updates), BindingQuotaVerdict(
            binding=proposed, steps=(first, second)
        )


@dataclass(frozen=True, slots=True)
class QuotaOutcome:
    """Per proposed binding a verdict (same order), and every FRQ with its final status."""

    verdicts: tuple[BindingQuotaVerdict, ...]
    quotas: tuple[FederatedResourceQuota, ...]
    """Sorted by (namespace, name); ``status`` is what the state folder records."""
    bindings: tuple[ResourceBinding, ...] = ()
    """The bindings that stand, in the order of the proposal."""

    @property
    def denied(self) -> tuple[BindingQuotaVerdict, ...]:
        return tuple(v for v in self.verdicts if not v.allowed)

    def to_dict(self) -> dict[str, object]:
        return {
            "denied": [v.to_dict() for v in self.denied],
            "quotas": [
                {"namespace": q.namespace, "name": q.name, "status": q.status.to_api()} for q in self.quotas
            ],
        }


def enforce_quotas(
    frqs: Iterable[FederatedResourceQuota],
    previous_bindings: Iterable[ResourceBinding],
    proposed_bindings: Sequence[ResourceBinding],
    *,
    enforcement: bool,
    snapshots: Mapping[str, ClusterSnapshot] | None = None,
) -> QuotaOutcome:
    """Admit a whole run's binding changes in order and settle every FRQ's status.

    ``previous_bindings``: the stored records; ``proposed_bindings``: every binding the run wants to keep or
    write, in the pipeline's template order (a previous binding absent from it is a deletion).
    ``enforcement``: gate FederatedQuotaEnforcement. ``snapshots``: cluster snapshots, read for the member
    ResourceQuotas (``aggregatedStatus``, and ``overallUsed`` when the gate is off).
    """
    quotas = tuple(frqs)
    previous = {binding_identity(b): b for b in previous_bindings}
    proposed_ids = {binding_identity(b) for b in proposed_bindings}
    standing = [b for ident, b in previous.items() if ident in proposed_ids]
    ledger = QuotaLedger.open(quotas, standing, enforcement=enforcement)
    verdicts = []
    for binding in proposed_bindings:
        ledger, verdict = ledger.admit_binding(previous.get(binding_identity(binding)), binding)
        verdicts.append(verdict)
    final = tuple(v.binding for v in verdicts)
    settled = tuple(
        q.model_copy(
            update={
                "status": federated_quota_status(
                    q,
                    final,
                    enforcement=enforcement,
                    members=member_quota_statuses(q, snapshots or {}),
                )
            }
        )
        for q in sorted(quotas, key=lambda q: (q.namespace, q.name))
    )
    return QuotaOutcome(verdicts=tuple(verdicts), quotas=settled, bindings=final)
