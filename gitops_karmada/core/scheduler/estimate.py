"""Capacity estimation: the Estimator protocol and Karmada's general estimator, with its arithmetic recorded.

The general estimator (``pkg/estimator/client/general.go``) reads ``Cluster.status.resourceSummary``:
replicas per template (summary bound or resource-model first-fit, capped by free pod slots) and complete
sets of a multi-component workload. Accurate estimators (node or quota snapshots) plug in through
``Estimator``; the scheduler takes, per cluster, the minimum of all answers (``None`` = no answer).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from gitops_karmada.model.errors import SchedulingError
from gitops_karmada.model.quantity import Format, Quantity

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.model.bindings import Component, ReplicaRequirements
    from gitops_karmada.model.clusters import Cluster, ResourceSummary

MAX_INT32 = 2**31 - 1
MODEL_NODE_PODS = 110
"""Pod slots of a virtual node built from a resource model (Karmada's default kubelet maxPods)."""
_ZERO = Quantity(0)


class Estimator(Protocol):
    """A source of capacity answers; ``None`` means "no answer" (Karmada's -1, UnauthenticReplica)."""

    def max_available_replicas(
        self, cluster: Cluster, requirements: ReplicaRequirements | None
    ) -> int | None:
        """How many more replicas with ``requirements`` the cluster can take."""
        ...

    def max_available_component_sets(self, cluster: Cluster, components: Sequence[Component]) -> int | None:
        """How many more complete sets of ``components`` the cluster can take."""
        ...


class ResourceModelError(SchedulingError):
    """The cluster's resource models cannot be used (the general estimator then falls back to the summary)."""


@dataclass(frozen=True, slots=True)
class AssumedComponent:
    replicas: int
    resource_request: Mapping[str, Quantity]
    name: str = ""


@dataclass(frozen=True, slots=True)
class AssumedWorkload:
    """Replicas placed but not yet visible in the resource summary (gate SchedulingOvercommitProtection)."""

    components: tuple[AssumedComponent, ...]
    namespace: str = ""


# -- explanation records --------------------------------------------------------------------------------


class EstimatePath(enum.StrEnum):
    NO_RESOURCE_SUMMARY = "noResourceSummary"
    NO_POD_SLOTS = "noPodSlots"
    NO_REQUIREMENTS = "noRequirements"
    RESOURCE_MODELS = "resourceModels"
    RESOURCE_SUMMARY = "resourceSummary"


@dataclass(frozen=True, slots=True)
class PodSlots:
    """allowed = allocatable - allocated - allocating - assumed pods (0 when negative)."""

    allocatable: int
    allocated: int
    allocating: int
    assumed: int
    allowed: int

    def to_dict(self) -> dict[str, object]:
        return {
            "allocatable": self.allocatable,
            "allocated": self.allocated,
            "allocating": self.allocating,
            "assumed": self.assumed,
            "allowed": self.allowed,
        }


@dataclass(frozen=True, slots=True)
class ResourceBound:
    """One resource's bound: ``available_units // request_units`` (units: milli for cpu, else whole)."""

    resource: str
    available: str
    request: str
    unit: str
    available_units: int
    request_units: int
    bound: int

    def to_dict(self) -> dict[str, object]:
        return {
            "resource": self.resource,
            "available": self.available,
            "request": self.request,
            "unit": self.unit,
            "availableUnits": self.available_units,
            "requestUnits": self.request_units,
            "allows": self.bound,
        }


@dataclass(frozen=True, slots=True)
class ModelNodes:
    """Virtual nodes of one resource-model grade: capacity = the grade's range minimums plus 110 pods."""

    grade: int
    count: int
    capacity: tuple[tuple[str, int], ...]
    fits_per_node: int | None
    """Replicas one node of the group takes (None for component sets, which are simulated set by set)."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"grade": self.grade, "count": self.count, "capacity": dict(self.capacity)}
        if self.fits_per_node is not None:
            data["fitsPerNode"] = self.fits_per_node
        return data


@dataclass(frozen=True, slots=True)
class ModelEstimate:
    """The resource-model path: the virtual nodes and the first-fit total (or why it could not be used)."""

    nodes: tuple[ModelNodes, ...] = ()
    total: int = 0
    error: str = ""

    def to_dict(self) -> dict[str, object]:
        if self.error:
            return {"error": self.error}
        return {"nodes": [n.to_dict() for n in self.nodes], "total": self.total}


@dataclass(frozen=True, slots=True, kw_only=True)
class GeneralEstimate:
    """The general estimator's answer for one cluster with every step of the arithmetic."""

    cluster: str
    value: int
    unit: str
    """``replicas`` or ``sets``."""
    path: EstimatePath
    bound: str
    """Which bound won: ``pods``, ``resource <name>``, ``resource models``, or why the answer is 0."""
    pod_slots: PodSlots | None = None
    pods_per_set: int = 0
    resources: tuple[ResourceBound, ...] = ()
    models: ModelEstimate | None = None

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "value": self.value,
            "unit": self.unit,
            "path": str(self.path),
            "bound": self.bound,
        }
        if self.pod_slots is not None:
            data["podSlots"] = self.pod_slots.to_dict()
        if self.pods_per_set:
            data["podsPerSet"] = self.pods_per_set
        if self.resources:
            data["resources"] = [r.to_dict() for r in self.resources]
        if self.models is not None:
            data["resourceModels"] = self.models.to_dict()
        return data


# -- building blocks ------------------------------------------------------------------------------------


def _available(summary: ResourceSummary, resource: str) -> Quantity | None:
    """allocatable - allocated - allocating (Quantity arithmetic); None when not allocatable at all."""
    allocatable = summary.allocatable.get(resource)
    if allocatable is None:
        return None
    return allocatable - summary.allocated.get(resource, _ZERO) - summary.allocating.get(resource, _ZERO)


def _pods(resources: Mapping[str, Quantity]) -> int:
    quantity = resources.get("pods")
    return quantity.ceil_value() if quantity is not None else 0


def _resource_units(resource: str, quantity: Quantity) -> int:
    """util.Resource units: cpu in millicores, everything else in whole units (rounded up)."""
    return quantity.milli_value() if resource == "cpu" else quantity.ceil_value()


def _format_units(quantity: Quantity) -> int:
    """The component-set estimator's units: milli for DecimalSI/DecimalExponent, whole units for BinarySI."""
    return quantity.ceil_value() if quantity.format is Format.BINARY_SI else quantity.milli_value()


def _assumed_pods(assumed: Sequence[AssumedWorkload]) -> int:
    return sum(c.replicas for w in assumed for c in w.components)


def _assumed_quantity(assumed: Sequence[AssumedWorkload], resource: str) -> Quantity:
    """Σ replicas × request: cpu exact (milli-units), every other request first rounded up to a whole unit."""
    total = _ZERO
    for workload in assumed:
        for component in workload.components:
            request = component.resource_request.get(resource)
            if request is not None:
                whole = request if resource == "cpu" else Quantity(request.ceil_value(), request.format)
                total = total + whole.times(component.replicas)
    return total


def deduct_assumed_workloads(
    allocating: Mapping[str, Quantity] | None, assumed: Sequence[AssumedWorkload]
) -> dict[str, Quantity]:
    """``deductAssumedWorkloadsFromSummary``: a copy of ``allocating`` with the assumed workloads' pods and
    requests added (existing values accumulate)."""
    found = dict(allocating or {})
    pods = _assumed_pods(assumed)
    if pods:
        found["pods"] = found.get("pods", _ZERO) + Quantity(pods)
    resources = sorted({r for w in assumed for c in w.components for r in c.resource_request})
    for resource in resources:
        found[resource] = found.get(resource, _ZERO) + _assumed_quantity(assumed, resource)
    return found


def pod_slots(summary: ResourceSummary, assumed: Sequence[AssumedWorkload] = ()) -> PodSlots:
    """getAllowedPodNumber, minus the pods of assumed workloads."""
    allocatable, allocated, allocating = (
        _pods(summary.allocatable),
        _pods(summary.allocated),
        _pods(summary.allocating),
    )
    assumed_pods = _assumed_pods(assumed)
    allowed = max(allocatable - allocated - allocating - assumed_pods, 0)
    return PodSlots(allocatable, allocated, allocating, assumed_pods, allowed)


def allowed_pod_number(summary: ResourceSummary) -> int:
    """getAllowedPodNumber: free pod slots, never negative."""
    return pod_slots(summary).allowed


def summary_bounds(
    summary: ResourceSummary, request: Mapping[str, Quantity], assumed: Sequence[AssumedWorkload] = ()
) -> tuple[int | None, tuple[ResourceBound, ...]]:
    """getMaximumReplicasBasedOnClusterSummary: min over requested resources; None when nothing is requested.

    A requested resource the cluster does not list as allocatable, or has none left of, allows 0.
    """
    result: int | None = None
    bounds: list[ResourceBound] = []
    for resource in sorted(request):
        quantity = request[resource]
        if quantity.ceil_value() <= 0:
            continue
        available = _available(summary, resource)
        if available is not None and assumed:
            available = available - _assumed_quantity(assumed, resource)
        unit = "milli" if resource == "cpu" else "units"
        if available is None or available.ceil_value() <= 0:
            shown = "not allocatable" if available is None else str(available)
            bounds.append(
                ResourceBound(resource, shown, str(quantity), unit, 0, _resource_units(resource, quantity), 0)
            )
            return 0, tuple(bounds)
        available_units, request_units = (
            _resource_units(resource, available),
            _resource_units(resource, quantity),
        )
        bound = available_units // request_units
        bounds.append(
            ResourceBound(
                resource, str(available), str(quantity), unit, available_units, request_units, bound
            )
        )
        result = bound if result is None else min(result, bound)
    return result, tuple(bounds)


def max_replicas_by_summary(summary: ResourceSummary, request: Mapping[str, Quantity]) -> int | None:
    """The summary bound alone (None: no resource requested, i.e. unbounded)."""
    return summary_bounds(summary, request)[0]


# -- resource models ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _VirtualNode:
    grade: int
    capacity: dict[str, int]
    pods: int = MODEL_NODE_PODS

    def fits(self, request_units: Mapping[str, int]) -> int:
        fit = self.pods
        for resource, need in request_units.items():
            fit = min(fit, self.capacity.get(resource, 0) // need)
        return fit

    def take(self, request_units: Mapping[str, int], replicas: int) -> None:
        self.pods -= replicas
        for resource, need in request_units.items():
            self.capacity[resource] = self.capacity.get(resource, 0) - need * replicas


def _model_grades(cluster: Cluster) -> list[tuple[int, int, dict[str, int]]]:
    """(grade, count, capacity) per grade in ascending order; raises when the models are unusable."""
    summary = cluster.status.resource_summary
    if not cluster.spec.resource_models:
        raise ResourceModelError(f"cluster {cluster.name} has no resource models")
    counts: dict[int, int] = {}
    for modeling in summary.allocatable_modelings if summary is not None else ():
        counts[modeling.grade] = counts.get(modeling.grade, 0) + modeling.count
    grades = []
    for model in sorted(cluster.spec.resource_models, key=lambda m: m.grade):
        count = counts.get(model.grade, 0)
        if count < 0:
            raise ResourceModelError(
                f"cluster {cluster.name} reports a negative node count for grade {model.grade}"
            )
        if count:
            grades.append(
                (model.grade, count, {r.name: _resource_units(r.name, r.min) for r in model.ranges})
            )
    return grades


def _request_units(request: Mapping[str, Quantity]) -> dict[str, int]:
    units = {resource: _resource_units(resource, q) for resource, q in request.items()}
    return {resource: need for resource, need in units.items() if need > 0}


def _place_first_fit(nodes: Sequence[_VirtualNode], request_units: Mapping[str, int], replicas: int) -> int:
    """Place up to ``replicas`` first-fit over ``nodes``; returns how many could not be placed."""
    for node in nodes:
        if replicas <= 0:
            break
        take = min(node.fits(request_units), replicas)
        if take > 0:
            node.take(request_units, take)
            replicas -= take
    return replicas


def _expanded_nodes(grades: Sequence[tuple[int, int, dict[str, int]]]) -> list[_VirtualNode]:
    return [_VirtualNode(grade, dict(capacity)) for grade, count, capacity in grades for _ in range(count)]


def _preplace(nodes: Sequence[_VirtualNode], assumed: Sequence[AssumedWorkload]) -> None:
    for workload in assumed:
        for component in workload.components:
            _place_first_fit(nodes, _request_units(component.resource_request), component.replicas)


def resource_model_estimate(
    cluster: Cluster, request: Mapping[str, Quantity], assumed: Sequence[AssumedWorkload] = ()
) -> ModelEstimate:
    """getMaximumReplicasBasedOnResourceModels: first-fit over virtual nodes (unbounded by the pod slots).

    Raises ResourceModelError when the cluster has no resource models.
    """
    grades = _model_grades(cluster)
    units = _request_units(request)
    if not assumed:
        groups = []
        for grade, count, capacity in grades:
            fits = _VirtualNode(grade, capacity).fits(units)
            groups.append(ModelNodes(grade, count, tuple(sorted(capacity.items())), fits))
        return ModelEstimate(nodes=tuple(groups), total=sum(g.count * (g.fits_per_node or 0) for g in groups))
    nodes = _expanded_nodes(grades)
    _preplace(nodes, assumed)
    per_node = [ModelNodes(n.grade, 1, tuple(sorted(n.capacity.items())), n.fits(units)) for n in nodes]
    return ModelEstimate(nodes=tuple(per_node), total=sum(n.fits_per_node or 0 for n in per_node))


def max_replicas_by_resource_models(cluster: Cluster, request: Mapping[str, Quantity]) -> int:
    """The resource-model total alone; raises ResourceModelError when there are no models."""
    return resource_model_estimate(cluster, request).total


# -- the general estimator ------------------------------------------------------------------------------


def _summary_and_slots(
    cluster: Cluster, unit: str, assumed: Sequence[AssumedWorkload]
) -> tuple[ResourceSummary, PodSlots] | GeneralEstimate:
    """``assumed``: what the summary is to count as allocating (empty unless the gate deducts)."""
    """The summary and free pod slots both estimates start from, or the zero answer when either is missing."""
    summary = cluster.status.resource_summary
    if summary is None:
        return GeneralEstimate(
            cluster=cluster.name,
            value=0,
            unit=unit,
            path=EstimatePath.NO_RESOURCE_SUMMARY,
            bound="no resourceSummary",
        )
    slots = pod_slots(summary, assumed)
    if slots.allowed <= 0:
        return GeneralEstimate(
            cluster=cluster.name,
            value=0,
            unit=unit,
            path=EstimatePath.NO_POD_SLOTS,
            bound="pods",
            pod_slots=slots,
        )
    return summary, slots


def estimate_replicas(
    cluster: Cluster,
    requirements: ReplicaRequirements | None,
    *,
    customized_modeling: bool = True,
    assumed: Sequence[AssumedWorkload] = (),
    deduct: bool = True,
) -> GeneralEstimate:
    """GeneralEstimator.maxAvailableReplicas for one cluster, explained.

    ``assumed`` workloads are pre-placed on the resource-model nodes, and with ``deduct`` (gate
    SchedulingOvercommitProtection) also counted as allocating in the summary (spec §6.2).

    With the CustomizedClusterResourceModeling gate and ``allocatableModelings`` reported, the resource-model
    answer (capped by pod slots) is final: the per-resource summary bound is not applied on that path, as in
    Karmada. Unusable models fall through to the summary.
    """
    unit = "replicas"
    counted = assumed if deduct else ()
    start = _summary_and_slots(cluster, unit, counted)
    if isinstance(start, GeneralEstimate):
        return start
    summary, slots = start
    if requirements is None:
        return GeneralEstimate(
            cluster=cluster.name,
            value=slots.allowed,
            unit=unit,
            path=EstimatePath.NO_REQUIREMENTS,
            bound="pods",
            pod_slots=slots,
        )
    request = requirements.resource_request
    models: ModelEstimate | None = None
    if customized_modeling and summary.allocatable_modelings:
        try:
            models = resource_model_estimate(cluster, request, assumed)
        except ResourceModelError as err:
            models = ModelEstimate(error=str(err))
        else:
            value = min(models.total, slots.allowed)
            return GeneralEstimate(
                cluster=cluster.name,
                value=value,
                unit=unit,
                path=EstimatePath.RESOURCE_MODELS,
                bound="pods" if value == slots.allowed and value < models.total else "resource models",
                pod_slots=slots,
                models=models,
            )
    by_summary, bounds = summary_bounds(summary, request, counted)
    value = slots.allowed if by_summary is None else min(by_summary, slots.allowed)
    return GeneralEstimate(
        cluster=cluster.name,
        value=value,
        unit=unit,
        path=EstimatePath.RESOURCE_SUMMARY,
        bound=_winning_bound(value, slots.allowed, bounds),
        pod_slots=slots,
        resources=bounds,
        models=models,
    )


def _winning_bound(value: int, allowed_pods: int, bounds: Sequence[ResourceBound]) -> str:
    for bound in bounds:
        if bound.bound == value and (value < allowed_pods or bound.bound == 0):
            return f"resource {bound.resource}"
    return "pods"


def _set_demand(components: Sequence[Component]) -> dict[str, tuple[int, list[str]]]:
    """Per-set demand per resource in format-dependent units, with the terms that make it up."""
    demand: dict[str, tuple[int, list[str]]] = {}
    for component in components:
        if component.replicas <= 0 or component.replica_requirements is None:
            continue
        for resource, quantity in component.replica_requirements.resource_request.items():
            units, terms = demand.get(resource, (0, []))
            terms.append(f"{component.replicas}x{quantity}")
            demand[resource] = (units + component.replicas * _format_units(quantity), terms)
    return demand


def _simulate_sets(
    cluster: Cluster, components: Sequence[Component], limit: int, assumed: Sequence[AssumedWorkload]
) -> ModelEstimate:
    """Complete sets placed on the virtual nodes, each component first-fit in order, up to ``limit``."""
    grades = _model_grades(cluster)
    nodes = _expanded_nodes(grades)
    _preplace(nodes, assumed)
    requests = [
        (
            c.replicas,
            _request_units(c.replica_requirements.resource_request if c.replica_requirements else {}),
        )
        for c in components
        if c.replicas > 0
    ]
    sets = 0
    while sets < limit and all(_place_first_fit(nodes, units, replicas) == 0 for replicas, units in requests):
        sets += 1
    groups = tuple(ModelNodes(g, count, tuple(sorted(cap.items())), None) for g, count, cap in grades)
    return ModelEstimate(nodes=groups, total=sets)


def estimate_component_sets(
    cluster: Cluster,
    components: Sequence[Component],
    *,
    customized_modeling: bool = True,
    assumed: Sequence[AssumedWorkload] = (),
    deduct: bool = True,
) -> GeneralEstimate:
    """GeneralEstimator.maxAvailableComponentSets for one cluster, explained (interpreters spec §3.2).

    ``assumed`` and ``deduct`` as for ``estimate_replicas``.

    Units follow Karmada: a DecimalSI quantity (``2G``, a bare number) counts in milli-units, a BinarySI
    one (``2Gi``) in whole units, each side converted by its own format.
    """
    unit = "sets"
    counted = assumed if deduct else ()
    start = _summary_and_slots(cluster, unit, counted)
    if isinstance(start, GeneralEstimate):
        return start
    summary, slots = start
    pods_per_set = sum(c.replicas for c in components)
    if pods_per_set == 0:
        return GeneralEstimate(
            cluster=cluster.name,
            value=slots.allowed,
            unit=unit,
            path=EstimatePath.NO_REQUIREMENTS,
            bound="pods",
            pod_slots=slots,
        )
    value = slots.allowed // pods_per_set
    bound = "pods"
    bounds: list[ResourceBound] = []
    for resource, (need, terms) in sorted(_set_demand(components).items()):
        if need <= 0:
            continue
        available = _available(summary, resource)
        if available is not None and counted:
            available = available - _assumed_quantity(counted, resource)
        available_units = _format_units(available) if available is not None else 0
        allows = max(available_units, 0) // need
        bounds.append(
            ResourceBound(
                resource,
                str(available) if available is not None else "not allocatable",
                "+".join(terms),
                "format",
                available_units,
                need,
                allows,
            )
        )
        if allows < value:
            value, bound = allows, f"resource {resource}"
    models: ModelEstimate | None = None
    if customized_modeling and summary.allocatable_modelings and value > 0:
        try:
            models = _simulate_sets(cluster, components, value, assumed)
        except ResourceModelError as err:
            models = ModelEstimate(error=str(err))
        else:
            if models.total < value:
                value, bound = models.total, "resource models"
    return GeneralEstimate(
        cluster=cluster.name,
        value=value,
        unit=unit,
        path=EstimatePath.RESOURCE_SUMMARY,
        bound=bound,
        pod_slots=slots,
        pods_per_set=pods_per_set,
        resources=tuple(bounds),
        models=models,
    )


@dataclass(frozen=True, slots=True)
class GeneralEstimator:
    """Karmada's general estimator as an ``Estimator``; ``assumed``: in-flight workloads per cluster name."""

    name: ClassVar[str] = "general"
    customized_modeling: bool = True
    assumed: Mapping[str, tuple[AssumedWorkload, ...]] = field(default_factory=dict)
    overcommit_protection: bool = True
    """Gate SchedulingOvercommitProtection: the summary counts ``assumed`` as allocating (the resource-model
    nodes are pre-filled with it either way, as upstream)."""

    def max_available_replicas(
        self, cluster: Cluster, requirements: ReplicaRequirements | None
    ) -> int | None:
        return self.explain_replicas(cluster, requirements).value

    def max_available_component_sets(self, cluster: Cluster, components: Sequence[Component]) -> int | None:
        return self.explain_component_sets(cluster, components).value

    def explain_replicas(self, cluster: Cluster, requirements: ReplicaRequirements | None) -> GeneralEstimate:
        return estimate_replicas(
            cluster,
            requirements,
            customized_modeling=self.customized_modeling,
            assumed=self.assumed.get(cluster.name, ()),
            deduct=self.overcommit_protection,
        )

    def explain_component_sets(self, cluster: Cluster, components: Sequence[Component]) -> GeneralEstimate:
        return estimate_component_sets(
            cluster,
            components,
            customized_modeling=self.customized_modeling,
            assumed=self.assumed.get(cluster.name, ()),
            deduct=self.overcommit_protection,
        )


def merge_estimates(answers: Sequence[int | None], replicas: int) -> int:
    """calAvailableReplicas for one cluster: the minimum answer, no answer (or MaxInt32) → ``replicas``."""
    value = MAX_INT32
    for answer in answers:
        if answer is not None and answer < value:
            value = answer
    return replicas if value == MAX_INT32 else value
