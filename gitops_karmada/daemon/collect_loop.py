"""The daemon's collect loop (``watch --collect``): every interval, read each member cluster and record one
status commit with the snapshots that need it (``usecases.collect``).

A thread of its own, so a slow or silent cluster never holds a reconcile back: it takes no lock of the
worker's. The clusters of a round are read at once (``usecases.collect.observe_members``), so a hung one costs
the round one kubectl bound, not one per cluster; stopping kills the kubectl calls in flight. The worker
never writes the status branch in local mode, and every write of it is a compare-and-swap
(``record_snapshots``), so an external ``collect`` racing the daemon's is retried on top. In remote mode the
worker moves the local status branch to the remote's on each run; the loop records on the remote's fetched
tip and pushes its commit by id with a lease on that tip, so the local branch moving meanwhile costs at most
a rejected push and one more attempt.

The fleet commit read is the one the daemon last reconciled (its cluster folders are what the member
clusters should hold), or the branch tip before the first run. Nothing a round does may take the daemon
down: every failure is logged and the next round tries again.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.cluster_reader import Cancellation
from gitops_karmada.model.errors import GitError, GitopsKarmadaError
from gitops_karmada.usecases.collect import (
    FleetForCollect,
    Observation,
    RoundOutcome,
    fleet_at,
    observe_members,
    ready_of,
    record_round,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.daemon.metrics import DaemonMetrics
    from gitops_karmada.daemon.settings import CollectLoopSettings, WorkerSettings
    from gitops_karmada.daemon.status import DaemonStatus
    from gitops_karmada.model.status import ClusterStatusSnapshot


def utc_now() -> datetime:
    return datetime.now(UTC)


class CollectLoop:
    def __init__(
        self,
        store: GitStore,
        settings: CollectLoopSettings,
        worker: WorkerSettings,
        status: DaemonStatus,
        metrics: DaemonMetrics,
        on_recorded: Callable[[], None],
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.store = store
        self.settings = settings
        self.worker = worker
        """The worker's settings: the fleet branch and, in remote mode, the remote."""
        self.status = status
        self.metrics = metrics
        self.on_recorded = on_recorded
        """Called after a status commit was recorded (and pushed): wakes the worker."""
        self.clock = clock
        self._stop = threading.Event()
        self._cancellation = Cancellation()
        self._thread = threading.Thread(target=self._loop, name="collector", daemon=True)
        self._fleet: FleetForCollect | None = None
        self._ready: dict[str, str] = {}
        """Each cluster's last Ready status, to log a change once rather than every round."""
        self.log = logger.bind(logger="watch", component="collect")

    # -- control, from any thread ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._cancellation.cancel()

    def join(self) -> None:
        """Wait for the round in progress to give up (its kubectl calls are killed by ``stop``)."""
        self._thread.join(timeout=self.settings.stop_bound)
        if self._thread.is_alive():
            self.log.warning("the collector is still waiting for a cluster; stopping without it")

    # -- the loop ----------------------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            self.run_round_guarded()
            # an Event wait, not a sleep: SIGTERM ends the wait at once
            self._stop.wait(max(0.0, self.settings.interval - (time.monotonic() - started)))

    def run_round_guarded(self) -> str | None:
        """One round; its result (``recorded``, ``unchanged``, ``error``), None when stopped midway."""
        try:
            outcome = self.run_round()
        except Exception as err:  # the daemon must outlive any round: logged, retried next interval
            self.metrics.collect.rounds.labels(result="error").inc()
            self.log.opt(exception=not isinstance(err, GitopsKarmadaError)).error(
                "collection round failed, retrying in {:.1f} s: {}", self.settings.interval, err
            )
            if isinstance(err, GitError) and err.operation in ("fetch", "push"):
                self.metrics.failures.git_errors.labels(operation=err.operation).inc()
            return "error"
        if outcome is None:
            return None
        # no snapshot at all: no cluster could be collected, an error; otherwise nothing needed recording
        result = "recorded" if outcome.commit else "unchanged" if outcome.snapshots else "error"
        self.metrics.collect.rounds.labels(result=result).inc()
        return result

    def run_round(self) -> RoundOutcome | None:
        """Read every configured cluster, then record (and push) what needs recording; None when stopped."""
        fleet = self._fleet_now()
        if self._stop.is_set():
            return None
        observations = observe_members(
            self.store,
            fleet,
            self.settings.members,
            now=self.clock(),
            timeout=self.settings.timeout,
            margin=self.settings.margin,
            cancellation=self._cancellation,
        )
        if self._stop.is_set():
            return None
        observed = [s for o in observations if (s := self._observed(o)) is not None]
        if self._stop.is_set():
            return None
        if not observed:
            return RoundOutcome(())  # no cluster could be collected: nothing to record
        outcome = record_round(
            self.store,
            fleet.status_branch,
            observed,
            fleet_commit=fleet.commit,
            grace_seconds=fleet.grace_seconds,
            interval_seconds=self.settings.interval,
            remote=self.worker.remote,
        )
        self._report(outcome, fleet.status_branch)
        if outcome.commit:
            self.on_recorded()
        return outcome

    def _fleet_now(self) -> FleetForCollect:
        """The fleet as of the last reconciled commit (the branch tip before any)."""
        commit = self.status.read().reconciled or self.store.resolve(self.worker.ref)
        fleet = fleet_at(self.store, commit, self._fleet)
        if self._fleet is None or self._fleet.grace_seconds != fleet.grace_seconds:
            self._check_interval(fleet.grace_seconds)
        self._fleet = fleet
        return fleet

    def _check_interval(self, grace: float) -> None:
        """A heartbeat older than the grace period turns Ready Unknown: the interval must be shorter."""
        if self.settings.interval >= grace:
            self.log.warning(
                "--collect-interval {:g} s is not below failover.clusterMonitorGracePeriodSeconds ({:g} s): "
                "healthy clusters will turn Ready=Unknown between collections",
                self.settings.interval,
                grace,
            )

    def _observed(self, observation: Observation) -> ClusterStatusSnapshot | None:
        """One cluster's snapshot as read; None (and an error line) when it could not be collected."""
        member, err = observation.member, observation.error
        if err is not None:  # one cluster's problem never stops the others' collection
            self.metrics.collect.errors.labels(member_cluster=member.name).inc()
            self.log.bind(cluster=member.name).opt(exception=not isinstance(err, GitopsKarmadaError)).error(
                "cannot collect {}: {}", member.name, err
            )
            return None
        self.metrics.collect.sync_duration.labels(member_cluster=member.name).observe(observation.seconds)
        return observation.snapshot

    def _report(self, outcome: RoundOutcome, branch: str) -> None:
        for snapshot in outcome.snapshots:
            ready = ready_of(snapshot)
            self.metrics.collect.cluster_ready.labels(member_cluster=snapshot.cluster).set(
                1 if ready["status"] == "True" else 0
            )
            if self._ready.get(snapshot.cluster) != ready["status"]:
                self._ready[snapshot.cluster] = ready["status"]
                log = self.log.bind(cluster=snapshot.cluster)
                (log.info if ready["status"] == "True" else log.warning)(
                    "{} is Ready={} ({}: {})",
                    snapshot.cluster,
                    ready["status"],
                    ready["reason"],
                    ready["message"],
                )
        if outcome.commit is None:
            self.log.debug("collected {} cluster(s); nothing new to record", len(outcome.snapshots))
            return
        self.log.bind(
            statusCommit=outcome.commit, recorded=list(outcome.recorded), pushed=outcome.pushed
        ).info(
            "recorded {} on {} as {}{}",
            ", ".join(outcome.recorded),
            branch,
            outcome.commit[:12],
            " (pushed)" if outcome.pushed else "",
        )
