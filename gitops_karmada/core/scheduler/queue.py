"""Karmada's scheduling queue (``pkg/scheduler/internal/queue``), as far as an offline run needs it.

Upstream one worker takes bindings one at a time from a priority queue: the active queue pops the highest
``spec.schedulePriority.priority`` first (gate PriorityBasedScheduling; off: a plain FIFO), a binding whose
attempt failed waits in the backoff queue (ordered by the end of its backoff, v1.17+) or, when it was
unschedulable, in the unschedulable set; ``route_error`` says which. A run here has no clock between
templates, so what it takes from the queue is its order of scheduling; the backoff arithmetic and
the routing are kept for the vectors and for what ``explain`` says of a failed attempt.
Times are integer nanoseconds.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.errors import UnschedulableError

if TYPE_CHECKING:
    from collections.abc import Iterable


def backoff_duration(attempts: int, initial: int, maximum: int) -> int:
    """``calculateBackoffDuration``: 0 for no attempt, else ``initial`` doubled per further attempt, never
    above ``maximum`` (doubling stops as soon as it would pass it)."""
    if attempts <= 0:
        return 0
    duration = initial
    for _ in range(1, attempts):
        if duration > maximum - duration:
            return maximum
        duration += duration
    return min(duration, maximum)


def backoff_expiry(timestamp: int, attempts: int, initial: int, maximum: int) -> int:
    """``getBackoffTime``: when a binding pushed at ``timestamp`` after ``attempts`` attempts may retry."""
    return timestamp + backoff_duration(attempts, initial, maximum)


@dataclass(frozen=True, slots=True)
class QueuedBinding:
    key: str
    priority: int
    timestamp: int
    """When the binding entered its queue."""
    attempts: int = 0


def active_order(binding: QueuedBinding) -> tuple[int, int, str]:
    """The active queue's order: higher priority first, then the earlier timestamp (the key: a stable
    stand-in for Go's heap, which never compares equal items)."""
    return (-binding.priority, binding.timestamp, binding.key)


def pop_backoff_completed(
    queue: Iterable[QueuedBinding], now: int, initial: int, maximum: int
) -> tuple[list[QueuedBinding], list[QueuedBinding]]:
    """``flushBackoffQCompleted`` (v1.17+, back-ported to v1.16.3): pop from the backoff heap, ordered by the
    end of each binding's backoff and then by the active queue's order, while the head's backoff is over;
    returns (popped in pop order, still backing off)."""

    def order(binding: QueuedBinding) -> tuple[int, tuple[int, int, str]]:
        return (backoff_expiry(binding.timestamp, binding.attempts, initial, maximum), active_order(binding))

    heap = sorted(queue, key=order)
    done = [b for b in heap if order(b)[0] <= now]
    return done, heap[len(done) :]


class ErrorRoute(enum.StrEnum):
    """Where ``handleErr`` puts a binding after an attempt."""

    FORGET = "forget"
    """Scheduled (or its namespace is going away): out of the queue."""
    BACKOFF = "backoff"
    """A transient error: retried after its backoff (1 s doubling to 10 s by default)."""
    UNSCHEDULABLE = "unschedulable"
    """An UnschedulableError anywhere in the error's chain: retried on a cluster event or after 5 min."""


def route_error(error: BaseException | None) -> ErrorRoute:
    """``handleErr``: an error wrapping an UnschedulableError (``raise ... from``, Go's ``%w``) keeps its
    type through the wrapping (v1.18.0, back-ported to v1.16.5 and v1.17.2, made the callers wrap so)."""
    if error is None:
        return ErrorRoute.FORGET
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, UnschedulableError):
            return ErrorRoute.UNSCHEDULABLE
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return ErrorRoute.BACKOFF
