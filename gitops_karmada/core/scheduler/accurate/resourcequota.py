"""Karmada's ResourceQuotaEstimator: what the member ResourceQuotas of the workload's namespace still allow.

``pkg/estimator/server/framework/plugins/resourcequota`` (gate ResourceQuotaEstimate; off, the plugin is a
no-op and answers "no constraint"):

* free = ``status.hard`` − ``status.used`` for cpu, memory and extended resources; ``requests.X`` counts as
  ``X``; ``limits.*``, pods, storage and object counts are ignored;
* scopes: ``spec.scopes`` (each as Exists) and ``spec.scopeSelector``; only PriorityClass can match (by the
  priorityClassName of the replica/component), any other scope never does. With scopes, only matching
  components count; nothing counted → no constraint;
* demand per set = Σ replicas × request (cpu in millicores, the rest in whole units); answer = min over the
  constrained resources of free // demand; none constrained → no constraint (MaxInt32); min over quotas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter.requirements import CPU, MEMORY, is_extended_resource_name
from gitops_karmada.core.scheduler.accurate.units import unit_text
from gitops_karmada.core.scheduler.estimate import MAX_INT32
from gitops_karmada.core.scheduler.snapshot import ScopeOperator

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.core.scheduler.snapshot import ScopeSelectorRequirement, SnapshotResourceQuota
    from gitops_karmada.model.bindings import Component, ReplicaRequirements
    from gitops_karmada.model.quantity import Quantity

PRIORITY_CLASS_SCOPE = "PriorityClass"
_REQUESTS_PREFIX = "requests."
_ALIASES = {CPU: CPU, "requests.cpu": CPU, MEMORY: MEMORY, "requests.memory": MEMORY}


def folded_resource(quota_resource: str) -> str | None:
    """The request name a quota key limits (``requests.cpu`` → ``cpu``), None for keys the plugin ignores."""
    if quota_resource in _ALIASES:
        return _ALIASES[quota_resource]
    if quota_resource.startswith(_REQUESTS_PREFIX):
        name = quota_resource[len(_REQUESTS_PREFIX) :]
        return name if is_extended_resource_name(name) else None
    return None


def _units(resource: str, quantity: Quantity) -> int:
    return quantity.milli_value() if resource == CPU else quantity.ceil_value()


def free_quota_units(quota: SnapshotResourceQuota) -> dict[str, int]:
    """hard − used per folded resource; ``cpu`` and ``requests.cpu`` both listed → the tighter one."""
    free: dict[str, int] = {}
    for key in sorted(quota.hard):
        resource = folded_resource(key)
        if resource is None:
            continue
        used = quota.used.get(key)
        left = _units(resource, quota.hard[key]) - (_units(resource, used) if used is not None else 0)
        free[resource] = min(free.get(resource, left), left)
    return free


def scope_matches(requirement: ScopeSelectorRequirement, priority_class_name: str) -> bool:
    """Kubernetes' ``podMatchesScopeFunc`` for the only scope the plugin evaluates.

    Exists means "a priorityClassName is set"; the other operators run a label selector over
    ``{"PriorityClass": <name>}``, where the key is always present — so DoesNotExist never matches and
    NotIn matches a pod without a priority class.
    """
    if requirement.scope_name != PRIORITY_CLASS_SCOPE:
        return False
    match requirement.operator:
        case ScopeOperator.EXISTS:
            return bool(priority_class_name)
        case ScopeOperator.IN:
            return priority_class_name in requirement.values
        case ScopeOperator.NOT_IN:
            return priority_class_name not in requirement.values
    return False


def quota_applies(quota: SnapshotResourceQuota, priority_class_name: str) -> bool:
    """Every scope selector must match (a quota without scopes applies to everything)."""
    return all(scope_matches(s, priority_class_name) for s in quota.selectors)


# -- explanation records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class QuotaResourceBound:
    resource: str
    free: int
    demand: int
    allows: int

    def to_dict(self) -> dict[str, object]:
        return {
            "resource": self.resource,
            "free": unit_text(self.resource, self.free),
            "demand": unit_text(self.resource, self.demand),
            "allows": self.allows,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class QuotaAnswer:
    """One ResourceQuota's answer (MaxInt32 = no constraint) and what it counted."""

    quota: str
    value: int
    counted: tuple[str, ...] = ()
    resources: tuple[QuotaResourceBound, ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"quota": self.quota, "value": self.value}
        if self.counted:
            data["counted"] = list(self.counted)
        if self.resources:
            data["resources"] = [r.to_dict() for r in self.resources]
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceQuotaEstimate:
    """The quota plugin's answer (MaxInt32 = no constraint) with every quota's arithmetic."""

    value: int
    unit: str
    enabled: bool
    namespace: str = ""
    quotas: tuple[QuotaAnswer, ...] = ()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"value": self.value, "unit": self.unit, "enabled": self.enabled}
        if not self.enabled:
            data["note"] = "gate ResourceQuotaEstimate is off: no constraint"
            return data
        data["namespace"] = self.namespace
        data["quotas"] = [q.to_dict() for q in self.quotas]
        return data


@dataclass(frozen=True, slots=True)
class _Share:
    """Part of the demand: a component (or the single replica) with its requests and priority class."""

    name: str
    replicas: int
    request: Mapping[str, Quantity]
    priority_class_name: str


def _answer(quota: SnapshotResourceQuota, shares: Sequence[_Share]) -> QuotaAnswer:
    label = f"{quota.namespace}/{quota.name}"
    counted = [s for s in shares if quota_applies(quota, s.priority_class_name)]
    if not counted:
        why = "its scopes match nothing" if shares else "nothing is requested"
        return QuotaAnswer(quota=label, value=MAX_INT32, note=f"{why}: no constraint")
    demand: dict[str, int] = {}
    for share in counted:
        for name, quantity in share.request.items():
            demand[name] = demand.get(name, 0) + share.replicas * _units(name, quantity)
    value = MAX_INT32
    bounds = []
    for resource, free in sorted(free_quota_units(quota).items()):
        need = demand.get(resource, 0)
        if need <= 0:
            continue
        allows = max(free, 0) // need
        bounds.append(QuotaResourceBound(resource=resource, free=free, demand=need, allows=allows))
        value = min(value, allows)
    return QuotaAnswer(
        quota=label,
        value=value,
        counted=tuple(s.name for s in counted),
        resources=tuple(bounds),
        note="" if bounds else "no requested resource is limited: no constraint",
    )


def _estimate(
    quotas: Sequence[SnapshotResourceQuota], shares: Sequence[_Share], unit: str, namespace: str
) -> ResourceQuotaEstimate:
    answers = tuple(_answer(q, shares) for q in quotas)
    value = min((a.value for a in answers), default=MAX_INT32)
    return ResourceQuotaEstimate(value=value, unit=unit, enabled=True, namespace=namespace, quotas=answers)


def disabled_quota_estimate(unit: str) -> ResourceQuotaEstimate:
    return ResourceQuotaEstimate(value=MAX_INT32, unit=unit, enabled=False)


def estimate_replicas_by_quotas(
    quotas: Sequence[SnapshotResourceQuota], requirements: ReplicaRequirements | None
) -> ResourceQuotaEstimate:
    """``resourceQuotaEstimator.Estimate``: the quotas of the requirements' namespace (gate on)."""
    shares = (
        [
            _Share(
                name="replica",
                replicas=1,
                request=requirements.resource_request,
                priority_class_name=requirements.priority_class_name,
            )
        ]
        if requirements is not None
        else []
    )
    namespace = requirements.namespace if requirements is not None else ""
    return _estimate(quotas, shares, "replicas", namespace)


def estimate_sets_by_quotas(
    quotas: Sequence[SnapshotResourceQuota], components: Sequence[Component], namespace: str
) -> ResourceQuotaEstimate:
    """``resourceQuotaEstimator.EstimateComponents``: complete sets within the namespace's quotas."""
    shares = [
        _Share(
            name=c.name,
            replicas=c.replicas,
            request=c.replica_requirements.resource_request if c.replica_requirements is not None else {},
            priority_class_name=c.replica_requirements.priority_class_name
            if c.replica_requirements is not None
            else "",
        )
        for c in components
        if c.replicas > 0
    ]
    return _estimate(quotas, shares, "sets", namespace)
