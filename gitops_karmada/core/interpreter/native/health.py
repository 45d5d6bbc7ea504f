"""Native InterpretHealth (``healthy.go``). Job has none: the work-status controller then records Healthy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.unstructured import nested_int, nested_list, nested_str

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def _int(obj: Mapping[str, Any], *path: str) -> int:
    return nested_int(obj, *path) or 0


def _generation_observed(obj: Mapping[str, Any]) -> bool:
    return _int(obj, "status", "observedGeneration") == _int(obj, "metadata", "generation")


def deployment_healthy(obj: Mapping[str, Any]) -> bool:
    """Deployment and StatefulSet: generation observed, all replicas updated, the updated ones available."""
    replicas = nested_int(obj, "spec", "replicas")
    updated = _int(obj, "status", "updatedReplicas")
    return (
        _generation_observed(obj)
        and (replicas is None or updated >= replicas)
        and _int(obj, "status", "availableReplicas") >= updated
    )


def replica_set_healthy(obj: Mapping[str, Any]) -> bool:
    replicas = nested_int(obj, "spec", "replicas")
    return _generation_observed(obj) and (
        replicas is None or _int(obj, "status", "availableReplicas") >= replicas
    )


def daemon_set_healthy(obj: Mapping[str, Any]) -> bool:
    updated = _int(obj, "status", "updatedNumberScheduled")
    return (
        _generation_observed(obj)
        and updated >= _int(obj, "status", "desiredNumberScheduled")
        and _int(obj, "status", "numberAvailable") >= updated
    )


def _has_load_balancer_ingress(obj: Mapping[str, Any]) -> bool:
    return any(
        nested_str(ingress, "ip") or nested_str(ingress, "hostname")
        for ingress in nested_list(obj, "status", "loadBalancer", "ingress") or ()
    )


def service_healthy(obj: Mapping[str, Any]) -> bool:
    """Only a LoadBalancer Service can be unhealthy: it needs an ingress with an IP or a hostname."""
    if nested_str(obj, "spec", "type") != "LoadBalancer":
        return True
    return _has_load_balancer_ingress(obj)


def pvc_healthy(obj: Mapping[str, Any]) -> bool:
    return nested_str(obj, "status", "phase") == "Bound"


def pod_healthy(obj: Mapping[str, Any]) -> bool:
    """Succeeded, or Running with condition Ready=True."""
    phase = nested_str(obj, "status", "phase")
    if phase == "Succeeded":
        return True
    ready = next(
        (c for c in nested_list(obj, "status", "conditions") or () if nested_str(c, "type") == "Ready"), None
    )
    return phase == "Running" and ready is not None and nested_str(ready, "status") == "True"


def pdb_healthy(obj: Mapping[str, Any]) -> bool:
    return _int(obj, "status", "currentHealthy") >= _int(obj, "status", "desiredHealthy")


HEALTH_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any]], bool]] = {
    kinds.DEPLOYMENT: deployment_healthy,
    kinds.STATEFUL_SET: deployment_healthy,
    kinds.REPLICA_SET: replica_set_healthy,
    kinds.DAEMON_SET: daemon_set_healthy,
    kinds.SERVICE: service_healthy,
    kinds.INGRESS: _has_load_balancer_ingress,
    kinds.PERSISTENT_VOLUME_CLAIM: pvc_healthy,
    kinds.POD: pod_healthy,
    kinds.POD_DISRUPTION_BUDGET: pdb_healthy,
}
