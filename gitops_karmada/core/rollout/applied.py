"""What a member cluster would report of a manifest it applied and runs well: the manifest, its generation
observed, its replicas all ready. ``simulate --applied`` reports this for the templates a RolloutPolicy
governs, so that a rollout can be run forward against a scenario. Pure."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from gitops_karmada.model.status import ClusterStatusSnapshot, ObservedObject

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

Identity = tuple[str, str, str, str]


def applied_object(manifest: Mapping[str, Any], *, healthy: bool = True) -> ObservedObject:
    """``manifest`` as a cluster that applied it reports it: healthy, or (``healthy=False``) with a
    generation it never observes, which every native health interpreter calls unhealthy."""
    body: dict[str, Any] = copy.deepcopy(dict(manifest))
    metadata = body.setdefault("metadata", {})
    metadata["generation"] = 1 if healthy else 2
    replicas = (body.get("spec") or {}).get("replicas")
    status: dict[str, Any] = {"observedGeneration": 1}
    if isinstance(replicas, int):
        ready = replicas if healthy else 0
        status.update(replicas=replicas, readyReplicas=ready, updatedReplicas=ready, availableReplicas=ready)
    body["status"] = status
    return ObservedObject(
        api_version=str(body.get("apiVersion", "")),
        kind=str(body.get("kind", "")),
        namespace=str(metadata.get("namespace", "")),
        name=str(metadata.get("name", "")),
        observed=body,
    )


def with_applied(
    snapshot: ClusterStatusSnapshot, manifests: Iterable[Mapping[str, Any]], unhealthy: frozenset[Identity]
) -> ClusterStatusSnapshot:
    """``snapshot`` reporting ``manifests`` applied, instead of what it said of them: healthy, but the
    objects of ``unhealthy`` (a scenario's)."""
    applied = {}
    for manifest in manifests:
        healthy = applied_object(manifest)
        applied[healthy.identity] = (
            applied_object(manifest, healthy=False) if healthy.identity in unhealthy else healthy
        )
    objects = [o for o in snapshot.objects if o.identity not in applied]
    return snapshot.model_copy(update={"objects": (*objects, *(applied[i] for i in sorted(applied)))})
