"""The daemon's Prometheus metrics (``/metrics``), on a registry of its own, one frozen value per family.

Names follow Prometheus conventions: the ``gitops_karmada_`` prefix, base units in the name
(``_seconds``), ``_total`` for counters, bounded label values; the cluster status and eviction queue
families keep Karmada's own names, so Karmada dashboards read them. Families are registered in a fixed
order, which is the order of the exposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from gitops_karmada.core.failover.metrics import (
    KIND_TOTAL,
    PROCESSING_LATENCY,
    PROCESSING_TOTAL,
    QUEUE_DEPTH,
    QUEUES,
    RESULTS,
    eviction_metrics,
)
from gitops_karmada.daemon.status import RunResult

if TYPE_CHECKING:
    from gitops_karmada.core.failover.controllers import FailoverOutcome

DURATION_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
SYNC_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
EVICTION_BUCKETS = tuple(0.001 * 2**k for k in range(15))
"""Karmada's: 1 ms doubling, 15 buckets."""
COLLECT_ROUND_RESULTS = ("recorded", "unchanged", "error")
HTTP_REFUSALS = (
    "busy",
    "read_timeout",
    "headers_too_large",
    "body_too_large",
    "rate_limited",
    "unauthorized",
)
"""Why the HTTP server turned a request away (503, a dropped connection, 431, 413, 429, 401)."""
GIT_OPERATIONS = ("fetch", "push")


@dataclass(frozen=True, slots=True)
class ReconcileMetrics:
    """The worker's runs: how long they take, how they end, how far behind the source the branch is."""

    duration: Histogram
    runs: Counter
    last_success: Gauge
    lag: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> ReconcileMetrics:
        duration = Histogram(
            "gitops_karmada_reconcile_duration_seconds",
            "Wall-clock time of one reconcile run (read, render, commit, push).",
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        runs = Counter(
            "gitops_karmada_reconcile_runs_total", "Reconcile runs by result.", ["result"], registry=registry
        )
        for result in RunResult:
            runs.labels(result=result.value)  # every series exists from the start, at 0
        last_success = Gauge(
            "gitops_karmada_last_success_timestamp_seconds",
            "Unix time of the last run that committed or found the branch up to date.",
            registry=registry,
        )
        lag = Gauge(
            "gitops_karmada_source_lag_seconds",
            "From the source commit's commit time to the end of the run that reconciled it.",
            registry=registry,
        )
        return cls(duration, runs, last_success, lag)


@dataclass(frozen=True, slots=True)
class FleetMetrics:
    """What the last reconciled commit holds."""

    bindings: Gauge
    unmatched: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> FleetMetrics:
        return cls(
            bindings=Gauge(
                "gitops_karmada_bindings",
                "Templates with a binding record, by whether they hold replicas.",
                ["workload"],
                registry=registry,
            ),
            unmatched=Gauge(
                "gitops_karmada_templates_unmatched",
                "Templates that no propagation policy selects.",
                registry=registry,
            ),
        )


@dataclass(frozen=True, slots=True)
class FailureMetrics:
    """What kept a commit out or a remote unreached: guardrail refusals and git's network errors (the
    worker's and the collect loop's)."""

    refusals: Counter
    git_errors: Counter
    rewrites: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> FailureMetrics:
        refusals = Counter(
            "gitops_karmada_guardrail_refusals_total", "Commits refused by a guardrail.", registry=registry
        )
        git_errors = Counter(
            "gitops_karmada_git_errors_total",
            "Failed git network operations.",
            ["operation"],
            registry=registry,
        )
        for operation in GIT_OPERATIONS:
            git_errors.labels(operation=operation)
        rewrites = Counter(
            "gitops_karmada_remote_rewrites_total",
            "Fetches that found a branch rewritten (its previous commit no longer in its history).",
            ["branch"],
            registry=registry,
        )
        for branch in ("fleet", "status"):
            rewrites.labels(branch=branch)
        return cls(refusals, git_errors, rewrites)


@dataclass(frozen=True, slots=True)
class PushMetrics:
    """The worker's pushes to the remote (``daemon.push_gate``): those made, and the runs whose push was held
    back because the last push was less than ``--push-interval`` ago."""

    pushes: Counter
    held: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> PushMetrics:
        return cls(
            pushes=Counter(
                "gitops_karmada_pushes_total",
                "Pushes of the reconciled branch that reached the remote.",
                registry=registry,
            ),
            held=Counter(
                "gitops_karmada_pushes_held_back_total",
                "Runs whose commit was not pushed at once (the last push was less than --push-interval ago): "
                "it goes with the next push, when the interval is over.",
                registry=registry,
            ),
        )


@dataclass(frozen=True, slots=True)
class MaintenanceMetrics:
    """The worker's packing of its clone's objects between runs (every run leaves a pack and loose trees)."""

    runs: Counter
    duration: Histogram

    @classmethod
    def register(cls, registry: CollectorRegistry) -> MaintenanceMetrics:
        return cls(
            runs=Counter(
                "gitops_karmada_repository_maintenance_total",
                "Times the worker packed its clone's objects (past gc.autoPackLimit's 50 packs or gc.auto's "
                "6,700 loose objects, git's defaults).",
                registry=registry,
            ),
            duration=Histogram(
                "gitops_karmada_repository_maintenance_duration_seconds",
                "Wall-clock time of one packing of the clone's objects (no run is made meanwhile).",
                buckets=DURATION_BUCKETS,
                registry=registry,
            ),
        )


@dataclass(frozen=True, slots=True)
class CollectMetrics:
    """The collect loop (``--collect``); ``member_cluster`` values are the clusters given with ``--collect``,
    so bounded. The cluster status series keep Karmada's names (pkg/metrics/cluster.go)."""

    rounds: Counter
    errors: Counter
    cluster_ready: Gauge
    sync_duration: Histogram

    @classmethod
    def register(cls, registry: CollectorRegistry) -> CollectMetrics:
        rounds = Counter(
            "gitops_karmada_collect_rounds_total",
            "Collection rounds by result: recorded (a status commit, pushed in remote mode), unchanged "
            "(nothing needed recording), error (nothing recorded; retried next interval).",
            ["result"],
            registry=registry,
        )
        for outcome in COLLECT_ROUND_RESULTS:
            rounds.labels(result=outcome)
        errors = Counter(
            "gitops_karmada_collect_errors_total",
            "Clusters a round could not collect (not in the inventory, kubectl cannot use the kubeconfig).",
            ["member_cluster"],
            registry=registry,
        )
        cluster_ready = Gauge(
            "cluster_ready_state",
            "State of the cluster (1 if ready, 0 otherwise), as last collected.",
            ["member_cluster"],
            registry=registry,
        )
        sync_duration = Histogram(
            "cluster_sync_status_duration_seconds",
            "Duration in seconds for collecting the status of the cluster once.",
            ["member_cluster"],
            buckets=SYNC_BUCKETS,
            registry=registry,
        )
        return cls(rounds, errors, cluster_ready, sync_duration)


@dataclass(frozen=True, slots=True)
class EvictionQueueMetrics:
    """Karmada's own eviction-queue series (v1.16, pkg/controllers/cluster/eviction_worker.go)."""

    depth: Gauge
    kinds: Counter
    latency: Histogram
    processing: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> EvictionQueueMetrics:
        depth = Gauge(QUEUE_DEPTH, "Evictions waiting in the eviction queue.", ["name"], registry=registry)
        kinds = Counter(
            KIND_TOTAL,
            "Evictions carried out, by member cluster and resource kind.",
            ["member_cluster", "resource_kind"],
            registry=registry,
        )
        latency = Histogram(
            PROCESSING_LATENCY,
            "Time an eviction waited in the queue for its turn (a run processes it at once once its turn "
            "has come).",
            ["name"],
            buckets=EVICTION_BUCKETS,
            registry=registry,
        )
        processing = Counter(
            PROCESSING_TOTAL, "Evictions processed, by result.", ["name", "result"], registry=registry
        )
        for name in QUEUES:
            depth.labels(name=name).set(0)
            for outcome in RESULTS:
                processing.labels(name=name, result=outcome)
        return cls(depth, kinds, latency, processing)

    def count(self, outcome: FailoverOutcome) -> None:
        """The eviction queue after a run, and the evictions it processed."""
        done = eviction_metrics(outcome)
        for name, count in done.queue_depth.items():
            self.depth.labels(name=name).set(count)
        for name, waits in done.latencies.items():
            for waited in waits:
                self.latency.labels(name=name).observe(waited)
        for (name, result), count in done.processing.items():
            self.processing.labels(name=name, result=result).inc(count)
        for (cluster, kind), count in done.kinds.items():
            self.kinds.labels(member_cluster=cluster, resource_kind=kind).inc(count)


@dataclass(frozen=True, slots=True)
class HttpMetrics:
    """What the HTTP server turned away, by reason (``HTTP_REFUSALS``): a flood or a probe shows here."""

    refusals: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> HttpMetrics:
        refusals = Counter(
            "gitops_karmada_http_refusals_total",
            "Requests or connections the HTTP server turned away, by reason.",
            ["reason"],
            registry=registry,
        )
        for reason in HTTP_REFUSALS:
            refusals.labels(reason=reason)
        return cls(refusals)

    def refused(self, reason: str) -> None:
        self.refusals.labels(reason=reason).inc()


class DaemonMetrics:
    """Every family, on one registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.reconcile = ReconcileMetrics.register(self.registry)
        self.fleet = FleetMetrics.register(self.registry)
        self.failures = FailureMetrics.register(self.registry)
        self.push = PushMetrics.register(self.registry)
        self.maintenance = MaintenanceMetrics.register(self.registry)
        self.collect = CollectMetrics.register(self.registry)
        self.eviction = EvictionQueueMetrics.register(self.registry)
        self.http = HttpMetrics.register(self.registry)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
