"""What-if: the member-cluster reports ``simulate`` pretends to receive, as plain data.

A scenario changes only what the clusters report (down, unhealthy, tainted, less capacity), never the
repository's inputs: the run that follows is the same pipeline a real report would drive. The clusters
not named keep reporting as they do, with fresh heartbeats, so time passing alone makes nobody Unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time
from gitops_karmada.model.base import Taint, TaintEffect
from gitops_karmada.model.clusters import ClusterStatus, Condition, ResourceSummary
from gitops_karmada.model.quantity import Quantity
from gitops_karmada.model.status import ClusterStatusSnapshot, ObservedObject

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.inputs import Inputs

Identity = tuple[str, str, str, str]
_TAINT = re.compile(r"^(?P<cluster>[a-z0-9][-a-z0-9]*):(?P<key>[^=:]+)(=(?P<value>[^:]*))?:(?P<effect>\w+)$")
_DURATION = re.compile(r"^(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?$")


class ScenarioError(ValueError):
    """A what-if option that does not parse: the message names it."""


@dataclass(frozen=True, slots=True)
class WhatIf:
    down: frozenset[str] = frozenset()
    """Clusters that report Ready=False."""
    taints: Mapping[str, tuple[Taint, ...]] = field(default_factory=dict)
    """Taints added to clusters, by cluster."""
    capacity: Mapping[str, Mapping[str, Quantity]] = field(default_factory=dict)
    """Allocatable resources a cluster reports, by cluster (replacing what it reported)."""
    unhealthy: frozenset[tuple[Identity, str]] = frozenset()
    """(template identity, cluster) pairs whose workload reports unhealthy."""

    @property
    def empty(self) -> bool:
        return not (self.down or self.taints or self.capacity or self.unhealthy)


def parse_duration(text: str) -> float:
    """``90s``, ``5m``, ``1h30m`` or plain seconds; ScenarioError otherwise."""
    if text.isdigit():
        return float(text)
    found = _DURATION.match(text)
    if found is None or not text:
        raise ScenarioError(f"duration {text!r} is not like 90s, 5m or 1h30m")
    return float(int(found["h"] or 0) * 3600 + int(found["m"] or 0) * 60 + int(found["s"] or 0))


def parse_taint(text: str, now: datetime) -> tuple[str, Taint]:
    """``CLUSTER:key[=value]:Effect`` (kubectl taint's form after the cluster)."""
    found = _TAINT.match(text)
    if found is None:
        raise ScenarioError(f"taint {text!r} is not CLUSTER:key[=value]:Effect")
    try:
        effect = TaintEffect(found["effect"])
    except ValueError:
        known = ", ".join(e.value for e in TaintEffect)
        raise ScenarioError(f"taint {text!r}: effect must be one of {known}") from None
    taint = Taint(key=found["key"], value=found["value"] or "", effect=effect, time_added=format_time(now))
    return found["cluster"], taint


def parse_capacity(text: str) -> tuple[str, dict[str, Quantity]]:
    """``CLUSTER:cpu=8,memory=32Gi``."""
    cluster, colon, rest = text.partition(":")
    if not colon or not rest:
        raise ScenarioError(f"capacity {text!r} is not CLUSTER:resource=quantity[,...]")
    resources: dict[str, Quantity] = {}
    for part in rest.split(","):
        name, equals, value = part.partition("=")
        if not equals or not name:
            raise ScenarioError(f"capacity {text!r}: {part!r} is not resource=quantity")
        try:
            resources[name.strip()] = Quantity.parse(value.strip())
        except ValueError as err:
            raise ScenarioError(f"capacity {text!r}: {err}") from None
    return cluster, resources


def parse_unhealthy(text: str) -> tuple[Identity, str]:
    """``KIND[.group]/NAMESPACE/NAME@CLUSTER`` (or ``KIND[.group]/NAME@CLUSTER`` when cluster-scoped)."""
    subject, at, cluster = text.rpartition("@")
    parts = subject.split("/")
    if not at or not cluster or len(parts) not in (2, 3) or not all(parts):
        raise ScenarioError(f"unhealthy {text!r} is not KIND[.group]/NAMESPACE/NAME@CLUSTER")
    kind, _, group = parts[0].partition(".")
    namespace, name = (parts[1], parts[2]) if len(parts) == 3 else ("", parts[1])
    return (group, kind, namespace, name), cluster


def check_clusters(what_if: WhatIf, known: Sequence[str]) -> None:
    """ScenarioError naming a cluster the inventory does not have."""
    named = (
        set(what_if.down) | set(what_if.taints) | set(what_if.capacity) | {c for _, c in what_if.unhealthy}
    )
    unknown = sorted(named - set(known))
    if unknown:
        raise ScenarioError(
            f"no cluster {', '.join(map(repr, unknown))} in the inventory (known: {', '.join(known)})"
        )


def scenario_snapshots(
    inputs: Inputs,
    reported: Mapping[str, ClusterStatusSnapshot],
    what_if: WhatIf,
    *,
    since: datetime,
    now: datetime,
) -> dict[str, ClusterStatusSnapshot]:
    """Every cluster's report at ``now`` in the scenario, which began at ``since``."""
    result: dict[str, ClusterStatusSnapshot] = {}
    for cluster in inputs.clusters:
        base = reported.get(cluster.name) or _reporting(cluster, since)
        status = base.status
        if cluster.name in what_if.down:
            conditions = [c for c in status.conditions if c.type != "Ready"]
            conditions.append(
                Condition(
                    type="Ready",
                    status="False",
                    reason="ClusterNotReady",
                    message="simulated: the cluster reports not ready",
                    last_transition_time=format_time(since),
                )
            )
            status = status.model_copy(update={"conditions": tuple(sorted(conditions, key=lambda c: c.type))})
        if cluster.name in what_if.capacity:
            summary = status.resource_summary or cluster.status.resource_summary or ResourceSummary()
            status = status.model_copy(
                update={
                    "resource_summary": summary.model_copy(
                        update={"allocatable": dict(what_if.capacity[cluster.name])}
                    )
                }
            )
        objects = tuple(_unhealthy(o, what_if.unhealthy, cluster.name) for o in base.objects)
        missing = [
            ObservedObject(
                api_version=_api_version(ident),
                kind=ident[1],
                namespace=ident[2],
                name=ident[3],
                observed=_unhealthy_object(ident),
            )
            for ident, name in sorted(what_if.unhealthy)
            if name == cluster.name and not any(o.identity == ident for o in base.objects)
        ]
        result[cluster.name] = base.model_copy(
            update={"collected_at": format_time(now), "status": status, "objects": (*objects, *missing)}
        )
    return result


def _reporting(cluster: Cluster, since: datetime) -> ClusterStatusSnapshot:
    """A cluster that has no report yet: Ready as the inventory says (True when it says nothing)."""
    ready = cluster.condition("Ready")
    conditions = (
        (ready,) if ready is not None else (Condition(type="Ready", status="True", reason="ClusterReady"),)
    )
    return ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": cluster.name},
            "collectedAt": format_time(since),
            "status": ClusterStatus(conditions=conditions).model_dump(
                mode="json", by_alias=True, exclude_defaults=True
            ),
        }
    )


def _api_version(identity: Identity) -> str:
    # only the group matters to the identity; the version is a stand-in
    return f"{identity[0]}/v1" if identity[0] else "v1"


def _unhealthy_object(identity: Identity) -> dict[str, object]:
    """An object every native health interpreter calls unhealthy: its generation is not observed yet."""
    return {
        "apiVersion": _api_version(identity),
        "kind": identity[1],
        "metadata": {
            "name": identity[3],
            **({"namespace": identity[2]} if identity[2] else {}),
            "generation": 2,
        },
        "status": {"observedGeneration": 1},
    }


def _unhealthy(
    item: ObservedObject, unhealthy: frozenset[tuple[Identity, str]], cluster: str
) -> ObservedObject:
    if (item.identity, cluster) not in unhealthy:
        return item
    return item.model_copy(update={"observed": _unhealthy_object(item.identity), "error": ""})


def scenario_taints(inputs: Inputs, what_if: WhatIf) -> Inputs:
    """``inputs`` with the scenario's taints on its clusters."""
    if not what_if.taints:
        return inputs
    clusters = tuple(
        c.model_copy(
            update={"spec": c.spec.model_copy(update={"taints": (*c.spec.taints, *what_if.taints[c.name])})}
        )
        if c.name in what_if.taints
        else c
        for c in inputs.clusters
    )
    return replace(inputs, clusters=clusters)
