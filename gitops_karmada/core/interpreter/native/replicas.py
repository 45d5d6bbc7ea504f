"""Native InterpretReplica (``replica.go``) and ReviseReplica (``revisereplica.go``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.requirements import pod_spec_requirements, pod_template_requirements
from gitops_karmada.core.interpreter.unstructured import (
    FieldTypeError,
    deep_copy,
    nested,
    nested_int,
    nested_map,
)
from gitops_karmada.model.bindings import ReplicaRequirements

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

ReplicaAnswer = tuple[int, ReplicaRequirements | None]


def _workload_replicas(obj: Mapping[str, Any], with_priority_class: bool) -> ReplicaAnswer:
    """Deployment, ReplicaSet, StatefulSet: ``spec.replicas`` (absent → 0) and the pod template."""
    replicas = nested_int(obj, "spec", "replicas") or 0
    template = nested_map(obj, "spec", "template")
    return replicas, pod_template_requirements(template, with_priority_class=with_priority_class)


def _job_replicas(obj: Mapping[str, Any], with_priority_class: bool) -> ReplicaAnswer:
    """Job: parallelism (absent → 0), lowered to completions when that is set and smaller."""
    replicas = nested_int(obj, "spec", "parallelism") or 0
    completions = nested_int(obj, "spec", "completions")
    if completions is not None and completions < replicas:
        replicas = completions
    template = nested_map(obj, "spec", "template")
    return replicas, pod_template_requirements(template, with_priority_class=with_priority_class)


def _pod_replicas(obj: Mapping[str, Any], with_priority_class: bool) -> ReplicaAnswer:
    """Pod: always one replica."""
    spec = nested_map(obj, "spec") or {}
    return 1, pod_spec_requirements(spec, with_priority_class=with_priority_class)


REPLICA_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any], bool], ReplicaAnswer]] = {
    kinds.DEPLOYMENT: _workload_replicas,
    kinds.REPLICA_SET: _workload_replicas,
    kinds.STATEFUL_SET: _workload_replicas,
    kinds.JOB: _job_replicas,
    kinds.POD: _pod_replicas,
}


def _apply_replica(field: str) -> Callable[[Mapping[str, Any], int], dict[str, Any]]:
    """``helper.ApplyReplica``: write ``spec.<field>`` only if it already exists (as an integer)."""

    def revise(obj: Mapping[str, Any], replicas: int) -> dict[str, Any]:
        current = nested(obj, "spec", field)
        revised: dict[str, Any] = deep_copy(dict(obj))
        if current is None:
            return revised
        if isinstance(current, bool) or not isinstance(current, int):  # NestedInt64 refuses floats too
            raise FieldTypeError(f"spec.{field} is of the type {type(current).__name__}, expected int64")
        revised["spec"][field] = replicas
        return revised

    return revise


REVISE_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any], int], dict[str, Any]]] = {
    kinds.DEPLOYMENT: _apply_replica("replicas"),
    kinds.REPLICA_SET: _apply_replica("replicas"),
    kinds.STATEFUL_SET: _apply_replica("replicas"),
    kinds.JOB: _apply_replica("parallelism"),
}
