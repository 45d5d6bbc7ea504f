"""The daemon's Prometheus metrics (``/metrics``), on a registry of its own.

Names follow Prometheus conventions: the ``gitops_karmada_`` prefix, base units in the name
(``_seconds``), ``_total`` for counters, bounded label values; the eviction queue's keep Karmada's own
names, so Karmada dashboards read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from gitops_karmada.cli.watch.status import RunResult
from gitops_karmada.core.failover.eviction_queue import BINDING_QUEUE, CLUSTER_BINDING_QUEUE
from gitops_karmada.core.failover.times import parse_time

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

        # Karmada's own eviction-queue metric names (v1.16, pkg/controllers/cluster/eviction_worker.go)
        self.eviction_queue_depth = Gauge(
            "eviction_queue_depth",
            "Evictions waiting in the eviction queue.",
            ["name"],
            registry=self.registry,
        )
        self.eviction_kind = Counter(
            "eviction_kind_total",
            "Evictions carried out, by member cluster and resource kind.",
            ["member_cluster", "resource_kind"],
            registry=self.registry,
        )
        self.eviction_latency = Histogram(
            "eviction_processing_latency_seconds",
            "Time an eviction waited in the queue for its turn (a run processes it at once once its turn "
            "has come).",
            ["name"],
            buckets=EVICTION_BUCKETS,
            registry=self.registry,
        )
        self.eviction_processing = Counter(
            "eviction_processing_total",
            "Evictions processed, by result.",
            ["name", "result"],
            registry=self.registry,
        )
        for name in (BINDING_QUEUE, CLUSTER_BINDING_QUEUE):
            self.eviction_queue_depth.labels(name=name).set(0)
            for outcome in ("success", "error"):
                self.eviction_processing.labels(name=name, result=outcome)

    def count_failover(self, outcome: FailoverOutcome) -> None:
        """The eviction queue after a run, and the evictions it processed."""
        depth = {BINDING_QUEUE: 0, CLUSTER_BINDING_QUEUE: 0}
        for item in outcome.queue.items:
            depth[item.queue] = depth.get(item.queue, 0) + 1
        for name, count in depth.items():
            self.eviction_queue_depth.labels(name=name).set(count)
        for done in outcome.processed:
            item = done.item
            waited = (parse_time(done.at) - parse_time(item.enqueued_at)).total_seconds()
            self.eviction_latency.labels(name=item.queue).observe(max(waited, 0.0))
            result = "error" if done in outcome.failed else "success"
            self.eviction_processing.labels(name=item.queue, result=result).inc()
            if result == "success":
                self.eviction_kind.labels(member_cluster=item.cluster, resource_kind=item.resource_kind).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
