"""What the daemon knows about itself and the fleet, as plain data the HTTP handlers read.

The worker thread replaces the snapshot after every run (``DaemonStatus.record``); handlers only read it,
under the lock, so a page never shows half a run.
"""

from __future__ import annotations

import enum
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.core.failover.controllers import PendingEviction

RECENT_RUNS = 20


class RunResult(enum.StrEnum):
    COMMITTED = "committed"
    UP_TO_DATE = "up_to_date"
    INVALID = "invalid"
    """The input has errors: reported once per source commit; the last good output stays."""
    REFUSED = "refused"
    """A guardrail refused the commit."""
    FAILED_TEMPLATES = "failed_templates"
    """Committed, but some templates failed and kept their previous placement."""
    ERROR = "error"
    """A temporary failure (network, lock, push race beyond retries): retried with backoff."""
    PREEMPTED = "preempted"
    """A run for a status report only, stopped because a user commit arrived: that commit runs next."""
    SUPERSEDED = "superseded"
    """Local mode: a push landed on the branch during the run, so its commit lost the compare-and-swap;
    nothing was written, and the new tip runs next (not a failure, no backoff)."""


WAITING = " (waiting)"
"""How the state index marks a cluster whose rollout wave is not reached."""


@dataclass(frozen=True, slots=True)
class WorkloadRow:
    """One template's row of the status page's grid: its placement as the state index records it, and what
    the clusters reported of it."""

    template: str
    policy: str
    replicas: Mapping[str, int]
    has_replicas: bool
    health: Mapping[str, str] = field(default_factory=dict)
    """Cluster → what it reported (Healthy, Unhealthy, Unknown, NotApplied); absent: nothing observed."""
    ready: str = ""
    """READY of the template's aggregated status (``3/5``), when known."""
    waves: Mapping[str, str] = field(default_factory=dict)
    """Cluster → its rollout wave (`` (waiting)``: it keeps the last promoted files), when a RolloutPolicy
    governs the template."""

    @property
    def rollout(self) -> str:
        """The waves reached, then those waiting, in one cell; empty when no RolloutPolicy governs it."""
        reached = sorted({w for w in self.waves.values() if not w.endswith(WAITING)})
        waiting = sorted({w.removesuffix(WAITING) for w in self.waves.values() if w.endswith(WAITING)})
        return ", ".join([*reached, *(f"{w} (waiting)" for w in waiting)])


@dataclass(frozen=True, slots=True)
class RunRecord:
    started: float
    """Unix time."""
    duration: float
    source: str
    result: RunResult
    commit: str = ""
    files_changed: int = 0
    pushed: bool = False
    moved: tuple[str, ...] = ()
    """Templates whose placement this run changed."""
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    failover: Failover | None = None
    """What the failover controllers left for later; None: the run did not get that far (nothing changes)."""


@dataclass(frozen=True, slots=True)
class Failover:
    """The evictions a later run makes unless the clusters recover, and when the controllers decide next."""

    pending: tuple[PendingEviction, ...] = ()
    due: str = ""
    """RFC 3339; empty: nothing is waiting. The daemon runs a reconcile at that time by itself."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    repository: str
    branch: str
    mode: str
    runs: tuple[RunRecord, ...] = ()
    """Newest first."""
    placements: tuple[WorkloadRow, ...] = ()
    clusters: tuple[str, ...] = ()
    reconciled: str = ""
    """The commit whose output the branch holds (the last good one)."""
    failing_since: float | None = None
    """Unix time of the first failure of the current streak of temporary errors (None when healthy)."""
    ready: bool = False
    busy_since: float | None = None
    """Unix time the run in progress started (None between runs): a run that hangs ends readiness too."""
    failover: Failover = Failover()
    """As the last run that got that far left it."""


@dataclass
class DaemonStatus:
    """The current snapshot, replaced atomically."""

    snapshot: Snapshot
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _runs: deque[RunRecord] = field(default_factory=lambda: deque(maxlen=RECENT_RUNS))

    def read(self) -> Snapshot:
        with self._lock:
            return self.snapshot

    def record(
        self,
        run: RunRecord,
        *,
        placements: tuple[WorkloadRow, ...] | None = None,
        clusters: tuple[str, ...] | None = None,
        reconciled: str | None = None,
    ) -> None:
        """Record a run, and the placements it left (``clusters``: every cluster they name, in order, when
        the caller keeps them; else collected here, outside the lock)."""
        if placements is not None and clusters is None:
            clusters = tuple(sorted(set().union(*(p.replicas for p in placements))))
        with self._lock:
            self._runs.appendleft(run)
            current = self.snapshot
            if placements is not None:
                current = replace(current, placements=placements, clusters=clusters or ())
            healthy = run.result is not RunResult.ERROR
            self.snapshot = replace(
                current,
                runs=tuple(self._runs),
                reconciled=reconciled if reconciled is not None else current.reconciled,
                failing_since=None if healthy else (current.failing_since or run.started),
                ready=current.ready or healthy,
                failover=run.failover if run.failover is not None else current.failover,
            )

    def run_started(self, when: float) -> None:
        with self._lock:
            self.snapshot = replace(self.snapshot, busy_since=when)

    def run_ended(self) -> None:
        with self._lock:
            self.snapshot = replace(self.snapshot, busy_since=None)

    def recovered(self) -> None:
        """A run found nothing to do after failures (the remote is back, the branch had not moved): the
        failure streak ends as it would with a commit."""
        with self._lock:
            self.snapshot = replace(self.snapshot, failing_since=None)

    def is_ready(self, now: float, retry_budget: float) -> bool:
        """Ready once a run has succeeded, while failures have lasted less than ``retry_budget``, and while
        the run in progress (a fetch that hangs) has lasted less than that too."""
        snapshot = self.read()
        if not snapshot.ready:
            return False
        if snapshot.busy_since is not None and now - snapshot.busy_since >= retry_budget:
            return False
        return snapshot.failing_since is None or now - snapshot.failing_since < retry_budget
