"""The daemon's Prometheus metrics (``/metrics``), on a registry of its own.

Names follow Prometheus conventions: the ``gitops_karmada_`` prefix, base units in the name
(``_seconds``), ``_total`` for counters, bounded label values.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from gitops_karmada.cli.watch.status import RunResult

DURATION_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


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

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
