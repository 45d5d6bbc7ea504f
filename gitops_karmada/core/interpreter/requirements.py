"""Replica requirements of a pod template, with Karmada's rules (``GenerateReplicaRequirements``).

* per container, each key in ``limits`` missing from ``requests`` is copied into requests;
* app containers are summed, then each init container raises a resource to its value if larger,
  then ``spec.overhead`` is added;
* internal units are integers: cpu in millicores, everything else in whole units, rounded up (away from
  zero) per container, so a ``1500m`` memory request counts as 2 bytes;
* only cpu, memory, ephemeral-storage, pods and scalar resources survive; values ≤ 0 are dropped;
* the node claim is the node selector, the tolerations and the *required* node affinity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import orjson

from gitops_karmada.core.interpreter import typed
from gitops_karmada.core.interpreter.unstructured import (
    FieldTypeError,
    nested_list,
    nested_map,
    nested_str,
)
from gitops_karmada.model.base import qualified_name_problem
from gitops_karmada.model.bindings import NodeClaim, ReplicaRequirements
from gitops_karmada.model.quantity import Format, Quantity

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
_NATIVE_PREFIX = "kubernetes.io/"
_REQUESTS_PREFIX = "requests."
_HUGEPAGES_PREFIX = "hugepages-"
_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_scalar_resource_name(name: str) -> bool:
    """Kubernetes ``IsScalarResourceName``: extended, hugepages, prefixed native or attachable-volumes."""
    return (
        is_extended_resource_name(name)
        or name.startswith((_HUGEPAGES_PREFIX, _ATTACHABLE_VOLUMES_PREFIX))
        or _NATIVE_PREFIX in name
    )


def is_extended_resource_name(name: str) -> bool:
    """A name with a domain outside ``kubernetes.io/`` that is valid as a quota key ``requests.<name>``."""
    is_native = "/" not in name or _NATIVE_PREFIX in name
    if is_native or name.startswith(_REQUESTS_PREFIX):
        return False
    return qualified_name_problem(_REQUESTS_PREFIX + name) is None


@dataclass(slots=True)
class ResourceTotals:
    """Karmada's ``util.Resource``: integer amounts per resource (cpu in millicores)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    pods: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    def add(self, resources: Mapping[str, Quantity]) -> None:
        for name, quantity in resources.items():
            if name == CPU:
                self.milli_cpu += quantity.milli_value()
            elif name == MEMORY:
                self.memory += quantity.ceil_value()
            elif name == PODS:
                self.pods += quantity.ceil_value()
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += quantity.ceil_value()
            elif is_scalar_resource_name(name):
                self.scalars[name] = self.scalars.get(name, 0) + quantity.ceil_value()

    def raise_to(self, resources: Mapping[str, Quantity]) -> None:
        """``SetMaxResource`` (an init container); like the scheduler's, it has no case for ``pods``."""
        for name, quantity in resources.items():
            if name == CPU:
                self.milli_cpu = max(self.milli_cpu, quantity.milli_value())
            elif name == MEMORY:
                self.memory = max(self.memory, quantity.ceil_value())
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, quantity.ceil_value())
            elif is_scalar_resource_name(name):
                self.scalars[name] = max(self.scalars.get(name, 0), quantity.ceil_value())

    def resource_list(self) -> dict[str, Quantity]:
        """Positive amounts only; cpu as milli DecimalSI, memory/ephemeral/hugepages BinarySI."""
        out: dict[str, Quantity] = {}
        if self.milli_cpu > 0:
            out[CPU] = Quantity(Fraction(self.milli_cpu, 1000), Format.DECIMAL_SI)
        if self.memory > 0:
            out[MEMORY] = Quantity(self.memory, Format.BINARY_SI)
        if self.ephemeral_storage > 0:
            out[EPHEMERAL_STORAGE] = Quantity(self.ephemeral_storage, Format.BINARY_SI)
        if self.pods > 0:
            out[PODS] = Quantity(self.pods, Format.DECIMAL_SI)
        for name in sorted(self.scalars):
            amount = self.scalars[name]
            if amount > 0:
                hugepages = name.startswith(_HUGEPAGES_PREFIX)
                out[name] = (
                    Quantity(amount, Format.BINARY_SI) if hugepages else Quantity(amount, Format.DECIMAL_SI)
                )
        return out


def _resource_list(raw: Any, where: str) -> dict[str, Quantity]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise FieldTypeError(f"{where} must be an object, not {type(raw).__name__}")
    out: dict[str, Quantity] = {}
    for name, value in raw.items():
        quantity = typed.decode(value, typed.Scalar.QUANTITY, f"{where}.{name}")
        out[str(name)] = quantity if quantity is not None else Quantity(0)  # JSON null: a zero Quantity
    return out


def effective_requests(container: Any, where: str) -> dict[str, Quantity]:
    """A container's requests, with each limit copied in where the request for that key is missing."""
    if not isinstance(container, Mapping):
        raise FieldTypeError(f"{where} must be an object")
    resources = nested_map(container, "resources") or {}
    requests = _resource_list(resources.get("requests"), f"{where}.resources.requests")
    limits = _resource_list(resources.get("limits"), f"{where}.resources.limits")
    for name, quantity in limits.items():
        requests.setdefault(name, quantity)
    return requests


def pod_spec_totals(spec: Mapping[str, Any]) -> ResourceTotals:
    """``AddPodTemplateRequest`` on an empty resource: containers summed, init max, overhead added."""
    totals = ResourceTotals()
    for i, container in enumerate(nested_list(spec, "containers") or ()):
        totals.add(effective_requests(container, f"spec.containers[{i}]"))
    for i, container in enumerate(nested_list(spec, "initContainers") or ()):
        totals.raise_to(effective_requests(container, f"spec.initContainers[{i}]"))
    overhead = spec.get("overhead")
    if overhead is not None:
        totals.add(_resource_list(overhead, "spec.overhead"))
    return totals


def node_claim_of(spec: Mapping[str, Any]) -> NodeClaim | None:
    """``GenerateNodeClaimByPodSpec``: None when there is no selector, no hard affinity, no toleration."""
    selector = nested_map(spec, "nodeSelector")
    hard_affinity = nested_map(
        spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"
    )
    tolerations = nested_list(spec, "tolerations") or ()
    if selector is None and hard_affinity is None and not tolerations:
        return None
    raw: dict[str, Any] = {"tolerations": tolerations}
    if selector:
        raw["nodeSelector"] = selector
    if hard_affinity is not None:
        raw["hardNodeAffinity"] = hard_affinity
    claim = typed.node_claim(raw, "spec")
    if hard_affinity is not None and claim.hard_node_affinity is None:
        # a present but empty NodeSelector is still a claim in Go (non-nil pointer)
        claim = claim.model_copy(update={"hard_node_affinity": {}})
    return claim


def pod_template_requirements(
    template: Mapping[str, Any] | None, *, with_priority_class: bool
) -> ReplicaRequirements | None:
    """Requirements of one replica of a PodTemplateSpec (``{metadata, spec}``), or None if it has none."""
    spec = nested_map(template, "spec") or {}
    return pod_spec_requirements(spec, with_priority_class=with_priority_class)


def pod_spec_requirements(
    spec: Mapping[str, Any], *, with_priority_class: bool
) -> ReplicaRequirements | None:
    """Requirements of one pod with this spec (``with_priority_class``: gate ResourceQuotaEstimate).

    Remembered by what they are made of: a fleet's workloads ask for the same few things thousands of
    times, and working them out (quantities, the node claim, the model) costs more than the rest of
    interpreting them."""
    try:
        key = orjson.dumps(
            (
                with_priority_class,
                _resources_of(spec.get("containers")),
                _resources_of(spec.get("initContainers")),
                [spec.get(name) for name in _REQUIREMENT_FIELDS],
            )
        )
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits, non-string keys: not remembered
        return _pod_spec_requirements(spec, with_priority_class=with_priority_class)
    if key in _REMEMBERED:
        return _REMEMBERED[key]
    found = _pod_spec_requirements(spec, with_priority_class=with_priority_class)
    if len(_REMEMBERED) >= _REMEMBERED_MAX:
        _REMEMBERED.clear()
    _REMEMBERED[key] = found
    return found


_REQUIREMENT_FIELDS = ("overhead", "nodeSelector", "affinity", "tolerations", "priorityClassName")
"""The pod spec's fields the requirements are made from, besides its containers' resources."""


def _resources_of(containers: Any) -> Any:
    """What requirements read of a container list: each container's resources (anything else as it is, for
    the error it makes)."""
    if not isinstance(containers, list):
        return containers
    return [c.get("resources") if isinstance(c, Mapping) else c for c in containers]


_REMEMBERED: dict[bytes, ReplicaRequirements | None] = {}
_REMEMBERED_MAX = 4096


def _pod_spec_requirements(
    spec: Mapping[str, Any], *, with_priority_class: bool
) -> ReplicaRequirements | None:
    claim = node_claim_of(spec)
    request = pod_spec_totals(spec).resource_list()
    if claim is None and not request:
        return None
    fields: dict[str, Any] = {}
    if claim is not None:
        fields["node_claim"] = claim
    if request:
        fields["resource_request"] = request
    priority_class = nested_str(spec, "priorityClassName")
    if with_priority_class and priority_class:
        fields["priority_class_name"] = priority_class
    return ReplicaRequirements(**fields)
