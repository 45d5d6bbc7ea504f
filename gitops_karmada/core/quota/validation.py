"""FederatedResourceQuota validation as Karmada's webhook does it (``pkg/webhook/federatedresourcequota``).

Beyond the model's schema: name ≤ 63 characters; resource names and values valid for a ResourceQuota; every
staticAssignments key must exist in ``spec.overall`` and, per key, the assignments must not add up to more
than ``spec.overall``; cluster names valid and listed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter.requirements import is_extended_resource_name
from gitops_karmada.core.quota.resourcelist import add_resources
from gitops_karmada.model.base import is_dns1123_label, qualified_name_problem

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.model.quantity import Quantity
    from gitops_karmada.model.quotas import FederatedResourceQuota

MAX_NAME_LENGTH = 63
MAX_CLUSTER_NAME_LENGTH = 48
_INTEGER_QUOTA_RESOURCES = frozenset(
    {"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
     "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
)  # fmt: skip
_STANDARD_QUOTA_RESOURCES = _INTEGER_QUOTA_RESOURCES | {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One validation error: the field path (Karmada's JSON names) and what is wrong."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def is_standard_quota_resource_name(name: str) -> bool:
    """Kubernetes ``IsStandardQuotaResourceName`` (including ``hugepages-*`` and ``requests.hugepages-*``)."""
    return name in _STANDARD_QUOTA_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def quota_resource_problems(resources: Mapping[str, Quantity], where: str) -> list[FieldProblem]:
    """``ValidateResourceQuotaResourceName`` and ``ValidateResourceQuantityValue`` for a ResourceList."""
    problems = []
    for name in sorted(resources):
        path = f"{where}.{name}"
        problem = qualified_name_problem(name)
        if problem is not None:
            problems.append(FieldProblem(path, problem))
        elif "/" not in name and not is_standard_quota_resource_name(name):
            problems.append(FieldProblem(path, f"{name!r} must be a standard resource for quota"))
        quantity = resources[name]
        if quantity.value < 0:
            problems.append(FieldProblem(path, f"{quantity} must be greater than or equal to 0"))
        elif (name in _INTEGER_QUOTA_RESOURCES or is_extended_resource_name(name)) and (
            quantity.value.denominator != 1
        ):
            problems.append(FieldProblem(path, f"{quantity} must be an integer"))
    return problems


def validate_federated_resource_quota(frq: FederatedResourceQuota) -> tuple[FieldProblem, ...]:
    """Every problem Karmada's FederatedResourceQuota webhook would report (empty when valid)."""
    problems: list[FieldProblem] = []
    if len(frq.name) > MAX_NAME_LENGTH:
        problems.append(FieldProblem("metadata.name", f"must be no more than {MAX_NAME_LENGTH} characters"))
    overall = frq.spec.overall
    problems += quota_resource_problems(overall, "spec.overall")
    assigned: dict[str, Quantity] = {}
    seen: set[str] = set()
    for index, assignment in enumerate(frq.spec.static_assignments):
        where = f"spec.staticAssignments[{index}]"
        cluster = assignment.cluster_name
        if cluster in seen:
            problems.append(FieldProblem(f"{where}.clusterName", f"duplicate cluster {cluster!r}"))
            continue
        seen.add(cluster)
        if len(cluster) > MAX_CLUSTER_NAME_LENGTH or not is_dns1123_label(cluster):
            problems.append(
                FieldProblem(
                    f"{where}.clusterName",
                    f"{cluster!r} must be a DNS-1123 label of at most {MAX_CLUSTER_NAME_LENGTH} characters",
                )
            )
        problems += quota_resource_problems(assignment.hard, f"{where}.hard")
        problems += [
            FieldProblem(f"{where}.hard.{name}", f"{name!r} is not a resource of spec.overall")
            for name in sorted(assignment.hard)
            if name not in overall
        ]
        assigned = add_resources(assigned, assignment.hard)
    problems += [
        FieldProblem(
            f"spec.overall.{name}",
            f"{overall[name]} is less than the sum of staticAssignments ({assigned[name]})",
        )
        for name in sorted(overall)
        if name in assigned and assigned[name] > overall[name]
    ]
    return tuple(problems)
