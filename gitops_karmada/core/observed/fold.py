"""Status in and back: what member clusters reported, folded into the inventory and the binding records.

Two Karmada controllers, pure here:

- the cluster status controller writes a cluster's conditions and resource summary into Cluster.status,
  and the cluster controller keeps the not-ready/unreachable NoSchedule taints in step with Ready (a
  heartbeat older than the grace period makes Ready Unknown): :func:`observed_cluster`;
- the work status and binding status controllers give each binding one ``aggregatedStatus`` item per
  cluster its manifest went to (applied, reflected status, health) and the ``FullyApplied`` condition:
  :func:`aggregated_status` and :func:`fully_applied_condition`;
- the resource template status controller folds those items into the template's status (AggregateStatus):
  :func:`template_status`. Karmada writes it into the template; a Git repository's templates are the
  user's, so it goes into the binding record's ``status.templateStatus`` instead.

Only what was observed is said: without a snapshot of a cluster its items are absent, not guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.digest import digest
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.interpreter import Operation, ResourceInterpretError
from gitops_karmada.core.interpreter.chain import ResourceHealth
from gitops_karmada.core.layout import status_snapshot_path
from gitops_karmada.core.observed.conditions import condition_taints, ready_status
from gitops_karmada.model.bindings import AggregatedStatusItem
from gitops_karmada.model.clusters import Cluster, Condition
from gitops_karmada.model.diagnostics import SourceRef, warning

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from datetime import datetime

    from gitops_karmada.core.interpreter import ResourceInterpreter
    from gitops_karmada.model.config import FailoverConfig
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.status import ClusterStatusSnapshot, ObservedObject

Identity = tuple[str, str, str, str]
FULLY_APPLIED = "FullyApplied"
READY = "Ready"


@dataclass(frozen=True, slots=True)
class ObservedStatus:
    """The status snapshots a run uses (one per cluster) and the status commit they came from."""

    snapshots: Mapping[str, ClusterStatusSnapshot] = field(default_factory=dict)
    commit: str | None = None
    _objects: dict[Identity, dict[str, ObservedObject]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for cluster, snapshot in sorted(self.snapshots.items()):
            for item in snapshot.objects:
                self._objects.setdefault(item.identity, {})[cluster] = item

    def object(self, cluster: str, identity: Identity) -> ObservedObject | None:
        """What ``cluster`` reported for ``identity``; None when it has no snapshot or did not list it."""
        return self._objects.get(identity, {}).get(cluster)

    def observes(self, cluster: str) -> bool:
        return cluster in self.snapshots

    def clusters_for(self, identity: Identity) -> frozenset[str]:
        """The clusters that report an object of ``identity``."""
        return frozenset(self._objects.get(identity, ()))

    def digest_for(self, identity: Identity) -> str:
        """What the clusters reported for one template, for its fingerprint ("" when nothing)."""
        found = self._objects.get(identity)
        if not found:
            return ""
        return digest(
            [
                (c, item.model_dump(mode="json", by_alias=True, exclude_defaults=True))
                for c, item in found.items()
            ]
        )


def observed_cluster(
    cluster: Cluster,
    snapshot: ClusterStatusSnapshot | None,
    now: datetime,
    config: FailoverConfig,
    *,
    resource_summary: bool = False,
) -> Cluster:
    """``cluster`` with the status its snapshot reported and the condition taints that follow from it.

    The inventory's status stays for what the snapshot does not say (API enablements a collector did
    not read), and for the resource summary unless ``resource_summary`` (``status.useResourceSummary``).
    Ready is judged at ``now``: a heartbeat (``collectedAt``) older than the monitor grace period makes
    it Unknown, as Karmada's cluster controller does for a silent cluster.
    """
    if snapshot is None:
        return cluster
    reported = snapshot.status
    heartbeat = parse_time(snapshot.collected_at)
    ready_reported = next((c for c in reported.conditions if c.type == READY), None)
    ready = ready_status(
        ready_reported.status if ready_reported else None,
        heartbeat,
        now,
        monitor_grace_seconds=config.cluster_monitor_grace_period_seconds,
        startup_grace_seconds=config.cluster_startup_grace_period_seconds,
        ever_reported=ready_reported is not None,
    )
    conditions = [c for c in reported.conditions if c.type != READY]
    if ready_reported is not None and ready == ready_reported.status:
        conditions.append(ready_reported)
    else:
        conditions.append(
            Condition(
                type=READY,
                status="Unknown",
                reason="ClusterStatusUnknown",
                message=f"cluster status has not been collected since {snapshot.collected_at}",
            )
        )
    update: dict[str, Any] = {"conditions": tuple(sorted(conditions, key=lambda c: c.type))}
    observed_fields = ["kubernetes_version", "node_summary", "api_enablements"]
    if resource_summary:
        observed_fields.append("resource_summary")
    for name in observed_fields:
        value = getattr(reported, name)
        if value:
            update[name] = value
    taints = condition_taints(ready, cluster.spec.taints, _since(ready, ready_reported, heartbeat, config))
    return cluster.model_copy(
        update={
            "status": cluster.status.model_copy(update=update),
            "spec": cluster.spec.model_copy(update={"taints": taints}),
        }
    )


def _since(ready: str, reported: Condition | None, heartbeat: datetime, config: FailoverConfig) -> datetime:
    """When Ready took the status it has now: a stable time, so a silent cluster's taint does not look
    new on every run (and redo every binding's fingerprint)."""
    if reported is not None and ready == reported.status:
        return parse_time(reported.last_transition_time) if reported.last_transition_time else heartbeat
    grace = (
        config.cluster_monitor_grace_period_seconds
        if reported
        else config.cluster_startup_grace_period_seconds
    )
    return heartbeat + timedelta(seconds=grace)  # the moment the heartbeat went stale


def aggregated_status(
    identity: Identity, clusters: Iterable[str], observed: ObservedStatus, interpreter: ResourceInterpreter
) -> tuple[AggregatedStatusItem, ...]:
    """One item per cluster holding the manifest whose snapshot exists, sorted by cluster.

    Applied means the member cluster has the object (its GitOps agent synced it); an object not there is
    not applied, with health Unknown and no status, as Karmada records a Work that failed to apply.
    """
    items: list[AggregatedStatusItem] = []
    for cluster in sorted(set(clusters)):
        if not observed.observes(cluster):
            continue
        item = observed.object(cluster, identity)
        if item is None or item.observed is None:
            why = item.error if item is not None and item.error else "not found in the member cluster"
            items.append(
                AggregatedStatusItem(
                    cluster_name=cluster, applied=False, applied_message=why, health=ResourceHealth.UNKNOWN
                )
            )
            continue
        items.append(
            AggregatedStatusItem(
                cluster_name=cluster,
                applied=True,
                status=_reflected(interpreter, item.observed),
                health=interpreter.work_status_health(item.observed),
            )
        )
    return tuple(items)


def _reflected(interpreter: ResourceInterpreter, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    try:
        return interpreter.reflect_status(obj)
    except ResourceInterpretError:
        return None  # Karmada logs the failure and records the item without status


def template_status(
    template: Manifest,
    items: tuple[AggregatedStatusItem, ...],
    observed: ObservedStatus,
    interpreter: ResourceInterpreter,
    previous: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any] | None, Diagnostic | None]:
    """The template's status with its member statuses folded in (AggregateStatus); None when no cluster
    reported or the kind has no AggregateStatus hook, and a warning when the hook fails.

    Karmada folds into the template as the API server holds it, with the status it aggregated before;
    here that is ``previous`` (the record's last ``templateStatus``), else the template's own ``status``.
    So the rules that keep old values hold: a finished Job is never touched again (its conditions keep
    their times), an observedGeneration not yet reached everywhere stays. Conditions Karmada stamps with
    the current time get the newest heartbeat of the reporting clusters: the time of the observation.
    """
    if not items or not interpreter.hook_enabled(
        template.key.api_version, template.key.kind, Operation.AGGREGATE_STATUS
    ):
        return None, None
    heartbeats = [
        observed.snapshots[item.cluster_name].collected_at
        for item in items
        if item.cluster_name in observed.snapshots
    ]
    observed_at = max(heartbeats, key=parse_time) if heartbeats else None
    try:
        body = {**template.body, "status": dict(previous)} if previous else template.body
        result = interpreter.aggregate_status(body, items, now=observed_at)
    except ResourceInterpretError as err:
        return None, warning(
            f"the member clusters' status of {template.key} could not be aggregated: {err}",
            template.source,
            "status",
        )
    status = result.get("status")
    return (status if isinstance(status, dict) and status else None), None


def fully_applied_condition(
    items: Iterable[AggregatedStatusItem], targets: Iterable[str]
) -> Condition | None:
    """``FullyApplied``: True when every target cluster reported the object; None when none was observed."""
    by_cluster = {item.cluster_name: item for item in items}
    wanted = sorted(set(targets))
    if not by_cluster or not wanted:
        return None
    if all(name in by_cluster and by_cluster[name].applied for name in wanted):
        return Condition(
            type=FULLY_APPLIED,
            status="True",
            reason="FullyAppliedSuccess",
            message="All works have been successfully applied",
        )
    return Condition(
        type=FULLY_APPLIED,
        status="False",
        reason="FullyAppliedFailed",
        message="Failed to apply all works, see status.aggregatedStatus for details",
    )


def with_observed_clusters(
    inputs: Inputs, observed: ObservedStatus, now: str
) -> tuple[Inputs, list[Diagnostic]]:
    """``inputs`` whose clusters carry what their snapshots report at ``now``; a warning per snapshot of a
    cluster the inventory does not have (its status has nothing to attach to)."""
    moment = parse_time(now)
    config = inputs.config.failover
    known = {c.name for c in inputs.clusters}
    summary = inputs.config.status.use_resource_summary
    diagnostics = [
        warning(
            f"status snapshot of cluster {name!r} is ignored: the inventory has no such cluster",
            SourceRef(status_snapshot_path(name), 0),
        )
        for name in sorted(set(observed.snapshots) - known)
    ]
    clusters = tuple(
        observed_cluster(c, observed.snapshots.get(c.name), moment, config, resource_summary=summary)
        for c in inputs.clusters
    )
    return replace(inputs, clusters=clusters), diagnostics
