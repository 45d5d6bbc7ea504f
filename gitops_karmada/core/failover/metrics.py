"""The eviction queue's metrics of one run, under Karmada's names (v1.16, ``eviction_worker.go``). Pure.

The daemon adds them to its Prometheus registry run after run; ``render -o json`` shows one run's. The
latency is the time an eviction waited for its turn (a run carries it out as soon as its turn has come).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.failover.eviction_queue import BINDING_QUEUE, CLUSTER_BINDING_QUEUE

if TYPE_CHECKING:
    from gitops_karmada.core.failover.controllers import FailoverOutcome

QUEUES = (BINDING_QUEUE, CLUSTER_BINDING_QUEUE)
RESULTS = ("success", "error")
QUEUE_DEPTH = "eviction_queue_depth"
KIND_TOTAL = "eviction_kind_total"
PROCESSING_TOTAL = "eviction_processing_total"
PROCESSING_LATENCY = "eviction_processing_latency_seconds"


@dataclass(frozen=True, slots=True)
class EvictionMetrics:
    queue_depth: dict[str, int] = field(default_factory=dict)
    """Queue name → evictions waiting after the run."""
    kinds: dict[tuple[str, str], int] = field(default_factory=dict)
    """(member cluster, resource kind) → evictions carried out."""
    processing: dict[tuple[str, str], int] = field(default_factory=dict)
    """(queue name, success|error) → evictions whose turn came."""
    latencies: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Queue name → seconds each processed eviction waited."""

    def to_api(self) -> dict[str, list[dict[str, Any]]]:
        """Samples by metric name, each with its labels (Prometheus' data model, as JSON)."""
        return {
            QUEUE_DEPTH: [{"labels": {"name": q}, "value": n} for q, n in sorted(self.queue_depth.items())],
            KIND_TOTAL: [
                {"labels": {"member_cluster": c, "resource_kind": k}, "value": n}
                for (c, k), n in sorted(self.kinds.items())
            ],
            PROCESSING_TOTAL: [
                {"labels": {"name": q, "result": r}, "value": n}
                for (q, r), n in sorted(self.processing.items())
            ],
            PROCESSING_LATENCY: [
                {"labels": {"name": q}, "count": len(waits), "sum": round(sum(waits), 6)}
                for q, waits in sorted(self.latencies.items())
            ],
        }


def eviction_metrics(outcome: FailoverOutcome) -> EvictionMetrics:
    """What the failover controllers' run did to the eviction queue; every queue and result is listed,
    at 0 when nothing happened (as the daemon's series exist from the start)."""
    depth = Counter(dict.fromkeys(QUEUES, 0))
    depth.update(item.queue for item in outcome.queue.items)
    processing = Counter({(q, r): 0 for q in QUEUES for r in RESULTS})
    kinds: Counter[tuple[str, str]] = Counter()
    latencies: dict[str, list[float]] = {q: [] for q in QUEUES}
    for done in outcome.processed:
        item = done.item
        waited = (parse_time(done.at) - parse_time(item.enqueued_at)).total_seconds()
        latencies.setdefault(item.queue, []).append(max(waited, 0.0))
        failed = done in outcome.failed
        processing[(item.queue, "error" if failed else "success")] += 1
        if not failed:
            kinds[(item.cluster, item.resource_kind)] += 1
    return EvictionMetrics(
        queue_depth=dict(depth),
        kinds=dict(kinds),
        processing=dict(processing),
        latencies={q: tuple(waits) for q, waits in latencies.items()},
    )
