"""The v1.16 eviction queue: evictions wait their turn and leave at ``--resource-eviction-rate``.

Karmada's eviction workers (``eviction_worker.go``, ``dynamic_rate_limiter.go``) sleep
max(1/rate, the default controller limiter) after each processed item; a rate of 0 means one eviction
per 1,800 s. Karmada keeps the queue in memory; here it is a value the caller persists in the state, so
the pace holds across CLI runs and daemon restarts, and each run applies the items whose turn has come
by its ``now``. Only evictions wait here: a user's commit is reconciled at once whatever is queued.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_precise, parse_time, seconds

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import datetime

ZERO_RATE_PAUSE_SECONDS = 1800.0
DEFAULT_LIMITER_BASE_SECONDS = 0.005
"""The default controller limiter's first delay for an item (exponential failure limiter's base)."""
BINDING_QUEUE = "binding-eviction"
CLUSTER_BINDING_QUEUE = "cluster-binding-eviction"


def eviction_pause_seconds(rate: float) -> float:
    """The pause after each processed eviction: max(1/rate, the default limiter's delay)."""
    if rate <= 0:
        return ZERO_RATE_PAUSE_SECONDS
    return max(1.0 / rate, DEFAULT_LIMITER_BASE_SECONDS)


@dataclass(frozen=True, slots=True)
class QueuedEviction:
    """One binding to leave one cluster, waiting for its turn."""

    queue: str
    binding: str
    """``kind/namespace/name`` of the template."""
    cluster: str
    resource_kind: str
    enqueued_at: str
    failures: int = 0
    not_before: str = ""
    """Earliest retry after a failure (empty: as soon as its turn comes)."""


@dataclass(frozen=True, slots=True)
class EvictionQueue:
    """The pending evictions of one queue in order, and when the worker may take the next one."""

    items: tuple[QueuedEviction, ...] = ()
    next_free_at: str = ""
    """When the worker wakes from its last pause (empty: it is idle)."""

    def depth(self) -> int:
        return len(self.items)

    def pending(self, now: datetime) -> bool:
        """Whether the queue says anything a later run needs: items, or a pause not over at ``now``."""
        return bool(self.items) or (bool(self.next_free_at) and parse_time(self.next_free_at) > now)


@dataclass(frozen=True, slots=True)
class ProcessedEviction:
    item: QueuedEviction
    at: str
    """When its turn came: the eviction's time in the records."""


def enqueue(queue: EvictionQueue, items: Iterable[QueuedEviction]) -> EvictionQueue:
    """``queue`` with ``items`` appended, skipping ones already waiting (a workqueue de-duplicates keys)."""
    waiting = {(i.binding, i.cluster) for i in queue.items}
    added = [i for i in items if (i.binding, i.cluster) not in waiting]
    return replace(queue, items=(*queue.items, *added))


def due_evictions(
    queue: EvictionQueue, now: datetime, rate: float
) -> tuple[EvictionQueue, tuple[ProcessedEviction, ...]]:
    """Take the items whose turn has come by ``now``, one pause apart; return the rest and the taken.

    The worker takes an item when it is awake and the item is waiting (and past its retry time); each taken
    item puts the worker to sleep for one pause. The times are deterministic: they depend only on the
    queue and the rate, never on when the caller ran.
    """
    pause = seconds(eviction_pause_seconds(rate))
    free = parse_time(queue.next_free_at) if queue.next_free_at else None
    taken: list[ProcessedEviction] = []
    waiting = list(queue.items)
    while waiting:
        ready = [(i, _ready_at(item)) for i, item in enumerate(waiting)]
        index, ready_at = min(ready, key=lambda pair: (pair[1], pair[0]))
        turn = ready_at if free is None else max(free, ready_at)
        if turn > now:
            break
        item = waiting.pop(index)
        taken.append(ProcessedEviction(item, format_precise(turn)))
        free = turn + pause
    return EvictionQueue(tuple(waiting), format_precise(free) if free is not None else ""), tuple(taken)


def _ready_at(item: QueuedEviction) -> datetime:
    return parse_time(item.not_before or item.enqueued_at)


def requeue_failed(
    queue: EvictionQueue,
    failed: Sequence[ProcessedEviction],
    *,
    base_seconds: float = 5.0,
    cap_seconds: float = 1000.0,
) -> EvictionQueue:
    """Put failed evictions back with exponential backoff (5 s × 2^failures, at most 1,000 s)."""
    again = [
        replace(
            p.item,
            failures=p.item.failures + 1,
            not_before=format_precise(
                parse_time(p.at) + seconds(min(cap_seconds, base_seconds * 2**p.item.failures))
            ),
        )
        for p in failed
    ]
    return replace(queue, items=(*queue.items, *again))


def next_turn_seconds(queue: EvictionQueue, now: datetime) -> float | None:
    """Seconds until the next item's turn (None: the queue is empty)."""
    if not queue.items:
        return None
    free = parse_time(queue.next_free_at) if queue.next_free_at else None
    ready = min(_ready_at(i) for i in queue.items)
    turn = ready if free is None else max(free, ready)
    return max(0.0, (turn - now).total_seconds())
