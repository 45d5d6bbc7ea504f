"""SchedulingOvercommitProtection (v1.18, alpha): capacity placed, not yet visible, deducted from estimates.

Upstream the scheduler records, after each successful result, what a workload binding was given on each
target cluster (``AssigningResourceBindingCache``, ``updateAssumptionsCache``), and passes every live
assumption of a cluster to the estimators, which count it as allocating. An entry lives until the cluster
reports the workload Healthy, the binding is deleted, or its TTL (5 min) runs out. Here a run schedules its
templates one after another from one snapshot, so the cache lives for one run: what a template is given is
deducted before the next one is estimated (``reconcile.order`` decides who is next). An immutable value:
every change returns a new cache. Times are seconds on the caller's clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.estimate import AssumedComponent, AssumedWorkload

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from gitops_karmada.model.bindings import (
        AggregatedStatusItem,
        Component,
        ReplicaRequirements,
        TargetCluster,
    )

DEFAULT_TTL_SECONDS = 300.0
"""``DefaultAssumptionTTL``."""


@dataclass(frozen=True, slots=True)
class _Entry:
    workloads: Mapping[str, AssumedWorkload]
    """Per cluster, what the binding was given there (replaced, never added to)."""
    expires_at: float


@dataclass(frozen=True, slots=True)
class AssumptionCache:
    ttl_seconds: float = DEFAULT_TTL_SECONDS
    bindings: Mapping[str, _Entry] = field(default_factory=dict)
    """By binding key (``namespace/name``)."""

    def assume(self, binding: str, cluster: str, workload: AssumedWorkload, *, now: float) -> AssumptionCache:
        """Record ``workload`` for (binding, cluster), replacing what was there; the TTL starts again."""
        entry = self.bindings.get(binding)
        workloads = {**(entry.workloads if entry is not None else {}), cluster: workload}
        return self._with(binding, _Entry(workloads, now + self.ttl_seconds))

    def release_cluster(self, binding: str, cluster: str) -> AssumptionCache:
        """Forget (binding, cluster); a binding left with no cluster is forgotten."""
        entry = self.bindings.get(binding)
        if entry is None or cluster not in entry.workloads:
            return self
        workloads = {name: w for name, w in entry.workloads.items() if name != cluster}
        if not workloads:
            return self.release(binding)
        return self._with(binding, replace(entry, workloads=workloads))

    def release(self, binding: str) -> AssumptionCache:
        return replace(self, bindings={k: v for k, v in self.bindings.items() if k != binding})

    def expire(self, binding: str, *, now: float) -> AssumptionCache:
        """The binding's TTL runs out now (what time does to an entry nobody refreshes)."""
        entry = self.bindings.get(binding)
        return self if entry is None else self._with(binding, replace(entry, expires_at=now))

    def gc(self, *, now: float) -> tuple[AssumptionCache, int]:
        """Drop every expired binding; returns the cache and how many were dropped."""
        live = {k: v for k, v in self.bindings.items() if not _expired(v, now)}
        return replace(self, bindings=live), len(self.bindings) - len(live)

    def workloads_on(self, cluster: str, now: float) -> tuple[AssumedWorkload, ...]:
        """``GetAssumedWorkloads``: every live assumption on ``cluster``, by binding key."""
        return tuple(
            entry.workloads[cluster]
            for _, entry in sorted(self.bindings.items())
            if cluster in entry.workloads and not _expired(entry, now)
        )

    def entries(self) -> dict[str, tuple[str, ...]]:
        """The whole cache: binding → the clusters it has an entry for."""
        return {k: tuple(sorted(v.workloads)) for k, v in sorted(self.bindings.items())}

    def binding_count(self) -> int:
        return len(self.bindings)

    def _with(self, binding: str, entry: _Entry) -> AssumptionCache:
        return replace(self, bindings={**self.bindings, binding: entry})


def _expired(entry: _Entry, now: float) -> bool:
    return now >= entry.expires_at


def assumed_by_cluster(
    cache: AssumptionCache, clusters: Iterable[str], *, now: float
) -> dict[str, tuple[AssumedWorkload, ...]]:
    """``buildAssumedWorkloadsByCluster``: the live assumptions of each named cluster (none: no key)."""
    found = {name: cache.workloads_on(name, now) for name in clusters}
    return {name: workloads for name, workloads in found.items() if workloads}


def is_workload(
    replicas: int, requirements: ReplicaRequirements | None, components: Sequence[Component]
) -> bool:
    """``IsWorkload``: replicas, replica requirements or at least one component."""
    return replicas > 0 or requirements is not None or bool(components)


def update_assumptions(
    cache: AssumptionCache,
    binding: str,
    *,
    namespace: str,
    template_name: str,
    replicas: int,
    requirements: ReplicaRequirements | None,
    components: Sequence[Component],
    previous: Sequence[TargetCluster],
    result: Sequence[TargetCluster],
    enabled: bool,
    now: float,
) -> AssumptionCache:
    """``updateAssumptionsCache`` after a successful result of a workload binding: clusters it left are
    released; each target cluster is assumed to hold the binding's full components (multi-template), or one
    component named after the template with the cluster's new replicas and the binding's requirements."""
    if not enabled or not is_workload(replicas, requirements, components):
        return cache
    kept = {target.name for target in result}
    for target in previous:
        if target.name not in kept:
            cache = cache.release_cluster(binding, target.name)
    for target in result:
        if components:
            parts = tuple(
                AssumedComponent(
                    name=c.name,
                    replicas=c.replicas,
                    resource_request=dict(c.replica_requirements.resource_request)
                    if c.replica_requirements is not None
                    else {},
                )
                for c in components
            )
        else:
            parts = (
                AssumedComponent(
                    name=template_name,
                    replicas=target.replicas,
                    resource_request=dict(requirements.resource_request) if requirements is not None else {},
                ),
            )
        cache = cache.assume(binding, target.name, AssumedWorkload(parts, namespace), now=now)
    return cache


def newly_healthy_clusters(
    old: Sequence[AggregatedStatusItem], new: Sequence[AggregatedStatusItem]
) -> tuple[str, ...]:
    """``newlyHealthyClusters``: clusters Healthy in the new aggregated status and not in the old one."""
    was = {item.cluster_name for item in old if item.health == "Healthy"}
    return tuple(
        item.cluster_name for item in new if item.health == "Healthy" and item.cluster_name not in was
    )


def release_healthy(
    cache: AssumptionCache,
    binding: str,
    old: Sequence[AggregatedStatusItem],
    new: Sequence[AggregatedStatusItem],
    *,
    enabled: bool,
) -> AssumptionCache:
    """A cluster that now reports the binding's workload Healthy holds it for real: its assumption goes."""
    if not enabled:
        return cache
    for name in newly_healthy_clusters(old, new):
        cache = cache.release_cluster(binding, name)
    return cache
