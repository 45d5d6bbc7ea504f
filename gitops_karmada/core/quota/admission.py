"""The ResourceBinding webhook's FederatedResourceQuota check (``pkg/webhook/resourcebinding/validating.go``).

Rules (Karmada v1.16+, denial shape of v1.17+), gate FederatedQuotaEnforcement:

* CREATE without clusters is skipped; UPDATE is skipped unless a quota-relevant field changed (legacy
  resourceRequest, Σ cluster replicas, the set of cluster names when there are components, component count,
  replicas or resourceRequest);
* delta = usage(new) − usage(old), exact; nothing to check when it is all zero;
* per FRQ of the namespace, in list order: skip without ``spec.overall``; restrict the delta to overall's
  keys; skip when that is zero; prospective = ``status.overallUsed`` + delta through the *integer* resource
  model; any prospective value above the same key of ``spec.overall`` denies the whole request — every key is
  compared, so a scale-down is refused while another tracked resource stays over its limit;
* all pass: each FRQ with a non-zero delta gets ``status.overallUsed`` = prospective (a reservation the
  enforcement controller later replaces by an exact recount).

Pure: the caller applies the returned ``updates``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.quota.resourcelist import (
    ResourceMap,
    integer_resource_sum,
    is_effectively_zero,
    resources_to_api,
    restrict_resources,
    subtract_resources,
)
from gitops_karmada.core.quota.usage import calculate_resource_usage

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.model.bindings import Component, ResourceBindingSpec
    from gitops_karmada.model.quantity import Quantity
    from gitops_karmada.model.quotas import FederatedResourceQuota

QUOTA_EXCEEDED = "QuotaExceeded"
"""The denial's reason (v1.17+); the scheduler copies it into the binding's Scheduled=False condition."""
HTTP_OK = 200
HTTP_FORBIDDEN = 403


class AdmissionOperation(enum.StrEnum):
    CREATE = "CREATE"
    UPDATE = "UPDATE"


class SkipReason(enum.StrEnum):
    """Why the webhook allowed a request without comparing anything against a quota."""

    GATE_DISABLED = "FederatedQuotaEnforcement disabled"
    NO_CLUSTERS = "no clusters"
    NO_RELEVANT_CHANGE = "no quota-relevant field changed"
    NO_QUOTA = "no FederatedResourceQuota in namespace"
    NO_DELTA = "no effective delta"


class QuotaCheckOutcome(enum.StrEnum):
    NO_OVERALL = "noOverall"
    NO_DELTA = "noDeltaForQuota"
    WITHIN = "withinLimit"
    EXCEEDED = "exceeded"


@dataclass(frozen=True, slots=True, kw_only=True)
class QuotaCheck:
    """One FRQ as the webhook saw it: the delta restricted to its keys and the prospective overallUsed."""

    namespace: str
    name: str
    outcome: QuotaCheckOutcome
    delta: Mapping[str, Quantity] = field(default_factory=dict)
    prospective: Mapping[str, Quantity] = field(default_factory=dict)
    exceeded: str = ""
    """The resource over its limit (EXCEEDED only)."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"quota": f"{self.namespace}/{self.name}", "outcome": str(self.outcome)}
        if self.delta:
            data["delta"] = resources_to_api(self.delta)
        if self.prospective:
            data["prospectiveOverallUsed"] = resources_to_api(self.prospective)
        if self.exceeded:
            data["exceeded"] = self.exceeded
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class QuotaUpdate:
    """A ``status.overallUsed`` the webhook writes back (a full replacement)."""

    namespace: str
    name: str
    overall_used: Mapping[str, Quantity]


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """The webhook's answer to one CREATE/UPDATE of a ResourceBinding."""

    allowed: bool
    code: int
    reason: str = ""
    message: str = ""
    skipped: SkipReason | None = None
    delta: Mapping[str, Quantity] = field(default_factory=dict)
    checks: tuple[QuotaCheck, ...] = ()
    updates: tuple[QuotaUpdate, ...] = ()
    """Empty unless allowed: FRQs whose ``status.overallUsed`` changes, in list order."""

    def overall_used_after(self) -> dict[str, ResourceMap]:
        """FRQ name → the overallUsed written back (updated FRQs only)."""
        return {update.name: dict(update.overall_used) for update in self.updates}

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"allowed": self.allowed, "code": self.code}
        if self.reason:
            data["reason"] = self.reason
        if self.message:
            data["message"] = self.message
        if self.skipped is not None:
            data["skipped"] = str(self.skipped)
        if self.delta:
            data["delta"] = resources_to_api(self.delta)
        if self.checks:
            data["quotas"] = [check.to_dict() for check in self.checks]
        if self.updates:
            data["overallUsedAfter"] = {u.name: resources_to_api(u.overall_used) for u in self.updates}
        return data


def _skipped(reason: SkipReason, delta: Mapping[str, Quantity] | None = None) -> Admission:
    return Admission(allowed=True, code=HTTP_OK, skipped=reason, delta=delta or {})


def _legacy_request(spec: ResourceBindingSpec) -> Mapping[str, Quantity]:
    return spec.replica_requirements.resource_request if spec.replica_requirements is not None else {}


def _component_request(component: Component) -> Mapping[str, Quantity]:
    requirements = component.replica_requirements
    return requirements.resource_request if requirements is not None else {}


def are_components_changed(old: ResourceBindingSpec, new: ResourceBindingSpec) -> bool:
    """Component count, or (position by position) replicas or resourceRequest differ; nil-safe (v1.16+)."""
    if len(old.components) != len(new.components):
        return True
    return any(
        before.replicas != after.replicas or _component_request(before) != _component_request(after)
        for before, after in zip(old.components, new.components, strict=True)
    )


def is_quota_relevant_change(old: ResourceBindingSpec, new: ResourceBindingSpec) -> bool:
    """``isQuotaRelevantFieldChanged``: resource maps compare numerically (``equality.Semantic``)."""
    if _legacy_request(old) != _legacy_request(new):
        return True
    if sum(c.replicas for c in old.clusters) != sum(c.replicas for c in new.clusters):
        return True
    # v1.16+: moving a component workload changes usage only through the cluster set
    if new.components and {c.name for c in old.clusters} != {c.name for c in new.clusters}:
        return True
    return are_components_changed(old, new)


def quota_exceeded_message(frq: FederatedResourceQuota, resource: str, requested: Quantity) -> str:
    limit = frq.spec.overall[resource]
    return (
        f"FederatedResourceQuota({frq.namespace}/{frq.name}) exceeded for resource {resource}: "
        f"requested sum {requested}, limit {limit}."
    )


def _check(frq: FederatedResourceQuota, delta: Mapping[str, Quantity]) -> QuotaCheck:
    """processFRQForRB for one FRQ."""
    overall = frq.spec.overall
    if not overall:
        # Go skips a nil overall; an empty one leaves no delta, which skips it the same way
        return QuotaCheck(namespace=frq.namespace, name=frq.name, outcome=QuotaCheckOutcome.NO_OVERALL)
    restricted = restrict_resources(delta, overall.keys())
    if is_effectively_zero(restricted):
        return QuotaCheck(namespace=frq.namespace, name=frq.name, outcome=QuotaCheckOutcome.NO_DELTA)
    prospective = integer_resource_sum(frq.status.overall_used, restricted)
    # Go ranges over a map (random order); sorted names make the reported resource deterministic
    exceeded = next((r for r in sorted(prospective) if r in overall and prospective[r] > overall[r]), "")
    return QuotaCheck(
        namespace=frq.namespace,
        name=frq.name,
        outcome=QuotaCheckOutcome.EXCEEDED if exceeded else QuotaCheckOutcome.WITHIN,
        delta=restricted,
        prospective=prospective,
        exceeded=exceeded,
    )


def review_binding(
    operation: AdmissionOperation,
    old_spec: ResourceBindingSpec | None,
    new_spec: ResourceBindingSpec,
    frqs: Sequence[FederatedResourceQuota],
    *,
    enforcement: bool,
) -> Admission:
    """The webhook's verdict on one request.

    ``frqs``: the FederatedResourceQuotas of the binding's namespace, in list order (Kubernetes lists sort by
    name), each with its current ``status.overallUsed``. ``old_spec`` is the stored spec for UPDATE, None for
    CREATE. ``enforcement``: gate FederatedQuotaEnforcement (off → always allowed).
    """
    if not enforcement:
        return _skipped(SkipReason.GATE_DISABLED)
    if operation is AdmissionOperation.CREATE:
        if not new_spec.clusters:
            return _skipped(SkipReason.NO_CLUSTERS)
        old_usage: ResourceMap = {}
    else:
        if old_spec is None:
            raise ValueError("an UPDATE needs the stored spec (old_spec)")
        if not is_quota_relevant_change(old_spec, new_spec):
            return _skipped(SkipReason.NO_RELEVANT_CHANGE)
        old_usage = calculate_resource_usage(old_spec)
    if not frqs:
        return _skipped(SkipReason.NO_QUOTA)
    delta = subtract_resources(calculate_resource_usage(new_spec), old_usage)
    if is_effectively_zero(delta):
        return _skipped(SkipReason.NO_DELTA, delta)
    checks: list[QuotaCheck] = []
    for frq in frqs:
        check = _check(frq, delta)
        checks.append(check)
        if check.outcome is QuotaCheckOutcome.EXCEEDED:
            return Admission(
                allowed=False,
                code=HTTP_FORBIDDEN,
                reason=QUOTA_EXCEEDED,
                message=quota_exceeded_message(frq, check.exceeded, check.prospective[check.exceeded]),
                delta=delta,
                checks=tuple(checks),
            )
    updates = tuple(
        QuotaUpdate(namespace=c.namespace, name=c.name, overall_used=c.prospective)
        for c in checks
        if c.outcome is QuotaCheckOutcome.WITHIN
    )
    return Admission(allowed=True, code=HTTP_OK, delta=delta, checks=tuple(checks), updates=updates)
