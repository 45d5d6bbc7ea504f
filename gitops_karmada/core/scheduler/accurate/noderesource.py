"""Karmada's NodeResourceEstimator: replicas or complete component sets the snapshot's nodes can take.

Per node, free = allocatable − the requests of the pods running there, pod slots = allowed pods − those
pods (``nodeMaxAvailableReplica``). Replicas: Σ over nodes that pass the nodeClaim of ``MaxDivided``.
Component sets (``SimulateScheduling``, pkg/estimator/scheduling_simulator_components.go): place one whole
set after another — each component in order, walking the nodes in order, as many replicas per node as fit —
and stop at the first set that does not fit completely (what that partial set took is not given back).

Nodes are walked by name (kubectl's order; Karmada's node tree order is an implementation detail).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter.requirements import PODS
from gitops_karmada.core.scheduler.accurate.nodefit import NodeClaimFilter
from gitops_karmada.core.scheduler.accurate.units import (
    RequestUnits,
    max_divided,
    request_units,
    resource_units,
    units_to_api,
)
from gitops_karmada.core.scheduler.estimate import MAX_INT32

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.core.scheduler.estimate import AssumedWorkload
    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot, SnapshotNode
    from gitops_karmada.model.bindings import Component, ReplicaRequirements


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeCapacity:
    """A node and what is left on it once the pods running there are counted."""

    node: SnapshotNode
    free: Mapping[str, int]
    """Units: cpu in millicores, pods = free slots, the rest in whole units (negative when overcommitted)."""
    running_pods: int


def node_capacities(snapshot: ClusterSnapshot) -> tuple[NodeCapacity, ...]:
    """Every node's free resources (pods not bound to a listed node, or terminal, are not counted)."""
    requested: dict[str, dict[str, int]] = {}
    counts: dict[str, int] = {}
    for pod in snapshot.pods:
        if not pod.occupies_node:
            continue
        total = requested.setdefault(pod.node_name, {})
        for name, units in resource_units(pod.requests).items():
            total[name] = total.get(name, 0) + units
        counts[pod.node_name] = counts.get(pod.node_name, 0) + 1
    capacities = []
    for node in snapshot.nodes:
        free = resource_units(node.allocatable)
        for name, units in requested.get(node.name, {}).items():
            if name in free and name != PODS:
                free[name] -= units
        running = counts.get(node.name, 0)
        free[PODS] = max(free[PODS] - running, 0)
        capacities.append(NodeCapacity(node=node, free=free, running_pods=running))
    return tuple(capacities)


# -- explanation records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeAnswer:
    """One node: why it is out, or its free units and how many replicas fit (and which resource bound it)."""

    node: str
    rejected: str = ""
    free: Mapping[str, int] = field(default_factory=dict)
    replicas: int = 0
    bound: str = ""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"node": self.node}
        if self.rejected:
            data["rejected"] = self.rejected
            return data
        data["free"] = units_to_api(self.free)
        if self.bound:
            data |= {"replicas": self.replicas, "boundBy": self.bound}
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentPlacement:
    """One component of the set: its per-replica request, the nodes it may not use, where it went."""

    component: str
    replicas_per_set: int
    request: RequestUnits
    rejected: tuple[tuple[str, str], ...] = ()
    """(node, reason) for nodes its nodeClaim excludes."""
    placed: tuple[tuple[str, int], ...] = ()
    """(node, replicas) over all complete sets."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "component": self.component,
            "replicasPerSet": self.replicas_per_set,
            "request": units_to_api(self.request),
        }
        if self.rejected:
            data["rejectedNodes"] = [{"node": n, "reason": r} for n, r in self.rejected]
        if self.placed:
            data["placed"] = dict(self.placed)
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeResourceEstimate:
    """The node plugin's answer with its arithmetic."""

    value: int
    unit: str
    """``replicas`` or ``sets``."""
    nodes: tuple[NodeAnswer, ...] = ()
    components: tuple[ComponentPlacement, ...] = ()
    stopped: str = ""
    """Component sets: why no further set fits."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"value": self.value, "unit": self.unit}
        data["nodes"] = [n.to_dict() for n in self.nodes]
        if self.components:
            data["components"] = [c.to_dict() for c in self.components]
        if self.stopped:
            data["stopped"] = self.stopped
        return data


# -- the estimates ----------------------------------------------------------------------------------------


def estimate_replicas_on_nodes(
    capacities: Sequence[NodeCapacity],
    requirements: ReplicaRequirements | None,
    assumed: Sequence[AssumedWorkload] = (),
) -> NodeResourceEstimate:
    """``nodeResourceEstimator.Estimate``: Σ over matching nodes of the replicas that fit there (after the
    ``assumed`` workloads, which take their room first)."""
    claim = NodeClaimFilter.of(requirements.node_claim if requirements is not None else None)
    request = request_units(requirements.resource_request if requirements is not None else {})
    frees = (
        _preplace([dict(c.free) for c in capacities], assumed) if assumed else [c.free for c in capacities]
    )
    answers = []
    total = 0
    for capacity, free in zip(capacities, frees, strict=True):
        rejected = claim.rejection(capacity.node)
        if rejected:
            answers.append(NodeAnswer(node=capacity.node.name, rejected=rejected))
            continue
        fits, bound = max_divided(free, request)
        total += fits
        answers.append(NodeAnswer(node=capacity.node.name, free=free, replicas=fits, bound=bound))
    return NodeResourceEstimate(value=min(total, MAX_INT32), unit="replicas", nodes=tuple(answers))


@dataclass(slots=True)
class _Demand:
    """One component during the simulation (mutable bookkeeping, never returned)."""

    name: str
    replicas: int
    request: RequestUnits
    eligible: list[int]
    rejected: list[tuple[str, str]]
    start: int = 0
    """Index into ``eligible`` of the first node that may still fit a replica (free only ever shrinks)."""
    placed: dict[int, int] = field(default_factory=dict)


def _place(demand: _Demand, free: list[dict[str, int]], taken: dict[tuple[int, int], int], key: int) -> int:
    """First-fit one set's replicas of ``demand``; returns how many did not fit."""
    remaining = demand.replicas
    position = demand.start
    while remaining > 0 and position < len(demand.eligible):
        node = demand.eligible[position]
        fits, _ = max_divided(free[node], demand.request)
        take = min(fits, remaining)
        if take > 0:
            slot = free[node]
            slot[PODS] -= take
            for name, need in demand.request:
                slot[name] -= need * take
            taken[(key, node)] = taken.get((key, node), 0) + take
            remaining -= take
        if remaining > 0:
            position += 1  # this node is full for the component, now and for every later set
            demand.start = position
    return remaining


def _preplace(free: list[dict[str, int]], assumed: Sequence[AssumedWorkload]) -> list[dict[str, int]]:
    """The assumed workloads placed first-fit before the estimate (v1.18, gate SchedulingOvercommitProtection
    of the estimator): one whole workload at a time, on a copy; one that does not fit is skipped."""
    for workload in assumed:
        trial = [dict(slot) for slot in free]
        fits_all = True
        for component in workload.components:
            request = request_units(component.resource_request)
            remaining = component.replicas
            for slot in trial:
                if remaining <= 0:
                    break
                fits, _ = max_divided(slot, request)
                take = min(fits, remaining)
                if take > 0:
                    slot[PODS] -= take
                    for name, need in request:
                        slot[name] -= need * take
                    remaining -= take
            fits_all = fits_all and remaining <= 0
        if fits_all:
            free = trial
    return free


def estimate_sets_on_nodes(
    capacities: Sequence[NodeCapacity],
    components: Sequence[Component],
    assumed: Sequence[AssumedWorkload] = (),
) -> NodeResourceEstimate:
    """``EstimateComponents`` of the node plugin: complete sets, placed first-fit component by component
    (after the ``assumed`` workloads, which take their room first)."""
    free = _preplace([dict(c.free) for c in capacities], assumed)
    names = [c.node.name for c in capacities]
    demands: list[_Demand] = []
    for component in components:
        if component.replicas <= 0:
            continue
        requirements = component.replica_requirements
        claim = NodeClaimFilter.of(requirements.node_claim if requirements is not None else None)
        rejections = [(i, claim.rejection(c.node)) for i, c in enumerate(capacities)]
        demands.append(
            _Demand(
                name=component.name,
                replicas=component.replicas,
                request=request_units(requirements.resource_request if requirements is not None else {}),
                eligible=[i for i, reason in rejections if not reason],
                rejected=[(names[i], reason) for i, reason in rejections if reason],
            )
        )
    nodes = tuple(NodeAnswer(node=c.node.name, free=c.free) for c in capacities)
    if not demands:
        return NodeResourceEstimate(
            value=MAX_INT32, unit="sets", nodes=nodes, stopped="no component has replicas: no constraint"
        )
    sets, stopped = 0, ""
    while sets < MAX_INT32:
        taken: dict[tuple[int, int], int] = {}
        short = next(
            ((i, left) for i, d in enumerate(demands) if (left := _place(d, free, taken, i)) > 0), None
        )
        if short is not None:
            index, left = short
            demand = demands[index]
            stopped = (
                f"set {sets + 1}: {left} of {demand.replicas} {demand.name} replica(s) did not fit"
                f" (what the partial set took stays taken)"
            )
            break
        for (index, node), count in taken.items():
            placed = demands[index].placed
            placed[node] = placed.get(node, 0) + count
        sets += 1
    placements = tuple(
        ComponentPlacement(
            component=d.name,
            replicas_per_set=d.replicas,
            request=d.request,
            rejected=tuple(d.rejected),
            placed=tuple((names[node], count) for node, count in sorted(d.placed.items())),
        )
        for d in demands
    )
    return NodeResourceEstimate(value=sets, unit="sets", nodes=nodes, components=placements, stopped=stopped)
