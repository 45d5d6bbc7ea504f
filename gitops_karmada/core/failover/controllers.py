"""One pass of Karmada's failover controllers over the previous bindings, before scheduling.

Karmada's taint manager, application failover controller and graceful eviction controller each edit a
binding's spec (a cluster leaves ``spec.clusters``, a ``gracefulEvictionTask`` is added or ends); the
scheduler then reacts to the edited binding, never placing it on a cluster with a task. This pass does
the same to the previous run's records, in that order, as of ``now``; the pipeline then schedules and
renders the edited bindings like any other. What Karmada keeps in memory is state here: the
first-seen-unhealthy times live in the binding record (an annotation) and the eviction queue in the
state folder, so the decisions of a run depend only on its inputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import UNHEALTHY_SINCE_ANNOTATION
from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.failover.application import (
    AFTER_DEADLINE_SECONDS,
    DEFAULT_TOLERATION_SECONDS,
    ApplicationFailoverResult,
    run_application_failover,
)
from gitops_karmada.core.failover.evict import graceful_evict_cluster
from gitops_karmada.core.failover.eviction_queue import (
    BINDING_QUEUE,
    CLUSTER_BINDING_QUEUE,
    EvictionQueue,
    ProcessedEviction,
    QueuedEviction,
    due_evictions,
    enqueue,
    next_turn_seconds,
    requeue_failed,
)
from gitops_karmada.core.failover.graceful import assess_eviction_tasks
from gitops_karmada.core.failover.state import StatePreservationError, build_preserved_label_state
from gitops_karmada.core.failover.taints import default_tolerations, no_execute_decision, taint_eviction_task
from gitops_karmada.core.interpreter import Operation
from gitops_karmada.core.layout import key_of_identity
from gitops_karmada.core.observed.fold import aggregated_status

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.core.diff.model import GuardrailViolation
    from gitops_karmada.core.interpreter import ResourceInterpreter
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.model.bindings import AggregatedStatusItem, ResourceBinding, ResourceBindingSpec
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.config import FailoverConfig

Identity = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class FailoverSettings:
    now: datetime
    config: FailoverConfig
    taint_eviction: bool
    """The taint manager evicts: gate Failover, enableTaintManager and enableNoExecuteTaintEviction."""
    application: bool
    """The application failover controller runs (gate Failover)."""
    graceful_eviction_gate: bool
    injection_gate: bool


@dataclass(frozen=True, slots=True)
class FailoverEvent:
    """Something the controllers did to one binding, for the run's report and the log."""

    identity: Identity
    cluster: str
    what: str
    """``evicted``, ``queued``, ``purged`` or ``failed``."""
    message: str

    @property
    def template(self) -> str:
        return _label(self.identity)


@dataclass(frozen=True, slots=True)
class PendingEviction:
    """A workload the failover controllers will evict from a cluster unless the cluster recovers first."""

    identity: Identity
    cluster: str
    due: str
    """When (RFC 3339): its toleration runs out, or its turn in the eviction queue comes."""
    reason: str

    @property
    def template(self) -> str:
        return _label(self.identity)

    def to_dict(self) -> dict[str, str]:
        return {"template": self.template, "cluster": self.cluster, "due": self.due, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class FailoverOutcome:
    bindings: Mapping[Identity, ResourceBinding]
    """The bindings the controllers changed, as they left them."""
    queue: EvictionQueue
    events: tuple[FailoverEvent, ...] = ()
    requeue_after_seconds: float | None = None
    """When a later run would decide more (a toleration or grace period ends, the queue's next turn)."""
    observed_items: Mapping[Identity, tuple[AggregatedStatusItem, ...]] = field(default_factory=dict)
    seen: frozenset[Identity] = frozenset()
    """The bindings the controllers looked at (the others have nothing for them)."""
    processed: tuple[ProcessedEviction, ...] = ()
    """Evictions the queue gave their turn in this run."""
    failed: tuple[ProcessedEviction, ...] = ()
    """Those of ``processed`` that could not be carried out (re-queued with backoff)."""
    pending: tuple[PendingEviction, ...] = ()
    """The evictions a later run will make unless the clusters recover: by due time, then template."""


def unhealthy_since(binding: ResourceBinding) -> dict[str, str]:
    raw = binding.metadata.annotations.get(UNHEALTHY_SINCE_ANNOTATION)
    if not raw:
        return {}
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _with_memory(binding: ResourceBinding, memory: Mapping[str, str]) -> ResourceBinding:
    annotations = {k: v for k, v in binding.metadata.annotations.items() if k != UNHEALTHY_SINCE_ANNOTATION}
    if memory:
        annotations[UNHEALTHY_SINCE_ANNOTATION] = json.dumps(
            dict(sorted(memory.items())), separators=(",", ":")
        )
    return binding.model_copy(
        update={
            "metadata": binding.metadata.model_copy(update={"annotations": dict(sorted(annotations.items()))})
        }
    )


def _label(identity: Identity) -> str:
    """``Kind.group/namespace/name``: how a template is named everywhere (``ObjectKey.__str__``)."""
    return str(key_of_identity(identity))


class _Pass:
    def __init__(
        self,
        bindings: Mapping[Identity, ResourceBinding],
        clusters: Mapping[str, Cluster],
        observed: ObservedStatus | None,
        interpreter: ResourceInterpreter,
        settings: FailoverSettings,
    ) -> None:
        self.bindings = bindings
        self.clusters = clusters
        self.observed = observed
        self.interpreter = interpreter
        self.settings = settings
        self.events: list[FailoverEvent] = []
        self.requeue: list[float] = []
        self.pending: list[PendingEviction] = []
        self.items: dict[Identity, tuple[AggregatedStatusItem, ...]] = {}

    def observed_items(
        self, identity: Identity, spec: ResourceBindingSpec
    ) -> tuple[AggregatedStatusItem, ...]:
        if identity not in self.items:
            binding = self.bindings[identity]
            if self.observed is None:
                self.items[identity] = binding.status.aggregated_status
            else:
                clusters = {c.name for c in spec.clusters} | {
                    t.from_cluster for t in spec.graceful_eviction_tasks
                }
                self.items[identity] = aggregated_status(identity, clusters, self.observed, self.interpreter)
        return self.items[identity]

    def taint_wants(self) -> list[QueuedEviction]:
        """Every (binding, cluster) the taint manager would evict now; remember the earliest later one."""
        wants: list[QueuedEviction] = []
        now = self.settings.now
        for identity, binding in sorted(self.bindings.items()):
            placement = binding.spec.placement
            if placement is None:
                # Karmada reads the applied placement; a binding without one (an attached dependency,
                # which follows the bindings requiring it) is never evicted by the taint manager
                continue
            tolerations = default_tolerations(
                placement.cluster_tolerations,
                not_ready_seconds=self.settings.config.default_not_ready_toleration_seconds,
                unreachable_seconds=self.settings.config.default_unreachable_toleration_seconds,
            )
            for target in binding.spec.clusters:
                cluster = self.clusters.get(target.name)
                if cluster is None:
                    continue
                decision = no_execute_decision(cluster.spec.taints, tolerations, now)
                if decision.evict:
                    wants.append(
                        QueuedEviction(
                            queue=BINDING_QUEUE if identity[2] else CLUSTER_BINDING_QUEUE,
                            binding=_label(identity),
                            cluster=target.name,
                            resource_kind=identity[1],
                            enqueued_at=format_time(now),
                        )
                    )
                elif decision.evict_after_seconds is not None:
                    self.requeue.append(decision.evict_after_seconds)
                    self.pending.append(
                        PendingEviction(
                            identity,
                            target.name,
                            format_time(now + seconds(decision.evict_after_seconds)),
                            "a NoExecute taint it tolerates only until then",
                        )
                    )
        return wants

    def evict_for_taint(
        self, identity: Identity, spec: ResourceBindingSpec, turn: ProcessedEviction
    ) -> ResourceBindingSpec:
        cluster = turn.item.cluster
        task = taint_eviction_task(spec.failover, self.settings.config.no_execute_taint_eviction_purge_mode)
        preservation = (
            spec.failover.cluster.state_preservation if spec.failover and spec.failover.cluster else None
        )
        if self.settings.injection_gate and preservation is not None and preservation.rules:
            item = next((i for i in self.observed_items(identity, spec) if i.cluster_name == cluster), None)
            if item is None or item.status is None:
                raise StatePreservationError(
                    f"the application status has not yet been collected from Cluster({cluster})"
                )
            labels = build_preserved_label_state(preservation.rules, item.status)
            task = task.model_copy(update={"preserved_label_state": labels})
        # metav1.Time: whole seconds, as Karmada writes it
        task = task.model_copy(update={"creation_timestamp": format_time(parse_time(turn.at))})
        self.events.append(
            FailoverEvent(
                identity,
                cluster,
                "evicted",
                f"a NoExecute taint it does not tolerate (purgeMode {task.purge_mode})",
            )
        )
        return graceful_evict_cluster(spec, cluster, task)


def run_failover(
    bindings: Mapping[Identity, ResourceBinding],
    clusters: Mapping[str, Cluster],
    observed: ObservedStatus | None,
    interpreter: ResourceInterpreter,
    queue: EvictionQueue,
    settings: FailoverSettings,
) -> FailoverOutcome:
    """The taint manager (through the rate-limited eviction queue), application failover, then graceful
    eviction, over ``bindings``; returns the bindings they changed and the queue as they left it."""
    run = _Pass(bindings, clusters, observed, interpreter, settings)
    now = settings.now
    specs: dict[Identity, ResourceBindingSpec] = {i: b.spec for i, b in bindings.items()}
    memories: dict[Identity, dict[str, str]] = {i: unhealthy_since(b) for i, b in bindings.items()}
    by_label = {_label(i): i for i in bindings}
    if settings.taint_eviction:
        wants = run.taint_wants()
        wanted = {(w.binding, w.cluster) for w in wants}
        # an item whose eviction is no longer needed (taint gone, toleration added, binding gone) leaves
        # the queue unprocessed, as the worker's re-check would drop it
        queue = EvictionQueue(
            tuple(i for i in queue.items if (i.binding, i.cluster) in wanted), queue.next_free_at
        )
        queue = enqueue(queue, wants)
        queue, taken = due_evictions(queue, now, settings.config.resource_eviction_rate)
        failed: list[ProcessedEviction] = []
        for turn in taken:
            identity = by_label[turn.item.binding]
            try:
                specs[identity] = run.evict_for_taint(identity, specs[identity], turn)
            except StatePreservationError as problem:
                failed.append(turn)
                run.events.append(FailoverEvent(identity, turn.item.cluster, "failed", str(problem)))
        queue = requeue_failed(queue, failed)
        processed, not_done = tuple(taken), tuple(failed)
        after = next_turn_seconds(queue, now)
        for item in queue.items:
            run.events.append(
                FailoverEvent(
                    by_label[item.binding], item.cluster, "queued", "waits for its turn in the eviction queue"
                )
            )
            when = format_time(now + seconds(after)) if after is not None else format_time(now)
            run.pending.append(
                PendingEviction(by_label[item.binding], item.cluster, when, "its turn in the eviction queue")
            )
        if after is not None:
            run.requeue.append(after)
    else:
        queue = EvictionQueue()
        processed, not_done = (), ()
    for identity, binding in sorted(bindings.items()):
        spec = specs[identity]
        changed_here = spec != binding.spec
        wants_application = spec.failover is not None and spec.failover.application is not None
        if settings.application and not wants_application:
            memories[identity] = {}  # not subject to application failover: nothing to remember
        elif settings.application:
            result = run_application_failover(
                spec,
                run.observed_items(identity, binding.spec),
                now=now,
                unhealthy_since=memories[identity],
                health_hook=interpreter.hook_enabled(
                    binding.spec.resource.api_version, binding.spec.resource.kind, Operation.INTERPRET_HEALTH
                ),
                cluster_scoped=not identity[2],
                graceful_eviction_gate=settings.graceful_eviction_gate,
                injection_gate=settings.injection_gate,
            )
            memories[identity] = dict(result.unhealthy_since) if not result.ignored else {}
            if result.error:
                run.events.append(FailoverEvent(identity, "", "failed", result.error))
            for cluster in result.evicted_clusters:
                run.events.append(
                    FailoverEvent(
                        identity,
                        cluster,
                        "evicted",
                        "the application stayed unhealthy past its tolerationSeconds",
                    )
                )
            if result.requeue_after_seconds:
                run.requeue.append(result.requeue_after_seconds)
            run.pending.extend(_application_pending(identity, spec, result, now))
            spec = result.spec
            changed_here = changed_here or bool(result.evicted_clusters)
        if spec.graceful_eviction_tasks:
            assessment = assess_eviction_tasks(
                spec.graceful_eviction_tasks,
                now=now,
                default_timeout_seconds=settings.config.graceful_eviction_timeout_seconds,
                # the scheduler has not seen a binding the controllers changed in this pass yet
                has_scheduled=not changed_here,
                schedule_result=spec.clusters,
                observed=run.observed_items(identity, binding.spec),
            )
            for cluster in assessment.evicted_clusters:
                run.events.append(
                    FailoverEvent(
                        identity, cluster, "purged", "the eviction ended: the copy kept there is removed"
                    )
                )
            if assessment.next_retry_seconds > 0:
                run.requeue.append(assessment.next_retry_seconds)
            spec = spec.model_copy(update={"graceful_eviction_tasks": assessment.kept})
        specs[identity] = spec
    changed: dict[Identity, ResourceBinding] = {}
    for identity, binding in bindings.items():
        spec, memory = specs[identity], memories[identity]
        if spec != binding.spec or memory != unhealthy_since(binding):
            changed[identity] = _with_memory(binding.model_copy(update={"spec": spec}), memory)
    return FailoverOutcome(
        bindings=changed,
        queue=queue,
        events=tuple(run.events),
        requeue_after_seconds=min(run.requeue) if run.requeue else None,
        observed_items=run.items,
        seen=frozenset(bindings),
        processed=processed,
        failed=not_done,
        pending=tuple(sorted(run.pending, key=lambda p: (parse_time(p.due), p.identity, p.cluster))),
    )


def _application_pending(
    identity: Identity, spec: ResourceBindingSpec, result: ApplicationFailoverResult, now: datetime
) -> list[PendingEviction]:
    """The clusters application failover will leave once their unhealthy time passes its toleration."""
    if result.ignored or result.error or spec.failover is None or spec.failover.application is None:
        return []
    toleration = spec.failover.application.decision_conditions.toleration_seconds
    toleration = DEFAULT_TOLERATION_SECONDS if toleration is None else toleration
    return [
        PendingEviction(
            identity,
            cluster,
            # evicted once the toleration has passed ("strictly after"): the next whole second
            format_time(max(parse_time(since) + seconds(toleration + AFTER_DEADLINE_SECONDS), now)),
            "the application stays unhealthy past its tolerationSeconds",
        )
        for cluster, since in sorted(result.unhealthy_since.items())
        if cluster not in result.evicted_clusters
    ]


def has_failover_business(binding: ResourceBinding) -> bool:
    """Whether the controllers must read this record on every run: it has eviction tasks, first-seen
    unhealthy times, or application failover in its spec."""
    failover = binding.spec.failover
    return bool(
        binding.spec.graceful_eviction_tasks
        or unhealthy_since(binding)
        or (failover is not None and failover.application is not None)
    )


def failover_digest(binding: ResourceBinding | None) -> Sequence[object]:
    """What of a binding the controllers own, for its fingerprint: its eviction tasks and memory."""
    if binding is None or not (binding.spec.graceful_eviction_tasks or unhealthy_since(binding)):
        return ()
    return (
        [
            t.model_dump(mode="json", by_alias=True, exclude_defaults=True)
            for t in binding.spec.graceful_eviction_tasks
        ],
        unhealthy_since(binding),
    )


def parse_queue(raw: Mapping[str, object] | None) -> EvictionQueue:
    """The eviction queue from its state file (absent or empty: an idle, empty queue)."""
    if not raw:
        return EvictionQueue()
    items = raw.get("items") or []
    assert isinstance(items, list)
    return EvictionQueue(
        tuple(
            QueuedEviction(
                queue=str(i["queue"]),
                binding=str(i["binding"]),
                cluster=str(i["cluster"]),
                resource_kind=str(i.get("resourceKind", "")),
                enqueued_at=str(i["enqueuedAt"]),
                failures=int(i.get("failures", 0)),
                not_before=str(i.get("notBefore", "")),
            )
            for i in items
        ),
        str(raw.get("nextFreeAt", "")),
    )


def queue_document(queue: EvictionQueue) -> dict[str, object]:
    return {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "EvictionQueue",
        "nextFreeAt": queue.next_free_at,
        "items": [
            {
                "queue": i.queue,
                "binding": i.binding,
                "cluster": i.cluster,
                "resourceKind": i.resource_kind,
                "enqueuedAt": i.enqueued_at,
                **({"failures": i.failures} if i.failures else {}),
                **({"notBefore": i.not_before} if i.not_before else {}),
            }
            for i in queue.items
        ],
    }


_EXCUSED_FOR_CLUSTERS = ("cluster-emptied",)
_EXCUSED_FOR_WORKLOADS = ("replicas-moved", "workload-removed")


def excuse_failover(
    violations: Sequence[GuardrailViolation], outcome: FailoverOutcome
) -> tuple[GuardrailViolation, ...]:
    """``violations`` without those the failover controllers caused: guardrails stop mistakes in the
    inputs, while an eviction is Karmada acting on what the clusters reported (it would not be stopped)."""
    acted = [e for e in outcome.events if e.what in ("evicted", "purged")]
    clusters = {e.cluster for e in acted}
    workloads = {_label(e.identity) for e in acted}
    return tuple(
        v
        for v in violations
        if not (v.guardrail.startswith(_EXCUSED_FOR_CLUSTERS) and v.subject in clusters)
        and not (v.guardrail.startswith(_EXCUSED_FOR_WORKLOADS) and v.subject in workloads)
    )
