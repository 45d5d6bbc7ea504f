"""What a ResourceBinding consumes (``CalculateResourceUsage``), and a namespace's total (``overallUsed``).

Both use exact Quantity arithmetic (``1024m`` memory stays 1.024 bytes). Only plain resource names appear in
a binding's usage (``cpu``, ``memory``, ``nvidia.com/gpu``), so an overall keyed ``requests.cpu`` never
accumulates anything — as in Karmada.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.quota.resourcelist import ResourceMap, add_resources, sorted_resources

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.model.bindings import ResourceBinding, ResourceBindingSpec
    from gitops_karmada.model.quotas import FederatedResourceQuota

RESOURCE_BINDING = "ResourceBinding"


def calculate_resource_usage(spec: ResourceBindingSpec) -> ResourceMap:
    """``helper.CalculateResourceUsage`` (pkg/util/helper/binding.go, unchanged v1.15 → v1.19).

    * components: Σ over components with replicas > 0 of request × replicas (zero quantities skipped), times
      the *number* of target clusters — each listed cluster is assumed to run one full set and
      ``TargetCluster.replicas`` is ignored; no target cluster → no usage;
    * otherwise the legacy request × Σ ``clusters[].replicas`` (0 → no usage).
    """
    if spec.components:
        if not spec.clusters:
            return {}
        per_set: ResourceMap = {}
        for component in spec.components:
            wanted = component.replica_requirements
            if component.replicas <= 0 or wanted is None:
                continue
            per_set = add_resources(
                per_set,
                {
                    name: quantity.times(component.replicas)
                    for name, quantity in wanted.resource_request.items()
                    if not quantity.is_zero()
                },
            )
        return {name: quantity.times(len(spec.clusters)) for name, quantity in per_set.items()}
    requirements = spec.replica_requirements
    if requirements is None or not requirements.resource_request:
        return {}
    replicas = sum(cluster.replicas for cluster in spec.clusters)
    if replicas == 0:
        return {}
    # zero requests are left out like the component path does: numerically the same, and no "cpu: 0" rows
    return sorted_resources(
        {
            name: quantity.times(replicas)
            for name, quantity in requirements.resource_request.items()
            if not quantity.is_zero()
        }
    )


def is_counted_binding(frq: FederatedResourceQuota, binding: ResourceBinding) -> bool:
    """Whether ``frq`` counts ``binding``: a ResourceBinding of its namespace."""
    return binding.kind == RESOURCE_BINDING and (binding.metadata.namespace or "") == frq.namespace


def overall_used(frq: FederatedResourceQuota, bindings: Iterable[ResourceBinding]) -> ResourceMap:
    """``status.overallUsed`` as the enforcement controller computes it (gate FederatedQuotaEnforcement).

    Σ ``calculate_resource_usage`` over the ResourceBindings of the FRQ's namespace (others are ignored, so
    the whole fleet's bindings may be passed), exact addition, only the keys of ``spec.overall``.
    """
    keys = frq.spec.overall.keys()
    total: ResourceMap = {}
    for binding in bindings:
        if not is_counted_binding(frq, binding):
            continue
        usage = calculate_resource_usage(binding.spec)
        total = add_resources(total, {name: q for name, q in usage.items() if name in keys})
    return total
