"""Short words for what member clusters reported of a binding, for tables, ``describe`` and the status page.

A binding's ``status.aggregatedStatus`` holds one item per observed cluster and ``status.templateStatus``
the template's status folded from them (``core.observed``). Readers want them at a glance: the health per
cluster (``NotApplied`` when the cluster does not have the object), one word for the whole binding, and
kubectl's READY (``ready/desired``) for the kinds that count replicas. Nothing observed gives nothing:
no word is guessed. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter import ResourceHealth

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.model.bindings import ResourceBinding

NOT_APPLIED = "NotApplied"
HEALTHY = ResourceHealth.HEALTHY.value

READY_FIELDS = {
    "Deployment": ("readyReplicas", "replicas"),
    "ReplicaSet": ("readyReplicas", "replicas"),
    "StatefulSet": ("readyReplicas", "replicas"),
    "DaemonSet": ("numberReady", "desiredNumberScheduled"),
}
"""kubectl's READY column: which status fields give ``ready/desired`` per kind."""


def cluster_health(binding: ResourceBinding) -> dict[str, str]:
    """Cluster → ``Healthy``, ``Unhealthy``, ``Unknown`` or ``NotApplied``, for the observed clusters."""
    return {
        item.cluster_name: (item.health or ResourceHealth.UNKNOWN.value) if item.applied else NOT_APPLIED
        for item in binding.status.aggregated_status
    }


def health_word(health: Mapping[str, str]) -> str:
    """One word for the binding: ``Healthy`` when every observed cluster is, else each state that is not
    with its clusters, worst first (``Unhealthy(member2);NotApplied(member3)``); ``-`` when no cluster
    reported."""
    if not health:
        return "-"
    troubles = []
    for state in (ResourceHealth.UNHEALTHY.value, NOT_APPLIED, ResourceHealth.UNKNOWN.value):
        clusters = sorted(c for c, h in health.items() if h == state)
        if clusters:
            troubles.append(f"{state}({','.join(clusters)})")
    return ";".join(troubles) or HEALTHY


def ready_text(kind: str, status: Mapping[str, Any] | None) -> str:
    """``ready/desired`` from the template's aggregated status, ``-`` when the kind has none or nothing
    was observed."""
    fields = READY_FIELDS.get(kind)
    if fields is None or not status:
        return "-"
    ready, desired = (status.get(name) for name in fields)
    return f"{_count(ready)}/{_count(desired)}"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def binding_ready(binding: ResourceBinding) -> str:
    return ready_text(binding.spec.resource.kind, binding.status.template_status)
