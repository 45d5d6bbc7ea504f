"""Native AggregateStatus (``aggregatestatus.go``): member statuses folded into the template's status.

Only ``status`` of the returned object matters (Karmada round-trips the object through typed structs).
Conditions Karmada stamps with ``metav1.Now()`` get ``now`` from the caller instead: the core has no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.unstructured import (
    FieldTypeError,
    as_int,
    deep_copy,
    nested_int,
    nested_list,
    nested_map,
    nested_str,
)
from gitops_karmada.model.bindings import AggregatedStatusItem

Status = dict[str, Any]
Aggregator = Callable[[Mapping[str, Any], Sequence[AggregatedStatusItem], str | None], dict[str, Any]]


def _copy_with_status(obj: Mapping[str, Any]) -> tuple[dict[str, Any], Status]:
    result: dict[str, Any] = deep_copy(dict(obj))
    status = result.get("status")
    if not isinstance(status, dict):
        status = result["status"] = {}
    return result, status


def _int(status: Mapping[str, Any], name: str) -> int:
    return as_int(status.get(name), f"status.{name}") or 0


def _set_counter(status: Status, name: str, value: int) -> None:
    """Go's ``omitempty``: a zero counter is not written."""
    if value:
        status[name] = value
    else:
        status.pop(name, None)


def _member_statuses(items: Sequence[AggregatedStatusItem]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(item.cluster_name, item.status) for item in items if item.status is not None]


# -- workloads: sums, and observedGeneration only when every member is current ------------------------
def _workload(fields: Sequence[str], *, member_generation_only: bool) -> Aggregator:
    def aggregate(
        obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
    ) -> dict[str, Any]:
        result, status = _copy_with_status(obj)
        template_generation = nested_int(obj, "metadata", "generation") or 0
        sums = dict.fromkeys(fields, 0)
        current = 0
        for _, member in _member_statuses(items):
            for name in fields:
                sums[name] += _int(member, name)
            generation = _int(member, "generation")
            # StatefulSet compares the member's resourceTemplateGeneration with the member generation
            wanted = generation if member_generation_only else template_generation
            if (
                _int(member, "observedGeneration") >= generation
                and _int(member, "resourceTemplateGeneration") >= wanted
            ):
                current += 1
        for name, value in sums.items():
            _set_counter(status, name, value)
        if current == len(items):
            _set_counter(status, "observedGeneration", template_generation)
        return result

    return aggregate


# -- Job ---------------------------------------------------------------------------------------------
def _time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise FieldTypeError(f"{where} must be an RFC 3339 time, not {value!r}")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise FieldTypeError(f"{where} must be an RFC 3339 time, not {value!r}") from None


def _finished_condition(status: Mapping[str, Any]) -> str | None:
    for condition in nested_list(status, "conditions") or ():
        if (
            nested_str(condition, "type") in ("Complete", "Failed")
            and nested_str(condition, "status") == "True"
        ):
            return nested_str(condition, "type")
    return None


def _condition(condition_type: str, reason: str, message: str, now: str | None) -> Status:
    condition: Status = {"type": condition_type, "status": "True"}
    if now is not None:
        condition["lastProbeTime"] = now
        condition["lastTransitionTime"] = now
    condition["reason"] = reason
    condition["message"] = message
    return condition


def aggregate_job(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    """Sums; Failed lists the failed clusters; Complete once all completed; a finished Job is left alone."""
    result, old_status = _copy_with_status(obj)
    if _finished_condition(old_status) is not None:
        return result
    new: Status = {}
    active = succeeded = failed = 0
    failed_clusters: list[str] = []
    complete = started = completed = 0
    start_time: tuple[datetime, str] | None = None
    completion_time: tuple[datetime, str] | None = None
    for cluster, member in _member_statuses(items):
        finished = _finished_condition(member)
        if finished == "Complete":
            complete += 1
        elif finished == "Failed":
            failed_clusters.append(cluster)
        member_start = _time(member.get("startTime"), f"{cluster}: status.startTime")
        if member_start is not None:
            started += 1
            if start_time is None or member_start < start_time[0]:
                start_time = (member_start, member["startTime"])
        member_completion = _time(member.get("completionTime"), f"{cluster}: status.completionTime")
        if member_completion is not None:
            completed += 1
            if completion_time is None or member_completion > completion_time[0]:
                completion_time = (member_completion, member["completionTime"])
        active += _int(member, "active")
        succeeded += _int(member, "succeeded")
        failed += _int(member, "failed")
    conditions: list[Status] = []
    if failed_clusters:
        message = f"Job executed failed in member clusters {','.join(failed_clusters)}"
        conditions.append(_condition("Failed", "JobFailed", message, now))
    if items and complete == len(items):
        conditions.append(_condition("SuccessCriteriaMet", "Completed", "Job completed", now))
        conditions.append(_condition("Complete", "Completed", "Job completed", now))
    if conditions:
        new["conditions"] = conditions
    if start_time is not None and started == len(items):
        new["startTime"] = start_time[1]
    if completion_time is not None and completed == len(items):
        new["completionTime"] = completion_time[1]
    for name, value in (("active", active), ("succeeded", succeeded), ("failed", failed)):
        _set_counter(new, name, value)
    result["status"] = new
    return result


def aggregate_cron_job(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    """Active jobs concatenated; the latest lastScheduleTime and lastSuccessfulTime."""
    result, status = _copy_with_status(obj)
    active: list[Any] = []
    latest: dict[str, tuple[datetime, str]] = {}
    for cluster, member in _member_statuses(items):
        active.extend(deep_copy(list(nested_list(member, "active") or ())))
        for name in ("lastScheduleTime", "lastSuccessfulTime"):
            moment = _time(member.get(name), f"{cluster}: status.{name}")
            if moment is not None and (name not in latest or latest[name][0] < moment):
                latest[name] = (moment, member[name])
    if active:
        status["active"] = active
    else:
        status.pop("active", None)
    for name in ("lastScheduleTime", "lastSuccessfulTime"):
        if name in latest:
            status[name] = latest[name][1]
    return result


# -- phases -----------------------------------------------------------------------------------------
def aggregate_pod(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    """Phase priority Failed > Pending (also a missing status) > Running > Succeeded; container states."""
    result, _ = _copy_with_status(obj)
    phases: set[str] = set()
    containers: list[Status] = []
    init_containers: list[Status] = []
    for item in items:
        if item.status is None:
            phases.add("Pending")  # not collected yet: assume pending
            continue
        phases.add(nested_str(item.status, "phase"))
        for source, target in (("containerStatuses", containers), ("initContainerStatuses", init_containers)):
            for container in nested_list(item.status, source) or ():
                target.append(_container_status(container))
    new: Status = {}
    phase = next((p for p in ("Failed", "Pending", "Running", "Succeeded") if p in phases), "")
    if phase:
        new["phase"] = phase
    if containers:
        new["containerStatuses"] = containers
    if init_containers:
        new["initContainerStatuses"] = init_containers
    result["status"] = new
    return result


def _container_status(container: Any) -> Status:
    """Only readiness and state are kept; Go's struct still writes its non-omitempty zero fields."""
    state = nested_map(container, "state")
    return {
        "name": "",
        "state": deep_copy(dict(state)) if state is not None else {},
        "lastState": {},
        "ready": bool(container.get("ready")) if isinstance(container, Mapping) else False,
        "restartCount": 0,
        "image": "",
        "imageID": "",
    }


def _phase_by_priority(priority: Sequence[str]) -> Aggregator:
    def aggregate(
        obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
    ) -> dict[str, Any]:
        result, status = _copy_with_status(obj)
        phases = {nested_str(member, "phase") for _, member in _member_statuses(items)}
        phase = next((p for p in priority if p in phases), "")
        if phase:
            status["phase"] = phase
        return result

    return aggregate


def aggregate_pvc(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    """Lost wins; otherwise the first phase that is not Bound; otherwise Bound."""
    result, status = _copy_with_status(obj)
    phases = [nested_str(member, "phase") for _, member in _member_statuses(items)]
    if "Lost" in phases:
        phase = "Lost"
    else:
        phase = next((p for p in phases if p != "Bound"), "Bound" if phases else "")
    if phase:
        status["phase"] = phase
    return result


# -- sums -------------------------------------------------------------------------------------------
def aggregate_pdb(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    """Sums; disruptedPods keys become ``<cluster>/<pod>``."""
    result, status = _copy_with_status(obj)
    fields = ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed")
    sums = dict.fromkeys(fields, 0)
    disrupted: dict[str, Any] = {}
    for cluster, member in _member_statuses(items):
        for name in fields:
            sums[name] += _int(member, name)
        for pod, when in (nested_map(member, "disruptedPods") or {}).items():
            disrupted[f"{cluster}/{pod}"] = when
    status.update(sums)
    if disrupted:
        status["disruptedPods"] = disrupted
    else:
        status.pop("disruptedPods", None)
    return result


def aggregate_hpa(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    result, status = _copy_with_status(obj)
    current = desired = 0
    for _, member in _member_statuses(items):
        current += _int(member, "currentReplicas")
        desired += _int(member, "desiredReplicas")
    _set_counter(status, "currentReplicas", current)
    status["desiredReplicas"] = desired
    return result


def _load_balancer_union(obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem]) -> dict[str, Any]:
    """Every member's load-balancer ingress entries, de-duplicated and sorted."""
    result, status = _copy_with_status(obj)
    entries: dict[tuple[str, str, bytes], Any] = {}
    for _, member in _member_statuses(items):
        for entry in nested_list(member, "loadBalancer", "ingress") or ():
            if isinstance(entry, Mapping):
                canonical = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
                entries.setdefault((nested_str(entry, "ip"), nested_str(entry, "hostname"), canonical), entry)
    ingress = [deep_copy(dict(entries[key])) for key in sorted(entries)]
    status["loadBalancer"] = {"ingress": ingress} if ingress else {}
    return result


def aggregate_service(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    if nested_str(obj, "spec", "type") != "LoadBalancer":
        result, _ = _copy_with_status(obj)
        return result
    return _load_balancer_union(obj, items)


def aggregate_ingress(
    obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
) -> dict[str, Any]:
    return _load_balancer_union(obj, items)


AGGREGATE_HANDLERS: Mapping[kinds.Gvk, Aggregator] = {
    kinds.DEPLOYMENT: _workload(
        ("replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "unavailableReplicas"),
        member_generation_only=False,
    ),
    kinds.REPLICA_SET: _workload(
        ("replicas", "readyReplicas", "availableReplicas"), member_generation_only=False
    ),
    kinds.STATEFUL_SET: _workload(
        ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
        member_generation_only=True,
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
        ),
        member_generation_only=False,
    ),
    kinds.JOB: aggregate_job,
    kinds.CRON_JOB: aggregate_cron_job,
    kinds.POD: aggregate_pod,
    kinds.PERSISTENT_VOLUME: _phase_by_priority(("Failed", "Pending", "Available", "Bound", "Released")),
    kinds.PERSISTENT_VOLUME_CLAIM: aggregate_pvc,
    kinds.POD_DISRUPTION_BUDGET: aggregate_pdb,
    kinds.HORIZONTAL_POD_AUTOSCALER: aggregate_hpa,
    kinds.SERVICE: aggregate_service,
    kinds.INGRESS: aggregate_ingress,
}
