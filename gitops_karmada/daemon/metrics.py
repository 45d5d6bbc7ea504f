"""The daemon's Prometheus metrics (``/metrics``), on a registry of its own.

Names follow Prometheus conventions: the ``gitops_karmada_`` prefix, base units in the name
(``_seconds``), ``_total`` for counters, bounded label values; the eviction queue's keep Karmada's own
names, so Karmada dashboards read them.
"""

from __future__ import annotations

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
EVICTION_BUCKETS = tuple(0.001 * 2**k for k in range(15))
"""Karmada's: 1 ms doubling, 15 buckets."""


class DaemonMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.duration = Histogram(
            "gitops_karmada_reconcile_duration_seconds",
            "Wall-clock time of one reconcile run (read, render, commit, push).",
            buckets=DURATION_BUCKETS,
            registry=self.registry,
        )
        self.runs = Counter(
            "gitops_karmada_reconcile_runs_total",
            "Reconcile runs by result.",
            ["result"],
            registry=self.registry,
        )
        for result in RunResult:
            self.runs.labels(result=result.value)  # every series exists from the start, at 0
        self.last_success = Gauge(
            "gitops_karmada_last_success_timestamp_seconds",
            "Unix time of the last run that committed or found the branch up to date.",
            registry=self.registry,
        )
        self.lag = Gauge(
            "gitops_karmada_source_lag_seconds",
            "From the source commit's commit time to the end of the run that reconciled it.",
            registry=self.registry,
        )
        self.bindings = Gauge(
            "gitops_karmada_bindings",
            "Templates with a binding record, by whether they hold replicas.",
            ["workload"],
            registry=self.registry,
        )
        self.unmatched = Gauge(
            "gitops_karmada_templates_unmatched",
            "Templates that no propagation policy selects.",
            registry=self.registry,
        )
        self.refusals = Counter(
            "gitops_karmada_guardrail_refusals_total",
            "Commits refused by a guardrail.",
            registry=self.registry,
        )
        self.git_errors = Counter(
            "gitops_karmada_git_errors_total",
            "Failed git network operations.",
            ["operation"],
            registry=self.registry,
        )
        for operation in ("fetch", "push"):
            self.git_errors.labels(operation=operation)

        # the collector (--collect); member_cluster values are the clusters given with --collect: bounded
        self.collect_rounds = Counter(
            "gitops_karmada_collect_rounds_total",
            "Collection rounds by result: recorded (a status commit, pushed in remote mode), unchanged "
            "(nothing needed recording), error (nothing recorded; retried next interval).",
            ["result"],
            registry=self.registry,
        )
        for outcome in ("recorded", "unchanged", "error"):
            self.collect_rounds.labels(result=outcome)
        self.collect_errors = Counter(
            "gitops_karmada_collect_errors_total",
            "Clusters a round could not collect (not in the inventory, kubectl cannot use the kubeconfig).",
            ["member_cluster"],
            registry=self.registry,
        )
        # Karmada's own cluster status metric names (pkg/metrics/cluster.go)
        self.cluster_ready = Gauge(
            "cluster_ready_state",
            "State of the cluster (1 if ready, 0 otherwise), as last collected.",
            ["member_cluster"],
            registry=self.registry,
        )
        self.cluster_sync_duration = Histogram(
            "cluster_sync_status_duration_seconds",
            "Duration in seconds for collecting the status of the cluster once.",
            ["member_cluster"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
            registry=self.registry,
        )

        # Karmada's own eviction-queue metric names (v1.16, pkg/controllers/cluster/eviction_worker.go)
        self.eviction_queue_depth = Gauge(
            QUEUE_DEPTH,
            "Evictions waiting in the eviction queue.",
            ["name"],
            registry=self.registry,
        )
        self.eviction_kind = Counter(
            KIND_TOTAL,
            "Evictions carried out, by member cluster and resource kind.",
            ["member_cluster", "resource_kind"],
            registry=self.registry,
        )
        self.eviction_latency = Histogram(
            PROCESSING_LATENCY,
            "Time an eviction waited in the queue for its turn (a run processes it at once once its turn "
            "has come).",
            ["name"],
            buckets=EVICTION_BUCKETS,
            registry=self.registry,
        )
        self.eviction_processing = Counter(
            PROCESSING_TOTAL,
            "Evictions processed, by result.",
            ["name", "result"],
            registry=self.registry,
        )
        for name in QUEUES:
            self.eviction_queue_depth.labels(name=name).set(0)
            for outcome in RESULTS:
                self.eviction_processing.labels(name=name, result=outcome)

    def count_failover(self, outcome: FailoverOutcome) -> None:
        """The eviction queue after a run, and the evictions it processed."""
        done = eviction_metrics(outcome)
        for name, count in done.queue_depth.items():
            self.eviction_queue_depth.labels(name=name).set(count)
        for name, waits in done.latencies.items():
            for waited in waits:
                self.eviction_latency.labels(name=name).observe(waited)
        for (name, result), count in done.processing.items():
            self.eviction_processing.labels(name=name, result=result).inc(count)
        for (cluster, kind), count in done.kinds.items():
            self.eviction_kind.labels(member_cluster=cluster, resource_kind=kind).inc(count)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
