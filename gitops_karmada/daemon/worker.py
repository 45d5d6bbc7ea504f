"""The daemon's worker: one reconcile at a time, coalescing, with backoff on temporary failures.

Triggers (a ref event, a webhook, SIGHUP, the poll interval) only set an event; the worker wakes, lets a
burst settle for ``debounce`` seconds, and reconciles the branch tip as it is then. A new commit on the
status branch (``collect``) is a trigger too: member clusters' reports drive failover. A burst of N commits is
one run of the newest. The tip the last run left (the daemon's own commit, or the source it could not
commit for) is remembered, so the daemon's own commits never start a run, and an invalid source commit is
reported once, not on every poll. Failover work the last reconcile left for later (a toleration running
out, the eviction queue's next turn: its ``Failover-Due`` trailer) wakes the worker at that time, so an
eviction happens when it is due although nothing was pushed.

Pushes are coalesced (``daemon.push_gate``): at most one per ``--push-interval`` to the remote. A run whose
push would come sooner commits locally and holds it; the worker wakes when the interval is over and pushes
the branch then, carrying every commit made meanwhile. A held commit stays the local tip while the remote
does not move; when it does (a user pushed), the held commit is dropped and the new tip reconciled, so the
next push carries the reconcile of the newest source commit. Stopping pushes what is held.

Several daemons on one remote need no lease: the push is a compare-and-swap of the remote branch. The loser
of a race fetches, finds the winner's reconcile commit on top of the same source, sees nothing to do
(``since_reconcile``) and commits nothing, so one source commit never gets two reconcile commits.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.fleet_config import read_config
from gitops_karmada.adapters.status_store import fetch_status_branch
from gitops_karmada.adapters.warm_state import WarmState
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.diff.placement import placement_of
from gitops_karmada.core.incremental.state_index import read_index
from gitops_karmada.core.layout import RepoLayout, branch_ref
from gitops_karmada.daemon.push_gate import PushGate
from gitops_karmada.daemon.status import DaemonStatus, Failover, RunRecord, RunResult, WorkloadRow
from gitops_karmada.model.errors import GitError, RunCancelled
from gitops_karmada.usecases.reconcile import ReconcileOutcome, push_branch, reconcile_and_push, reconcile_ref
from gitops_karmada.usecases.up_to_date import next_due

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.incremental.state_index import Identity, IndexEntry, StateIndex
    from gitops_karmada.daemon.metrics import DaemonMetrics
    from gitops_karmada.daemon.settings import WorkerSettings


class Worker:
    def __init__(
        self, store: GitStore, settings: WorkerSettings, status: DaemonStatus, metrics: DaemonMetrics
    ) -> None:
        self.store = store
        self.settings = settings
        self.status = status
        self.metrics = metrics
        self.lock = threading.Lock()
        """Held during a run; readers that must not see a half-written repository take it too."""
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._handled: str | None = None
        self._handled_status: str | None = None
        self._handled_due: str | None = None
        """The ``Failover-Due`` a run was already made for (a run that commits nothing leaves it in place)."""
        self._failures = 0
        self._remote_seen: str | None = None
        """Remote mode: the remote branch's commit at the last fetch (a rewrite of it is logged)."""
        self.warm = WarmState()
        """Decoded inputs and parsed index entries kept between runs (content-addressed: never stale)."""
        self._probe: UserCommitProbe | None = None
        """The probe of the status-only run in progress, if any: a trigger makes it ask at once."""
        self.push_gate = PushGate(settings.push_interval)
        self._push_held = False
        """A commit on the local branch waits for the push interval to end (``daemon.push_gate``)."""
        self._rows: dict[Identity, tuple[IndexEntry, WorkloadRow]] = {}
        """The status page's rows, each with the state index entry it was made of (``_placements``)."""
        self._order: list[Identity] = []
        """The rows' identities in the order of their templates' names."""
        self._clusters: Counter[str] = Counter()
        """How many rows place replicas on each cluster."""
        self._ran = False
        """The last turn of the loop made a run (a poll that found nothing to do writes no object)."""

    # -- control, from any thread ------------------------------------------------------------------------

    def trigger(self, reason: str) -> None:
        logger.bind(logger="watch", reason=reason).debug("wake up")
        self._wake.set()
        probe = self._probe
        if probe is not None:  # a webhook or ref event during a status run: is it a user commit?
            probe.poke()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- the loop ----------------------------------------------------------------------------------------

    def serve(self) -> None:
        """Run until ``stop``; the run in progress when it is called finishes first."""
        wait = 0.0  # the first run starts at once: a restarted daemon converges without a trigger
        while not self._stop.is_set():
            if wait > 0 and self._wake.wait(timeout=wait) and not self._stop.is_set():
                self._stop.wait(self.settings.debounce)  # let a burst of pushes settle into one run
            if self._stop.is_set():
                break
            self._wake.clear()
            wait = self._until_due(self._run_guarded())
            if wait > 0 and self._ran and not self._stop.is_set():
                self._maintain()  # a run wrote objects, and nothing is due at once
        self._push_on_stop()

    def _run_guarded(self) -> float:
        """One run; the delay before the next (the poll interval, the backoff after a failure, or none after
        a run that gave way to a user commit)."""
        started = time.time()
        self.status.run_started(started)
        self._ran = False
        try:
            with self.lock:
                result = self.run_once()
            self._ran = result is not None
        except Exception as err:  # the daemon must outlive any one run; the error is logged and retried
            return self._failed(err, started)
        finally:
            self.status.run_ended()
            # a child that died between runs (the Lua worker killed, OOM) is reaped now, not left a zombie
            # until a run needs it again
            multiprocessing.active_children()
        if self._failures and result is None:
            # the branch had not moved: a run that finds nothing to do ends the failure streak all the same
            log = logger.bind(logger="watch")
            log.info("recovered after {} failed run(s); nothing changed since", self._failures)
            self.status.recovered()
        self._failures = 0
        return 0.0 if result in (RunResult.PREEMPTED, RunResult.SUPERSEDED) else self.settings.interval

    def _maintain(self) -> None:
        """Pack the clone's objects when ``git gc --auto`` would (``pack_limit`` packs, ``loose_limit`` loose
        objects): every run leaves a pack and loose trees, and the daemon's own git commands never collect
        (``gc.auto=0``), so unpacked they would slow every later lookup. Under the run lock, between runs; a
        failure is logged and tried again after the next run."""
        log = logger.bind(logger="watch")
        try:
            loose, packs = self.store.object_counts()
            if packs < self.settings.pack_limit and loose < self.settings.loose_limit:
                return
            started = time.monotonic()
            with self.lock:
                self.store.maintenance()
            took = time.monotonic() - started
        except GitError as err:
            log.warning("could not pack the clone's objects: {}", err)
            return
        self.metrics.maintenance.runs.inc()
        self.metrics.maintenance.duration.observe(took)
        after_loose, after_packs = self.store.object_counts()
        log.bind(packs=packs, loose=loose, took=round(took, 2)).info(
            "packed the clone's objects: {} pack(s) and {} loose object(s) → {} and {} in {:.1f} s",
            packs,
            loose,
            after_packs,
            after_loose,
            took,
        )

    def _failed(self, err: Exception, started: float) -> float:
        """Log and record a failed run; the delay before the next (backoff)."""
        if self.stopping and isinstance(err, GitError):
            # SIGTERM abandoned the fetch, push or ls-remote in flight: not a failure of the remote
            logger.bind(logger="watch").info("stopping: the run in progress was abandoned ({})", err)
            return 0.0
        self._failures += 1
        delay = min(self.settings.backoff * 2.0 ** (self._failures - 1), self.settings.max_backoff)
        if isinstance(err, GitError) and err.operation in ("fetch", "push"):
            self.metrics.failures.git_errors.labels(operation=err.operation).inc()
        logger.bind(logger="watch", attempt=self._failures, retryIn=round(delay, 1)).opt(
            exception=not isinstance(err, GitError)
        ).error("reconcile failed, retrying in {:.1f} s: {}", delay, err)
        self._finish(RunRecord(started, time.time() - started, self._handled or "", RunResult.ERROR,
                               errors=(str(err),)))  # fmt: skip
        return delay

    def _until_due(self, wait: float) -> float:
        """``wait``, or less when failover or rollout work the last reconcile left falls due sooner."""
        if wait <= 0:
            return wait
        if self._push_held and not self._failures:
            # a held push goes when its interval is over, whatever else happens (after a failure: the backoff)
            wait = min(wait, self._push_wait() + 0.01)
        try:
            due = next_due(self.store, self.settings.ref)
            if due is None or due == self._handled_due:
                return wait
            left = (parse_time(due) - self.store.clock()).total_seconds()
        except (GitError, ValueError):
            return wait  # the next run reports what is wrong with the branch
        return min(wait, max(left, 0.0))

    def _fell_due(self, tip: str) -> str | None:
        """The earliest due trailer of ``tip``'s last reconcile, when it came and no run was made for it."""
        due = next_due(self.store, tip)
        if due is None or due == self._handled_due:
            return None
        try:
            return due if parse_time(due) <= self.store.clock() else None
        except ValueError:
            return None

    def run_once(self) -> RunResult | None:
        """Reconcile the branch tip unless it and the status branch are what the last run left and no
        failover work fell due since; None when there was nothing to do."""
        tip = self._tip()
        status = self._status_tip(tip)
        due = self._fell_due(tip)
        release = self._push_held and self._push_wait() <= 0
        if tip == self._handled and status == self._handled_status and due is None and not release:
            return None
        started, clock = time.time(), time.monotonic()
        hold = self.settings.push and self._push_wait() > 0
        run = reconcile_and_push if self.settings.push and not hold else reconcile_ref
        # user changes first: a run for a status report alone stops as soon as the branch moves
        probe = self._user_commit_probe(tip) if tip == self._handled else nullcontext(None)
        with probe as watching:
            self._probe = watching
            try:
                outcome = run(
                    self.store,
                    self.settings.ref,
                    allow=self.settings.allow,
                    warm=self.warm,
                    cancelled=None if watching is None else watching.arrived.is_set,
                )
            except RunCancelled:
                logger.bind(logger="watch", source=tip).info(
                    "a user commit arrived during a status run: that run stops, the commit is reconciled next"
                )
                self._finish(RunRecord(started, time.monotonic() - clock, tip, RunResult.PREEMPTED))
                return RunResult.PREEMPTED
            except GitError as err:
                if not self._superseded(err, tip):
                    raise
                self._finish(RunRecord(started, time.monotonic() - clock, tip, RunResult.SUPERSEDED))
                return RunResult.SUPERSEDED
            finally:
                self._probe = None
        self._count_push(outcome, held=hold)
        now = self.store.resolve(self.settings.ref)
        self._handled, self._handled_status = now, status
        if due is not None:
            self._handled_due = due
        if outcome.result is not None and outcome.result.failover is not None:
            self.metrics.eviction.count(outcome.result.failover)
        record = self._record(outcome, started, time.monotonic() - clock)
        wrote_nothing = record.result in (RunResult.INVALID, RunResult.REFUSED)  # the last good output stays
        # the index the run committed is the one at ``now``: the status rows are made of it, not read back
        written = outcome.result.index if outcome.result is not None and outcome.commit == now else None
        self._finish(record, reconciled=None if wrote_nothing else now, index=written)
        return record.result

    # -- pushes, at most one per interval ----------------------------------------------------------------

    @property
    def _push_remote(self) -> str:
        """The remote pushed to: ``--remote``, or (local mode with ``--push``) the branch's upstream."""
        if self.settings.remote is not None:
            return self.settings.remote
        upstream = self.store.upstream(self.settings.ref)
        return upstream[0] if upstream is not None else ""

    def _push_wait(self) -> float:
        return self.push_gate.wait(self._push_remote)

    def _count_push(self, outcome: ReconcileOutcome, *, held: bool) -> None:
        """Note a push made (the interval starts again) or held back (pushed when the interval is over)."""
        if outcome.pushed:
            self.push_gate.pushed(self._push_remote)
            self.metrics.push.pushes.inc()
            self._push_held = False
        elif held and outcome.commit is not None:
            self._push_held = True
            self.metrics.push.held.inc()
            wait = self._push_wait()
            logger.bind(logger="watch", commit=outcome.commit, pushIn=round(wait, 1)).info(
                "push of {} held back: the last push was less than {:g} s ago; it goes in {:.1f} s with the "
                "newest commit",
                outcome.commit[:12],
                self.push_gate.interval,
                wait,
            )

    def _push_on_stop(self) -> None:
        """Push a held commit before the daemon ends (a failure is logged: the next start reconciles and
        pushes again)."""
        if not self._push_held:
            return
        upstream = self.store.upstream(self.settings.ref)
        if upstream is None:
            return
        with self.lock:
            try:
                push_branch(self.store, self.settings.ref, upstream[0], upstream[1])
            except GitError as err:
                logger.bind(logger="watch").warning(
                    "stopping: the held commit was not pushed ({}); the next start reconciles and pushes", err
                )
                return
        self._push_held = False
        self.metrics.push.pushes.inc()
        logger.bind(logger="watch").info("stopping: pushed the held commit")

    def _superseded(self, err: GitError, tip: str) -> bool:
        """Whether ``err`` is the commit's compare-and-swap losing to a push that landed on the local branch
        during the run: not a failure, the new tip is reconciled next (remote mode re-renders in the push
        loop instead)."""
        if self.settings.remote is not None or not err.temporary or err.operation != "update-ref":
            return False
        now = self.store.try_resolve(self.settings.ref)
        if now is None or now == tip:
            return False
        logger.bind(logger="watch", source=tip, tip=now).info(
            "{} moved to {} during the run (a push landed): reconciling the new tip",
            self.settings.branch,
            now[:12],
        )
        return True

    def _tip(self) -> str:
        """The commit to reconcile: the local branch, or in remote mode the fetched remote branch (the local
        branch is moved there first; the daemon's clone holds no work of its own)."""
        ref = self.settings.ref
        if self.settings.remote is None:
            return self.store.resolve(ref)
        # a fetch that takes longer than a poll interval (at least 5 s) says so, every so often
        slow = max(self.settings.interval, 5.0)
        remote_tip = self.store.fetch(self.settings.remote, self.settings.branch, warn_after=slow)
        self._check_history("fleet", self._remote_seen, remote_tip)
        self._remote_seen = remote_tip
        local = self.store.resolve(ref)
        if local != remote_tip:
            if self._push_held and self.store.is_ancestor(remote_tip, local):
                return local  # the held commit, on the remote's tip: pushed when the interval is over
            # a held commit the remote moved past is dropped: the new tip is reconciled, and that is pushed
            self._push_held = False
            self.store.move_ref(ref=ref, old=local, new=remote_tip)
        return remote_tip

    def _check_history(self, branch: str, before: str | None, after: str | None) -> None:
        """Log (and count) a branch that moved to a commit whose history lacks the one it was at: the remote
        was force-pushed, or a local status commit is dropped for the remote's. The daemon follows."""
        if before is None or after is None or before == after or self.store.is_ancestor(before, after):
            return
        self.metrics.failures.rewrites.labels(branch=branch).inc()
        what = self.settings.branch if branch == "fleet" else "the status branch"
        logger.bind(logger="watch", branch=branch, before=before, after=after).warning(
            "{} of {} was rewritten: {} is not in the history of {} (a force push, or a local commit that "
            "never reached the remote); following the remote",
            what,
            self.settings.remote,
            before[:12],
            after[:12],
        )

    def _user_commit_probe(self, tip: str) -> UserCommitProbe:
        remote = self.settings.remote
        if remote is None:
            return UserCommitProbe(
                lambda: self.store.try_resolve(self.settings.ref), tip, min(self.settings.interval, 0.2)
            )
        # a held commit is the local tip, not the remote's: a user commit is one the remote has since
        seen = self._remote_seen if self._remote_seen is not None else tip
        return UserCommitProbe(
            lambda: self.store.remote_tip(remote, self.settings.branch), seen, self.settings.interval
        )

    def status_branch(self, tip: str) -> str:
        """The status branch the fleet at ``tip`` names (``status.branch``)."""
        config, _ = read_config(self.store, tip)
        return config.status.branch

    def _status_tip(self, tip: str) -> str | None:
        """The status branch's commit (in remote mode fetched first and kept locally): a new report is
        reason enough for a run, and the only clock failover knows."""
        branch = self.status_branch(tip)
        if self.settings.remote is not None:
            before = self.store.try_resolve(branch_ref(branch))
            fetched = fetch_status_branch(self.store, self.settings.remote, branch)
            self._check_history("status", before, fetched)
            return fetched
        return self.store.try_resolve(branch_ref(branch))

    # -- bookkeeping -------------------------------------------------------------------------------------

    def _record(self, outcome: ReconcileOutcome, started: float, duration: float) -> RunRecord:
        log = logger.bind(logger="watch", source=outcome.source, durationSeconds=round(duration, 3))
        result = outcome.result
        errors: tuple[str, ...] = ()
        warnings: tuple[str, ...] = ()
        if result is not None:
            errors = tuple(str(d) for d in result.diagnostics if d.is_error)
            warnings = tuple(str(d) for d in result.diagnostics if not d.is_error)
            unmatched = sum(
                1 for o in result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed
            )
            self.metrics.fleet.unmatched.set(unmatched)
        if outcome.up_to_date is not None:
            kind = RunResult.UP_TO_DATE
        elif result is None or not result.input_ok:
            kind = RunResult.INVALID
            for line in errors:
                log.error("{}", line)
            log.error(
                "source {} has input errors: nothing written; the last good output stays", outcome.source[:12]
            )
        elif outcome.refused:
            assert outcome.guard is not None
            kind = RunResult.REFUSED
            errors = tuple(f"{v.guardrail}: {v.detail}" for v in outcome.guard.violations)
            self.metrics.failures.refusals.inc()
            log.error("guardrails refused the commit for {}: {}", outcome.source[:12], "; ".join(errors))
        elif result.failed_templates:
            kind = RunResult.FAILED_TEMPLATES
        else:
            kind = RunResult.COMMITTED if outcome.commit else RunResult.UP_TO_DATE
        if kind in (RunResult.COMMITTED, RunResult.UP_TO_DATE, RunResult.FAILED_TEMPLATES):
            self.metrics.reconcile.last_success.set(time.time())
            lag = time.time() - self.store.commit_time(outcome.source).timestamp()
            self.metrics.reconcile.lag.set(max(lag, 0.0))
        # how much of the fleet the run redid: a large number for a small change says where the time went
        redone = sum(1 for o in result.outcomes if not o.reused) if result is not None else 0
        log.bind(result=kind.value, commit=outcome.commit or "", pushed=outcome.pushed, redone=redone).info(
            "reconciled {}: {}{}",
            outcome.source[:12],
            kind.value,
            f" {outcome.commit[:12]}" if outcome.commit else "",
        )
        return RunRecord(
            started=started,
            duration=duration,
            source=outcome.source,
            result=kind,
            commit=outcome.commit or "",
            files_changed=len(outcome.changes),
            pushed=outcome.pushed,
            errors=errors,
            warnings=warnings,
            failover=_failover(outcome),
        )

    def _finish(
        self, record: RunRecord, reconciled: str | None = None, index: StateIndex | None = None
    ) -> None:
        rows = self._placements(reconciled, index) if reconciled else None
        if rows is not None:
            record = replace(record, moved=rows.moved)
            for workload in (True, False):
                count = sum(1 for p in rows.placements if p.has_replicas is workload)
                self.metrics.fleet.bindings.labels(workload=str(workload).lower()).set(count)
        self.status.record(
            record,
            placements=rows.placements if rows is not None else None,
            clusters=rows.clusters if rows is not None else None,
            reconciled=reconciled,
        )
        # counted last: whoever sees the run counted sees its gauges and status too
        self.metrics.reconcile.duration.observe(record.duration)
        self.metrics.reconcile.runs.labels(result=record.result.value).inc()

    def _placements(self, commit: str, index: StateIndex | None = None) -> _Rows | None:
        """Every template's placement as the state index of ``commit`` records it (``index``: that index,
        when the run that committed it holds it), and what changed since the last rows."""
        if index is None:
            index = self._read_index(commit)
        if index is None:
            return None
        # a row made of the very entry object the last run's row was (an unchanged line of the index, parsed
        # once into the warm state) is that row: a one-template change makes one row, not 20,000; the order,
        # the clusters and what moved follow from the rows made and gone
        rows: dict[Identity, tuple[IndexEntry, WorkloadRow]] = {}
        made: list[tuple[WorkloadRow | None, WorkloadRow]] = []
        for identity, entry in index.entries.items():
            held = self._rows.get(identity)
            if held is None or held[0] is not entry:
                p = placement_of(identity, entry)
                row = WorkloadRow(
                    str(p.key),
                    p.policy,
                    dict(p.replicas),
                    p.has_replicas,
                    health=dict(entry.health),
                    ready=entry.ready,
                    waves=dict(entry.waves),
                )
                made.append((held[1] if held is not None else None, row))
                held = (entry, row)
            rows[identity] = held
        gone = [held[1] for identity, held in self._rows.items() if identity not in rows]
        for old, new in made:
            if old is not None:
                self._clusters.subtract(old.replicas.keys())
            self._clusters.update(new.replicas.keys())
        for old in gone:
            self._clusters.subtract(old.replicas.keys())
        if gone or any(old is None for old, _ in made):
            self._order = sorted(rows, key=lambda identity: rows[identity][1].template)
        self._rows = rows
        moved = sorted(new.template for old, new in made if old is None or old.replicas != new.replicas)
        return _Rows(
            placements=tuple(rows[identity][1] for identity in self._order),
            clusters=tuple(sorted(c for c, n in self._clusters.items() if n > 0)),
            moved=(*moved, *sorted(old.template for old in gone)),
        )

    def _read_index(self, commit: str) -> StateIndex | None:
        """The state index ``commit`` holds, parsed into the warm state's lines (the next run reads it)."""
        config, _ = read_config(self.store, commit)
        layout = RepoLayout.of(config)
        listed = self.store.list_entries(commit, [layout.index_dir, layout.legacy_index_path])
        found = self.store.read_blobs(sorted({e.oid for e in listed}))
        return read_index({e.path: found[e.oid] for e in listed}, layout, self.warm.index_lines)


@dataclass(frozen=True, slots=True)
class _Rows:
    """The status page's placements after a run, the clusters they name, and the templates that moved."""

    placements: tuple[WorkloadRow, ...]
    clusters: tuple[str, ...]
    moved: tuple[str, ...]
    """Templates whose replicas changed, then those gone, each in name order."""


def _failover(outcome: ReconcileOutcome) -> Failover | None:
    """What the run's failover controllers left for later; None when the run decided nothing (up to date,
    or refused for its input)."""
    result = outcome.result
    if result is None or not result.input_ok:
        return None
    if result.failover is None:
        return Failover()
    return Failover(result.failover.pending, outcome.failover_due or "")


class UserCommitProbe:
    """During a run: asks every ``interval`` seconds, and at once when poked, where the branch is (``look``),
    and sets ``arrived`` once it is no longer at ``tip``. A failed question is asked again; it never stops the
    run."""

    def __init__(self, look: Callable[[], str | None], tip: str, interval: float) -> None:
        self.arrived = threading.Event()
        self._look = look
        self._tip = tip
        self._interval = max(interval, 0.05)
        self._done = threading.Event()
        self._asked = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="user-commit-probe", daemon=True)

    def __enter__(self) -> UserCommitProbe:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._done.set()
        self._asked.set()
        self._thread.join()

    def poke(self) -> None:
        """Ask now (a webhook or a ref event said something was pushed), not at the next interval."""
        self._asked.set()

    def _poll(self) -> None:
        while True:
            self._asked.wait(self._interval)
            if self._done.is_set():
                return
            self._asked.clear()
            try:
                now = self._look()
            except GitError as err:
                logger.bind(logger="watch").debug("could not ask where the branch is: {}", err)
                continue
            if now != self._tip:
                self.arrived.set()
                return
