"""Native InterpretStatus (``reflectstatus.go``): the part of a member object's status sent back.

Workloads carry ``generation`` (the member object's) and ``resourceTemplateGeneration`` (from the member's
``resourcetemplate.karmada.io/generation`` annotation) so aggregation can tell a current status from a
stale one. Kinds without a reflector give their whole ``.status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.unstructured import (
    as_int,
    deep_copy,
    nested_int,
    nested_map,
    nested_str,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

RESOURCE_TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation"

Status = dict[str, Any]


def _resource_template_generation(obj: Mapping[str, Any]) -> int:
    """``runtime.Convert_string_To_int64``: an unparsable annotation counts as 0."""
    text = nested_str(obj, "metadata", "annotations", RESOURCE_TEMPLATE_GENERATION_ANNOTATION)
    try:
        return int(text, 10)
    except ValueError:
        return 0


def _counters(status: Mapping[str, Any], fields: Sequence[str]) -> Status:
    """The integer fields, ``omitempty`` (zero values left out)."""
    out: Status = {}
    for name in fields:
        value = as_int(status.get(name), f"status.{name}") or 0
        if value:
            out[name] = value
    return out


def _workload(fields: Sequence[str], *, drop_if_empty: bool) -> Callable[[Mapping[str, Any]], Status | None]:
    def reflect(obj: Mapping[str, Any]) -> Status | None:
        status = nested_map(obj, "status")
        if status is None:
            return None
        reflected: Status = {}
        generation = nested_int(obj, "metadata", "generation") or 0
        if generation:
            reflected["generation"] = generation
        template_generation = _resource_template_generation(obj)
        if template_generation:
            reflected["resourceTemplateGeneration"] = template_generation
        reflected.update(_counters(status, fields))
        if drop_if_empty and not reflected:
            return None
        return reflected

    return reflect


def _picked(
    fields: Sequence[str], *, keep_zero: Sequence[str] = ()
) -> Callable[[Mapping[str, Any]], Status | None]:
    def reflect(obj: Mapping[str, Any]) -> Status | None:
        status = nested_map(obj, "status")
        if status is None:
            return None
        out: Status = {}
        for name in fields:
            value = status.get(name)
            if name in keep_zero:
                out[name] = as_int(value, f"status.{name}") or 0
            elif value not in (None, "", 0, [], {}):
                out[name] = deep_copy(value)
        return out

    return reflect


def _load_balancer(obj: Mapping[str, Any]) -> Status | None:
    status = nested_map(obj, "status")
    if status is None:
        return None
    return {"loadBalancer": deep_copy(status.get("loadBalancer") or {})}


def reflect_service(obj: Mapping[str, Any]) -> Status | None:
    """Only a LoadBalancer Service reflects its status (the load balancer ingress)."""
    if nested_str(obj, "spec", "type") != "LoadBalancer":
        return None
    return _load_balancer(obj)


def reflect_whole_status(obj: Mapping[str, Any]) -> Status | None:
    status = nested_map(obj, "status")
    return None if status is None else deep_copy(dict(status))


REFLECT_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any]], Status | None]] = {
    kinds.DEPLOYMENT: _workload(
        (
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
            "observedGeneration",
        ),
        drop_if_empty=True,
    ),
    kinds.REPLICA_SET: _workload(
        ("replicas", "readyReplicas", "availableReplicas", "observedGeneration"), drop_if_empty=True
    ),
    # no observedGeneration: aggregation therefore never advances the template's (spec §5 quirk)
    kinds.STATEFUL_SET: _workload(
        ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
        drop_if_empty=False,
    ),
    kinds.DAEMON_SET: _workload(
        (
            "currentNumberScheduled",
            "desiredNumberScheduled",
            "numberAvailable",
            "numberMisscheduled",
            "numberReady",
            "updatedNumberScheduled",
            "numberUnavailable",
            "observedGeneration",
        ),
        drop_if_empty=False,
    ),
    kinds.JOB: _picked(("active", "succeeded", "failed", "conditions", "startTime", "completionTime")),
    kinds.SERVICE: reflect_service,
    kinds.INGRESS: _load_balancer,
    kinds.POD_DISRUPTION_BUDGET: _picked(
        ("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods", "disruptedPods"),
        keep_zero=("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"),
    ),
    kinds.HORIZONTAL_POD_AUTOSCALER: _picked(
        ("currentReplicas", "desiredReplicas"), keep_zero=("desiredReplicas",)
    ),
}


def reflect_status(gvk: kinds.Gvk, obj: Mapping[str, Any]) -> Status | None:
    """The kind's reflector, or the whole status for any other kind."""
    return REFLECT_HANDLERS.get(gvk, reflect_whole_status)(obj)
